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
"""``watch --interactive`` used as a person uses it: in a real terminal.

Each test runs the real ``openstack`` command in a tmux pane against the
local Heat, types answers with ``send-keys`` and reads the screen with
``capture-pane``, then checks the stack itself: four independent
``node_*`` resources held by one glob breakpoint, released one at a time
with Enter (leaving with ``q`` and Ctrl-C and coming back in between),
then ``c``; and an update started with ``--interactive`` and cancelled,
which must end ``ROLLBACK_COMPLETE`` with nothing held.
"""

import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import uuid

import pytest
import requests

from tests.functional import test_engine
from tests.functional import utils

#: For a test of a real terminal, here and in other modules.
NEEDS_TMUX = pytest.mark.skipif(shutil.which('tmux') is None,
                                reason='tmux is not installed')
pytestmark = NEEDS_TMUX
NODES = ('node_1', 'node_2', 'node_3', 'node_4')
BIN = os.path.dirname(sys.executable)


class Pane:
    """One command in a detached tmux session on a private server."""

    def __init__(self, heat_server, argv):
        self.socket = 'heatbp-watch-%s' % uuid.uuid4().hex[:8]
        self.session = 'watch'
        env = dict(heat_server.env, PATH='%s:%s' % (
            BIN, os.environ.get('PATH', '')), TERM='xterm')
        command = 'env %s %s; echo EXIT=$?; sleep 600' % (
            ' '.join('%s=%s' % (key, shlex.quote(value))
                     for key, value in sorted(env.items())),
            ' '.join(shlex.quote(arg) for arg in argv))
        self.tmux('new-session', '-d', '-s', self.session, '-x', '150',
                  '-y', '50', command)

    def tmux(self, *args):
        return subprocess.run(['tmux', '-L', self.socket] + list(args),
                              check=True, capture_output=True,
                              text=True).stdout

    def screen(self):
        return self.tmux('capture-pane', '-p', '-J', '-t', self.session)

    def keys(self, *keys):
        self.tmux('send-keys', '-t', self.session, *keys)

    def answer(self, text):
        if text:
            self.keys('-l', text)
        self.keys('Enter')

    def wait(self, text, timeout=90):
        return utils.wait_for(lambda: text in self.screen() and
                              self.screen(), timeout,
                              what='%r on the screen' % text)

    def close(self):
        subprocess.run(['tmux', '-L', self.socket, 'kill-server'],
                       capture_output=True)


@pytest.fixture
def panes():
    opened = []
    yield opened
    for pane in opened:
        pane.close()


def watch_pane(heat_server, panes, *argv):
    pane = Pane(heat_server, list(argv))
    panes.append(pane)
    return pane


def held(heat_server, stack):
    body = requests.get('%s/stacks/%s/breakpoints' % (
        heat_server.endpoint, stack), timeout=30).json()
    return sorted(row['resource'] for row in body['breakpoints']
                  if row['state'] == 'held')


# The resource data key of a hold
# (heat_breakpoint.engine.check.parking.HOLD_KEY).
# Not imported: importing Heat's engine here would turn on Heat's lazy
# translation in this process and break other OSC plugins loaded later.
HOLD_KEY = 'breakpoint_hold'


def parked(heat_server, stack):
    """Hold records left in Heat's database for the stack's resources."""
    db = sqlite3.connect('file:%s?mode=ro' % os.path.join(
        heat_server.state_dir, 'heat.sqlite'), uri=True)
    try:
        return db.execute(
            'SELECT r.name FROM resource_data d JOIN resource r ON '
            'r.id = d.resource_id JOIN stack s ON s.id = r.stack_id '
            'WHERE s.name = ? AND d.key = ?', (stack, HOLD_KEY)
        ).fetchall()
    finally:
        db.close()


def states(heat, stack):
    return {name: res.resource_status
            for name, res in utils.resources(heat, stack).items()}


def nodes_held(heat_server, heat, stack_name):
    """Create the four nodes with a breakpoint each; wait until all hold."""
    test_engine.create(heat, stack_name, 'nodes.yaml', 'node_*')
    utils.wait_for(lambda: held(heat_server, stack_name) == list(NODES),
                   90, what='the four nodes held')


