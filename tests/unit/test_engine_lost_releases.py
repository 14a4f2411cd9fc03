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
"""Which markers of a claimed release a heat-engine takes for lost.

(The check sent again runs on the real local Heat in
``tests/functional/test_lost_release.py``; here the choice, with the
database rows and Heat's liveness call replaced, and what the engine's
loop logs when its looks fail: one warning per database outage, one
line when the database is back.)
"""

import collections
import datetime
import json
import logging

import pytest

from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.commands import lost_releases

NOW = datetime.datetime(2026, 12, 1, 12, 0, 0)
ME = 'engine-me'
Row = collections.namedtuple('Row', 'data_id value resource_id stack_id '
                             'locked_by')


def _row(data_id, engine_id='engine-dead', age=30.0, locked_by=None,
         value=None):
    since = NOW - datetime.timedelta(seconds=age)
    if value is None:
        value = json.dumps({'traversal': 't1', 'engine_id': engine_id,
                            'since': since.isoformat()})
    return Row(data_id, value, 'r%d' % data_id, 's1', locked_by)


@pytest.fixture
def world(monkeypatch):
    state = {'rows': [], 'sent': [], 'asked': []}
    monkeypatch.setattr(lost_releases, '_markers', lambda: state['rows'])
    monkeypatch.setattr(lost_releases, '_send_again',
                        lambda row: state['sent'].append(row.data_id) or True)

    def alive(engine_id):
        state['asked'].append(engine_id)
        return engine_id == 'engine-alive'
    state['scan'] = lost_releases.Scan(ME, alive=alive, now=lambda: NOW)
    return state


def test_the_key_is_one_of_ours():
    assert resource_data.SENDING_KEY in resource_data.DATA_KEYS
    assert resource_data.SENDING_KEY in resource_data.NOTE_KEYS


def test_a_dead_engine_s_marker_is_lost_on_the_second_look(world):
    world['rows'] = [_row(1)]
    assert world['scan'].once() == 0
    assert world['sent'] == []
    assert world['scan'].once() == 1
    assert world['sent'] == [1]


def test_an_engine_that_answers_in_between_starts_the_count_again(world):
    world['rows'] = [_row(1)]
    world['scan'].once()
    world['rows'] = []  # the check arrived: the marker went
    world['scan'].once()
    world['rows'] = [_row(1)]
    assert world['scan'].once() == 0


def test_markers_left_alone(world):
    world['rows'] = [
        _row(1, engine_id='engine-alive'),
        _row(2, engine_id=ME),  # this engine's own release
        _row(3, age=1.0),  # its check may be on the way
        _row(4, locked_by='engine-x'),  # a check holds the resource
        _row(5, engine_id=None),  # written where no engine id was known
        _row(6, value='not json'),
        _row(7, value=json.dumps({'engine_id': 'engine-dead'})),
    ]
    for _ in range(3):
        assert world['scan'].once() == 0
    assert world['sent'] == []
    # Heat's liveness call: once per engine and look, and only for those
    # it can decide.
    assert world['asked'] == ['engine-alive'] * 3


def test_a_marker_older_than_any_release_is_lost_whoever_wrote_it(world):
    stuck = lost_releases.STUCK_SECONDS
    world['rows'] = [_row(1, engine_id='engine-alive', age=stuck),
                     _row(2, engine_id=ME, age=stuck + 1),
                     _row(3, locked_by='engine-x', age=stuck)]
    assert world['scan'].once() == 2
    assert world['sent'] == [1, 2]
    assert world['asked'] == []


def test_one_liveness_call_per_engine_and_look(world):
    world['rows'] = [_row(1), _row(2), _row(3, engine_id='engine-other')]
    world['scan'].once()
    assert sorted(world['asked']) == ['engine-dead', 'engine-other']
    assert world['scan'].once() == 3


def test_the_marker_names_the_traversal_and_the_engine(monkeypatch):
    monkeypatch.setattr(lost_releases, '_engine_id', 'engine-7')
    note = json.loads(lost_releases.marker('t9'))
    assert note['traversal'] == 't9'
    assert note['engine_id'] == 'engine-7'
    assert datetime.datetime.fromisoformat(note['since'])


