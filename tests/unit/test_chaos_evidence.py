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
"""The chaos test's evidence that Heat lost a stack's next check.

Pure logic over engine log lines and the harness's kills: a stuck stack
passes as Heat's own loss only with positive evidence, here that the
check message sent after its last progress died with a killed engine.
"""

import types

from tests.distributed import chaos
from tests.distributed import chaos_checks

SENT_AT = '2026-12-02 04:19:28.622'
PROGRESS = ('2026-12-02 04:19:28.600 21327 INFO heat.engine.resource '
            '[req-1 admin admin - - - -] Breakpoint gate released')
CAST = ('%s 21327 DEBUG oslo_messaging._drivers.amqpdriver '
        "[req-1 admin admin - - - -] CAST unique_id: abc123 exchange 'heat' "
        "topic 'engine_worker' _send" % SENT_AT)


def _logs(taken_by=None):
    logs = chaos_checks.Logs.__new__(chaos_checks.Logs)
    logs.lines = {'engine-3': [PROGRESS, CAST], 'engine-1': []}
    logs.taken = {'abc123': [(chaos_checks._log_time(CAST) + 0.01,
                              taken_by)]} if taken_by else {}
    return logs


def _result(*kill_offsets):
    sent = chaos_checks._log_time(CAST)
    kills = [chaos.Kill(at=0, wall=sent + offset, engine='engine-1',
                        engine_id='e1', code=-9, parked=[], in_check=[])
             for offset in kill_offsets]
    return types.SimpleNamespace(kills=kills)


def _verdict(result, logs):
    stack = types.SimpleNamespace(name='chaos-1')
    when = chaos_checks._log_time(PROGRESS)
    return chaos_checks._lost_with_an_engine(result, stack, logs, when,
                                             'engine-3', PROGRESS)


def test_a_message_no_engine_took_is_lost_with_an_engine_killed_then():
    kind, details = _verdict(_result(0.3), _logs())
    assert kind == 'stock', details
    assert 'taken by no engine alive' in details and 'engine-1' in details


def test_a_message_no_engine_took_without_a_kill_near_it_is_not_stock():
    kind, details = _verdict(_result(chaos_checks.ON_THE_WIRE + 1), _logs())
    assert kind == 'not stock'
    assert 'taken by no engine' in details


def test_a_message_taken_by_a_live_engine_is_not_stock():
    kind, details = _verdict(_result(), _logs(taken_by='engine-2'))
    assert kind == 'not stock'
    assert 'taken by engine-2, not killed' in details


def _side(stuck, stacks, checks_sent, kills=4):
    return types.SimpleNamespace(
        stacks=list(range(stacks)), not_created=lambda: [],
        recovered=lambda: list(range(stuck)), checks_sent=checks_sent,
        kills=list(range(kills)))


def test_longer_lived_stacks_are_compared_per_check_sent():
    # Half as many stacks, as many checks in flight: as stuck per check.
    problems, lines = chaos_checks.compare(_side(12, 62, 458),
                                           _side(6, 126, 542))
    assert problems == [], lines
    assert '12 of 62 stacks' in lines[1] and '3.0 per kill' in lines[1]


def test_a_side_that_loses_more_of_its_checks_fails():
    problems, lines = chaos_checks.compare(_side(30, 62, 458),
                                           _side(6, 126, 542))
    assert problems and 'stuck more often' in problems[0]
    assert '30 per 458 checks sent' in problems[0]


def test_no_check_counted_is_a_problem_not_a_pass():
    problems, _ = chaos_checks.compare(_side(0, 62, 0), _side(0, 126, 0))
    assert problems and 'no check message' in problems[0]
