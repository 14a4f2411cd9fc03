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
check message sent after its last progress died with a killed engine,
or (the plugin disabled) that the check waiting at a native hook did.
Then the comparison of the two sides' stuck stacks.
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


def _kill(offset, engine):
    """A kill ``offset`` s after the check was sent, of ``engine``."""
    return chaos.Kill(at=0, wall=chaos_checks._log_time(CAST) + offset,
                      engine=engine, engine_id=engine, code=-9, parked=[],
                      in_check=[])


def test_a_message_is_lost_only_with_the_engine_that_took_it():
    taken = _logs(taken_by='engine-2')
    # Another engine's kill strands nothing of engine-2's.
    result = types.SimpleNamespace(kills=[_kill(1.0, 'engine-1')])
    kind, details = _verdict(result, taken)
    assert kind == 'not stock', details
    assert 'taken by engine-2, not killed' in details
    result.kills.append(_kill(1.0, 'engine-2'))
    kind, details = _verdict(result, taken)
    assert kind == 'stock', details
    assert 'message abc123 taken by engine-2, killed 1.0 s later' in details


def test_a_kill_long_after_the_message_was_taken_is_not_its_loss():
    # The window is what the runs measured (up to 6.2 s), not any time.
    taken = _logs(taken_by='engine-2')
    soon = types.SimpleNamespace(kills=[_kill(6.0, 'engine-2')])
    assert _verdict(soon, taken)[0] == 'stock'
    late = types.SimpleNamespace(kills=[_kill(30.0, 'engine-2')])
    kind, details = _verdict(late, taken)
    assert kind == 'not stock', details
    assert 'taken by engine-2, not killed within' in details


def _silent_verdict(*kills):
    """engine-3 made progress, then sent no check."""
    logs = chaos_checks.Logs.__new__(chaos_checks.Logs)
    logs.lines = {'engine-3': [PROGRESS], 'engine-1': []}
    logs.taken = {}
    return _verdict(types.SimpleNamespace(kills=list(kills)), logs)


def test_progress_without_a_check_is_lost_only_with_its_own_engine():
    kind, details = _silent_verdict(_kill(1.0, 'engine-1'))
    assert kind == 'not stock', details
    assert 'engine-3 not killed within' in details
    kind, details = _silent_verdict(_kill(1.0, 'engine-1'),
                                    _kill(2.0, 'engine-3'))
    assert kind == 'stock', details
    assert 'lost with engine-3, killed 2.0 s after' in details


def test_progress_without_a_check_and_a_late_kill_is_not_stock():
    assert _silent_verdict(_kill(6.0, 'engine-3'))[0] == 'stock'
    kind, details = _silent_verdict(_kill(30.0, 'engine-3'))
    assert kind == 'not stock', details


HOOK_AT = '2026-12-02 06:58:15.929'
REACHED = ('%s 15726 INFO heat.engine.resource [None req-9 admin admin - - '
           '- -] Reached hook on TestResource "b_1" Stack "chaos-1" [591f]'
           % HOOK_AT)
CLEARED = ('2026-12-02 06:58:18.409 15727 INFO heat.engine.resource [None '
           'req-a admin admin - - - -] Clearing pre-create hook on '
           'TestResource "b_1" Stack "chaos-1" [591f]')
CREATING = ('2026-12-02 06:58:19.100 15726 INFO heat.engine.resource [None '
            'req-9 admin admin - - - -] creating TestResource "b_1" Stack '
            '"chaos-1" [591f]')


def _hook_verdict(kill_offset, engine_lines=(REACHED,), killed='engine-2'):
    logs = chaos_checks.Logs.__new__(chaos_checks.Logs)
    logs.lines = {'engine-2': list(engine_lines), 'engine-1': [CLEARED]}
    logs.taken = {}
    reached = chaos_checks._log_time(REACHED)
    result = types.SimpleNamespace(kills=[chaos.Kill(
        at=0, wall=reached + kill_offset, engine=killed, engine_id='e2',
        code=-9, parked=[], in_check=[])])
    stack = types.SimpleNamespace(name='chaos-1', names=['a_1', 'b_1'])
    return chaos_checks._hook_lost_with_its_engine(result, stack, logs)


