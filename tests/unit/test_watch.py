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
"""The watch session's pure parts: answers, drawing, the loop's exits.

The loop runs here over snapshots given in turn (no server); the real
server and terminal are in ``tests/functional/test_watch*.py``.
"""

import io
import types
from unittest import mock

import pytest

from heat_breakpoint.engine.view import progress as progress_engine
from heatclient_ext.terminal import watch_session as watch
from heatclient_ext.v1 import answers as console_answers
from heatclient_ext.v1 import live


def row(name, state='held', breakpoint='node_*'):
    return {'resource': name, 'state': state, 'action': 'CREATE',
            'breakpoint': breakpoint, 'held_since': '', 'hook': 'pre-create',
            'form': 'plugin', 'stack': 's/id', 'resource_name': name,
            'timeout_remaining': '0:59:00'}


HELD = [row('node_1'), row('node_2'), row('node_3')]


def snap(status='CREATE_IN_PROGRESS', rows=(), done=1, total=4, **counts):
    base = dict.fromkeys(watch.STATES, 0)
    base.update(counts)
    return watch.Snapshot('s', 'id', status, list(rows), {
        'counts': base, 'done': done, 'total': total, 'elapsed': 75,
        'timeout_remaining': '0:58:45',
        'events': [{'time': '2026-11-30T20:19:19Z', 'resource': 'node_1',
                    'action': 'CREATE', 'status': 'IN_PROGRESS',
                    'reason': 'Breakpoint node_* reached'}]})


# -- answers ------------------------------------------------------------------

@pytest.mark.parametrize('text,expected', [
    ('', ('step', 'node_1')),
    ('\n', ('step', 'node_1')),
    ('node_2', ('release', ['node_2'])),
    ('node_*', ('release', ['node_1', 'node_2', 'node_3'])),
    ('node_[13]', ('release', ['node_1', 'node_3'])),
    ('c', ('continue', None)),
    ('continue', ('continue', None)),
    ('to final', ('to', 'final')),
    ('set node_9', ('set', 'node_9')),
    ('clear node_2', ('clear', 'node_2')),
    ('cancel', ('cancel', None)),
    ('q', ('quit', None)),
])
def test_answers(text, expected):
    assert tuple(watch.parse_answer(text, HELD)) == expected


@pytest.mark.parametrize('text,message', [
    ('node_9', 'node_9 is not held (did you mean node_'),
    ('web', 'web is not held (held: node_1, node_2, node_3)'),
    ('node_[', 'bad pattern node_[: "[" without "]"'),
    ('db_*', 'no held resource matches db_* (held: node_1'),
    ('to', '"to" takes one resource'),
    ('set a b', '"set" takes one resource'),
    ('to node_*', 'takes one resource, not a pattern'),
    ('release all now', 'unknown answer'),
])
def test_bad_answers_are_one_line_errors(text, message):
    with pytest.raises(watch.AnswerError) as caught:
        watch.parse_answer(text, HELD)
    assert message in str(caught.value)
    assert '\n' not in str(caught.value)


def test_enter_with_nothing_held():
    with pytest.raises(watch.AnswerError, match='nothing is held'):
        watch.parse_answer('', [])


# -- drawing ------------------------------------------------------------------

def test_bar():
    assert watch.bar(3, 6, width=10) == '[#####.....] 3 of 6 done'
    assert watch.bar(0, 0, width=4) == '[....] 0 of 0 done'


def test_frame_shows_counts_held_events_and_the_session():
    lines = watch.frame(snap(rows=HELD, held=3, complete=1),
                        log=['released node_0 (step)'])
    text = '\n'.join(lines)
    assert lines[0] == ('Stack s  CREATE_IN_PROGRESS  elapsed 0:01:15  '
                        'timeout in 0:58:45')
    assert '1 of 4 done' in lines[1]
    assert lines[2].startswith('waiting 0  in progress 0  held 3')
    assert 'Held (3):' in text and 'at breakpoint node_*' in text
    assert '20:19:19  node_1  CREATE_IN_PROGRESS  Breakpoint' in text
    assert text.endswith('This session:\n  released node_0 (step)')


def test_template_text_is_escaped():
    evil = row('node_\x1b[2Jx')
    shot = snap(rows=[evil])
    shot.progress['events'][0]['reason'] = 'bad\x1b]0;title\x07'
    for text in ('\n'.join(watch.frame(shot)), watch.change_line(shot)):
        assert '\x1b' not in text and '\x07' not in text


