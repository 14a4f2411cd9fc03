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
"""``openstack stack breakpoint watch`` and the view's progress, on the
real local Heat: what is counted, the lines printed for logs, the exit
codes (0, 1 with the reason, 130 on Ctrl-C with the operation untouched),
``--nested-depth`` and a Heat without the view.
"""

import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from unittest import mock

import pytest
import requests

from heatclient_ext.terminal import watch_session as watch_v1
from heatclient_ext.v1 import live
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import utils

NODES = ('node_1', 'node_2', 'node_3', 'node_4')


def progress(heat_server, stack, query=''):
    answer = requests.get('%s/stacks/%s/breakpoints?progress=1%s' % (
        heat_server.endpoint, stack, query), timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def held_names(body):
    return sorted(row['resource'] for row in body['breakpoints']
                  if row['state'] == 'held')


def wait_held(heat_server, stack, names, query=''):
    return utils.wait_for(
        lambda: (lambda body: held_names(body) == sorted(names) and body)(
            progress(heat_server, stack, query)),
        90, what='%s held' % (names,))


def watch(heat_server, stack, *extra):
    return conftest.run_openstack(heat_server, 'stack', 'breakpoint',
                                  'watch', stack, '--interval', '0.3',
                                  *extra)


def test_progress_counts_what_the_operation_walks(heat_server, heat,
                                                  stack_name):
    test_engine.create(heat, stack_name, 'nodes.yaml', 'node_*')
    body = wait_held(heat_server, stack_name, NODES)
    found = body['progress']
    assert found['counts'] == {'waiting': 1, 'in_progress': 0, 'held': 4,
                               'complete': 1, 'failed': 0}
    assert (found['done'], found['total']) == (1, 6)
    assert found['timeout_remaining']
    reasons = [event['reason'] for event in found['events']]
    assert 0 < len(reasons) <= watch_v1.EVENTS
    assert 'Breakpoint node_* reached before CREATE (pre-create)' in reasons
    # Only when asked: the plain list stays as it was.
    plain = requests.get('%s/stacks/%s/breakpoints' % (
        heat_server.endpoint, stack_name), timeout=30).json()
    assert 'progress' not in plain

    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    found = progress(heat_server, stack_name)['progress']
    assert (found['done'], found['total']) == (6, 6)

    # An update that drops node_4 and final and adds node_5: the rows of
    # the old template are not counted, the new resource is.
    tmpl = test_engine.template('nodes.yaml')
    del tmpl['resources']['node_4'], tmpl['resources']['final']
    tmpl['resources']['node_5'] = dict(tmpl['resources']['node_1'])
    heat.stacks.update(stack_name, template=tmpl,
                       parameters={'version': 'two'},
                       environment=test_engine.breakpoint_env(
                           'node_5', actions=['create', 'update']))
    body = wait_held(heat_server, stack_name, ['node_5'])
    found = body['progress']
    assert found['total'] == 5, found
    assert found['counts']['held'] == 1
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    found = progress(heat_server, stack_name)['progress']
    assert (found['done'], found['total']) == (5, 5), found


def test_nested_depth_limits_what_is_counted(heat_server, heat, stack_name):
    test_engine.create(
        heat, stack_name, 'nested_root.yaml', 'outer/inner/leaf',
        files=test_engine.template_files('level1.yaml', 'level2.yaml'))
    body = wait_held(heat_server, stack_name, ['outer/inner/leaf'])
    assert body['progress']['counts'] == {
        'waiting': 1, 'in_progress': 2, 'held': 1, 'complete': 1,
        'failed': 0}
    top = progress(heat_server, stack_name, '&nested_depth=0')['progress']
    assert top['counts'] == {'waiting': 0, 'in_progress': 1, 'held': 0,
                             'complete': 1, 'failed': 0}

    code, lines, err = watch_lines_while(
        heat_server, stack_name,
        lambda: bp_v1.BreakpointManager(heat).continue_(stack_name),
        '--nested-depth', '0')
    assert code == 0, (err, lines)
    assert '1 of 2 done' in lines[0]
    assert '2 of 2 done' in lines[-2]
    assert not any('held:' in line for line in lines)


def test_watch_prints_a_line_per_change_and_exits_0(heat_server, heat,
                                                    stack_name):
    test_engine.create(heat, stack_name, 'nodes.yaml', 'node_*')
    wait_held(heat_server, stack_name, NODES)

    lines = watch_while_continued(heat_server, heat, stack_name)
    out = '\n'.join(lines)
    assert 'held: node_1, node_2, node_3, node_4' in lines[0]
    assert '1 of 6 done' in lines[0]
    assert lines[-1] == 'Stack %s CREATE_COMPLETE' % stack_name
    assert '6 of 6 done' in lines[-2]
    # One line per change: never the same state twice in a row.
    states = [line.split(' ', 1)[1] for line in lines[:-1]]
    assert all(a != b for a, b in zip(states, states[1:]))
    assert '\x1b' not in out  # no terminal codes in a log


def test_watch_exits_1_and_says_why_on_failure(heat_server, heat,
                                               stack_name):
    tmpl = test_engine.template('nodes.yaml')
    tmpl['resources']['node_2']['properties']['fail'] = True
    heat.stacks.create(stack_name=stack_name, template=tmpl)
    code, out, err = watch(heat_server, stack_name)
    assert code == 1, (out, err)
    last = out.splitlines()[-1]
    assert last.startswith('Stack %s CREATE_FAILED: ' % stack_name)
    assert 'node_2' in last or 'Test Resource failed' in last, last


def test_ctrl_c_exits_130_and_leaves_the_operation_held(heat_server, heat,
                                                        stack_name):
    test_engine.create(heat, stack_name, 'nodes.yaml', 'node_*')
    wait_held(heat_server, stack_name, NODES)
    # A watch still running long after its SIGINT prints where it is.
    env = dict(os.environ, PYTHONFAULTHANDLER='1', **heat_server.env)
    # As from a terminal: Ctrl-C raises KeyboardInterrupt. A process that
    # inherits SIGINT ignored keeps it ignored (Python installs its handler
    # only over the default), and this test process may have inherited so.
    proc = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), 'openstack'),
         'stack', 'breakpoint', 'watch', stack_name, '--interval', '0.3'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = proc.stdout.readline()
    assert 'held: node_1' in first
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        out, err = proc.communicate(timeout=30)
        raise AssertionError(
            'still running 60 s after SIGINT (here SIGINT is %r):\n%s\n%s'
            % (signal.getsignal(signal.SIGINT), out, err[-6000:]))
    assert proc.returncode == 130, err
    assert 'interrupted: the operation stays held at node_1, node_2, ' \
        'node_3, node_4' in out
    time.sleep(1)
    body = progress(heat_server, stack_name)
    assert held_names(body) == list(NODES)
    assert body['stack']['stack_status'] == 'CREATE_IN_PROGRESS'
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_watch_works_without_the_view(heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'nodes.yaml')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    with mock.patch.object(live, 'fetch', return_value=None):
        code, out, err = watch(heat_server, stack_name)
    assert code == 0, (err, out)
    lines = out.splitlines()
    assert lines[0] == watch_v1.FALLBACK_NOTE
    assert '6 of 6 done' in lines[1]
    assert lines[-1] == 'Stack %s CREATE_COMPLETE' % stack_name


