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

// The "failures" exception filter: a failing resource holds with its
// error; restartFrame runs its action again (it fails again: it holds
// again); continue lets it fail, and the session exits 1.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const FAN = h.template('fail_fan.yaml');

describe('the failures exception filter', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

  it('stops at f with its error, restartFrame retries it', async function () {
    const init = await dc.initializeRequest();
    assert.ok(init.body.exceptionBreakpointFilters.some(
      (f) => f.filter === 'failures'));
    const launched = dc.launchRequest({
      template: FAN, stack: h.stackName('dap-fail'), endpoint: h.ENDPOINT });
    await rec.next('initialized');
    await dc.setExceptionBreakpointsRequest({ filters: ['failures'] });
    await dc.configurationDoneRequest();
    await launched;

    const failed = await rec.next('stopped');
    assert.strictEqual(failed.body.reason, 'exception');
    assert.match(failed.body.description, /^f held on CREATE failure/);
    const info = await dc.exceptionInfoRequest({
      threadId: failed.body.threadId });
    assert.match(info.body.description, /Test Resource failed/);
    const [frame] = await h.frames(dc, failed);
    assert.strictEqual(frame.line, h.keyLine(FAN, 'f'));
    const vars = await h.scopes(dc, frame);
    assert.match(vars.Failure.error.value, /Test Resource failed/);

    await dc.restartFrameRequest({ frameId: frame.id });
    const again = await rec.next('stopped');
    assert.strictEqual(again.body.reason, 'exception');
    assert.notStrictEqual(again.body.threadId, failed.body.threadId);
    assert.match(rec.output, /f +\S+ +Breakpoint \S+ released \(retry\)/);

    await dc.continueRequest({ threadId: again.body.threadId });
    const exited = await rec.next('exited');
    assert.strictEqual(exited.body.exitCode, 1);
    assert.match(rec.output, /CREATE_FAILED/);
  });
});
