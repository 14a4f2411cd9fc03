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

// stepIn on a nested stack resource stops in the nested file, at its
// first resource; the frames go up to the root template.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const ROOT = h.template('chain_nest.yaml');
const TIER = h.template('tier.yaml');

describe('stepping into a nested stack', function () {
  let dc; let rec;
  beforeEach(() => { ({ dc, rec } = h.client()); return dc.start(); });
  afterEach(() => dc.stop());

  it('stepIn on nest stops at inner_a in tier.yaml', async function () {
    await h.launch(dc, rec, {
      template: ROOT, stack: h.stackName('dap-in'), endpoint: h.ENDPOINT,
    }, () => dc.setBreakpointsRequest({
      source: { path: ROOT }, breakpoints: [{ line: h.keyLine(ROOT, 'nest') }] }));
    const atNest = await rec.next('stopped');
    assert.strictEqual((await h.frames(dc, atNest))[0].line,
      h.keyLine(ROOT, 'nest'));

    await dc.stepInRequest({ threadId: atNest.body.threadId });
    const inside = await rec.next('stopped');
    assert.strictEqual(inside.body.reason, 'step');
    const frames = await h.frames(dc, inside);
    assert.strictEqual(frames[0].source.path, TIER);
    assert.strictEqual(frames[0].line, h.keyLine(TIER, 'inner_a'));
    assert.match(frames[0].name, /^nest\/inner_a /);
    assert.strictEqual(frames[1].source.path, ROOT);
    assert.strictEqual(frames[1].line, h.keyLine(ROOT, 'nest'));
    // A parent frame shows what its template says of it.
    const parent = await h.scopes(dc, frames[1]);
    assert.strictEqual(parent.Resource.type.value, 'tier.yaml');

    await dc.continueRequest({ threadId: inside.body.threadId });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
  });
});
