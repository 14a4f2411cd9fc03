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

// Stop on a create does what `cancel` in `watch -i` does (the other half
// is tests/functional/test_cancel.py): Heat rolls no create back on
// request, so the create is stopped and the stack deleted, what is held
// released.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const CHAIN = h.template('chain.yaml');

describe('Stop on a create', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

  it('stops the create and deletes the stack, as watch\'s cancel does',
    async function () {
      const name = h.stackName('dap-stop');
      await h.launch(dc, rec, {
        template: CHAIN, stack: name, endpoint: h.ENDPOINT,
      }, () => dc.setBreakpointsRequest({
        source: { path: CHAIN }, breakpoints: [{ line: h.keyLine(CHAIN, 'b') }] }));
      const atB = await rec.next('stopped');
      assert.match(atB.body.description, /^b held before CREATE/);

      await dc.terminateRequest({});
      assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
      await rec.next('terminated');
      assert.match(rec.output, /cancelled the create: the stack is deleted/);
      assert.match(rec.output, /Stack \S+ DELETE_COMPLETE/);
      assert.strictEqual(await h.stackStatus(name), 'gone');
    });
});
