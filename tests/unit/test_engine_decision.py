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
"""Tests of the hold decision: pure functions of a check's facts.

No Stack, no Resource, no database: a check's facts are a value
(:class:`decision.Check`), and what was said during the operation is one
too (:class:`operation_state.State`). How they are gathered from Heat's
objects, and how often, is tested in ``test_engine_facts.py``. This
module imports only the decision, the model and pytest: ``tox -e
decision`` runs it where Heat is not installed.
"""

import datetime

import pytest

from heat_breakpoint.engine.check import decision
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import operation_state
from heat_breakpoint.model import target_kinds


def bps(*names, **kwargs):
    return breakpoints.parse_names(list(names), **kwargs)


def checked(name, env, state=None, path=(), first=None, **facts_of_check):
    """The facts of a create check of resource ``name``, as gathered."""
    found = dict(action='CREATE', stack_action='CREATE')
    found.update(facts_of_check)
    return decision.Check(
        breakpoints=tuple(env), path=path + (name,),
        rules=tuple(decision.rules(env, state or operation_state.State())),
        first=first, **found)


def held_name(check, action='CREATE', when=breakpoints.BEFORE):
    """The name of the hold the decision makes, or None."""
    rule = decision.hold(check, action, when)
    return decision.held_name(rule, check.path) if rule else None


def shown(found):
    return [(r.name, r.armed, r.source, r.why) for r in found]


def rules_in(env, mode, targets):
    """The rules of ENV in an operation of MODE with TARGETS stored."""
    return decision.rules(env, operation_state.State(mode=mode,
                                                     targets=targets))


def test_no_breakpoints_nothing_holds():
    assert held_name(checked('a', ())) is None


def test_what_the_environment_says():
    check = checked('a', bps('a', actions=['create']))
    assert held_name(check) == 'a'
    assert held_name(checked('b', bps('a', actions=['create']))) is None


@pytest.mark.parametrize('state, name, expected', [
    (operation_state.State(mode=target_kinds.CONTINUE), 'a', None),
    (operation_state.State(targets={'a': target_kinds.CLEAR}), 'a', None),
    (operation_state.State(targets={'b': target_kinds.STEP}), 'b', 'b'),
    (operation_state.State(mode=target_kinds.RUN_TO,
                           targets={'b': target_kinds.RUN_TO}), 'a', None),
    (operation_state.State(mode=target_kinds.RUN_TO,
                           targets={'b': target_kinds.RUN_TO}), 'b', 'b'),
])
def test_what_the_operation_says(state, name, expected):
    check = checked(name, bps('a', actions=['create']), state)
    assert held_name(check) == expected


def test_nothing_holds_while_the_root_rolls_back():
    check = checked('a', bps('nest/a', actions=['update']), path=('nest',),
                    action='UPDATE', stack_action='UPDATE',
                    root_action='ROLLBACK')
    assert held_name(check, 'UPDATE') is None


def test_a_step_into_holds_the_first_resources_by_their_own_name():
    state = operation_state.State(targets={'nest': target_kinds.STEP_INTO})
    first = checked('a', (), state, path=('nest',), first=True)
    assert held_name(first) == 'nest/a'
    assert held_name(checked('b', (), state, path=('nest',),
                             first=False)) is None


# -- the one eligibility rule -------------------------------------------------

@pytest.mark.parametrize('stack_action, action, expected', [
    ('CREATE', 'CREATE', True),
    ('UPDATE', 'CREATE', True),   # added by the update, or a replacement
    ('UPDATE', 'UPDATE', True),
    ('DELETE', 'DELETE', True),
    ('CREATE', 'UPDATE', False),
    ('UPDATE', 'DELETE', False),  # an update's clean-up
    ('ROLLBACK', 'CREATE', False),
    ('ROLLBACK', 'DELETE', False),
    ('CREATE', 'ADOPT', False),
])
def test_eligible_after_or_on_failure(stack_action, action, expected):
    check = decision.Check(action=action, stack_action=stack_action,
                           replacement=True)
    for when in (breakpoints.AFTER, breakpoints.FAILED):
        assert decision.eligible(check, action, when) is expected


