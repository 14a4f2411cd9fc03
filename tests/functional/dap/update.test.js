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

// An update launched from the editor: a "replaced" condition stops only
// where Heat replaces, with the planned change; terminate rolls back. A
// delete launched from the editor holds too.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const PRN = h.template('prn.yaml');
const TWO = h.template('prn_two.env.yaml');

async function created(name) {
  const { dc, rec } = h.client();
  await dc.start();
  await h.launch(dc, rec, { template: PRN, stack: name, endpoint: h.ENDPOINT });
  assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
  await dc.stop();
}

function update(name, value) {
  return {
    template: PRN, stack: name, action: 'update', endpoint: h.ENDPOINT,
    parameters: { value },
  };
}

describe('an update from the editor', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

  it('condition replaced stops only at r, with the planned change',
    async function () {
      const name = h.stackName('dap-replace');
      await created(name);
      // The new value comes from an environment file this time.
      const args = Object.assign(update(name), { environment: [TWO] });
      delete args.parameters;
      const set = await h.launch(dc, rec, args,
        () => dc.setBreakpointsRequest({
          source: { path: PRN },
          breakpoints: ['p', 'r', 'u'].map((r) => ({
            line: h.keyLine(PRN, r), condition: 'replaced' })) }));
      assert.ok(set.body.breakpoints.every((b) => b.verified));

      const atR = await rec.next('stopped');
      assert.strictEqual(atR.body.reason, 'breakpoint');
      const [frame] = await h.frames(dc, atR);
      assert.strictEqual(frame.line, h.keyLine(PRN, 'r'));
      const vars = await h.scopes(dc, frame);
      const change = vars['Planned change'];
      assert.strictEqual(change.kind.value, 'replace');
      assert.match(change.summary.value, /replace \(forced by: value\)/);
      assert.match(change.summary.value, /value: "one" -> "two"/);

      await dc.continueRequest({ threadId: atR.body.threadId });
      assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
      assert.strictEqual(rec.pending('stopped'), 0);
      assert.match(rec.output, /UPDATE_COMPLETE/);
    });

  it('terminate cancels the update: Heat rolls it back', async function () {
    const name = h.stackName('dap-cancel');
    await created(name);
    await h.launch(dc, rec, update(name, 'three'),
      () => dc.setBreakpointsRequest({
        source: { path: PRN }, breakpoints: [{ line: h.keyLine(PRN, 'p') }] }));
    const atP = await rec.next('stopped');
    assert.strictEqual((await h.frames(dc, atP))[0].line, h.keyLine(PRN, 'p'));

    await dc.terminateRequest({});
    await rec.next('terminated');
    assert.match(rec.output, /cancelled the operation: Heat rolls it back/);
    assert.match(rec.output, /Stack \S+ ROLLBACK_COMPLETE/);
  });

  it('a delete holds at its breakpoint, stored first', async function () {
    const name = h.stackName('dap-delete');
    await created(name);
    await h.launch(dc, rec, {
      template: PRN, stack: name, action: 'delete', endpoint: h.ENDPOINT,
    }, () => dc.setBreakpointsRequest({
      source: { path: PRN }, breakpoints: [{ line: h.keyLine(PRN, 'u') }] }));
    const atU = await rec.next('stopped');
    const [frame] = await h.frames(dc, atU);
    assert.strictEqual(frame.name, 'u (before DELETE)');
    assert.strictEqual(frame.line, h.keyLine(PRN, 'u'));
    assert.match(rec.output, /stack update --existing/);
    await dc.continueRequest({ threadId: atU.body.threadId });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
    assert.match(rec.output, /DELETE_COMPLETE/);
  });
});