def test_a_database_out_of_reach_is_told_apart():
    from oslo_db import exception as db_exc
    import sqlalchemy as sa
    assert lost_releases.database_down(db_exc.DBConnectionError())
    assert lost_releases.database_down(sa.exc.OperationalError(
        'SELECT 1', {}, Exception("Can't connect to MySQL server")))
    assert lost_releases.database_down(sa.exc.DBAPIError(
        'SELECT 1', {}, Exception('gone'), connection_invalidated=True))
    assert not lost_releases.database_down(sa.exc.ProgrammingError(
        'SELECT 1', {}, Exception('no such column')))
    assert not lost_releases.database_down(ValueError('bad marker'))


# -- the engine's loop: what an operator reads in its log --------------------

class _LoopEnds(Exception):
    """Raised by the test's sleep once the looks it scripted are done."""


def _run_watch(monkeypatch, caplog, outcomes):
    """Run :func:`lost_releases._watch` over one look per outcome.

    An outcome is what ``Scan.once`` does on that look: return a count,
    or raise the exception given. Returns the log records, in order, and
    the pauses asked for.
    """
    looks = list(outcomes)
    pauses = []

    class ScriptedScan(object):
        def __init__(self, engine_id):
            assert engine_id == ME

        def once(self):
            outcome = looks.pop(0)
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

    def sleep(seconds):
        pauses.append(seconds)
        if not looks:
            raise _LoopEnds()
    monkeypatch.setattr(lost_releases, 'Scan', ScriptedScan)
    monkeypatch.setattr(lost_releases, '_engine_id', ME)
    monkeypatch.setattr(lost_releases.time, 'sleep', sleep)
    with caplog.at_level(logging.INFO, logger=lost_releases.__name__):
        with pytest.raises(_LoopEnds):
            lost_releases._watch()
    records = [r for r in caplog.records if r.name == lost_releases.__name__]
    return records, pauses


def _down():
    from oslo_db import exception as db_exc
    return db_exc.DBConnectionError('(pymysql.err.OperationalError) (2003, '
                                    '"Can\'t connect to MySQL server")')


def _lost_connection():
    import sqlalchemy as sa
    return sa.exc.OperationalError('SELECT 1', {},
                                   Exception('Lost connection to server'))


def test_one_warning_per_outage_and_one_line_when_the_database_is_back(
        monkeypatch, caplog):
    records, pauses = _run_watch(monkeypatch, caplog, [
        0, _down(), _lost_connection(), _down(), 1, 0,  # one outage
        _down(), _down(), 0,                             # and another
    ])
    said = [(r.levelname, r.getMessage()) for r in records]
    warning = ('WARNING', 'Cannot look for releases cut off before their '
               'check was sent: heat-engine cannot reach its database '
               '(DBConnectionError); looking again every 5 s')
    back = ('INFO', 'Looking for releases cut off before their check was '
            'sent again: the database is back')
    assert said == [warning, back, warning, back], said
    # Said without a traceback: nothing is wrong in the engine.
    assert [r.exc_info for r in records] == [None] * 4
    # And the loop went on looking, every SCAN_SECONDS.
    assert pauses == [lost_releases.SCAN_SECONDS] * 10


def test_another_error_is_logged_each_time_with_its_traceback(monkeypatch,
                                                              caplog):
    records, pauses = _run_watch(monkeypatch, caplog, [
        ValueError('bad marker'), _down(), ValueError('bad marker'),
        _down(), 0, ValueError('bad marker')])
    said = [(r.levelname, r.getMessage().split(':')[0]) for r in records]
    failed = ('ERROR', 'Could not look for releases cut off before their '
              'check was sent')
    assert said == [
        failed,
        ('WARNING', 'Cannot look for releases cut off before their check '
                    'was sent'),
        failed,  # during the outage: not the database, so said
        ('INFO', 'Looking for releases cut off before their check was '
                 'sent again'),
        failed], said
    assert [bool(r.exc_info) for r in records] == [True, False, True,
                                                   False, True]
    assert len(pauses) == 7