def test_nothing_holds_while_adopting():
    check = decision.Check(action='CREATE', stack_action='CREATE',
                           adopting=True)
    for when in breakpoints.WHENS:
        for action in ('CREATE', 'UPDATE', 'DELETE'):
            assert not decision.eligible(check, action, when)


@pytest.mark.parametrize('stack_action, action, facts_of_check, expected', [
    ('CREATE', 'CREATE', {}, True),
    ('UPDATE', 'CREATE', {}, True),  # a resource the update adds
    ('UPDATE', 'CREATE', {'replacement': True}, False),
    ('UPDATE', 'UPDATE', {}, True),
    ('CREATE', 'UPDATE', {}, False),
    ('DELETE', 'DELETE', {}, True),
    ('DELETE', 'DELETE', {'acted_on': False}, False),  # INIT, or deleted
    ('DELETE', 'DELETE', {'template_changed': False}, False),
    ('UPDATE', 'DELETE', {}, False),
    ('ROLLBACK', 'UPDATE', {}, False),
])
def test_eligible_before(stack_action, action, facts_of_check, expected):
    check = decision.Check(action=action, stack_action=stack_action,
                           **facts_of_check)
    assert decision.eligible(check, action) is expected


@pytest.mark.parametrize('stack_action, action, facts_of_check, expected', [
    ('UPDATE', 'UPDATE', {}, True),
    ('UPDATE', 'CREATE', {}, True),  # added
    ('UPDATE', 'CREATE', {'replacement': True}, False),
    ('UPDATE', 'DELETE', {}, True),  # removed
    ('UPDATE', 'DELETE', {'acted_on': False}, False),
    ('UPDATE', 'DELETE', {'template_changed': False}, False),
    ('CREATE', 'CREATE', {}, False),
    # in a nested stack the root's update creates (a member it adds)
    ('CREATE', 'CREATE', {'root_action': 'UPDATE'}, True),
    ('CREATE', 'CREATE', {'root_action': 'UPDATE', 'replacement': True},
     False),
    ('CREATE', 'CREATE', {'root_action': 'CREATE'}, False),
    ('DELETE', 'DELETE', {}, False),
])
def test_eligible_for_a_planned_change(stack_action, action,
                                       facts_of_check, expected):
    check = decision.Check(action=action, stack_action=stack_action,
                           **facts_of_check)
    for when in (breakpoints.CHANGED, breakpoints.REPLACED):
        assert decision.eligible(check, action, when) is expected


def test_find_breakpoint_reads_the_environment_only():
    found = bps('a', 'n*', actions=['create'])
    assert decision.find_breakpoint(found, ('a',), 'CREATE').name == 'a'
    assert decision.find_breakpoint(found, ('n1',), 'CREATE').name == 'n*'
    assert decision.find_breakpoint(found, ('a',), 'UPDATE') is None
    assert decision.find_breakpoint(found, ('a',), 'CREATE',
                                    breakpoints.AFTER) is None


# -- the rules: one list the engine decides with and the view shows ----------

def test_set_then_clear_of_a_set_target():
    # The failing sequence of the live-view issue: a, c armed; set d;
    # clear c; clear d.
    env = bps('a', 'c')
    state = operation_state.State(targets={'d': target_kinds.SET})
    found = decision.rules(env, state)
    assert ('d', True, decision.SET, '') in shown(found)
    assert decision.decide(found, ('d',), 'create').name == 'd'
    state = operation_state.State(targets={
        'd': target_kinds.kind_of(target_kinds.CLEAR + ':' +
                                  target_kinds.SET),
        'c': target_kinds.CLEAR})
    found = decision.rules(env, state)
    assert ('d', False, decision.SET, 'clear') in shown(found)
    assert ('c', False, decision.ENVIRONMENT, 'clear') in shown(found)
    assert decision.decide(found, ('c',), 'create') is None
    assert decision.decide(found, ('d',), 'create') is None
    assert decision.decide(found, ('a',), 'create').name == 'a'