def test_change_line():
    assert watch.change_line(snap(rows=HELD[:2], held=2)) == (
        's CREATE_IN_PROGRESS 1 of 4 done | waiting 0  in progress 0  '
        'held 2  complete 0  failed 0 | held: node_1, node_2')


# -- the loop -----------------------------------------------------------------

class FakeManager:

    def __init__(self):
        self.calls = []

    def release(self, stack, name, how, rows):
        self.calls.append(('release', name, how))
        return rows

    def continue_(self, stack, to=None):
        self.calls.append(('continue', to))
        return HELD

    def get_stack(self, stack):
        return types.SimpleNamespace(stack_status_reason='Resource failed')

    def cancel(self, stack, held):
        self.calls.append(('cancel', stack))
        return 'rollback', [self.release(stack, row['resource'], 'clear',
                                         [row])[0] for row in held]


def session(shots, answers='', interactive=False):
    out = io.StringIO()
    sess = watch.Session(mock.Mock(), 's', out, stdin=io.StringIO(answers),
                         interval=0, interactive=interactive,
                         sleep=lambda seconds: None)
    sess.manager = FakeManager()
    shots = iter(shots)

    def fetch(*args):
        shot = next(shots)
        if isinstance(shot, BaseException):
            raise shot
        return shot

    return sess, out, mock.patch.object(live, 'fetch', side_effect=fetch)


def test_exit_0_on_complete_and_one_line_per_change():
    sess, out, patched = session([snap(), snap(), snap(done=2),
                                  snap('UPDATE_COMPLETE', done=4)])
    with patched:
        assert sess.run() == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == 4  # the repeated state printed once
    assert lines[-1] == 'Stack s UPDATE_COMPLETE'


def test_exit_1_on_failed_with_the_reason():
    sess, out, patched = session([snap('CREATE_FAILED')])
    with patched:
        assert sess.run() == 1
    assert out.getvalue().splitlines()[-1] == (
        'Stack s CREATE_FAILED: Resource failed')


class RollingBack(FakeManager):
    """A stack that rolls back, as Heat says in its ``disable_rollback``."""

    def __init__(self, reason='Resource CREATE failed: boom'):
        super().__init__()
        self.reason = reason

    def get_stack(self, stack):
        self.calls.append(('get_stack',))
        return types.SimpleNamespace(stack_status_reason=self.reason,
                                     disable_rollback=False)


def test_a_failure_heat_rolls_back_is_followed_to_the_rollback_end():
    sess, out, patched = session([
        snap(), snap('CREATE_FAILED'), snap('CREATE_FAILED'),
        snap('ROLLBACK_IN_PROGRESS'), snap('ROLLBACK_COMPLETE', done=4)])
    sess.manager = RollingBack()
    with patched:
        assert sess.run() == 0
    assert out.getvalue().splitlines()[-1] == 'Stack s ROLLBACK_COMPLETE'
    # one look at the stack for the failure, not one per refresh
    assert sess.manager.calls == [('get_stack',)]


@pytest.mark.parametrize('reason,seen_running,reads', [
    # the rollback did not begin in time (a second a read): final
    ('Resource CREATE failed: boom', True, 2 + int(
        live.ROLLBACK_BEGINS)),
    # a cancel without rollback never rolls back
    ('Stack UPDATE cancelled', True, 2),
    # a stack that had already failed when the session began
    ('Resource CREATE failed: boom', False, 1),
])
def test_a_failure_without_a_rollback_ahead_ends_the_session(
        reason, seen_running, reads):
    now = [0.0]
    shots = ([snap()] if seen_running else []) + [
        snap('UPDATE_FAILED')] * 40
    sess, out, patched = session(shots)
    sess.manager = RollingBack(reason)
    sess.rollback.clock = lambda: now[0]
    sess.sleep = lambda seconds: now.__setitem__(0, now[0] + 1)
    with patched as fetched:
        assert sess.run() == 1
    assert fetched.call_count == reads
    assert out.getvalue().splitlines()[-1] == 'Stack s UPDATE_FAILED: ' + \
        reason