def test_release_one_node_at_a_time_with_enter_then_continue(
        heat_server, heat, stack_name, panes):
    nodes_held(heat_server, heat, stack_name)
    argv = ('openstack', 'stack', 'breakpoint', 'watch', '-i', stack_name,
            '--interval', '0.5')

    pane = watch_pane(heat_server, panes, *argv)
    screen = pane.wait('Release node_1?')
    assert 'held 4' in screen and '1 of 6 done' in screen
    pane.answer('')
    pane.wait('released node_1 (step)')
    utils.wait_resource(heat, stack_name, 'node_1', 'CREATE_COMPLETE')
    assert held(heat_server, stack_name) == list(NODES[1:])
    pane.wait('Release node_2?')
    # q leaves; the operation stays held.
    pane.answer('q')
    screen = pane.wait('EXIT=0')
    assert 'left: the operation stays held at node_2, node_3, node_4' \
        in screen

    # The same command again resumes; Ctrl-C leaves too (exit 130).
    pane = watch_pane(heat_server, panes, *argv)
    pane.wait('Release node_2?')
    pane.answer('')
    pane.wait('released node_2 (step)')
    pane.wait('Release node_3?')
    pane.keys('C-c')
    screen = pane.wait('EXIT=130')
    assert 'interrupted: the operation stays held at node_3, node_4' \
        in screen
    assert held(heat_server, stack_name) == ['node_3', 'node_4']

    pane = watch_pane(heat_server, panes, *argv)
    pane.wait('Release node_3?')
    # Bad answers: one line each, the prompt again, nothing released.
    pane.answer('node_9')
    pane.wait('error: node_9 is not held (did you mean')
    pane.answer('node_[')
    pane.wait('error: bad pattern node_[')
    pane.answer('frobnicate now')
    pane.wait('error: unknown answer')
    assert held(heat_server, stack_name) == ['node_3', 'node_4']
    pane.answer('')
    pane.wait('released node_3 (step)')
    pane.wait('Release node_4?')
    pane.answer('')
    pane.wait('released node_4 (step)')
    # Stepping armed what comes next: final, which waits for all four.
    screen = pane.wait('Release final?')
    assert states(heat, stack_name)['final'] == 'CREATE_IN_PROGRESS'
    pane.answer('c')
    screen = pane.wait('EXIT=0')
    assert 'released final (continue)' in screen
    assert 'Stack %s CREATE_COMPLETE' % stack_name in screen
    assert set(states(heat, stack_name).values()) == {'CREATE_COMPLETE'}
    created = [event for event in utils.events(heat, stack_name)
               if event.resource_status == 'CREATE_COMPLETE' and
               event.resource_name in NODES]
    assert sorted(event.resource_name for event in created) == list(NODES)


def test_update_interactive_cancel_rolls_back_and_holds_nothing(
        heat_server, heat, stack_name, panes):
    test_engine.create(heat, stack_name, 'nodes.yaml')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    template = os.path.join(test_engine.TEMPLATES, 'nodes.yaml')
    pane = watch_pane(heat_server, panes, 'openstack', 'stack', 'update',
                      stack_name, '-t', template, '--parameter',
                      'version=two', '--breakpoint', 'node_*', '-i')
    screen = pane.wait('Release node_1?')
    assert 'UPDATE_IN_PROGRESS' in screen
    pane.answer('')
    pane.wait('released node_1 (step)')
    pane.wait('Release node_2?')
    pane.answer('glob*[')
    pane.wait('error: bad pattern glob*[')
    pane.answer('node_[23]')
    pane.wait('released node_2, node_3 (clear)')
    pane.wait('Release node_4?')
    pane.answer('cancel')
    # Rolled back: 1, as stock's --wait of an update cancelled.
    screen = pane.wait('EXIT=1', timeout=120)
    assert 'cancelled the operation: Heat rolls it back' in screen
    assert 'Stack %s ROLLBACK_COMPLETE' % stack_name in screen
    assert heat.stacks.get(stack_name).stack_status == 'ROLLBACK_COMPLETE'
    assert held(heat_server, stack_name) == []
    assert set(states(heat, stack_name).values()) <= {
        'CREATE_COMPLETE', 'UPDATE_COMPLETE'}
    assert parked(heat_server, stack_name) == []
    # Rolled back: every node has the value it had before the update.
    for name in NODES:
        assert heat.resources.get(stack_name, name).attributes[
            'output'] == 'one', name


def test_a_fix_from_another_client_is_followed(heat_server, heat,
                                               stack_name, panes, tmp_path):
    from tests.functional import conftest
    from tests.functional import test_fix_and_continue as fix
    template = fix.chain(tmp_path)
    code, _out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', template, '--breakpoint', 'vol',
        stack_name)
    assert code == 0, err
    utils.wait_for(lambda: held(heat_server, stack_name) == ['vol'], 60,
                   what='vol held')
    pane = watch_pane(heat_server, panes, 'openstack', 'stack', 'breakpoint',
                      'watch', '-i', stack_name, '--interval', '0.5')
    pane.wait('Release vol?')
    # Another client fixes the parameter: the operation is superseded.
    code, _out, err = conftest.run_openstack(
        heat_server, 'stack', 'update', '--existing', '--parameter',
        'size=5', stack_name)
    assert code == 0, err
    pane.wait('a newer operation (UPDATE_IN_PROGRESS) superseded the one '
              'followed (CREATE_IN_PROGRESS): following it')
    utils.wait_for(lambda: 'Release vol?' in pane.screen().split(
        'following it')[-1], 60, what='vol held again')
    pane.answer('c')
    screen = pane.wait('EXIT=0')
    assert 'Stack %s UPDATE_COMPLETE' % stack_name in screen
    stack = heat.stacks.get(stack_name)
    assert fix.output(stack) == {'out': 'first-5'}
