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

// Line breakpoints on a chain a -> b -> c: where they stop, what the
// Variables pane shows, next, continue, and a breakpoint set mid-run.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const CHAIN = h.template('chain.yaml');

describe('line breakpoints on a chain', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

  it('stops at b with its inputs, the hidden one masked; next stops at c',
    async function () {
      const bpLine = h.keyLine(CHAIN, 'b') + 2; // a line inside b's body
      const set = await h.launch(dc, rec, {
        template: CHAIN, stack: h.stackName('dap-b'), endpoint: h.ENDPOINT,
      }, () => dc.setBreakpointsRequest({
        source: { path: CHAIN }, breakpoints: [{ line: bpLine }] }));
      const bp = set.body.breakpoints[0];
      assert.strictEqual(bp.verified, true);
      assert.strictEqual(bp.line, h.keyLine(CHAIN, 'b'));

      const stopped = await rec.next('stopped');
      assert.strictEqual(stopped.body.reason, 'breakpoint');
      assert.deepStrictEqual(stopped.body.hitBreakpointIds, [bp.id]);
      const [frame] = await h.frames(dc, stopped);
      assert.strictEqual(frame.source.path, CHAIN);
      assert.strictEqual(frame.line, h.keyLine(CHAIN, 'b'));
      const vars = await h.scopes(dc, frame);
      assert.strictEqual(vars.Inputs.value.value, 'first');
      assert.strictEqual(vars.Inputs.update_replace_value.value, '******');
      assert.ok(!JSON.stringify(vars).includes('s3cret-dap'));
      assert.strictEqual(vars.Resource.action.value, 'CREATE');
      assert.strictEqual(vars.Resource.type.value, 'OS::Heat::TestResource');
      // Nested values expand: b requires a, c requires b.
      for (const [key, name] of [['requires', 'a'], ['required_by', 'c']]) {
        const inner = await dc.variablesRequest({
          variablesReference: vars.Resource[key].variablesReference });
        assert.deepStrictEqual(inner.body.variables.map((v) => v.value),
          [name], key);
      }
      assert.strictEqual(vars.Resource.when.value, 'before');
      const threads = await dc.threadsRequest();
      assert.ok(threads.body.threads.some(
        (t) => t.id === stopped.body.threadId && t.name.startsWith('b (')));

      await dc.nextRequest({ threadId: stopped.body.threadId });
      const stepped = await rec.next('stopped');
      assert.strictEqual(stepped.body.reason, 'step');
      const [next] = await h.frames(dc, stepped);
      assert.strictEqual(next.line, h.keyLine(CHAIN, 'c'));

      await dc.continueRequest({ threadId: stepped.body.threadId });
      const exited = await rec.next('exited');
      assert.strictEqual(exited.body.exitCode, 0);
      await rec.next('terminated');
      assert.match(rec.output, /CREATE_COMPLETE/);
    });

  it('holds at a breakpoint set while running; continue goes to it, then '
    + 'to the end', async function () {
    const set = await h.launch(dc, rec, {
      template: CHAIN, stack: h.stackName('dap-run'), endpoint: h.ENDPOINT,
    }, () => dc.setBreakpointsRequest({
      source: { path: CHAIN },
      breakpoints: [{ line: h.keyLine(CHAIN, 'a') }, { line: 1 }] }));
    const [onA, outside] = set.body.breakpoints;
    assert.strictEqual(onA.verified, true);
    assert.strictEqual(outside.verified, false);
    assert.match(outside.message, /line 1 is outside any resource/);

    const atA = await rec.next('stopped');
    assert.strictEqual((await h.frames(dc, atA))[0].line,
      h.keyLine(CHAIN, 'a'));
    // Added while the operation runs (held at a): armed in it.
    const again = await dc.setBreakpointsRequest({
      source: { path: CHAIN },
      breakpoints: [{ line: h.keyLine(CHAIN, 'a') },
        { line: h.keyLine(CHAIN, 'c') }] });
    assert.ok(again.body.breakpoints.every((b) => b.verified));

    await dc.continueRequest({ threadId: atA.body.threadId });
    const atC = await rec.next('stopped');
    assert.strictEqual(atC.body.reason, 'breakpoint');
    assert.strictEqual((await h.frames(dc, atC))[0].line,
      h.keyLine(CHAIN, 'c'));
    assert.match(rec.output, /b +CREATE_COMPLETE/); // b ran, did not hold
    // The stack event names the editor's verb, not clear's.
    assert.match(rec.output,
      /Breakpoint a released \(continue, breakpoints kept\)/);

    await dc.continueRequest({ threadId: atC.body.threadId });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
    await rec.next('terminated');
    assert.strictEqual(rec.pending('stopped'), 0);
  });

  it('a breakpoint removed while running holds no more', async function () {
    await h.launch(dc, rec, {
      template: CHAIN, stack: h.stackName('dap-off'), endpoint: h.ENDPOINT,
    }, () => dc.setBreakpointsRequest({
      source: { path: CHAIN },
      breakpoints: [{ line: h.keyLine(CHAIN, 'a') },
        { line: h.keyLine(CHAIN, 'c') }] }));
    const atA = await rec.next('stopped');
    await dc.setBreakpointsRequest({
      source: { path: CHAIN }, breakpoints: [{ line: h.keyLine(CHAIN, 'a') }] });
    assert.match(rec.output, /breakpoint c: disarmed/);
    await dc.continueRequest({ threadId: atA.body.threadId });
    assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
    assert.strictEqual(rec.pending('stopped'), 0);
    assert.match(rec.output, /c +CREATE_COMPLETE/);
  });
});