def test_exit_130_on_ctrl_c_touches_nothing():
    sess, out, patched = session([snap(rows=HELD), KeyboardInterrupt(),
                                  snap('CREATE_COMPLETE')])
    with patched as fetched:
        assert sess.run() == 130
    assert 'interrupted: the operation stays held at node_1, node_2, ' \
        'node_3' in out.getvalue()
    assert sess.manager.calls == []
    # It leaves on what it saw last: no request after the interrupt, that
    # a busy heat-api could keep waiting.
    assert fetched.call_count == 2


def test_bad_answer_releases_nothing_then_enter_steps_one():
    sess, out, patched = session(
        # each answer is read against a refresh made just before it
        [snap(rows=HELD), snap(rows=HELD), snap(rows=HELD), snap(rows=HELD),
         snap('CREATE_COMPLETE')],
        answers='node_9\n\n', interactive=True)
    with patched:
        assert sess.run() == 0
    assert sess.manager.calls == [('release', 'node_1', 'step')]
    text = out.getvalue()
    assert 'error: node_9 is not held' in text
    assert 'released node_1 (step)' in text


def test_q_and_end_of_input_leave_the_operation_held():
    for answers, shots in (('q\n', 3), ('', 2)):
        sess, out, patched = session([snap(rows=HELD)] * shots,
                                     answers=answers, interactive=True)
        with patched:
            assert sess.run() == 0
        assert 'left: the operation stays held at node_1, node_2, node_3; ' \
            'run "openstack stack breakpoint watch -i s" to resume' in \
            out.getvalue()
        assert sess.manager.calls == []


def test_cancel_releases_what_is_held_then_frees_rollback_holds():
    sess, out, patched = session(
        [snap('UPDATE_IN_PROGRESS', rows=HELD[:1]),
         snap('UPDATE_IN_PROGRESS', rows=HELD[:1]),
         snap('ROLLBACK_IN_PROGRESS', rows=[row('node_2')]),
         snap('ROLLBACK_COMPLETE')],
        answers='cancel\n', interactive=True)
    with patched:
        assert sess.run() == 0
    assert sess.manager.calls == [('cancel', 's/id'),
                                  ('release', 'node_1', 'clear'),
                                  ('release', 'node_2', 'continue')]
    assert 'released node_2 (continue) during the rollback' in \
        out.getvalue()


class LetGo(FakeManager):
    """The cancel let node_4 go before the session's release of it came."""

    def cancel(self, stack, held):
        self.calls.append(('cancel', stack))
        return 'rollback', [row for row in held if row['resource'] !=
                            'node_4']


def test_the_cancel_summary_names_every_hold_the_cancel_ended():
    held = [row('node_2'), row('node_3'), row('node_4'), row('node_10')]
    sess, out, patched = session(
        [snap('UPDATE_IN_PROGRESS', rows=held),
         snap('UPDATE_IN_PROGRESS', rows=held),
         snap('ROLLBACK_COMPLETE')],
        answers='cancel\n', interactive=True)
    sess.manager = LetGo()
    with patched:
        assert sess.run() == 0
    # As the engine's events say it, in the prompt's (natural) order.
    assert 'released node_2, node_3, node_4, node_10 (operation ' \
        'cancelled) so nothing stays parked' in out.getvalue()
    assert '(clear)' not in out.getvalue()


# -- the engine's counting ---------------------------------------------------

def test_walked_nodes_are_the_update_nodes_or_for_delete_the_cleanup():
    deps = {'edges': [[[1, True], [2, True]], [[3, False], None],
                      [[1, False], [1, True]]]}
    assert progress_engine._walked(
        {'current_deps': deps, 'action': 'UPDATE'}) == {1, 2}
    assert progress_engine._walked(
        {'current_deps': deps, 'action': 'DELETE'}) == {1, 3}
    assert progress_engine._walked(
        {'current_deps': None, 'action': 'CREATE'}) is None


@pytest.mark.parametrize('action,status,template,this_operation,expected', [
    ('UPDATE', 'IN_PROGRESS', 1, True, 'in_progress'),
    ('INIT', 'COMPLETE', 2, True, 'waiting'),
    ('CREATE', 'COMPLETE', 1, False, 'waiting'),   # not visited yet
    ('CREATE', 'COMPLETE', 2, True, 'complete'),  # visited, unchanged
    ('UPDATE', 'FAILED', 2, True, 'failed'),
    ('UPDATE', 'FAILED', 1, False, 'waiting'),     # an earlier failure
])
def test_state_of_a_group(action, status, template, this_operation,
                          expected):
    found = types.SimpleNamespace(action=action, status=status,
                                  current_template_id=template,
                                  this_operation=this_operation)
    stack = {'action': 'UPDATE', 'raw_template_id': 2}
    assert progress_engine._state(found, stack) == expected


