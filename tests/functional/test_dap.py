# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.
"""``heat-breakpoint dap`` driven by a DAP client nobody here wrote.

Each ``tests/functional/dap/*.test.js`` file runs under mocha with the
``DebugClient`` of ``@vscode/debugadapter-testsupport`` (pinned in
``tests/functional/dap/package.json``, installed by ``npm ci`` there),
against the real local Heat of the ``heat_server`` fixture; the one that
launches without an endpoint starts its own. node and the installed
packages are required: a missing one fails with what to run.
"""

import glob
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest
import yaml

from heatclient_ext.dap import framing
from tests import dap_adapter
from tests.functional import conftest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dap')
MOCHA = os.path.join(HERE, 'node_modules', '.bin', 'mocha')
TESTSUPPORT = os.path.join(HERE, 'node_modules', '@vscode',
                           'debugadapter-testsupport')
FILES = sorted(os.path.basename(path)
               for path in glob.glob(os.path.join(HERE, '*.test.js')))
RUN_TIMEOUT = 600
CORPUS_TEMPLATE = 'hot/servers_in_new_neutron_net.yaml'
CHAIN = os.path.join(HERE, 'templates', 'chain.yaml')


adapter_command = dap_adapter.adapter_command


def _require_node():
    node = shutil.which('node')
    if node is None:
        pytest.fail('node is not installed: the DAP tests need node 20 and '
                    'npm, then (cd tests/functional/dap && npm ci)')
    if not (os.path.exists(MOCHA) and os.path.isdir(TESTSUPPORT)):
        pytest.fail('the DAP test client is not installed: run '
                    '(cd tests/functional/dap && npm ci)')
    return node


def test_every_dap_test_file_is_collected():
    assert set(FILES) >= {
        'attach.test.js', 'breakpoints.test.js', 'failures.test.js',
        'groups.test.js', 'server.test.js', 'stop.test.js',
        'local.test.js', 'stepping.test.js', 'update.test.js',
        'edit.test.js'}


def _corpus_template(folder):
    """A public template with servers and the env of its parameters."""
    from tests.corpus import corpus
    root = corpus.default_root()
    if root is None:
        return {}
    template = corpus.Template(root, CORPUS_TEMPLATE, None)
    env = os.path.join(folder, 'corpus-parameters.yaml')
    with open(env, 'w') as out:
        yaml.safe_dump({'parameters': corpus.parameters(template)}, out)
    return {'HEAT_CORPUS_TEMPLATE': template.abspath,
            'HEAT_CORPUS_ENVIRONMENT': env}


