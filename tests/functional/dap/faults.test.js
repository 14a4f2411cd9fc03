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

// The launch's "faults": rules of the local server's simulated cloud for
// this session. The server is refused once (a quota), the failures filter
// stops there with the cloud's words and the rule, restartFrame creates
// it; a rule that is wrong is one line, and nothing is launched.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const SERVERS = h.template('servers.yaml');

describe('fault rules in the launch configuration', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

  it('fails the server once, as the cloud would', async function () {
    await dc.initializeRequest();
    const launched = dc.launchRequest({
      template: SERVERS, stack: h.stackName('dap-faults'),
      endpoint: h.ENDPOINT,
      faults: [{ resource: 'web', action: 'CREATE', times: 1,
        failure: 'refused' }] });
    await rec.next('initialized');
    await dc.setExceptionBreakpointsRequest({ filters: ['failures'] });
    await dc.configurationDoneRequest();
    await launched;

    const failed = await rec.next('stopped');
    assert.strictEqual(failed.body.reason, 'exception');
    const info = await dc.exceptionInfoRequest({
      threadId: failed.body.threadId });
    assert.match(info.body.description, /Quota exceeded for instances/);
    assert.match(info.body.description, /simulated fault: rule \d+/);
    const [frame] = await h.frames(dc, failed);
    assert.strictEqual(frame.line, h.keyLine(SERVERS, 'web'));
    await dc.restartFrameRequest({ frameId: frame.id });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
  });

  it('refuses a wrong rule in one line, before any stack', async function () {
    await dc.initializeRequest();
    const stack = h.stackName('dap-bad-fault');
    const launched = dc.launchRequest({
      template: SERVERS, stack, endpoint: h.ENDPOINT,
      faults: [{ resource: 'web', action: 'REBOOT' }] });
    await rec.next('initialized');
    await dc.configurationDoneRequest();
    await assert.rejects(launched, (err) => {
      assert.match(err.message, /unknown action 'REBOOT'/);
      assert.ok(!err.message.includes('\n'), err.message);
      return true;
    });
  });
});