# -- the view's parameter and the create/update option -----------------------

@pytest.mark.parametrize('query,asked', [
    ('', False), ('?progress=0', False), ('?progress=1', True),
    ('?nested_depth=1&progress=1', True)])
def test_the_view_passes_progress_only_when_asked(query, asked):
    import webob

    from heat_breakpoint.api import filter as bp_filter
    from tests.unit import test_api_view
    request = webob.Request.blank('/admin/stacks/web/breakpoints' + query)
    request.context = test_api_view._context('admin')
    the_filter = bp_filter.BreakpointFilter(lambda e, s: [], 100)
    engine = the_filter.view._engine = mock.Mock()
    engine.make_msg.side_effect = lambda method, **kw: (method, kw)
    engine.call.return_value = {'stack': {}, 'breakpoints': []}
    request.get_response(the_filter)
    kwargs = engine.call.call_args[0][1][1]
    assert kwargs.get('progress', False) is asked
    assert asked or 'progress' not in kwargs  # an older engine still answers


def test_create_and_update_take_interactive():
    from heatclient.osc.v1 import stack as heat_stack

    from heatclient_ext import fakes
    from tests.unit import test_client_hooks
    for cls, name in ((heat_stack.CreateStack, 'stack create'),
                      (heat_stack.UpdateStack, 'stack update')):
        cmd = test_client_hooks.make_command(cls, name, fakes.FakeHeat())
        options = cmd.get_parser('openstack ' + name)._option_string_actions
        assert options['-i'] is options['--interactive']


def test_a_long_held_list_is_cut_on_the_screen():
    many = [row('node_%03d' % index) for index in range(30)]
    text = '\n'.join(watch.frame(snap(rows=many, held=30)))
    assert 'Held (30):' in text and 'node_011' in text
    assert 'node_012' not in text and '... and 18 more' in text


# -- the prompt's words, by kind of hold ------------------------------------

def failed_row(name='flaky', why='Error: resources.flaky: Test Resource '
               'failed'):
    found = row(name, breakpoint=name)
    found.update(when='failed', why=why)
    return found


def test_enter_retries_a_failure_and_steps_the_others():
    assert tuple(console_answers.parse_answer('', [failed_row()])) == (
        'retry', 'flaky')
    after = dict(row('node_1'), when='after')
    assert tuple(console_answers.parse_answer('', [after])) == (
        'step', 'node_1')
    assert 'Enter: retry it' in console_answers.prompt_text([failed_row()])
    assert console_answers.prompt_text([failed_row()]).startswith(
        'flaky failed. Retry it?')
    assert 'Enter: step on' in console_answers.prompt_text([after])
    assert 'Enter: step it' in console_answers.prompt_text(HELD)


@pytest.mark.parametrize('text,expected', [
    ('retry', ('retry', 'flaky')),
    ('retry flaky', ('retry', 'flaky')),
    ('?', ('help', None)),
    ('help', ('help', None)),
])
def test_retry_and_help_answers(text, expected):
    assert tuple(console_answers.parse_answer(
        text, [failed_row()] + HELD)) == expected


def test_retry_alone_needs_exactly_one_failure():
    with pytest.raises(console_answers.AnswerError, match='"retry" takes the'):
        console_answers.parse_answer('retry', HELD)


def test_a_held_failure_shows_its_error_and_counts_as_failed():
    shot = snap(rows=[failed_row()] + HELD[:1], held=2, complete=1)
    text = '\n'.join(watch.frame(shot))
    assert 'failed, held on failure: Error: resources.flaky: Test ' \
        'Resource failed' in text
    assert 'held 2  complete 1  failed 1 (1 held)' in text
    assert 'failed 1 (1 held)' in watch.change_line(shot)


def test_close_matches_come_closest_first_in_natural_order():
    held = [row('node_%d' % index) for index in (1, 2, 3, 4)]
    with pytest.raises(console_answers.AnswerError) as caught:
        console_answers.parse_answer('node_9', held)
    assert 'did you mean node_1, node_2, node_3?' in str(caught.value)
    with pytest.raises(console_answers.AnswerError) as caught:
        console_answers.parse_answer('nod_3', held)
    assert 'did you mean node_3, node_1' in str(caught.value)


