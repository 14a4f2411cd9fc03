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
"""Held resources as threads (:mod:`heatclient_ext.dap.holds`)."""

from heatclient_ext.dap import holds


def _row(path, when='before', since='t1', action='CREATE'):
    return {'resource': path, 'when': when, 'action': action,
            'held_since': since, 'breakpoint': path, 'why': 'boom'}


def _holds():
    sent = []
    found = holds.Holds(lambda name, body: sent.append((name, body)))
    return found, sent


def test_hold_text():
    assert holds.hold_text(_row('a')) == 'before CREATE'
    assert holds.hold_text(_row('a', 'after', action='UPDATE')) == \
        'after UPDATE'
    assert holds.hold_text(_row('a', 'failed')) == 'on CREATE failure'


def test_new_holds_start_threads_and_stop_gone_ones_exit():
    found, sent = _holds()
    found.update([_row('x/b'), _row('a')], lambda row: [])
    assert [name for name, _b in sent] == ['thread', 'stopped'] * 2
    stops = [body for name, body in sent if name == 'stopped']
    assert [s['description'] for s in stops] == [
        'a held before CREATE', 'x/b held before CREATE']
    assert {s['threadId'] for s in stops} == {2, 3}  # 1: the operation
    sent.clear()
    found.update([_row('a')], lambda row: [])
    assert sent == [('thread', {'reason': 'exited',
                                'threadId': found._next - 1})]
    assert found.threads_body('st/1') == {'threads': [
        {'id': 1, 'name': 'stack st'},
        {'id': 2, 'name': 'a (before CREATE)'}]}


def test_why_it_stopped():
    found, sent = _holds()
    found.reason_at['p'] = 'pause'
    found.resumed('step')
    found.update([_row('f', 'failed'), _row('p'), _row('s'), _row('h')],
                 lambda row: [7] if row['resource'] == 'h' else [])
    stops = {body['description'].split()[0]: body
             for name, body in sent if name == 'stopped'}
    assert stops['f']['reason'] == 'exception'
    assert stops['f']['text'] == 'boom'
    assert stops['p']['reason'] == 'pause'
    assert stops['s']['reason'] == 'step'
    assert stops['h']['reason'] == 'breakpoint'
    assert stops['h']['hitBreakpointIds'] == [7]
    assert 'hitBreakpointIds' not in stops['s']


def test_rows_of_one_thread_or_all():
    found, _sent = _holds()
    found.update([_row('a'), _row('b')], lambda row: [])
    tid = found.threads['b']
    assert found.rows(tid) == [_row('b')]
    assert len(found.rows(tid, single=False)) == 2
    assert len(found.rows(1)) == 2  # the operation's thread: all
