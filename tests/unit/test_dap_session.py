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
"""The session's own logic (:mod:`heatclient_ext.dap.session`).

What reaches Heat is proven by tests/functional/test_dap.py against the
real local Heat; here the manager is a mock, to show what the session
asks of it and what it tells the editor.
"""

from unittest import mock

import pytest

from heat_breakpoint.model import protocol
from heatclient_ext.dap import session as dap_session
from heatclient_ext.v1 import live

TEMPLATE = '''\
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::None
  b:
    type: OS::Heat::None
    depends_on: a
'''


def _row(path, when='before', breakpoint=None, since='t1'):
    return {'resource': path, 'state': 'held', 'when': when,
            'action': 'CREATE', 'breakpoint': breakpoint or path,
            'held_since': since, 'hook': 'pre-create', 'form': 'plugin',
            'stack': 's/1', 'resource_name': path.rsplit('/', 1)[-1],
            'why': ''}


@pytest.fixture
def sess(tmp_path):
    sent = []
    found = dap_session.Session(sent.append)
    found.sent = sent
    path = tmp_path / 'app.yaml'
    path.write_text(TEMPLATE)
    found.template = str(path)
    found._template_map({'template': str(path)})
    return found


def _running(sess):
    sess.manager = mock.Mock()
    sess.manager.set.return_value = 'armed'
    sess.manager.clear.return_value = ([], 'disarmed')
    sess._started('s/1')


def _hold(sess, rows):
    sess.holds.update(rows, sess.breakpoints.hits)


def _events(sess, name):
    return [m['body'] for m in sess.sent
            if m.get('type') == 'event' and m['event'] == name]


def _answer(sess, command, **arguments):
    sess.handle({'seq': 7, 'type': 'request', 'command': command,
                 'arguments': arguments})
    return [m for m in sess.sent if m.get('type') == 'response'][-1]


def test_conditions_are_the_kinds(sess):
    answer = _answer(sess, 'setBreakpoints', source={'path': sess.template},
                     breakpoints=[{'line': 4, 'condition': 'replaced'},
                                  {'line': 6, 'condition': 'sometimes'}])
    good, bad = answer['body']['breakpoints']
    assert good['verified'] and good['line'] == 3
    assert not bad['verified']
    assert bad['message'] == ("unknown condition 'sometimes': one of after, "
                              "before, changed, failed, replaced")
    assert sess.breakpoints.wanted() == {('a', 'replaced')}


def test_no_template_no_line_breakpoint():
    sent = []
    sess = dap_session.Session(sent.append)
    answer = _answer_of(sess, sent, 'setBreakpoints',
                        source={'path': '/x.yaml'}, breakpoints=[{'line': 1}])
    assert answer['body']['breakpoints'][0]['verified'] is False
    assert answer['body']['breakpoints'][0]['message'] == \
        'no template launched'


def _answer_of(sess, sent, command, **arguments):
    sess.handle({'seq': 1, 'type': 'request', 'command': command,
                 'arguments': arguments})
    return sent[-1]


def test_breakpoints_changed_while_running_are_armed_and_disarmed(sess):
    _running(sess)
    _answer(sess, 'setBreakpoints', source={'path': sess.template},
            breakpoints=[{'line': 3}, {'line': 5, 'condition': 'after'}])
    assert sorted(sess.manager.set.call_args_list) == [
        mock.call('s/1', 'a', 'before'), mock.call('s/1', 'b', 'after')]
    _answer(sess, 'setBreakpoints', source={'path': sess.template},
            breakpoints=[{'line': 5, 'condition': 'after'}])
    sess.manager.clear.assert_called_once_with('s/1', 'a')
    assert sess.manager.set.call_count == 2


def test_a_pattern_is_not_armed_mid_operation(sess):
    _running(sess)
    answer = _answer(sess, 'setFunctionBreakpoints',
                     breakpoints=[{'name': 'node_*'}])
    assert answer['body']['breakpoints'][0]['verified'] is True
    sess.manager.set.assert_not_called()
    assert any('node_*: a pattern can only be armed' in e['output']
               for e in _events(sess, 'output'))


