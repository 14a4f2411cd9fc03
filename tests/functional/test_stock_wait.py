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
"""``openstack stack create|update --wait`` as stock heatclient's.

Scripts rely on ``--wait``: what it prints and its exit code. Installing
the extension must not change either without a breakpoint, and with
breakpoints the exit code of an operation that ends must be stock's for
the same end. "Stock" is the same in-process OSC shell
(:func:`conftest.run_openstack`) with our ``openstack.cli.stack_create``
and ``stack_update`` hooks left out of the stevedore manager cliff loads
command hooks with; everything else (OSC, heatclient, the local Heat) is
the same.
"""

import io
import os
import re
import subprocess
import sys
import types
import uuid

from cliff import command as cliff_command
import pytest
from stevedore import extension

from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import utils

TEMPLATE = '''heat_template_version: 2018-08-31
parameters:
  fail: {type: boolean, default: false}
  value: {type: string, default: one}
  slow: {type: number, default: 0}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
      action_wait_secs: {create: {get_param: slow}}
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [a, output]}, fail: {get_param: fail}}
'''
OUR_HOOKS = ('openstack.cli.stack_create', 'openstack.cli.stack_update')
UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                  r'[0-9a-f]{12}')
OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
TIME = re.compile(r'\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?')


def _without_our_hooks(namespace, **kwargs):
    manager = extension.ExtensionManager(namespace, **kwargs)
    if namespace not in OUR_HOOKS:
        return manager
    return extension.ExtensionManager.make_test_instance(
        [ext for ext in manager.extensions
         if not ext.entry_point.value.startswith('heatclient_ext.')],
        namespace=namespace)


def run_stock(server, monkeypatch, *argv):
    """The OSC shell as without the extension's create/update hooks."""
    with monkeypatch.context() as patch:
        patch.setattr(cliff_command, 'extension', types.SimpleNamespace(
            ExtensionManager=_without_our_hooks))
        return conftest.run_openstack(server, *argv)


def normalised(text, name):
    """What two stock runs of the same command print alike.

    Their stack names, ids, event ids and times differ. The events
    heatclient read in the same poll as the stack's last one are printed
    too (a rollback's, when it came quickly), so two stock runs differ
    after that line: it is where stock's output ends for a script.
    """
    text = TIME.sub('TIME', UUID.sub('ID', text.replace(name, 'STACK')))
    lines = text.split('\n')
    for index, line in enumerate(lines):
        if re.search(r'\[STACK\]: (CREATE|UPDATE)_(COMPLETE|FAILED) ',
                     line):
            after = lines[index + 1:]
            table = next((i for i, rest in enumerate(after)
                          if rest.startswith('+')), len(after))
            return '\n'.join(lines[:index + 1] + after[table:])
    return text


def names():
    """Three stack names of one length (a table's width follows it)."""
    tag = uuid.uuid4().hex[:6]
    return ['wait-%s-%s' % (who, tag) for who in ('s1', 's2', 'ex')]


@pytest.fixture
def template(tmp_path):
    path = tmp_path / 'wait.yaml'
    path.write_text(TEMPLATE)
    return str(path)


def rolled_back(server, name):
    client = server.client()
    utils.wait_for(lambda: utils.stack_status(client, name) ==
                   'ROLLBACK_COMPLETE', what='%s rolled back' % name)


def create_done(server, name, template, *extra):
    code, out, err = conftest.run_openstack(
        server, 'stack', 'create', name, '-t', template, '--wait',
        '--poll', '1', *extra)
    assert code == 0, err


CASES = {
    'create completes': ('create', [], 0),
    'create fails, rolls back': (
        'create', ['--parameter', 'fail=true', '--enable-rollback'], 1),
    'create fails': ('create', ['--parameter', 'fail=true'], 1),
    'update completes': ('update', ['--parameter', 'value=two'], 0),
    'update fails': (
        'update', ['--parameter', 'value=two', '--parameter', 'fail=true'],
        1),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_wait_without_breakpoint_is_stock(heat_server, template,
                                          monkeypatch, case):
    action, extra, expected = CASES[case]
    runs = []
    for name, run in zip(names(), (run_stock, run_stock, None)):
        if action == 'update':
            create_done(heat_server, name, template)
        argv = ['stack', action, name, '-t', template, '--wait'] + extra
        if action == 'create':
            argv += ['--poll', '1']
        if run is None:
            result = conftest.run_openstack(heat_server, *argv)
        else:
            result = run(heat_server, monkeypatch, *argv)
        code, out, err = result
        runs.append((code, normalised(out, name), normalised(err, name)))
    stock, stock_again, ours = runs
    assert stock[0] == expected, stock
    # the masks hide only what differs between two stock runs
    assert stock_again == stock
    assert ours == stock
    # and what they keep is what a script reads: the events, the end
    assert '[STACK]: %s_' % action.upper() in ours[1]
    if expected:
        assert ours[2].strip() == 'Stack STACK %s_FAILED' % action.upper()
    else:
        assert '| stack_status        | %s_COMPLETE' % action.upper() \
            in ours[1]


def test_breakpoint_not_reached_create_rolls_back_exits_as_stock(
        heat_server, template, monkeypatch):
    stock_name, _other, name = names()
    fails = ['-t', template, '--parameter', 'fail=true',
             '--enable-rollback', '--wait', '--poll', '1']
    stock = run_stock(heat_server, monkeypatch, 'stack', 'create',
                      stock_name, *fails)
    # a could hold on its failure; b fails instead and the create rolls
    # back: the wait ends where stock's ends, and as it ends
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', name, *fails,
        '--breakpoint-on-failure', 'a')
    assert stock[0] == 1
    assert code == stock[0], out + err
    assert normalised(err, name) == normalised(stock[2], stock_name)
    assert normalised(out, name) == normalised(stock[1], stock_name)
    rolled_back(heat_server, name)


