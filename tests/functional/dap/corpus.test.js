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

// A public template with servers, launched with no cloud named: the
// adapter's own local Heat runs it on the simulated cloud. It stops before
// a server with its inputs, and after it with its attributes, in a scope
// that says they are simulated.
'use strict';

const assert = require('assert');
const h = require('./helpers');

const TEMPLATE = process.env.HEAT_CORPUS_TEMPLATE;
const ENVIRONMENT = process.env.HEAT_CORPUS_ENVIRONMENT;

describe('a public template on the simulated cloud', function () {
  before(function () {
    if (!TEMPLATE) this.skip();
  });

  it('stops at its servers, before and after', async function () {
    const { dc, rec } = h.client();
    await dc.start();
    await h.launch(dc, rec, {
      template: TEMPLATE, environment: [ENVIRONMENT],
      stack: h.stackName('corpus'),
    }, () => dc.setBreakpointsRequest({
      source: { path: TEMPLATE },
      breakpoints: [{ line: h.keyLine(TEMPLATE, 'server1') },
        { line: h.keyLine(TEMPLATE, 'server1'), condition: 'after' }] }));

    const before = await rec.next('stopped');
    let frame = (await h.frames(dc, before))[0];
    assert.strictEqual(frame.line, h.keyLine(TEMPLATE, 'server1'));
    let vars = await h.scopes(dc, frame);
    assert.strictEqual(vars.Inputs.flavor.value, 'm1.small');
    assert.ok(vars.Inputs.image.value.length > 2, vars.Inputs.image.value);
    assert.match(vars.Resource.simulated.value, /simulated/);
    await dc.continueRequest({ threadId: before.body.threadId });

    const after = await rec.next('stopped');
    frame = (await h.frames(dc, after))[0];
    assert.strictEqual(frame.line, h.keyLine(TEMPLATE, 'server1'));
    vars = await h.scopes(dc, frame);
    assert.ok(!('Attributes' in vars), Object.keys(vars).join(', '));
    const attributes = vars['Attributes (simulated)'];
    assert.ok(attributes, Object.keys(vars).join(', '));
    assert.match(attributes.first_address.value, /^\d+\.\d+\.\d+\.\d+$/);
    await dc.continueRequest({ threadId: after.body.threadId });
    assert.strictEqual((await rec.next('exited', 180000)).body.exitCode, 0);
    await dc.stop();
  });
});
