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
// first resource, the frames going up to the root template; stepOut;
// stopOnEntry; pause.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const ROOT = h.template('chain_nest.yaml');
const TIER = h.template('tier.yaml');
const TWO = h.template('two_tiers.yaml');
const CHAIN = h.template('chain.yaml');

describe('stepping, entry and pause', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

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

  it('a line of a file used twice holds in both; stepOut goes to the '
    + 'parent stack\'s next resource', async function () {
    const set = await h.launch(dc, rec, {
      template: TWO, stack: h.stackName('dap-out'), endpoint: h.ENDPOINT,
    }, () => dc.setBreakpointsRequest({
      source: { path: TIER },
      breakpoints: [{ line: h.keyLine(TIER, 'inner_a') }] }));
    assert.strictEqual(set.body.breakpoints[0].verified, true);

    const inTier = await rec.next('stopped');
    let frames = await h.frames(dc, inTier);
    assert.match(frames[0].name, /^tier\/inner_a /);
    assert.strictEqual(frames[1].line, h.keyLine(TWO, 'tier'));

    await dc.stepOutRequest({ threadId: inTier.body.threadId });
    const atApp = await rec.next('stopped');
    assert.strictEqual(atApp.body.reason, 'step');
    frames = await h.frames(dc, atApp);
    assert.strictEqual(frames[0].source.path, TWO);
    assert.strictEqual(frames[0].line, h.keyLine(TWO, 'app'));
    assert.match(rec.output, /tier +CREATE_COMPLETE/);

    await dc.continueRequest({ threadId: atApp.body.threadId });
    const inApp = await rec.next('stopped');
    assert.strictEqual(inApp.body.reason, 'breakpoint');
    frames = await h.frames(dc, inApp);
    assert.match(frames[0].name, /^app\/inner_a /);
    assert.strictEqual(frames[0].line, h.keyLine(TIER, 'inner_a'));
    assert.strictEqual(frames[1].line, h.keyLine(TWO, 'app'));

    await dc.continueRequest({ threadId: inApp.body.threadId });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
  });

  it('stopOnEntry holds the first resource; pause holds the ones not '
    + 'started', async function () {
    await h.launch(dc, rec, {
      template: CHAIN, stack: h.stackName('dap-pause'), endpoint: h.ENDPOINT,
      stopOnEntry: true,
    });
    const entry = await rec.next('stopped');
    assert.strictEqual(entry.body.reason, 'entry');
    assert.strictEqual((await h.frames(dc, entry))[0].line,
      h.keyLine(CHAIN, 'a'));

    await dc.pauseRequest({ threadId: 1 });
    assert.match(rec.output, /pause: holding b, c before they start/);
    await dc.continueRequest({ threadId: entry.body.threadId });
    const paused = await rec.next('stopped');
    assert.strictEqual(paused.body.reason, 'pause');
    assert.strictEqual((await h.frames(dc, paused))[0].line,
      h.keyLine(CHAIN, 'b'));
    // The Debug Console's "c": continue as the watch prompt means it,
    // no breakpoint holds for the rest of the operation.
    const answer = await dc.evaluateRequest({ expression: 'c',
      context: 'repl' });
    assert.match(answer.body.result, /^released b \(continue\)/);
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
    assert.strictEqual(rec.pending('stopped'), 0);
  });
});
