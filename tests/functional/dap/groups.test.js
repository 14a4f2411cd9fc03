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

// A line of a group's member template holds in every member; each member
// is a thread whose frames go up through the group.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const GROUP = h.template('group.yaml');
const MEMBER = h.template('member.yaml');

describe('a resource group', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

  it('a line of member.yaml holds in every member', async function () {
    const set = await h.launch(dc, rec, {
      template: GROUP, stack: h.stackName('dap-group'), endpoint: h.ENDPOINT,
    }, () => dc.setBreakpointsRequest({
      source: { path: MEMBER },
      breakpoints: [{ line: h.keyLine(MEMBER, 'inner') + 1 }] }));
    assert.strictEqual(set.body.breakpoints[0].verified, true);
    assert.strictEqual(set.body.breakpoints[0].line,
      h.keyLine(MEMBER, 'inner'));

    const stops = [await rec.next('stopped'), await rec.next('stopped')];
    const seen = [];
    for (const stopped of stops) {
      assert.strictEqual(stopped.body.reason, 'breakpoint');
      const frames = await h.frames(dc, stopped);
      const member = frames[0].name.match(/^group\/(\d)\/inner /);
      assert.ok(member, frames[0].name);
      seen.push(member[1]);
      assert.strictEqual(frames[0].source.path, MEMBER);
      assert.strictEqual(frames[0].line, h.keyLine(MEMBER, 'inner'));
      assert.strictEqual(frames[1].name, `group/${member[1]}`);
      assert.strictEqual(frames[1].source.path, GROUP);
      assert.strictEqual(frames[2].name, 'group');
      assert.strictEqual(frames[2].line, h.keyLine(GROUP, 'group'));
    }
    assert.deepStrictEqual(seen.sort(), ['0', '1']);
    const threads = (await dc.threadsRequest()).body.threads;
    assert.strictEqual(threads.length, 3);

    await dc.continueRequest({ threadId: stops[0].body.threadId });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
  });
});