def test_existing_update_keeps_breakpoints_and_exits_as_stock(
        heat_server, template, monkeypatch):
    stock_name, _other, name = names()
    create_done(heat_server, stock_name, template, '--enable-rollback')
    create_done(heat_server, name, template, '--enable-rollback',
                '--breakpoint-on-failure', 'a')
    fails = ['--existing', '--parameter', 'fail=true', '--parameter',
             'value=two', '--wait']
    stock = run_stock(heat_server, monkeypatch, 'stack', 'update',
                      stock_name, *fails)
    # the stored breakpoint could hold this update, so the wait is ours;
    # a does not fail, b does, and the update rolls back
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'update', name, *fails)
    assert stock[0] == 1
    assert code == stock[0], out + err
    assert normalised(err, name) == normalised(stock[2], stock_name)
    assert '[STACK]: UPDATE_FAILED ' in normalised(out, name)
    rolled_back(heat_server, name)


def test_hold_continue_fail_rollback_exits_as_stock(
        heat_server, template, monkeypatch):
    """Held at b, continued at the prompt, b fails, the create rolls back.

    Stock exits 1 for that end (its wait ends at ``CREATE_FAILED``).
    """
    name = names()[2]
    monkeypatch.setattr(sys, 'stdin', io.StringIO('c\n'))
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', name, '-t', template,
        '--parameter', 'fail=true', '--enable-rollback', '--breakpoint', 'b',
        '--interactive')
    assert code == 1, out + err
    assert 'Stack %s ROLLBACK_COMPLETE' % name in err
    assert heat_server.client().stacks.get(name).stack_status == \
        'ROLLBACK_COMPLETE'


def test_held_create_returns_with_the_events(heat_server, template):
    name = names()[2]
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', name, '-t', template,
        '--breakpoint', 'b', '--wait', '--poll', '1')
    assert code == 0, err
    assert ' [%s]: CREATE_IN_PROGRESS  Stack CREATE started\n' % name in out
    assert ' [%s.a]: CREATE_COMPLETE ' % name in out
    assert out.rstrip('\n').endswith(
        'Stack %s is held at: b (CREATE)' % name)
    bp_v1.BreakpointManager(heat_server.client()).continue_(name)


def test_a_cancel_between_two_polls_ends_the_wait(heat_server, template):
    """Held and cancelled while the wait slept: it ends, as a failure.

    A cancelled update goes to ``ROLLBACK_IN_PROGRESS`` with no
    ``UPDATE_FAILED``; heatclient's wait for ``UPDATE_*`` would never end
    (stock's does not), and neither did ours when it missed the hold.
    """
    name = names()[2]
    create_done(heat_server, name, template)
    manager = bp_v1.BreakpointManager(heat_server.client())
    for attempt in range(3):
        # the wait looks every 5 s: the hold is made and cancelled
        # between two of its looks (if it saw the hold, again)
        proc = subprocess.Popen(
            [OPENSTACK, 'stack', 'update', name, '--existing',
             '--parameter', 'value=v%d' % attempt, '--breakpoint', 'b',
             '--wait'], env=dict(os.environ, **heat_server.env),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True)
        try:
            held = utils.wait_for(lambda: manager.held_now(name)[1], 60,
                                  what='b held')
            manager.cancel(name, held)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        rolled_back(heat_server, name)
        if 'is held at' not in out:
            break
    assert 'is held at' not in out, 'the wait saw the hold every time'
    assert proc.returncode == 1, out + err
    assert 'Stack %s ROLLBACK_COMPLETE' % name in err
    assert '[%s]: ROLLBACK_COMPLETE ' % name in out


def test_interrupted_wait_says_what_goes_on(heat_server, template,
                                            monkeypatch):
    name = names()[2]

    def interrupted(seconds):
        raise KeyboardInterrupt()

    # Ctrl-C lands where the wait spends its time: between two polls
    monkeypatch.setattr('heatclient_ext.osc.waiting.time',
                        types.SimpleNamespace(sleep=interrupted))
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', name, '-t', template,
        '--parameter', 'slow=5', '--breakpoint', 'b', '--wait', '--poll',
        '1')
    assert code == 130  # OSC's exit code for an interrupt
    assert (
        'Interrupted: the create of stack %s goes on in Heat and holds at '
        'its breakpoints; follow it with "openstack stack breakpoint watch '
        '-i %s"' % (name, name)) in err
    assert 'openstack stack breakpoint list %s' % name in err
    manager = bp_v1.BreakpointManager(heat_server.client())
    held = utils.wait_for(lambda: manager.held_now(name)[1], what='held')
    assert [row['resource'] for row in held] == ['b']
    manager.continue_(name)