def test_continue_disarms_the_environment_not_later_targets():
    env = bps('a', 'node_*')
    found = rules_in(env, target_kinds.CONTINUE, {'x': target_kinds.SET})
    assert {(r.name, r.armed, r.why) for r in found} == {
        ('x', True, ''), ('a', False, 'continue'),
        ('node_*', False, 'continue')}
    assert decision.decide(found, ('node_1',), 'create') is None
    assert decision.decide(found, ('x',), 'update').name == 'x'


def test_run_to_arms_only_its_target():
    env = bps('a', 'c')
    found = rules_in(env, target_kinds.RUN_TO, {'d': target_kinds.RUN_TO})
    armed = [r.name for r in found if r.armed]
    assert armed == ['d']
    assert {r.why for r in found if not r.armed} == {'run to d'}
    assert decision.explain(found, ('c',), 'create').why == 'run to d'


def test_run_to_a_nested_stack_still_says_its_target_once_stepped_into():
    kind = target_kinds.into(target_kinds.RUN_TO)
    assert kind == 'into:to' and target_kinds.ran_to(kind)
    assert target_kinds.into(target_kinds.SET) == target_kinds.STEP_INTO
    assert not target_kinds.ran_to(target_kinds.into(None))
    assert target_kinds.split_kind(kind) == (target_kinds.STEP_INTO,
                                             'before')
    found = decision.rules(bps('db'), operation_state.State(
        mode=target_kinds.RUN_TO, targets={'app_tier': kind}))
    assert decision.explain(found, ('db',), 'create').why == \
        'run to app_tier'
    # The step into still holds the first resources of the nested stack.
    inner = decision.decide(found, ('app_tier', 'web_1'), 'create',
                            first=True)
    assert inner is not None and inner.first_only


def test_a_clear_of_one_resource_beats_a_pattern():
    found = decision.rules(bps('node_*'), operation_state.State(
        targets={'node_2': target_kinds.CLEAR}))
    assert decision.decide(found, ('node_2',), 'create') is None
    assert decision.decide(found, ('node_1',), 'create').name == 'node_*'
    assert decision.explain(found, ('node_2',), 'create').why == 'clear'


def test_step_into_holds_only_the_first_resources():
    found = decision.rules((), operation_state.State(
        targets={'nest': target_kinds.STEP_INTO}))
    assert decision.decide(found, ('nest', 'a'), 'create', first=True)
    assert decision.decide(found, ('nest', 'b'), 'create') is None
    assert decision.decide(found, ('other',), 'create', first=True) is None


def test_kinds_of_hold_do_not_mix():
    found = decision.rules(bps('a', when='after'), operation_state.State())
    assert decision.decide(found, ('a',), 'create') is None
    assert decision.decide(found, ('a',), 'create', 'after').name == 'a'
    found = decision.rules((), operation_state.State(
        targets={'b': target_kinds.kind_of(target_kinds.SET, 'after')}))
    assert decision.decide(found, ('b',), 'create') is None
    assert decision.decide(found, ('b',), 'create', 'after').name == 'b'


@pytest.mark.parametrize('op, action, status, expected', [
    ('CREATE', 'CREATE', 'COMPLETE', True),
    ('CREATE', 'INIT', 'COMPLETE', False),
    ('CREATE', 'CREATE', 'IN_PROGRESS', False),
    ('UPDATE', 'CREATE', 'COMPLETE', True),
    ('UPDATE', 'UPDATE', 'COMPLETE', True),
    ('DELETE', 'UPDATE', 'COMPLETE', False),
    ('DELETE', 'DELETE', 'COMPLETE', True),
])
def test_is_done(op, action, status, expected):
    started = datetime.datetime(2026, 1, 1)
    later = started + datetime.timedelta(seconds=1)
    assert decision.is_done(op, action, status, later, started) is expected
    earlier = started - datetime.timedelta(seconds=1)
    assert decision.is_done(op, action, status, earlier, started) is False