def test_held_rows_sort_naturally():
    rows = [row('grp/10'), row('grp/2'), row('grp/1')]
    assert [r['resource'] for r in watch.held_rows(snap(rows=rows))] == [
        'grp/1', 'grp/2', 'grp/10']


# -- a small terminal -------------------------------------------------------

def test_a_small_terminal_keeps_the_header_and_whole_names():
    many = [row('node_%d' % index) for index in range(1, 9)]
    shot = snap(rows=many, held=8)
    shot.progress['events'] *= 8
    lines = watch.frame(shot, log=['line %d' % n for n in range(6)],
                        width=60, height=15, notes=['error: x'])
    assert len(lines) <= 14  # and a line for the prompt
    assert lines[0].startswith('Stack s  CREATE_IN_PROGRESS')
    assert lines[-1] == 'error: x'
    assert all(len(line) <= 60 for line in lines)
    assert any(line.rstrip().endswith('at breakpoint node_*')
               for line in lines)


# -- the session while the prompt waits ------------------------------------

def test_the_prompt_moves_on_when_its_resource_is_released_elsewhere():
    released = dict(snap(rows=HELD[1:]).progress)
    released['events'] = [{'time': '', 'resource': 'node_1',
                           'action': 'CREATE', 'status': 'IN_PROGRESS',
                           'reason': 'Breakpoint node_* released (clear)'}]
    later = watch.Snapshot('s', 'id', 'CREATE_IN_PROGRESS', HELD[1:],
                           released)
    sess, out, patched = session([snap(rows=HELD), later, later,
                                  snap('CREATE_COMPLETE')],
                                 answers='\n', interactive=True)
    typed = iter([None, ''])
    sess.keys.read = lambda timeout: next(typed)
    with patched:
        assert sess.run() == 0
    text = out.getvalue()
    assert 'node_1 is no longer held: Breakpoint node_* released (clear)' \
        in text
    assert 'Release node_2?' in text
    # Enter, typed after the prompt moved on, steps what it names now.
    assert sess.manager.calls == [('release', 'node_2', 'step')]


def test_q_after_the_operation_ended_says_so():
    sess, out, patched = session([snap(rows=HELD), snap(rows=HELD),
                                  snap('UPDATE_COMPLETE')],
                                 answers='q\n', interactive=True)
    with patched:
        assert sess.run() == 0
    assert 'left: the operation ended (UPDATE_COMPLETE)' in out.getvalue()
    assert 'stays held' not in out.getvalue()


def test_unreachable_heat_is_waited_for_then_given_up_on():
    from keystoneauth1 import exceptions as ks_exc
    now = [0.0]

    def sleep(seconds):
        now[0] += seconds

    refused = ks_exc.ConnectFailure('Connection refused')
    sess, out, patched = session([snap(), refused, refused, snap()] +
                                 [refused] * 40)
    sess.sleep = sleep
    sess.reconnect = live.Reconnect(10, clock=lambda: now[0])
    with patched:
        assert sess.run() == watch.EXIT_UNREACHABLE
    text = out.getvalue()
    assert 'reconnecting (try 1, 0 s of 10 s): Connection refused' in text
    assert 'reconnected to Heat' in text
    assert 'Heat unreachable for 10 s' in text
    assert 9.9 <= now[0] <= 20


def test_backoff_doubles_up_to_the_longest_wait():
    now = [0.0]
    again = live.Reconnect(60, clock=lambda: now[0])
    waits = []
    for _try in range(6):
        waits.append(again.failed(OSError('down')))
        now[0] += waits[-1]
    assert waits == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    assert again.answered() is True and again.answered() is False


# -- the line reader ---------------------------------------------------------

def test_a_pipe_gives_lines_and_none_while_nothing_came():
    import os

    from heatclient_ext.terminal import keyboard
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, 'rb', buffering=0) as stdin:
        lines = keyboard.LineReader(stdin)
        assert lines.read(0.01) is None
        os.write(write_end, b'set node_1\nc')
        assert lines.read(1) == 'set node_1'
        assert lines.read(0.01) is None
        os.close(write_end)
        assert lines.read(1) == 'c'
        with pytest.raises(EOFError):
            lines.read(1)


