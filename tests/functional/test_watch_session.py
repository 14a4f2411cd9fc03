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
"""The live session when the world moves while its prompt waits.

In real terminals (tmux), against the local Heat: a second terminal
releases what the first one's prompt names, or starts a newer update
that replaces the held one; a failure is held (shown with its error,
retried from the prompt); the server is restarted on the same port and
state directory while the prompt waits, and the session rides it out
(or gives up, with its own exit code, when told to wait less).
"""

import re
import time

import pytest

from heat_breakpoint.model import breakpoints
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import test_outcomes
from tests.functional import test_parked_holds
from tests.functional import test_watch_interactive as interactive
from tests.functional import utils

pytestmark = interactive.pytestmark
panes = interactive.panes
NODES = interactive.NODES


def watch_argv(stack, *extra, interval='0.5'):
    return ('openstack', 'stack', 'breakpoint', 'watch', '-i', stack,
            '--interval', interval) + extra


def elapsed(screen):
    return re.search(r'elapsed (\d+:\d\d:\d\d)', screen).group(1)


def second_terminal(server, panes, *argv):
    """Run one command in another pane; its screen once it exited."""
    pane = interactive.watch_pane(server, panes, 'openstack', *argv)
    return pane.wait('EXIT=', timeout=120)


def held_on_failure(heat, stack_name):
    """fail_fan.yaml created with a breakpoint on f's failure, f held."""
    test_outcomes.create(heat, stack_name, 'fail_fan.yaml', 'f',
                         when=breakpoints.FAILED)
    test_outcomes.wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)


def test_prompt_follows_what_another_terminal_releases(
        heat_server, heat, stack_name, panes):
    interactive.nodes_held(heat_server, heat, stack_name)
    pane = interactive.watch_pane(heat_server, panes,
                                  *watch_argv(stack_name))
    first = elapsed(pane.wait('Release node_1?'))
    # The screen refreshes while the prompt waits: the clock moves.
    utils.wait_for(lambda: elapsed(pane.screen()) != first, 10,
                   what='elapsed to move on the screen')
    pane.keys('-l', 'nod')  # typed, not entered: kept across refreshes

    screen = second_terminal(heat_server, panes, 'stack', 'breakpoint',
                             'clear', stack_name, 'node_1')
    assert 'EXIT=0' in screen
    screen = pane.wait('Release node_2?')
    assert 'node_1 is no longer held: Breakpoint node_* released ' \
        '(clear)' in screen, screen
    assert 'held 3' in screen
    assert screen.rstrip().endswith('> nod'), screen
    pane.answer('e_2')
    pane.wait('released node_2 (clear)')

    screen = second_terminal(heat_server, panes, 'stack', 'breakpoint',
                             'continue', stack_name)
    assert 'EXIT=0' in screen
    screen = pane.wait('EXIT=0')
    assert 'node_3 is no longer held' in screen
    assert 'Stack %s CREATE_COMPLETE' % stack_name in screen
    assert 'error' not in screen
    assert utils.stack_status(heat, stack_name) == 'CREATE_COMPLETE'


def test_a_newer_update_ends_the_prompt_of_the_replaced_one(
        heat_server, heat, stack_name, panes):
    held_on_failure(heat, stack_name)
    pane = interactive.watch_pane(heat_server, panes,
                                  *watch_argv(stack_name))
    pane.wait('f failed. Retry it?')
    screen = second_terminal(
        heat_server, panes, 'stack', 'update', stack_name, '--existing',
        '--parameter', 'fail=false', '--wait')
    assert 'EXIT=0' in screen, screen
    screen = pane.wait('EXIT=0')
    assert 'f is no longer held' in screen
    assert 'Stack %s UPDATE_COMPLETE' % stack_name in screen
    assert 'stays held' not in screen