@pytest.mark.parametrize('action, status, reason, expected', [
    ('CREATE', 'FAILED', 'ValueError: boom', True),  # a failure held
    ('CREATE', 'IN_PROGRESS', 'state changed', True),  # running, retried
    ('CREATE', 'COMPLETE', 'state changed', True),
    # held before its action (or before a change): not begun
    ('CREATE', 'IN_PROGRESS',
     'Breakpoint a reached before CREATE (pre-create)', False),
    ('UPDATE', 'IN_PROGRESS',
     'Breakpoint a reached before UPDATE (replace)', False),
    ('INIT', 'COMPLETE', '', False),
])
def test_has_begun(action, status, reason, expected):
    import datetime
    started = datetime.datetime(2026, 1, 1)
    later = started + datetime.timedelta(seconds=1)
    assert decision.has_begun('UPDATE', action, status, later, started,
                              reason) is expected
    earlier = started - datetime.timedelta(seconds=1)
    assert decision.has_begun('UPDATE', action, status, earlier, started,
                              reason) is False


def test_a_path_holds_before_and_after_by_its_two_targets():
    after = target_kinds.kind_of(target_kinds.SET, breakpoints.AFTER)
    found = decision.rules((), operation_state.State(
        targets={'b': (after, target_kinds.STEP)}))
    assert decision.decide(found, ('b',), 'create').source == decision.STEP
    held = decision.decide(found, ('b',), 'create', breakpoints.AFTER)
    assert (held.name, held.source) == ('b', decision.SET)


def test_commands_only_reads_as_no_breakpoint_but_checks():
    # A set in an operation without breakpoints leaves an empty list.
    assert decision.COMMANDS_ONLY and not tuple(decision.COMMANDS_ONLY)
    found = decision.rules(decision.COMMANDS_ONLY, operation_state.State(
        targets={'b': target_kinds.SET}))
    assert [(r.name, r.armed) for r in found] == [('b', True)]


# -- the rules' index: which resources an armed rule may hold ----------------

def test_a_check_no_armed_rule_names_tries_no_rule():
    found = decision.rules(bps('a', 'n/b', actions=['delete']),
                           operation_state.State())
    assert isinstance(found, decision.Rules)
    assert found.may_hold(('a',), 'DELETE', breakpoints.BEFORE)
    assert found.may_hold(('n', 'b'), 'delete', breakpoints.BEFORE)
    assert not found.may_hold(('a',), 'create', breakpoints.BEFORE)
    assert not found.may_hold(('a',), 'delete', breakpoints.AFTER)
    assert not found.may_hold(('b',), 'delete', breakpoints.BEFORE)


@pytest.mark.parametrize('rules', [
    (bps('a*'), operation_state.State()),
    (bps('n/*'), operation_state.State()),
    (bps('*'), operation_state.State()),
    (bps('*'), operation_state.State(mode=target_kinds.continue_mode(0))),
    (bps('a'), operation_state.State(targets={'n': target_kinds.STEP_INTO})),
])
def test_patterns_depths_and_steps_into_try_every_rule(rules):
    assert decision.rules(*rules).may_hold(('zz',), 'create',
                                           breakpoints.BEFORE)


