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
"""The local server itself: REST API, concurrency, restarts, errors."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from tests.functional import conftest
from tests.functional import utils

TEMPLATES = os.path.join(os.path.dirname(__file__), 'templates')


def fan_out(width):
    """One root and ``width`` dependents: one leaf, no throttling."""
    resources = {'root': {'type': 'OS::Heat::TestResource',
                          'properties': {'value': 'root'}}}
    for i in range(width):
        resources['r%03d' % i] = {
            'type': 'OS::Heat::TestResource',
            'properties': {'value': {'get_attr': ['root', 'output']}}}
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def chain(length):
    resources = {'c0': {'type': 'OS::Heat::TestResource',
                        'properties': {'value': 'x'}}}
    for i in range(1, length):
        resources['c%d' % i] = {
            'type': 'OS::Heat::TestResource',
            'properties': {'value': {'get_attr': ['c%d' % (i - 1),
                                                  'output']}}}
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def log_problems(server):
    with open(server.log_file, errors='replace') as log:
        text = log.read()
    return [p for p in ('database is locked',
                        'AST constructor recursion depth mismatch')
            if p in text]


def test_openstack_cli_creates_a_stack_and_shows_outputs(heat_server,
                                                         stack_name):
    code, out, err = conftest.run_openstack(
        heat_server, '--os-auth-type', 'none',
        '--os-endpoint', heat_server.endpoint,
        'stack', 'create', '--wait', '-f', 'json',
        '-t', os.path.join(TEMPLATES, 'random.yaml'), stack_name)
    assert code == 0, err
    # heatclient's --wait prints the events before the JSON
    assert json.loads(out[out.index('\n{') + 1:])['stack_status'] == \
        'CREATE_COMPLETE'
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'output', 'show', stack_name, '--all',
        '-f', 'json')
    assert code == 0, err
    outputs = {k: v['output_value'] for k, v in json.loads(out).items()}
    assert len(outputs['password']) == 12
    assert outputs['result'] == outputs['password'] + '-ok'


def test_concurrent_creates_and_deletes(heat_server, heat, stack_name):
    names = ['%s-%d' % (stack_name, i) for i in range(8)]
    for name in names[:4]:
        heat.stacks.create(stack_name=name, template=chain(4))
    for name in names[:4]:
        utils.wait_stack(heat, name, 'CREATE_COMPLETE')

    # Deletes overlapping creates: the load that broke stock SQLite.
    errors = []

    def run(fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except Exception as exc:  # collected and asserted below
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(heat.stacks.delete, n))
               for n in names[:4]]
    threads += [threading.Thread(target=run, args=(heat.stacks.create,),
                                 kwargs={'stack_name': n,
                                         'template': chain(4)})
                for n in names[4:]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for name in names[4:]:
        utils.wait_stack(heat, name, 'CREATE_COMPLETE')
    utils.wait_for(lambda: not {s.stack_name for s in heat.stacks.list()}
                   & set(names[:4]), 60, what='deletes')
    assert log_problems(heat_server) == []


@pytest.mark.parametrize('attempt', [1, 2])
def test_fan_out_of_200_dependents(heat_server, heat, stack_name, attempt):
    heat.stacks.create(stack_name=stack_name, template=fan_out(200))
    stack = utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE',
                             timeout=300)
    assert len(heat.resources.list(stack.id)) == 201
    assert log_problems(heat_server) == []
    # Not deleted here: every dependent is a leaf of the delete graph, and
    # Heat's convergence sleeps 1 s after starting each leaf (200 s).


def test_restart_keeps_stacks_and_stops_cleanly():
    state = tempfile.mkdtemp(prefix='heat-breakpoint-restart-')
    server = conftest.LocalHeatProcess(state).start(reset=True)
    try:
        hc = server.client()
        hc.stacks.create(stack_name='kept', template=chain(2))
        utils.wait_stack(hc, 'kept', 'CREATE_COMPLETE')
        assert server.stop(signal.SIGTERM) == 0
        assert 'heat-breakpoint-server: stopped' in server.read_output()
        server.start()
        hc = server.client()
        assert hc.stacks.get('kept').stack_status == 'CREATE_COMPLETE'
    finally:
        server.remove()


def test_busy_port_is_a_one_line_error(heat_server, tmp_path):
    proc = subprocess.run(
        [sys.executable, '-m', 'heat_breakpoint.server',
         '--port', str(heat_server.port),
         '--state-dir', str(tmp_path)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == (
        'heat-breakpoint-server: error: port %d on 127.0.0.1 is already '
        'in use (another server?); choose another with --port'
        % heat_server.port)
    assert 'Traceback' not in proc.stderr


def _run_server(*argv):
    return subprocess.run([sys.executable, '-m', 'heat_breakpoint.server']
                          + list(argv), capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize('port', ['99999', '-5', '65536'])
def test_a_port_out_of_range_is_one_line_and_resets_nothing(tmp_path, port):
    state = tmp_path / 'state'
    state.mkdir()
    (state / 'kept').write_text('a stack database')
    proc = _run_server('--port', port, '--state-dir', str(state), '--reset')
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        'heat-breakpoint-server: error: --port %s is not a TCP port: give '
        'one from 1 to 65535, or 0 for a free one' % port]
    # The bad port is found before --reset empties the state directory.
    assert (state / 'kept').read_text() == 'a stack database'


def test_a_state_dir_that_cannot_be_made_is_one_line():
    proc = _run_server('--port', '0', '--state-dir', '/proc/nope')
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        'heat-breakpoint-server: error: --state-dir /proc/nope cannot be '
        'used: No such file or directory']


def test_a_state_dir_on_a_file_is_one_line_and_keeps_it(tmp_path):
    taken = tmp_path / 'file'
    taken.write_text('not a directory')
    proc = _run_server('--port', '0', '--state-dir', str(taken), '--reset')
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        'heat-breakpoint-server: error: --state-dir %s is a file, not a '
        'directory' % taken]
    assert taken.read_text() == 'not a directory'


def test_a_keystone_pipeline_without_keystone_is_one_line(tmp_path):
    # The simulated cloud stands in for Keystone only under noauth: a
    # --config-file that picks Keystone's pipeline needs --keystone.
    state = tmp_path / 'state'
    state.mkdir()
    (state / 'kept').write_text('a stack database')
    conf = tmp_path / 'keystone.conf'
    conf.write_text('[paste_deploy]\nflavor = default_breakpoint\n')
    proc = _run_server('--port', '0', '--state-dir', str(state), '--reset',
                       '--config-file', str(conf))
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        'heat-breakpoint-server: error: --config-file selects a Keystone '
        'pipeline (paste_deploy flavor default_breakpoint) but no Keystone '
        "was given: run with --keystone <url> (Heat's account there in "
        'OS_USERNAME, OS_PASSWORD), or leave the flavor to the server']
    assert (state / 'kept').read_text() == 'a stack database'


@pytest.mark.parametrize('enabled', ['false', 'true'])
def test_ctrl_c_with_a_stock_hook_held_stops_promptly_and_says_why(
        tmp_path, enabled):
    # Heat's own hook waits on an engine thread only a hook clear ends:
    # the stop names it and does not wait the engine's grace out.
    conf = tmp_path / 'breakpoint.conf'
    conf.write_text('[breakpoint]\nenabled = %s\n' % enabled)
    state = tempfile.mkdtemp(prefix='heat-breakpoint-hook-stop-')
    server = conftest.LocalHeatProcess(state, config_files=[str(conf)])
    server.start(reset=True)
    try:
        hc = server.client()
        hc.stacks.create(stack_name='hooked', template=chain(1),
                         environment={'resource_registry': {'resources': {
                             'c0': {'hooks': 'pre-create'}}}})
        utils.wait_for(lambda: any(
            'paused until Hook pre-create' in (e.resource_status_reason or '')
            for e in utils.events(hc, 'hooked', 'c0')), 60,
            what='c0 at its hook')
        if enabled == 'true':
            # A breakpoint's hold is a row, on no thread: not named.
            hc.stacks.create(
                stack_name='parked', template=chain(1),
                environment=registry.apply_to_environment(
                    {}, breakpoints.parse_names(['c0'])))
            utils.wait_for(lambda: any(
                'paused until Hook pre-create' in (
                    e.resource_status_reason or '')
                for e in utils.events(hc, 'parked', 'c0')), 60,
                what='c0 held at its breakpoint')
        started = time.monotonic()
        assert server.stop(signal.SIGINT) == 0
        took = time.monotonic() - started
        output = server.read_output()
        assert ('heat-breakpoint-server: 1 resource(s) wait at a stock hook '
                '(hooked/c0 (pre-create))') in output, output
        assert 'still busy' not in output
        assert took < 12, took  # the engine's grace is 20 s
    finally:
        server.remove()