def test_watch_follows_a_delete_until_the_stack_is_gone(heat_server, heat,
                                                        stack_name):
    test_engine.create_then_delete(heat, stack_name, 'nodes.yaml', 'base')
    wait_held(heat_server, stack_name, ['base'])

    lines = watch_while_continued(heat_server, heat, stack_name)
    out = '\n'.join(lines)
    assert '5 of 6 done' in lines[0] and 'held: base' in lines[0]
    assert lines[-1] == 'Stack %s DELETE_COMPLETE' % stack_name
    assert watch_v1.FALLBACK_NOTE not in out


def test_unknown_stack_is_a_one_line_error(heat_server):
    code, out, err = watch(heat_server, 'no-such-stack')
    assert code == 1
    assert out == ''
    errors = [line for line in err.splitlines()
              if not line.startswith('Could not load')]
    assert errors == ['Stack not found: no-such-stack']


def hits(heat, stack):
    """Resources a breakpoint held during the stack's life."""
    return sorted(event.resource_name
                  for event in utils.events(heat, stack)
                  if (event.resource_status_reason or '').startswith(
                      'Breakpoint ') and ' reached before ' in
                  event.resource_status_reason)


def watch_answering(heat_server, stack, answers):
    with mock.patch('sys.stdin', io.StringIO(answers)):
        return watch(heat_server, stack, '-i')