def test_holds_become_threads_and_stops(sess):
    _running(sess)
    _answer(sess, 'setBreakpoints', source={'path': sess.template},
            breakpoints=[{'line': 5}])
    _answer(sess, 'setExceptionBreakpoints', filters=['failures'])
    bp_ids = [bp.id for bp in sess.breakpoints.all()]
    _hold(sess, [_row('b'), _row('a', 'failed', '*')])
    stopped = {s['description'].split(' ')[0]: s
               for s in _events(sess, 'stopped')}
    assert stopped['b']['reason'] == 'breakpoint'
    assert stopped['b']['hitBreakpointIds'] == [bp_ids[0]]
    assert stopped['a']['reason'] == 'exception'
    assert stopped['a']['hitBreakpointIds'] == [bp_ids[1]]
    threads = _answer(sess, 'threads')['body']['threads']
    assert [t['name'] for t in threads] == [
        'stack s', 'a (on CREATE failure)', 'b (before CREATE)']
    # b released elsewhere: its thread goes, nothing stops again.
    _hold(sess, [_row('a', 'failed', '*')])
    assert _events(sess, 'thread')[-1] == {
        'reason': 'exited', 'threadId': stopped['b']['threadId']}
    assert len(_events(sess, 'stopped')) == 2


def test_continue_keeps_other_breakpoints_armed(sess):
    _running(sess)
    _hold(sess, [_row('a'), _row('b')])
    tid = sess.holds.threads['a']
    answer = _answer(sess, 'continue', threadId=tid, singleThread=True)
    assert answer['body'] == {'allThreadsContinued': False}
    sess.manager.release.assert_called_once_with(
        's/1', 'a', protocol.RELEASE_RESUME, [_row('a')])
    assert list(sess.holds.held) == ['b']
    _answer(sess, 'continue', threadId=sess.holds.threads['b'])
    assert sess.manager.release.call_args.args[:3] == (
        's/1', 'b', protocol.RELEASE_RESUME)


def test_a_refresh_read_before_a_release_is_dropped(sess):
    _running(sess)
    _hold(sess, [_row('a')])
    stale = live.Snapshot('s', '1', 'CREATE_IN_PROGRESS', [_row('a')], {})

    def fetch(client, stack):
        # The editor's continue lands while this request is out.
        _answer(sess, 'continue', threadId=sess.holds.threads['a'])
        return stale

    with mock.patch.object(live, 'fetch', fetch):
        assert sess.following.refresh() is None
    assert sess.holds.held == {}
    assert len(_events(sess, 'stopped')) == 1


def test_the_end_of_the_operation_is_exited_then_terminated(sess):
    _running(sess)
    sess.end.seen_running = True
    done = live.Snapshot('s', '1', 'CREATE_FAILED', [], {'events': [
        {'time': '2026-01-01T10:00:00Z', 'resource': 'a',
         'action': 'CREATE', 'status': 'FAILED', 'reason': 'boom'}]})
    sess.manager.get_stack.return_value.stack_status_reason = 'boom'
    with mock.patch.object(live, 'fetch', return_value=done) as fetch:
        sess.following.refresh()
    fetch.assert_called_once()
    names = [m['event'] for m in sess.sent if m.get('type') == 'event']
    assert names[-2:] == ['exited', 'terminated']
    assert _events(sess, 'exited') == [{'exitCode': 1}]
    outputs = ''.join(e['output'] for e in _events(sess, 'output'))
    assert '10:00:00  a  CREATE_FAILED  boom' in outputs
    assert 'Stack s/1 CREATE_FAILED: boom' in outputs


def test_repl_speaks_the_watch_prompt(sess):
    _running(sess)
    _hold(sess, [_row('a')])
    answer = _answer(sess, 'evaluate', expression='set b', context='repl')
    assert answer['body']['result'] == 'b: armed'
    sess.manager.set.assert_called_with('s/1', 'b')
    answer = _answer(sess, 'evaluate', expression='zz', context='repl')
    assert answer['success'] is False
    assert answer['message'] == 'zz is not held (held: a)'
    sess.manager.continue_.return_value = [_row('a')]
    answer = _answer(sess, 'evaluate', expression='to b', context='repl')
    sess.manager.continue_.assert_called_once_with('s/1', to='b')
    assert answer['body']['result'] == 'running to b: released a'
    assert sess.holds.held == {}