def test_the_index_decides_as_every_rule_tried_in_order():
    # Every combination of a few breakpoints and things said, every
    # resource and kind of hold: the same rule as trying them all.
    import itertools
    import random
    chooser = random.Random(20261202)
    names = ['a', 'b', 'a*', 'n/a', 'n/*', '*', '[ab]', 'b?']
    kinds = [target_kinds.SET, target_kinds.STEP, target_kinds.CLEAR,
             target_kinds.STEP_INTO, target_kinds.RUN_TO,
             target_kinds.kind_of(target_kinds.SET, breakpoints.AFTER),
             target_kinds.kind_of(target_kinds.CLEAR, breakpoints.FAILED)]
    modes = [None, target_kinds.CONTINUE, target_kinds.continue_mode(0),
             target_kinds.RUN_TO, target_kinds.CANCEL]
    paths = [('a',), ('b',), ('c',), ('ab',), ('n', 'a'), ('n', 'c'),
             ('n',)]
    compared = 0
    for _ in range(300):
        env = []
        for name in chooser.sample(names, chooser.randint(0, 3)):
            when = chooser.choice(breakpoints.WHENS)
            env += bps(name, actions=chooser.sample(
                list(breakpoints.WHEN_ACTIONS[when]), 1), when=when)
        targets = {}
        for path in chooser.sample(['a', 'b', 'n', 'n/a', 'c'],
                                   chooser.randint(0, 3)):
            targets[path] = chooser.choice(kinds)
        state = operation_state.State(mode=chooser.choice(modes),
                                      targets=targets)
        found = decision.rules(env, state)
        for path, action, when, first in itertools.product(
                paths, ('create', 'update', 'delete'), breakpoints.WHENS,
                (False, True)):
            assert decision.decide(found, path, action, when, first) == \
                decision.decide(tuple(found), path, action, when, first), (
                    env, state, path, action, when, first)
            compared += 1
    assert compared == 300 * len(paths) * 3 * len(breakpoints.WHENS) * 2


def test_a_list_of_breakpoints_changed_since_is_read_again():
    found = bps('a')
    assert decision.decide(decision.rules(found, operation_state.State()),
                           ('a',), 'create')
    found[:] = bps('b')
    assert decision.decide(decision.rules(found, operation_state.State()),
                           ('b',), 'create')


def test_no_pattern_holds_a_resource_no_release_could_reach():
    found = decision.rules(breakpoints.parse_names(['*', 'tier/*']),
                           operation_state.State())
    assert decision.decide(found, ('web',), 'create') is not None
    assert decision.decide(found, ('web_\U0001F600',), 'create') is None
    assert decision.decide(found, ('tier', '\u0434\u0431'), 'create') is None
    assert decision.explain(found, ('\u0434\u0431',), 'create') is None


def test_run_to_keeps_the_own_breakpoints_of_what_it_runs_to():
    env = (breakpoints.parse_names(['r'], None, breakpoints.CHANGED) +
           breakpoints.parse_names(['x']))
    found = rules_in(env, target_kinds.RUN_TO, {'r': target_kinds.RUN_TO})
    # r holds where its own breakpoint says (only if the update changes
    # it), not before every update; the rest is disarmed.
    rule = decision.decide(found, ('r',), 'update', breakpoints.CHANGED)
    assert rule is not None and rule.source == decision.ENVIRONMENT
    assert decision.decide(found, ('r',), 'update') is None
    assert decision.decide(found, ('x',), 'create') is None
    assert decision.explain(found, ('x',), 'create').why == 'run to r'
    # Run to a resource with no breakpoint of its own: held before.
    found = rules_in(env, target_kinds.RUN_TO, {'y': target_kinds.RUN_TO})
    assert decision.decide(found, ('y',), 'update').source == decision.RUN_TO
    assert decision.decide(found, ('r',), 'update',
                           breakpoints.CHANGED) is None


def test_what_an_operation_may_act_on():
    create_update = breakpoints.parse_name('a')
    delete = breakpoints.parse_name('a', 'delete')
    assert decision.may_act_in('DELETE', delete)
    assert not decision.may_act_in('DELETE', create_update)
    assert decision.may_act_in('CREATE', create_update)
    assert not decision.may_act_in('CREATE', delete)
    assert decision.may_act_in('UPDATE', delete)
    assert decision.may_act_in('UPDATE', create_update)