def test_q_says_the_operation_ended_when_it_did(heat_server, heat,
                                                stack_name, panes):
    test_engine.create(heat, stack_name, 'nodes.yaml', 'node_1')
    utils.wait_for(lambda: interactive.held(heat_server, stack_name) ==
                   ['node_1'], 90, what='node_1 held')
    # A long interval: q is typed before the session saw the release.
    pane = interactive.watch_pane(heat_server, panes, 'openstack', 'stack',
                                  'breakpoint', 'watch', '-i', stack_name,
                                  '--interval', '30')
    pane.wait('Release node_1?')
    second_terminal(heat_server, panes, 'stack', 'breakpoint', 'continue',
                    stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    pane.answer('q')
    screen = pane.wait('EXIT=')
    assert 'EXIT=0' in screen
    assert 'stays held' not in screen
    assert 'CREATE_COMPLETE' in screen


def test_update_interactive_left_with_q_names_the_watch_to_resume(
        heat_server, heat, stack_name, panes):
    test_engine.create(heat, stack_name, 'nodes.yaml')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    pane = interactive.watch_pane(
        heat_server, panes, 'openstack', 'stack', 'update', stack_name,
        '--existing', '--parameter', 'version=two', '--breakpoint',
        'node_1', '-i')
    pane.wait('Release node_1?')
    pane.answer('q')
    screen = pane.wait('EXIT=0')
    resume = 'openstack stack breakpoint watch -i %s' % stack_name
    assert 'left: the operation stays held at node_1; run "%s" to ' \
        'resume' % resume in screen
    # What it names resumes the same update (running the update again
    # would start a newer one).
    pane = interactive.watch_pane(heat_server, panes, *resume.split())
    pane.wait('Release node_1?')
    pane.answer('c')
    screen = pane.wait('EXIT=0')
    assert 'Stack %s UPDATE_COMPLETE' % stack_name in screen
    updates = [event for event in utils.events(heat, stack_name)
               if event.resource_name == stack_name and
               event.resource_status == 'UPDATE_IN_PROGRESS']
    assert len(updates) == 1


def test_a_failure_hold_is_a_failure_retried_from_the_prompt(
        heat_server, heat, stack_name, panes):
    held_on_failure(heat, stack_name)
    pane = interactive.watch_pane(heat_server, panes,
                                  *watch_argv(stack_name))
    screen = pane.wait('f failed. Retry it? [Enter: retry it')
    assert re.search(r'f\s+CREATE\s+failed, held on failure: \S', screen), \
        screen
    assert 'failed 1 (1 held)' in screen
    pane.answer('?')
    screen = pane.wait('retry [R]  run the failed action')
    assert 'error' not in screen
    pane.answer('')
    pane.wait('retrying f (if it fails again, it holds again)')
    utils.wait_for(lambda: len(test_outcomes.hits(
        heat, stack_name, 'f', 'failed')) == 2, 60, what='f held again')
    pane.wait('f failed. Retry it?')
    pane.answer('retry f')
    utils.wait_for(lambda: len(test_outcomes.hits(
        heat, stack_name, 'f', 'failed')) == 3, 60, what='f held again')
    pane.wait('f failed. Retry it?')
    pane.answer('retry c')
    pane.wait('error: Nothing is held at c')  # said; nothing done
    pane.answer('c')
    screen = pane.wait('EXIT=1')
    assert 'Stack %s CREATE_FAILED' % stack_name in screen


@pytest.fixture
def own_server():
    with test_parked_holds.local_heat('watch-restart') as server:
        yield server


def test_the_session_waits_out_a_server_restart(own_server, panes):
    server, hc = own_server, own_server.client()
    test_engine.create(hc, 'held', 'nodes.yaml', 'node_*')
    utils.wait_for(lambda: interactive.held(server, 'held') == list(NODES),
                   90, what='the four nodes held')
    pane = interactive.watch_pane(server, panes, *watch_argv(
        'held', '--reconnect-timeout', '120'))
    pane.wait('Release node_1?')
    assert server.stop() == 0, server.read_output()
    pane.wait('reconnecting (try ')
    time.sleep(3)
    server.start()
    pane.wait('reconnected to Heat', timeout=120)
    pane.wait('Release node_1?')
    pane.answer('')
    pane.wait('released node_1 (step)')
    utils.wait_resource(server.client(), 'held', 'node_1', 'CREATE_COMPLETE')
    pane.wait('Release node_2?')
    pane.answer('q')
    pane.wait('EXIT=0')

    # Told to wait 2 s, it gives up with its own exit code.
    pane = interactive.watch_pane(server, panes, *watch_argv(
        'held', '--reconnect-timeout', '2'))
    pane.wait('Release node_2?')
    assert server.stop() == 0, server.read_output()
    screen = pane.wait('EXIT=3', timeout=60)
    assert 'gave up: the operation stays held at node_2, node_3, node_4' \
        in screen
    assert 'openstack stack breakpoint watch -i held' in screen


def test_watch_at_depth_0_says_what_is_held_deeper(heat_server, heat,
                                                   stack_name, panes):
    test_engine.create(
        heat, stack_name, 'nested_root.yaml', 'outer/inner/leaf',
        files=test_engine.template_files('level1.yaml', 'level2.yaml'))
    utils.wait_for(lambda: interactive.held(heat_server, stack_name) ==
                   ['outer/inner/leaf'], 90, what='the nested hold')
    pane = interactive.watch_pane(
        heat_server, panes, 'openstack', 'stack', 'breakpoint', 'watch',
        stack_name, '--nested-depth', '0', '--interval', '0.5')
    screen = pane.wait('held deeper than --nested-depth')
    assert 'Nothing held; 1 held deeper than --nested-depth' in screen
    second_terminal(heat_server, panes, 'stack', 'breakpoint', 'continue',
                    stack_name)
    screen = pane.wait('EXIT=0')
    assert 'Stack %s CREATE_COMPLETE' % stack_name in screen


def test_a_small_terminal_keeps_the_header_and_whole_names(
        heat_server, heat, stack_name, panes):
    interactive.nodes_held(heat_server, heat, stack_name)
    pane = interactive.watch_pane(heat_server, panes,
                                  *watch_argv(stack_name))
    pane.tmux('resize-window', '-t', pane.session, '-x', '60', '-y', '15')
    pane.wait('Release node_1?')
    time.sleep(1.5)  # redrawn at the new size
    screen = pane.screen().splitlines()
    assert screen[0].startswith('Stack %s  CREATE_IN_PROGRESS' %
                                stack_name), '\n'.join(screen)
    assert any(re.match(r'^  node_1\s+CREATE\s+at breakpoint node_\*$',
                        line) for line in screen), screen
    pane.answer('help')
    screen = pane.wait('retry [R]')
    assert screen.splitlines()[0].startswith('Stack %s' % stack_name)
    assert 'is not held' not in screen
    pane.answer('node_9')
    # the closest first, in natural order (the line wraps between words)
    utils.wait_for(lambda: 'did you mean node_1, node_2, node_3?' in
                   ' '.join(pane.screen().split()), 30,
                   what='the closest names')
    pane.answer('c')
    screen = pane.wait('EXIT=0')
    assert 'Stack %s CREATE_COMPLETE' % stack_name in screen


def test_an_answer_typed_while_a_redraw_took_the_prompt_is_acted_on(
        heat_server, heat, stack_name, panes):
    # The screen redraws five times a second while "cancel" is typed a
    # key at a time; half way, another terminal releases what the
    # prompt named, and the redraw takes the prompt away. The answer
    # must still be read, and acted on, at once.
    test_engine.create(heat, stack_name, 'held_and_slow.yaml')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    code, _out, err = conftest.run_openstack(
        heat_server, 'stack', 'update', stack_name, '--existing',
        '--parameter', 'version=two', '--breakpoint', 'node')
    assert code == 0, err
    pane = interactive.watch_pane(heat_server, panes,
                                  *watch_argv(stack_name, interval='0.2'))
    pane.wait('Release node?', timeout=120)
    for key in 'can':
        pane.keys('-l', key)
        time.sleep(0.15)
    utils.wait_for(lambda: pane.screen().rstrip().endswith('> can'), 10,
                   what='what is typed, kept across redraws')
    screen = second_terminal(heat_server, panes, 'stack', 'breakpoint',
                             'clear', stack_name, 'node')
    assert 'EXIT=0' in screen
    pane.wait('Nothing held')
    for key in 'cel':
        pane.keys('-l', key)
        time.sleep(0.15)
    pane.keys('Enter')
    screen = pane.wait('cancelled the operation: Heat rolls it back',
                       timeout=15)
    assert heat.stacks.get(stack_name).stack_status.startswith('ROLLBACK')
    pane.wait('EXIT=', timeout=150)