def test_keys_edit_the_line():
    from heatclient_ext.terminal import keyboard
    echoed = []
    lines = keyboard.LineReader(io.StringIO(), echo=echoed.append)
    for char in 'nodx\x7fe_1':
        assert lines._key(char) is None
    assert lines.typed == 'node_1'
    assert lines._key('\r') == 'node_1' and lines.typed == ''
    with pytest.raises(EOFError):
        lines._key('\x04')


def _terminal():
    """A pseudo-terminal: (the user's end, the session's end)."""
    import os
    import pty
    user, session_end = pty.openpty()
    return user, os.fdopen(session_end, 'rb', buffering=0)


def test_keys_typed_after_enter_in_one_read_are_the_next_line():
    # Keys typed while the session redraws arrive together: the answer
    # after the first Enter must not be thrown away with the read.
    import os

    from heatclient_ext.terminal import keyboard
    user, stdin = _terminal()
    with stdin:
        lines = keyboard.LineReader(stdin)
        with lines.keys():
            os.write(user, b'set final\ncancel\nno')
            assert lines.read(1) == 'set final'
            assert lines.read(0.01) == 'cancel'
            assert lines.read(0.01) is None and lines.typed == 'no'
    os.close(user)


def test_a_character_split_between_two_reads_is_kept():
    import os

    from heatclient_ext.terminal import keyboard
    user, stdin = _terminal()
    with stdin:
        lines = keyboard.LineReader(stdin)
        with lines.keys():
            word = 'nœud'.encode('utf-8')
            os.write(user, word[:2])
            assert lines.read(0.2) is None
            os.write(user, word[2:] + b'\n')
            assert lines.read(1) == 'nœud'
    os.close(user)


def test_keys_typed_before_the_session_started_are_not_flushed():
    import os

    from heatclient_ext.terminal import keyboard
    user, stdin = _terminal()
    with stdin:
        os.write(user, b'cancel\n')  # typed while the command started
        lines = keyboard.LineReader(stdin)
        with lines.keys():
            assert lines.read(1) == 'cancel'
    os.close(user)


def test_an_answer_with_nothing_held_is_acted_on_or_said():
    # The prompt was on the screen; the refresh made for the answer
    # finds nothing held (released elsewhere, a redraw in between):
    # Enter says why it did nothing, cancel still cancels.
    sess, out, patched = session(
        [snap('UPDATE_IN_PROGRESS', rows=HELD[:1]),
         snap('UPDATE_IN_PROGRESS'),
         snap('UPDATE_IN_PROGRESS', rows=HELD[1:2]),
         snap('UPDATE_IN_PROGRESS'),
         snap('ROLLBACK_COMPLETE')],
        answers='\ncancel\n', interactive=True)
    with patched:
        assert sess.run() == 0
    assert 'node_1 is no longer held' in out.getvalue()
    assert sess.manager.calls == [('cancel', 's/id')]
    assert 'cancelled the operation: Heat rolls it back' in out.getvalue()


def test_an_answer_after_the_operation_ended_is_said():
    sess, out, patched = session(
        [snap('UPDATE_IN_PROGRESS', rows=HELD[:1]),
         snap('UPDATE_COMPLETE'), snap('UPDATE_COMPLETE')],
        answers='cancel\n', interactive=True)
    with patched:
        assert sess.run() == 0
    assert ('error: the operation ended (UPDATE_COMPLETE) before "cancel" '
            'was sent') in out.getvalue()
    assert sess.manager.calls == []


def test_holds_deeper_than_the_depth_watched_are_said():
    shot = snap(rows=[], done=1)._replace(deeper=2)
    assert 'Nothing held; 2 held deeper than --nested-depth' in '\n'.join(
        watch.frame(shot))
    assert watch.change_line(shot).endswith(
        '| 2 held deeper than --nested-depth')
    assert '1 more held deeper' in '\n'.join(
        watch.frame(snap(rows=HELD[:1])._replace(deeper=1)))


def test_retain_takes_one_resource():
    from heatclient_ext.v1 import answers as bp_prompt
    held = [{'resource': 'data', 'when': 'failed', 'action': 'DELETE'}]
    assert bp_prompt.parse_answer('retain data', held) == (
        bp_prompt.RETAIN, 'data')
    with pytest.raises(bp_prompt.AnswerError):
        bp_prompt.parse_answer('retain', held)
    assert any(line.startswith('retain R') for line in bp_prompt.HELP_LINES)
