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

// `heat-breakpoint dap --port N` as a server editors connect to: bad
// messages end at most their own session, several editors are served at
// once, a lost connection is a disconnect, what an attached session
// armed is disarmed when it leaves, arguments of the wrong type are one
// line. Editors are DebugClients over TCP, or raw sockets where a
// DebugClient cannot misbehave.
'use strict';

const assert = require('assert');
const { execFileSync, spawn, spawnSync } = require('child_process');
const net = require('net');
const { DebugClient } = require('@vscode/debugadapter-testsupport');
const h = require('./helpers');

const ADAPTER = process.env.HEAT_BREAKPOINT || 'heat-breakpoint';
const CHAIN = h.template('chain.yaml');
const NODES = h.template('nodes.yaml');
const ENV = Object.assign({}, process.env, {
  OS_AUTH_TYPE: 'none', OS_ENDPOINT: h.ENDPOINT });

function cli(...args) {
  return execFileSync(ADAPTER, args, { env: ENV, encoding: 'utf8' });
}

function within(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing in ${ms} ms`)),
      ms);
  })]).finally(() => clearTimeout(timer));
}

async function until(predicate, ms, what) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    last = await predicate();
    if (last) return last;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`${what}: not in ${ms} ms (last: ${JSON.stringify(last)})`);
}

// The adapter as a TCP server on a free port; its port once it listens.
function startServer() {
  const proc = spawn(ADAPTER, ['dap', '--port', '0'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  proc.stderrText = '';
  const port = new Promise((resolve, reject) => {
    proc.stderr.on('data', (data) => {
      proc.stderrText += data.toString();
      const found = proc.stderrText.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (found) resolve(Number(found[1]));
    });
    proc.on('exit', (code) => reject(new Error(
      `the adapter exited with ${code}: ${proc.stderrText}`)));
  });
  return { proc, port };
}

// A DAP peer on a raw socket: any bytes, and every message read back.
class Raw {
  constructor(port) {
    this.sock = net.connect(port, '127.0.0.1');
    this.data = Buffer.alloc(0);
    this.messages = [];
    this.waiters = [];
    this.seq = 0;
    this.closed = new Promise((resolve) => this.sock.on('close', resolve));
    this.sock.on('error', () => {});
    this.sock.on('data', (chunk) => {
      this.data = Buffer.concat([this.data, chunk]);
      for (;;) {
        const end = this.data.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/Content-Length: (\d+)/.exec(
          this.data.slice(0, end).toString())[1]);
        if (this.data.length < end + 4 + length) return;
        const body = this.data.slice(end + 4, end + 4 + length);
        this.data = this.data.slice(end + 4 + length);
        this.messages.push(JSON.parse(body.toString('utf8')));
        for (const waiter of this.waiters.splice(0)) waiter();
      }
    });
  }

  bytes(text) {
    this.sock.write(text);
  }

  request(command, args) {
    this.seq += 1;
    const body = Buffer.from(JSON.stringify({
      seq: this.seq, type: 'request', command, arguments: args }));
    this.bytes(Buffer.concat([
      Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
    return this.seq;
  }

  // The first message (from the start) for which `test` is true.
  next(test, ms = h.TIMEOUT) {
    const look = () => this.messages.find(test);
    return within(new Promise((resolve) => {
      const check = () => {
        const found = look();
        if (found) resolve(found); else this.waiters.push(check);
      };
      check();
    }), ms, 'a message');
  }

  answer(seq, ms) {
    return this.next((m) => m.type === 'response' && m.request_seq === seq,
      ms);
  }

  event(name, ms) {
    return this.next((m) => m.type === 'event' && m.event === name, ms);
  }
}

function rows(name) {
  return JSON.parse(cli('breakpoint-list', name, '--format', 'json'));
}

function stateOf(listed, resource) {
  return listed.filter((r) => r.resource === resource)
    .map((r) => `${r.state} ${r.source}`).sort();
}

describe('the adapter as a server (--port)', function () {
  let server; let port;
  const opened = [];

  beforeEach(async () => {
    server = startServer();
    port = await within(server.port, 30000, 'the adapter listening');
  });

  afterEach(async () => {
    for (const closing of opened.splice(0)) {
      try { await closing(); } catch (err) { /* gone already */ }
    }
    server.proc.kill();
  });

  async function editor() {
    const dc = new DebugClient(ADAPTER, 'dap', 'heat');
    dc.defaultTimeout = h.TIMEOUT;
    const rec = new h.Recorder(dc, ['stopped', 'output', 'exited',
      'terminated', 'initialized']);
    await dc.start(port);
    // A session that already left answers no disconnect: do not wait.
    opened.push(() => within(dc.stop(), 10000, 'stop')
      .catch(() => dc.stopAdapter()));
    return { dc, rec };
  }

  it('a malformed message ends at most its own session, with why',
    async function () {
      // A body that is JSON but no object: said, skipped, served on.
      const one = new Raw(port);
      one.bytes('Content-Length: 2\r\n\r\n[]');
      const said = await one.event('output');
      assert.match(said.body.output,
        /ignored a message: a message is a JSON object, not list/);
      // A request whose command or arguments are of the wrong kind: an
      // error answer, the session lives.
      const numbered = '{"seq":9,"type":"request","command":5}';
      one.bytes(`Content-Length: ${numbered.length}\r\n\r\n${numbered}`);
      assert.match((await one.answer(9)).message, /needs "command"/);
      const badArgs = one.request('threads', 5);
      assert.match((await one.answer(badArgs)).message,
        /^threads: the arguments must be an object, not 5$/);
      const init = one.request('initialize', { adapterID: 'heat' });
      assert.ok((await one.answer(init)).body.supportsConfigurationDoneRequest);

      // A length no editor sends: refused before it is read, the
      // session ends, the listener goes on.
      const two = new Raw(port);
      two.bytes('Content-Length: 99999999999\r\n\r\n');
      const ended = await two.event('output');
      assert.match(ended.body.output,
        /the session ends: Content-Length 99999999999 is out of range/);
      await within(two.closed, 30000, 'the refused session closed');

      // Both sessions' misbehaviour left the server serving.
      const { dc } = await editor();
      const answer = await within(dc.initializeRequest(), 30000,
        'initialize after the bad messages');
      assert.ok(answer.body.supportsConfigurationDoneRequest);
      const again = one.request('threads', {});
      assert.ok((await one.answer(again)).success);
      one.sock.destroy();
    });

  it('serves several editors at once, each on its own stack',
    async function () {
      const first = await editor();
      const second = await editor();
      const names = [h.stackName('dap-one'), h.stackName('dap-two')];
      const sessions = [first, second];
      await Promise.all(sessions.map(({ dc, rec }, i) => within(
        h.launch(dc, rec, {
          template: CHAIN, stack: names[i], endpoint: h.ENDPOINT,
        }, () => dc.setBreakpointsRequest({
          source: { path: CHAIN },
          breakpoints: [{ line: h.keyLine(CHAIN, i ? 'c' : 'b') }] })),
        60000, `editor ${i + 1} launched`)));
      const stops = await Promise.all(sessions.map(({ rec }) =>
        rec.next('stopped')));
      assert.match(stops[0].body.description, /^b held before CREATE/);
      assert.match(stops[1].body.description, /^c held before CREATE/);
      await Promise.all(sessions.map(({ dc }, i) => dc.continueRequest({
        threadId: stops[i].body.threadId })));
      for (const { rec } of sessions) {
        assert.strictEqual((await rec.next('exited')).body.exitCode, 0);
      }
      assert.deepStrictEqual(await Promise.all(names.map(h.stackStatus)),
        ['CREATE_COMPLETE', 'CREATE_COMPLETE']);
    });

  it('a lost connection is a disconnect: the launched stack goes',
    async function () {
      const name = h.stackName('dap-lost');
      const raw = new Raw(port);
      raw.request('initialize', { adapterID: 'heat' });
      raw.request('launch', { template: CHAIN, stack: name,
        endpoint: h.ENDPOINT });
      await raw.event('initialized');
      raw.request('setBreakpoints', { source: { path: CHAIN },
        breakpoints: [{ line: h.keyLine(CHAIN, 'b') }] });
      raw.request('configurationDone', {});
      await raw.event('stopped');
      assert.strictEqual(await h.stackStatus(name), 'CREATE_IN_PROGRESS');
      raw.sock.destroy(); // the editor died: no disconnect
      await until(async () => (await h.stackStatus(name)) === 'gone', 90000,
        `stack ${name} deleted`);
    });

  it('leaving an attach disarms what the session armed, unless asked to '
    + 'keep it', async function () {
    for (const keep of [false, true]) {
      const name = h.stackName(keep ? 'dap-keep' : 'dap-leave');
      cli('stack-create', '-f', NODES, '--breakpoint', 'base', name);
      const { dc, rec } = await editor();
      await dc.initializeRequest();
      const attached = dc.attachRequest({
        stack: name, endpoint: h.ENDPOINT, template: NODES });
      await rec.next('initialized');
      await dc.setFunctionBreakpointsRequest({
        breakpoints: [{ name: 'final' }] });
      await dc.configurationDoneRequest();
      await attached;
      const atBase = await rec.next('stopped');
      assert.match(atBase.body.description, /^base held before CREATE/);
      // The Debug Console speaks the watch prompt: its words stay.
      const set = await dc.evaluateRequest({ expression: 'set node_4',
        context: 'repl' });
      assert.match(set.body.result, /^node_4: armed/);
      await dc.pauseRequest({ threadId: 1 });
      assert.match(rec.output,
        /pause: holding node_1, node_2, node_3 before they start/);
      let listed = rows(name);
      for (const node of ['final', 'node_1', 'node_2', 'node_3', 'node_4']) {
        assert.deepStrictEqual(stateOf(listed, node), ['armed set'], node);
      }

      await dc.disconnectRequest(keep ? { suspendDebuggee: true } : {});
      listed = await until(() => {
        const now = rows(name);
        return (keep || stateOf(now, 'final')[0] !== 'armed set') && now;
      }, 30000, 'the session\'s breakpoints disarmed');
      for (const node of ['final', 'node_1', 'node_2', 'node_3']) {
        assert.deepStrictEqual(stateOf(listed, node),
          [keep ? 'armed set' : 'disarmed set'], node);
      }
      assert.deepStrictEqual(stateOf(listed, 'node_4'), ['armed set']);
      assert.deepStrictEqual(stateOf(listed, 'base'), ['held environment']);
      cli('breakpoint-continue', name);
    }
  });

  it('an argument of the wrong kind is one line naming it',
    async function () {
      const { dc } = await editor();
      await dc.initializeRequest();
      await assert.rejects(dc.launchRequest({ template: 5, stack: 'x' }),
        /^Error: launch: "template" must be a string, not 5$/);
      await assert.rejects(dc.launchRequest({
        template: CHAIN, stack: 'x', environment: 'env.yaml' }),
      /^Error: launch: "environment" must be a list of strings, not "env.yaml"$/);
      await assert.rejects(dc.setExceptionBreakpointsRequest({
        filters: ['failures', 'sometimes'] }),
      /^Error: setExceptionBreakpoints: unknown filter 'sometimes': the one filter is 'failures'$/);
      const known = await dc.setExceptionBreakpointsRequest({
        filters: ['failures'] });
      assert.ok(known.success);
      await assert.rejects(dc.setBreakpointsRequest({
        source: { path: CHAIN }, breakpoints: [{ line: 'b' }] }),
      /^Error: setBreakpoints: "line" must be a whole number, not "b"$/);
    });
});

describe('the adapter\'s port', function () {
  it('a port out of range or in use is one line', async function () {
    for (const port of ['99999', '-5']) {
      const run = spawnSync(ADAPTER, ['dap', '--port', port],
        { encoding: 'utf8', timeout: 30000 });
      assert.strictEqual(run.status, 1, run.stderr);
      assert.strictEqual(run.stderr, `heat-breakpoint dap: error: --port ${port}`
        + ' is not a TCP port: give one from 1 to 65535, or 0 for a free one\n');
    }
    const taken = net.createServer();
    await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = taken.address().port;
    try {
      const run = spawnSync(ADAPTER, ['dap', '--port', String(busy)],
        { encoding: 'utf8', timeout: 30000 });
      assert.strictEqual(run.status, 1, run.stderr);
      assert.strictEqual(run.stderr, `heat-breakpoint dap: error: port ${busy}`
        + ' on 127.0.0.1 is already in use (another server?); choose another'
        + ' with --port\n');
    } finally {
      taken.close();
    }
  });
});
