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

// Fix and go on from the editor: a template saved while stopped is
// applied at the next Continue (the planned change in the output first);
// an input set straight from a parameter is set in the Variables pane;
// a saved template Heat refuses keeps the session stopped; breakpoints
// in the edited file follow their resources to their new lines.
'use strict';

const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const h = require('./helpers');

const CHAIN = `heat_template_version: 2018-08-31
parameters:
  size: {type: string, default: "1"}
resources:
  first:
    type: OS::Heat::TestResource
    properties: {value: first}
  vol:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: size}
      update_replace_value: {get_attr: [first, output]}
  after:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [vol, output]}}
outputs:
  out: {value: {get_attr: [after, output]}}
`;

function copy() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dap-edit-'));
  const file = path.join(dir, 'app.yaml');
  fs.writeFileSync(file, CHAIN);
  return file;
}

async function output(name) {
  const answer = await fetch(`${h.ENDPOINT}/stacks/${name}`);
  const stack = (await answer.json()).stack;
  return [stack.stack_status,
    (stack.outputs || []).map((o) => o.output_value)];
}

async function stoppedAtVol(dc, rec, file, name) {
  await h.launch(dc, rec, { template: file, stack: name,
    endpoint: h.ENDPOINT },
  () => dc.setBreakpointsRequest({ source: { path: file },
    breakpoints: [{ line: h.keyLine(file, 'vol') }] }));
  return rec.next('stopped');
}

describe('fix and go on from the editor', function () {
  let dc; let rec;
  h.clientPerTest((made) => ({ dc, rec } = made));

  it('a template saved while stopped is applied at Continue',
    async function () {
      const file = copy();
      const name = h.stackName('dap-edit');
      const atVol = await stoppedAtVol(dc, rec, file, name);
      fs.writeFileSync(file, CHAIN.replace('{get_param: size}', 'fixed'));
      await dc.continueRequest({ threadId: atVol.body.threadId });
      assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
      assert.match(rec.output, /Planned change of stack \S+:\nupdated: vol/);
      assert.deepStrictEqual(await output(name),
        ['UPDATE_COMPLETE', ['fixed']]);
    });

  it('setVariable sets the parameter an input comes from',
    async function () {
      const file = copy();
      const name = h.stackName('dap-setvar');
      const atVol = await stoppedAtVol(dc, rec, file, name);
      const [frame] = await h.frames(dc, atVol);
      const vars = await h.scopes(dc, frame);
      assert.strictEqual(vars.Inputs.value.value, '1');
      assert.strictEqual(vars.Inputs.value.presentationHint, undefined);
      assert.deepStrictEqual(
        vars.Inputs.update_replace_value.presentationHint,
        { attributes: ['readOnly'] });
      const scope = (await dc.scopesRequest({ frameId: frame.id }))
        .body.scopes.find((s) => s.name === 'Inputs');
      await assert.rejects(dc.setVariableRequest({
        variablesReference: scope.variablesReference,
        name: 'update_replace_value', value: 'x' }),
      /does not come straight from a parameter/);
      const set = await dc.setVariableRequest({
        variablesReference: scope.variablesReference,
        name: 'value', value: '5' });
      assert.strictEqual(set.body.value, '5');
      await dc.continueRequest({ threadId: atVol.body.threadId });
      assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
      assert.deepStrictEqual(await output(name), ['UPDATE_COMPLETE', ['5']]);
    });

  it('breakpoints in an edited file follow their resources',
    async function () {
      const file = copy();
      const name = h.stackName('dap-remap');
      await h.launch(dc, rec, { template: file, stack: name,
        endpoint: h.ENDPOINT },
      () => dc.setBreakpointsRequest({ source: { path: file },
        breakpoints: [{ line: h.keyLine(file, 'vol') },
          { line: h.keyLine(file, 'after') }] }));
      const atVol = await rec.next('stopped');
      const before = h.keyLine(file, 'after');
      // The fix adds a resource above "after": its breakpoint moves.
      fs.writeFileSync(file, CHAIN.replace('{get_param: size}', 'fixed')
        .replace('  after:\n', '  extra:\n    type: OS::Heat::None\n' +
          '  after:\n'));
      const after = h.keyLine(file, 'after');
      assert.strictEqual(after, before + 2);
      await dc.continueRequest({ threadId: atVol.body.threadId });
      const moved = await rec.next('breakpoint');
      assert.strictEqual(moved.body.reason, 'changed');
      assert.strictEqual(moved.body.breakpoint.line, after);
      assert.strictEqual(moved.body.breakpoint.verified, true);
      const atAfter = await rec.next('stopped');
      const [frame] = await h.frames(dc, atAfter);
      assert.strictEqual(frame.name.split(' ')[0], 'after');
      assert.strictEqual(frame.line, after);
      // The next fix removes "after": its breakpoint says it is gone.
      fs.writeFileSync(file, CHAIN.replace('{get_param: size}', 'fixed')
        .replace(/  after:\n.*\n.*\n/, '')
        .replace('{get_attr: [after, output]}', '{get_attr: [vol, output]}'));
      await dc.continueRequest({ threadId: atAfter.body.threadId });
      const gone = await rec.next('breakpoint');
      assert.strictEqual(gone.body.breakpoint.id, moved.body.breakpoint.id);
      assert.strictEqual(gone.body.breakpoint.verified, false);
      assert.match(gone.body.breakpoint.message,
        /^after is no longer in app\.yaml$/);
      // The new operation holds at vol's breakpoint, kept as it was.
      const again = await rec.next('stopped');
      assert.match(again.body.description, /^vol held before UPDATE/);
      await dc.continueRequest({ threadId: again.body.threadId });
      assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
      assert.deepStrictEqual(await output(name),
        ['UPDATE_COMPLETE', ['fixed']]);
    });

  it('a saved template Heat refuses keeps the session stopped',
    async function () {
      const file = copy();
      const name = h.stackName('dap-badedit');
      const atVol = await stoppedAtVol(dc, rec, file, name);
      fs.writeFileSync(file, CHAIN.replace(
        'type: OS::Heat::TestResource\n    properties: {value: first}',
        'type: OS::Nope'));
      await assert.rejects(
        dc.continueRequest({ threadId: atVol.body.threadId }),
        /Cannot apply the edit: .*OS::Nope/);
      // Still stopped at vol, in the same operation.
      const threads = (await dc.threadsRequest()).body.threads;
      assert.ok(threads.some((t) => t.id === atVol.body.threadId));
      assert.strictEqual((await output(name))[0], 'CREATE_IN_PROGRESS');
      fs.writeFileSync(file, CHAIN);
      await dc.continueRequest({ threadId: atVol.body.threadId });
      assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
      assert.deepStrictEqual(await output(name), ['CREATE_COMPLETE', ['1']]);
    });
});