@pytest.mark.parametrize('answers, told', [
    pytest.param('clear C\nset D\nX\nA\nc\n', (
        'cleared C (disarmed)',
        'armed D for the rest of this operation',
        'error: X is not held (held: A)',
        'released A (clear)',
        'Release D?',
        'released D (continue)'), id='clear_set_and_release_by_name'),
    pytest.param('to D\nD\n', (
        'running to D: released A',
        'Release D?',
        'released D (clear)'), id='run_to'),
])
def test_interactive_answers(heat_server, heat, stack_name, answers, told):
    # chain A -> B -> C -> D, breakpoints A and C; answers piped in.
    test_engine.create(heat, stack_name, 'chain.yaml', 'A', 'C')
    wait_held(heat_server, stack_name, ['A'])
    code, out, err = watch_answering(heat_server, stack_name, answers)
    assert code == 0, (err, out)
    for said in told + ('Stack %s CREATE_COMPLETE' % stack_name,):
        assert said in out, (said, out)
    assert hits(heat, stack_name) == ['A', 'D']


def watch_while_continued(heat_server, heat, stack):
    """The lines of a ``watch`` that ends well while the stack continues."""
    code, lines, err = watch_lines_while(
        heat_server, stack,
        lambda: bp_v1.BreakpointManager(heat).continue_(stack))
    assert code == 0, (err, lines)
    return lines


def watch_lines_while(heat_server, stack, act, *extra):
    """``watch`` in its own process (lines, not a terminal) while act().

    ``act()`` drives the operation once the watch printed its first line
    (it has read the state before: however slow the machine is to start
    it); returns the exit code, the lines and stderr.
    """
    env = dict(os.environ, **heat_server.env)
    proc = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), 'openstack'),
         'stack', 'breakpoint', 'watch', stack, '--interval', '0.2'] +
        list(extra), env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    stuck = threading.Timer(120, proc.kill)
    stuck.start()
    try:
        first = proc.stdout.readline()
        act()
        out, err = proc.communicate(timeout=120)
    finally:
        stuck.cancel()
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, (first + out).splitlines(), err


DONE = re.compile(r' (\d+) of (\d+) done ')


def test_a_rollback_and_a_delete_are_counted(heat_server, heat, stack_name):
    from heat_breakpoint.model import breakpoints

    from tests.functional import test_outcomes
    test_outcomes.create(heat, stack_name, 'fail_fan.yaml', 'f',
                         when=breakpoints.FAILED, disable_rollback=False)
    test_outcomes.wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)
    lines = watch_while_continued(heat_server, heat, stack_name)
    rollback = [DONE.search(line).groups() for line in lines
                if ' ROLLBACK_' in line and DONE.search(line)]
    assert rollback, lines
    # the rollback of a create deletes what it made: counted, not 0 of 0
    assert all(int(total) > 0 for _done, total in rollback), lines
    assert rollback[-1][0] == rollback[-1][1], lines
    assert lines[-1] == 'Stack %s ROLLBACK_COMPLETE' % stack_name

    # a delete held at D, the first it deletes: the rows go as it runs
    deleted = stack_name + '-d'
    test_engine.create_then_delete(heat, deleted, 'chain.yaml', 'D')
    wait_held(heat_server, deleted, ['D'])
    lines = watch_while_continued(heat_server, heat, deleted)
    totals = [int(DONE.search(line).group(2)) for line in lines
              if DONE.search(line)]
    assert totals and totals[0] == 4 and set(totals) == {4}, lines
    assert ' 4 of 4 done ' in lines[-2], lines
    assert lines[-1] == 'Stack %s DELETE_COMPLETE' % deleted
