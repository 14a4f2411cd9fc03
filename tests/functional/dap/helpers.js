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

// What every test file shares: a DebugClient running `heat-breakpoint dap`,
// a recorder of its events (none is missed between two awaits), and the
// key line of a resource read from the template text itself.
'use strict';

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ADAPTER = process.env.HEAT_BREAKPOINT || 'heat-breakpoint';
const ENDPOINT = process.env.HEAT_ENDPOINT;
const TEMPLATES = path.join(__dirname, 'templates');
const SHARED = path.join(__dirname, '..', 'templates');
const TIMEOUT = 60000;

function template(name) {
  const own = path.join(TEMPLATES, name);
  return fs.existsSync(own) ? own : path.join(SHARED, name);
}

// The line (from 1) of `  name:` under resources, found by reading the file.
function keyLine(file, name) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const index = lines.findIndex((l) => l === `  ${name}:`);
  assert.ok(index >= 0, `no resource ${name} in ${file}`);
  return index + 1;
}

function stackName(prefix) {
  return `${prefix}-${Date.now().toString(36)}-${process.pid}`;
}

class Recorder {
  constructor(dc, kinds) {
    this.queues = {};
    this.waiters = {};
    this.output = '';
    for (const kind of kinds) {
      this.queues[kind] = [];
      this.waiters[kind] = [];
      dc.on(kind, (event) => {
        if (kind === 'output') this.output += event.body.output;
        const waiter = this.waiters[kind].shift();
        if (waiter) waiter(event); else this.queues[kind].push(event);
      });
    }
  }

  next(kind, timeout = TIMEOUT) {
    const queued = this.queues[kind].shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(
        `no ${kind} event in ${timeout} ms; output so far:\n${this.output}`)),
      timeout);
      this.waiters[kind].push((event) => { clearTimeout(timer); resolve(event); });
    });
  }

  pending(kind) {
    return this.queues[kind].length;
  }
}

function client() {
  const dc = new DebugClient(ADAPTER, 'dap', 'heat');
  dc.defaultTimeout = TIMEOUT;
  const rec = new Recorder(dc, ['stopped', 'output', 'exited', 'terminated',
    'initialized', 'breakpoint']);
  return { dc, rec };
}

// A fresh client for each test of the calling describe block: made and
// started before the test (handed to `use` first), stopped after it.
function clientPerTest(use) {
  let made;
  beforeEach(() => { made = client(); use(made); return made.dc.start(); });
  afterEach(() => (made ? made.dc.stop() : null));
}

// initialize, launch, and the configuration sequence once `initialized`
// arrives (breakpoints first, then configurationDone).
async function launch(dc, rec, args, configure) {
  const init = await dc.initializeRequest();
  assert.ok(init.body.supportsConfigurationDoneRequest);
  const launched = dc.launchRequest(args);
  await rec.next('initialized');
  const answers = configure ? await configure() : undefined;
  await dc.configurationDoneRequest();
  await launched;
  return answers;
}

async function frames(dc, stopped) {
  const trace = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
  return trace.body.stackFrames;
}

async function scopes(dc, frame) {
  const found = {};
  const answer = await dc.scopesRequest({ frameId: frame.id });
  for (const scope of answer.body.scopes) {
    const vars = await dc.variablesRequest({
      variablesReference: scope.variablesReference });
    found[scope.name] = {};
    for (const v of vars.body.variables) found[scope.name][v.name] = v;
  }
  return found;
}

// A stack's status from Heat's API, or 'gone' once Heat no longer has it.
async function stackStatus(name) {
  const answer = await fetch(`${ENDPOINT}/stacks/${name}`);
  if (answer.status === 404) return 'gone';
  return (await answer.json()).stack.stack_status;
}

module.exports = {
  ENDPOINT, TIMEOUT, template, keyLine, stackName, client, clientPerTest,
  launch, frames, scopes, Recorder, stackStatus,
};
