// Licensed under the Apache License, Version 2.0 (the "License"); you may
// not use this file except in compliance with the License. You may obtain
// a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
// License for the specific language governing permissions and limitations
// under the License.

// attach joins an operation started from the CLI, sees what it holds,
// and leaves it as it is on disconnect.
'use strict';

const assert = require('assert');
const { execFileSync } = require('child_process');
const h = require('./helpers');

const CHAIN = h.template('chain.yaml');
const CLI = process.env.HEAT_BREAKPOINT || 'heat-breakpoint';
const ENV = Object.assign({}, process.env, {
  OS_AUTH_TYPE: 'none', OS_ENDPOINT: h.ENDPOINT });

function cli(...args) {
  return execFileSync(CLI, args, { env: ENV, encoding: 'utf8' });
}

describe('attach', function () {
  let dc; let rec;
  beforeEach(() => { ({ dc, rec } = h.client()); return dc.start(); });
  afterEach(() => (dc ? dc.stop() : null));

  it('sees the resource held for a stack created from the CLI',
    async function () {
      const name = h.stackName('dap-attach');
      cli('stack-create', '-f', CHAIN, '--breakpoint', 'b', name);
      await dc.initializeRequest();
      const attached = dc.attachRequest({
        stack: name, endpoint: h.ENDPOINT, template: CHAIN });
      await rec.next('initialized');
      await dc.configurationDoneRequest();
      await attached;

      const held = await rec.next('stopped');
      const [frame] = await h.frames(dc, held);
      assert.match(frame.name, /^b \(before CREATE\)/);
      assert.strictEqual(frame.line, h.keyLine(CHAIN, 'b'));
      const threads = await dc.threadsRequest();
      assert.deepStrictEqual(threads.body.threads.map((t) => t.name).sort(),
        ['b (before CREATE)', `stack ${name}`]);

      // The REPL speaks the watch prompt's words.
      const answer = await dc.evaluateRequest({
        expression: 'set c', context: 'repl' });
      assert.match(answer.body.result, /^c: armed/);
      await assert.rejects(dc.evaluateRequest({
        expression: 'nosuch', context: 'repl' }), /nosuch is not held/);
      const hover = await dc.evaluateRequest({
        expression: 'b', context: 'hover' });
      assert.match(hover.body.result, /^b: held/);

      await dc.disconnectRequest({});
      dc.stopAdapter();
      dc = null;
      const listed = cli('breakpoint-list', name, '--format', 'json');
      const rows = JSON.parse(listed);
      assert.ok(rows.some((r) => r.resource === 'b' && r.state === 'held'),
        listed);
      cli('breakpoint-continue', name);
    });
});