def test_a_hook_whose_engine_died_before_it_was_cleared_is_stock():
    found = _hook_verdict(2.1)
    assert found is not None
    assert 'hook on b_1 reached in engine-2' in found
    assert 'cleared 0.4 s after the kill' in found


def test_a_hook_whose_engine_died_long_after_it_was_cleared_is_not():
    # The check saw the hook cleared and went on: not lost at the hook.
    assert _hook_verdict(2.5 + chaos_checks.HOOK_NOTICED + 1) is None


def test_a_hook_whose_resource_was_created_after_is_not():
    assert _hook_verdict(2.1, (REACHED, CREATING)) is None


def test_a_hook_of_an_engine_not_killed_is_not():
    assert _hook_verdict(2.1, killed='engine-3') is None


def test_a_hook_cleared_is_not_the_stacks_progress():
    # d's check was taken by an engine killed before it logged reaching
    # the hook; the client cleared it through another engine: the last
    # progress is the line before the check was sent, not the clearing.
    created = ('2026-12-02 08:22:20.425 4734 INFO heat.engine.resource '
               '[None req-e admin admin - - - -] Resource c_1 waited')
    cleared = ('2026-12-02 08:22:22.582 4743 INFO heat.engine.resource '
               '[None req-1 admin admin - - - -] Clearing pre-create hook '
               'on TestResource "d_1" Stack "chaos-1" [f7cf]')
    logs = chaos_checks.Logs.__new__(chaos_checks.Logs)
    logs.lines = {'engine-3': [created], 'engine-1': [cleared]}
    logs.taken = {}
    stack = types.SimpleNamespace(name='chaos-1', names=['c_1', 'd_1'])
    when, engine, line = chaos_checks.last_progress(logs, stack)
    assert (engine, line) == ('engine-3', created)


def _side(stuck, stacks, checks_sent, kills=4):
    return types.SimpleNamespace(
        stacks=list(range(stacks)), not_created=lambda: [],
        recovered=lambda: list(range(stuck)), checks_sent=checks_sent,
        kills=list(range(kills)))


def test_stuck_is_compared_per_stack_made():
    # The figures of a run whose plugin side was stuck as often per check
    # sent: per stack (what is asserted, both sides doing the same work)
    # it is worse, and the message gives the counts.
    problems, lines = chaos_checks.compare(_side(12, 62, 458),
                                           _side(6, 126, 542))
    assert problems and 'stuck more often' in problems[0]
    assert '12 of 62 stacks' in problems[0]
    assert '6 of 126' in problems[0]
    assert '12 per 458 checks sent' in lines[1]
    assert '3.0 per kill' in lines[1]


def test_as_many_stuck_per_stack_passes():
    # Twice the stacks stuck on the hooks' side of the same size: no worse.
    problems, lines = chaos_checks.compare(_side(9, 60, 450),
                                           _side(30, 60, 300))
    assert problems == [], lines
    problems, lines = chaos_checks.compare(_side(5, 60, 450),
                                           _side(4, 60, 300))
    assert problems == [], lines


def test_the_margin_is_the_runs_size():
    # 3 of 10 against 0 of 10 is chance at 1 %; 30 of 100 against none
    # is not.
    assert chaos_checks.compare(_side(3, 10, 40), _side(0, 10, 40))[0] == []
    problems, _ = chaos_checks.compare(_side(30, 100, 400),
                                       _side(0, 100, 400))
    assert problems
    assert chaos_checks.fails_from(100, 0, 100) <= 30


def test_a_side_without_stacks_is_a_problem_not_a_pass():
    problems, _ = chaos_checks.compare(_side(0, 0, 0), _side(0, 126, 0))
    assert problems and 'made no stack' in problems[0]
