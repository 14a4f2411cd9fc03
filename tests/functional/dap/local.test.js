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

// launch with neither cloud nor endpoint: the adapter starts its own
// local Heat, debugs on it, and stops it at the end (nothing left).
'use strict';

const assert = require('assert');
const fs = require('fs');
const net = require('net');
const h = require('./helpers');

const CHAIN = h.template('chain.yaml');

function processesWith(text) {
  const found = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch (err) {
      continue;
    }
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline}`);
  }
  return found;
}

function refused(port) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.on('connect', () => { sock.destroy(); resolve(false); });
    sock.on('error', () => resolve(true));
  });
}

describe('launch with no endpoint', function () {
  it('starts and stops its own local Heat', async function () {
    const { dc, rec } = h.client();
    await dc.start();
    await h.launch(dc, rec, { template: CHAIN, stack: 'local-dap' },
      () => dc.setBreakpointsRequest({
        source: { path: CHAIN }, breakpoints: [{ line: h.keyLine(CHAIN, 'b') }] }));
    const match = rec.output.match(/Local Heat ready at http:\/\/127\.0\.0\.1:(\d+)\//);
    assert.ok(match, rec.output);
    const port = Number(match[1]);
    const dirs = rec.output.match(/state in ([^)\s]+)/);
    assert.ok(dirs, rec.output);
    assert.strictEqual(processesWith(dirs[1]).length, 1);

    const atB = await rec.next('stopped');
    assert.strictEqual((await h.frames(dc, atB))[0].line, h.keyLine(CHAIN, 'b'));
    await dc.continueRequest({ threadId: atB.body.threadId });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
    // disconnect is answered at once; the server is stopped after it
    // (and after the SIGTERM DebugClient sends then, as VS Code does).
    await dc.stop();

    const deadline = Date.now() + 30000;
    while ((processesWith(dirs[1]).length || fs.existsSync(dirs[1])) &&
           Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(await refused(port), `port ${port} still answers`);
    assert.deepStrictEqual(processesWith(dirs[1]), []);
    assert.ok(!fs.existsSync(dirs[1]), `${dirs[1]} is left`);
  });
});