@pytest.mark.parametrize('test_file', FILES)
def test_dap_client(heat_server, test_file, tmp_path):
    node = _require_node()
    env = dict(os.environ, HEAT_ENDPOINT=heat_server.endpoint,
               HEAT_BREAKPOINT=adapter_command(), OS_AUTH_TYPE='none',
               OS_ENDPOINT=heat_server.endpoint,
               **_corpus_template(str(tmp_path)))
    proc = subprocess.run(
        [node, MOCHA, '--timeout', '180000', '--exit', test_file],
        cwd=HERE, env=env, capture_output=True, text=True,
        timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, '%s\n%s' % (proc.stdout[-10000:],
                                             proc.stderr[-3000:])
    assert ' passing' in proc.stdout and ' failing' not in proc.stdout


def _session_over_tcp(port, endpoint, stack):
    """initialize, attach, threads, disconnect on one connection."""
    with socket.create_connection(('127.0.0.1', port), timeout=30) as conn:
        reader, writer = conn.makefile('rb'), conn.makefile('wb')
        for seq, command, args in (
                (1, 'initialize', {'adapterID': 'heat'}),
                (2, 'attach', {'stack': stack, 'endpoint': endpoint}),
                (3, 'configurationDone', {})):
            writer.write(framing.encode({'seq': seq, 'type': 'request',
                                         'command': command,
                                         'arguments': args}))
        writer.flush()
        answers = {}
        while 2 not in answers:
            message = framing.read_message(reader)
            assert message is not None, answers
            if message['type'] == 'response':
                answers[message['request_seq']] = message
        writer.write(framing.encode({'seq': 4, 'type': 'request',
                                     'command': 'disconnect',
                                     'arguments': {}}))
        writer.flush()
        return answers


def test_port_serves_one_session_after_another(heat_server, heat,
                                               stack_name):
    heat.stacks.create(stack_name=stack_name, template={
        'heat_template_version': '2018-08-31',
        'resources': {'a': {'type': 'OS::Heat::None'}}})
    port = conftest.free_port()
    proc = subprocess.Popen([adapter_command(), 'dap', '--port', str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr.readline().strip() == (
            'heat-breakpoint dap listening on 127.0.0.1:%d' % port)
        for _attempt in range(2):
            answers = _session_over_tcp(port, heat_server.endpoint,
                                        stack_name)
            assert answers[1]['body']['supportsConfigurationDoneRequest']
            assert answers[2]['success'], answers[2]
        missing = _session_over_tcp(port, heat_server.endpoint, 'no-such')
        assert missing[2]['success'] is False
        assert missing[2]['message'] == 'Stack not found: no-such'
    finally:
        proc.terminate()
        proc.wait(30)


Adapter = dap_adapter.Adapter


def _processes_with(text):
    found = []
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as cmdline:
                if text.encode() in cmdline.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def _nothing_left(state_dir, tmp_path):
    """No process of the adapter's own Heat; its temporary folder empty."""
    assert _processes_with(state_dir) == []
    assert os.listdir(tmp_path) == []


def _held_on_own_heat(adapter):
    """initialize, launch with no endpoint, held at b: the state dir."""
    adapter.launch(CHAIN, 'leak-free', ['b'])
    adapter.wait(lambda m: m.get('event') == 'stopped')
    [ready] = [line for line in adapter.said
               if line.startswith('Local Heat ready at')]
    return ready.split('(state in ')[1].split(')')[0]


#: Seconds between closing the adapter's stdin and the signal: from at
#: once to well after the cleanup began (it takes about a second);
#: negative, the signal first and stdin closed that long after.
DELAYS = (-0.05, 0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2, 2.0)
if os.environ.get('HEAT_DAP_SLOW'):  # every delay, several times
    DELAYS = DELAYS * 3 + (0.02, 0.4, 0.6, 1.0, 1.5)


@pytest.mark.parametrize('delay', DELAYS)
@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM],
                         ids=['SIGINT', 'SIGTERM'])
def test_stdin_closed_then_a_signal_leaves_no_local_heat(
        signum, delay, tmp_path):
    """nvim-dap's end: stdin closed and SIGINT at once (VS Code: SIGTERM).

    However the signal falls in the adapter's cleanup, the local Heat it
    started is stopped, its directory gone, and the adapter exits 0.
    """
    adapter = Adapter(tmp_path)
    try:
        state_dir = _held_on_own_heat(adapter)
        assert _processes_with(state_dir)
        if delay < 0:
            adapter.proc.send_signal(signum)
            time.sleep(-delay)
            adapter.proc.stdin.close()
        else:
            adapter.proc.stdin.close()
            time.sleep(delay)
            adapter.proc.send_signal(signum)
        assert adapter.proc.wait(60) == 0, adapter.proc.stderr.read()
    finally:
        adapter.kill()
    assert _processes_with(state_dir) == []
    assert not os.path.exists(state_dir)
    assert os.listdir(tmp_path) == []


def test_disconnect_is_answered_before_the_local_heat_stops(tmp_path):
    adapter = Adapter(tmp_path)
    try:
        state_dir = _held_on_own_heat(adapter)
        sent = time.monotonic()
        seq = adapter.request('disconnect', terminateDebuggee=True)
        answer = adapter.response(seq)
        took = time.monotonic() - sent
        assert answer['success'], answer
        # Answered first, then stopped (which takes a second or more).
        assert took < 0.5, took
        assert adapter.proc.wait(60) == 0
    finally:
        adapter.kill()
    _nothing_left(state_dir, tmp_path)


def test_a_killed_adapter_leaves_no_local_heat(tmp_path):
    """kill -9: nothing of the adapter runs; its server stops by itself."""
    adapter = Adapter(tmp_path)
    try:
        state_dir = _held_on_own_heat(adapter)
        adapter.proc.kill()
        adapter.proc.wait(30)
    finally:
        adapter.kill()
    deadline = time.monotonic() + 60
    while (_processes_with(state_dir) or os.path.exists(state_dir)) and \
            time.monotonic() < deadline:
        time.sleep(0.2)
    _nothing_left(state_dir, tmp_path)


def test_port_header_without_content_length_ends_the_connection():
    port = conftest.free_port()
    proc = subprocess.Popen([adapter_command(), 'dap', '--port', str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert 'listening' in proc.stderr.readline()
        with socket.create_connection(('127.0.0.1', port),
                                      timeout=30) as conn:
            conn.sendall(b'Content-Type: application/json\r\n\r\n{}')
            reader = conn.makefile('rb')
            said = framing.read_message(reader)
            assert said['event'] == 'output', said
            assert said['body']['output'] == (
                'the session ends: a header block without Content-Length\n')
            # Closed: the end of the stream, not a wait for more.
            assert framing.read_message(reader) is None
    finally:
        proc.terminate()
        proc.wait(30)


def test_sigterm_cancels_a_stack_launched_on_an_endpoint(heat_server, heat,
                                                         stack_name):
    """As the end of its stdin would: nothing stays held for nobody."""
    adapter = Adapter()
    try:
        adapter.launch(CHAIN, stack_name, ['b'],
                       endpoint=heat_server.endpoint)
        adapter.wait(lambda m: m.get('event') == 'stopped')
        adapter.proc.send_signal(signal.SIGTERM)
        assert adapter.proc.wait(60) == 0
    finally:
        adapter.kill()
    assert 'cancelled the create: the stack is deleted\n' in adapter.said
    deadline = time.monotonic() + 60
    while any(st.stack_name == stack_name for st in heat.stacks.list()):
        assert time.monotonic() < deadline, 'the stack is still there'
        time.sleep(0.5)


def test_terminate_is_answered_after_exited(tmp_path):
    """nvim-dap closes the session on terminate's answer: exited first."""
    adapter = Adapter(tmp_path)
    try:
        state_dir = _held_on_own_heat(adapter)
        seq = adapter.request('terminate')
        _at, first = adapter.wait(lambda m: m.get('event') in (
            'exited', 'terminated') or m.get('request_seq') == seq)
        assert first.get('event') == 'exited', first
        assert adapter.response(seq)['success']
        adapter.proc.stdin.close()  # and SIGINT at once, as nvim-dap
        adapter.proc.send_signal(signal.SIGINT)
        assert adapter.proc.wait(60) == 0
    finally:
        adapter.kill()
    _nothing_left(state_dir, tmp_path)


def _early_state_dir(folder, timeout=30):
    """The state directory of the local Heat the adapter launched itself."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        made = [name for name in os.listdir(folder)
                if name.startswith('heat-breakpoint-dap-')]
        if made and _processes_with(made[0]):
            return os.path.join(folder, made[0])
        time.sleep(0.02)
    raise AssertionError('no local Heat launched in %ds' % timeout)


def test_the_local_heat_launched_first_is_the_sessions(tmp_path):
    """Launched before initialize: the launch waits for no other start."""
    adapter = Adapter(tmp_path)
    try:
        early = _early_state_dir(str(tmp_path))
        assert _held_on_own_heat(adapter) == early
        assert os.listdir(tmp_path) == [os.path.basename(early)]
        adapter.disconnect_ending()
    finally:
        adapter.kill()
    _nothing_left(early, tmp_path)


@pytest.mark.parametrize('end', ['eof', 'SIGINT', 'SIGTERM'])
def test_a_local_heat_no_session_took_is_stopped(end, tmp_path):
    """The editor went before initialize: nothing of it stays."""
    adapter = Adapter(tmp_path)
    try:
        early = _early_state_dir(str(tmp_path))
        if end == 'eof':
            adapter.proc.stdin.close()
        else:
            adapter.proc.send_signal(getattr(signal, end))
        assert adapter.proc.wait(60) == 0, adapter.proc.stderr.read()
    finally:
        adapter.kill()
    _nothing_left(early, tmp_path)


def test_a_launch_on_another_heat_stops_the_early_one(heat_server, heat,
                                                      stack_name, tmp_path):
    adapter = Adapter(tmp_path)
    try:
        early = _early_state_dir(str(tmp_path))
        adapter.request('initialize', adapterID='heat')
        seq = adapter.request('launch', template=CHAIN, stack=stack_name,
                              endpoint=heat_server.endpoint)
        adapter.wait(lambda m: m.get('event') == 'initialized')
        adapter.request('configurationDone')
        assert adapter.response(seq)['success']
        deadline = time.monotonic() + 30
        while (_processes_with(early) or os.path.exists(early)) and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        assert _processes_with(early) == []
        assert os.listdir(tmp_path) == []
        adapter.disconnect_ending()
    finally:
        adapter.kill()