def test_an_argument_of_the_wrong_kind_is_one_line(sess):
    for command, arguments, message in (
            ('launch', {'template': 5, 'stack': 's'},
             'launch: "template" must be a string, not 5'),
            ('attach', {'stack': ['s']},
             'attach: "stack" must be a string, not ["s"]'),
            ('disconnect', {'terminateDebuggee': 'yes'},
             'disconnect: "terminateDebuggee" must be true or false, not '
             '"yes"'),
            ('setExceptionBreakpoints', {'filters': ['nope']},
             "setExceptionBreakpoints: unknown filter 'nope': the one "
             "filter is 'failures'"),
            ('setFunctionBreakpoints', {'breakpoints': [{'name': 3}]},
             'setFunctionBreakpoints: "name" must be a string, not 3'),
            ('setBreakpoints', {'source': {'path': sess.template},
                                'breakpoints': ['x']},
             'setBreakpoints: each breakpoint must be an object, not '
             '"x"')):
        sess.handle({'seq': 3, 'type': 'request', 'command': command,
                     'arguments': arguments})
        if command in ('launch', 'attach'):  # answered from a thread
            import time
            for _i in range(100):
                if sess.sent and sess.sent[-1].get('type') == 'response':
                    break
                time.sleep(0.01)
        answer = sess.sent[-1]
        assert (answer['success'], answer['message']) == (False, message)
    assert sess.own_heat.local is None  # none started: a bad launch


def test_leaving_an_attach_disarms_what_the_session_armed(sess):
    _running(sess)
    sess.attached = True
    _answer(sess, 'setFunctionBreakpoints', breakpoints=[{'name': 'b'}])
    sess.manager.set.return_value = 'already armed'
    _answer(sess, 'setBreakpoints', source={'path': sess.template},
            breakpoints=[{'line': 3}])
    assert sess.arming.ours == {'b'}  # a was armed already: not ours
    sess.control.ours.add('p')  # as Pause records what it armed
    _answer(sess, 'disconnect')
    assert sorted(sess.manager.clear.call_args_list) == [
        mock.call('s/1', 'b'), mock.call('s/1', 'p')]
    assert sess.ended.is_set()


def test_suspend_keeps_what_the_session_armed(sess):
    _running(sess)
    sess.attached = True
    _answer(sess, 'setFunctionBreakpoints', breakpoints=[{'name': 'b'}])
    _answer(sess, 'disconnect', suspendDebuggee=True)
    sess.manager.clear.assert_not_called()


def test_a_lost_launch_is_cancelled_as_a_disconnect_would(sess):
    _running(sess)
    sess.manager.get_stack.return_value = mock.Mock(
        stack_status='CREATE_IN_PROGRESS')
    sess.manager.cancel.return_value = ('delete', [])
    sess.leave()  # what serve() does when the stream ends
    sess.manager.cancel.assert_called_once_with('s/1', [])
    assert 'cancelled the create: the stack is deleted' in ''.join(
        e['output'] for e in _events(sess, 'output'))


def test_unknown_request_is_refused(sess):
    answer = _answer(sess, 'readMemory')
    assert (answer['success'], answer['message']) == (
        False, 'readMemory is not supported')


def test_a_released_hold_still_listed_is_no_new_stop(sess, monkeypatch):
    _running(sess)
    _hold(sess, [_row('a', since='t1')])
    _answer(sess, 'continue', threadId=sess.holds.threads['a'])
    _hold(sess, [_row('a', since='t1')])  # Heat has not cleared it yet
    assert len(_events(sess, 'stopped')) == 1 and sess.holds.held == {}
    _hold(sess, [_row('a', since='t2')])  # held again (a retry)
    assert len(_events(sess, 'stopped')) == 2
    _answer(sess, 'continue', threadId=sess.holds.threads['a'])
    _hold(sess, [])  # gone once: whatever is listed next is new
    _hold(sess, [_row('a', since='t2')])
    assert len(_events(sess, 'stopped')) == 3
    monkeypatch.setattr(dap_session.dap_holds, 'RELEASE_GRACE', 0)
    _answer(sess, 'continue', threadId=sess.holds.threads['a'])
    _hold(sess, [_row('a', since='t2')])  # still held after the grace
    assert len(_events(sess, 'stopped')) == 4
