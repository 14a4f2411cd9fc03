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
"""Tests of the hold decision: what holds, what it reads, and how often.

A convergence check of a stack with breakpoints asks whether it timed
out, how much time is left, and whether its resource holds; events ask
for the stack's hidden values. These must not cost a query each.
"""

from unittest import mock

import pytest

from heat_breakpoint import breakpoints
from heat_breakpoint.engine import deadlines
from heat_breakpoint.engine import decision
from heat_breakpoint.engine import events
from heat_breakpoint.engine import operations
from heat_breakpoint.engine import target_kinds
from heat_breakpoint import opts
from heat_breakpoint import registry

opts.register_opts()


class FakeStack:
    def __init__(self, marker=None, owner_id=None, parent_resource_name=None,
                 stack_id='s', traversal='t'):
        defaults = {}
        if marker is not None:
            defaults[registry.MARKER] = marker
        self.env = mock.Mock(param_defaults=defaults)
        self.owner_id = owner_id
        self.parent_resource_name = parent_resource_name
        self.id = stack_id
        self.current_traversal = traversal
        self.action = 'CREATE'
        self.DELETE = 'DELETE'
        self.raw_template = mock.Mock(environment={})
        self.convergence = True
        self.context = None
        self.parameters = mock.Mock(params={})
        self.dispatch_event = mock.Mock()


class FakeResource:
    def __init__(self, name, stack):
        self.name = name
        self.stack = stack
        self.context = None
        self.t = mock.Mock()
        self.t.required_resource_names.return_value = []


def marker_for(*names):
    env = registry.apply_to_environment(
        {}, breakpoints.parse_names(list(names), ['create']))
    return env['parameter_defaults'][registry.MARKER]


@pytest.fixture
def read():
    with mock.patch.object(operations, 'read',
                           return_value=operations.State()) as found:
        yield found


def test_no_breakpoints_no_query(read):
    stack = FakeStack()
    assert decision.hold_name(FakeResource('a', stack), 'CREATE') is None
    assert deadlines.time_elapsed(stack, 5.0) == 5.0
    read.assert_not_called()


def test_one_read_per_check(read):
    stack = FakeStack(marker_for('a'))
    read.return_value = operations.State(paused_seconds=2.0)
    # As Heat's check: has_timed_out(), time_remaining(), then the hold.
    assert deadlines.time_elapsed(stack, 5.0) == 3.0
    assert deadlines.time_elapsed(stack, 6.0) == 4.0
    assert decision.hold_name(FakeResource('a', stack), 'CREATE') == 'a'
    assert decision.hold_name(FakeResource('b', stack), 'CREATE') is None
    assert read.call_count == 1
    # The next check loads the stack afresh, and reads afresh.
    deadlines.time_elapsed(FakeStack(marker_for('a')), 5.0)
    assert read.call_count == 2


@pytest.mark.parametrize('state, name, expected', [
    (operations.State(mode=operations.CONTINUE), 'a', None),
    (operations.State(targets={'a': operations.CLEAR}), 'a', None),
    (operations.State(targets={'b': operations.STEP}), 'b', 'b'),
    (operations.State(mode=operations.RUN_TO,
                      targets={'b': operations.RUN_TO}), 'a', None),
    (operations.State(mode=operations.RUN_TO,
                      targets={'b': operations.RUN_TO}), 'b', 'b'),
])
def test_what_the_operation_says(read, state, name, expected):
    read.return_value = state
    stack = FakeStack(marker_for('a'))
    assert decision.hold_name(FakeResource(name, stack), 'CREATE') == expected


def test_breakpoints_parsed_once_per_stack_object():
    stack = FakeStack(marker_for('a', 'b'))
    with mock.patch.object(decision, '_parse_marker',
                           wraps=decision._parse_marker) as parse:
        first = decision.stack_breakpoints(stack)
        assert decision.stack_breakpoints(stack) is first
        assert parse.call_count == 1
    assert [bp.name for bp in first] == ['a', 'b']


def test_nested_path_walked_once_per_stack_object():
    def get_by_id(context, stack_id, show_deleted):
        return {'mid': FakeStack(owner_id='root',
                                 parent_resource_name='outer'),
                'root': FakeStack(stack_id='root', traversal='rt')}[stack_id]
    stack = FakeStack(owner_id='mid', parent_resource_name='inner',
                      traversal='nested-t')
    with mock.patch.object(decision.stack_objects.Stack, 'get_by_id',
                           side_effect=get_by_id) as get:
        assert decision.resource_path(FakeResource('x', stack)) == (
            'outer', 'inner', 'x')
        assert decision.resource_path(FakeResource('y', stack)) == (
            'outer', 'inner', 'y')
        assert get.call_count == 2  # one per level, once
        # The walk reached the root: its operation is known too.
        assert operations.root_operation(stack) == ('root', 'rt')
        assert get.call_count == 2


def test_root_resource_path_needs_no_query():
    with mock.patch.object(decision.stack_objects.Stack, 'get_by_id') as get:
        assert decision.resource_path(FakeResource('a', FakeStack())) == ('a',)
    get.assert_not_called()


class EventResource(FakeResource):
    def __init__(self, name, stack, props):
        super().__init__(name, stack)
        self._stored_properties_data = props
        self.resource_id = 'phys'

    def type(self):
        return 'OS::Heat::None'


def test_events_without_secrets_are_stock():
    stack = FakeStack(marker_for('a'))
    rsrc = EventResource('a', stack, {'name': 'web', 'size': [1, 2]})
    stock = mock.Mock()
    with mock.patch.object(events.heat_event, 'Event') as event:
        events.add_event(rsrc, 'CREATE', 'COMPLETE', 'done', stock)
    stock.assert_called_once_with(rsrc, 'CREATE', 'COMPLETE', 'done')
    event.assert_not_called()


def test_events_with_secrets_are_masked():
    stack = FakeStack(marker_for('a'))
    secret = mock.Mock(hidden=lambda: True, value=lambda: 's3cret')
    stack.parameters = mock.Mock(params={'p': secret})
    rsrc = EventResource('a', stack, {'name': 'web-s3cret'})
    stock = mock.Mock()
    with mock.patch.object(events.heat_event, 'Event') as event, \
            mock.patch.object(events.rpd_objects.ResourcePropertiesData,
                              'create') as rpd:
        events.add_event(rsrc, 'CREATE', 'COMPLETE', 'done', stock)
    stock.assert_not_called()
    rpd.assert_called_once_with(None, {'name': 'web-******'})
    assert event.call_args.args[7] == {'name': 'web-******'}
    # The stored properties themselves are left alone.
    assert rsrc._stored_properties_data == {'name': 'web-s3cret'}


def test_events_of_stacks_without_breakpoints_are_stock():
    stack = FakeStack()
    secret = mock.Mock(hidden=lambda: True, value=lambda: 's3cret')
    stack.parameters = mock.Mock(params={'p': secret})
    rsrc = EventResource('a', stack, {'name': 'web-s3cret'})
    stock = mock.Mock()
    events.add_event(rsrc, 'CREATE', 'COMPLETE', 'done', stock)
    stock.assert_called_once()


# -- the rules: one list the engine decides with and the view shows ----------

def bps(*names, **kwargs):
    return breakpoints.parse_names(list(names), **kwargs)


def shown(found):
    return [(r.name, r.armed, r.source, r.why) for r in found]


def test_set_then_clear_of_a_set_target():
    # The failing sequence of the live-view issue: a, c armed; set d;
    # clear c; clear d.
    env = bps('a', 'c')
    state = operations.State(targets={'d': operations.SET})
    found = decision.rules(env, state)
    assert ('d', True, decision.SET, '') in shown(found)
    assert decision.decide(found, ('d',), 'create').name == 'd'
    state = operations.State(targets={
        'd': target_kinds.kind_of(operations.CLEAR + ':' + operations.SET),
        'c': operations.CLEAR})
    found = decision.rules(env, state)
    assert ('d', False, decision.SET, 'clear') in shown(found)
    assert ('c', False, decision.ENVIRONMENT, 'clear') in shown(found)
    assert decision.decide(found, ('c',), 'create') is None
    assert decision.decide(found, ('d',), 'create') is None
    assert decision.decide(found, ('a',), 'create').name == 'a'


def test_continue_disarms_the_environment_not_later_targets():
    env = bps('a', 'node_*')
    found = decision.rules(env, operations.State(
        mode=operations.CONTINUE, targets={'x': operations.SET}))
    assert {(r.name, r.armed, r.why) for r in found} == {
        ('x', True, ''), ('a', False, 'continue'),
        ('node_*', False, 'continue')}
    assert decision.decide(found, ('node_1',), 'create') is None
    assert decision.decide(found, ('x',), 'update').name == 'x'


def test_run_to_arms_only_its_target():
    env = bps('a', 'c')
    found = decision.rules(env, operations.State(
        mode=operations.RUN_TO, targets={'d': operations.RUN_TO}))
    armed = [r.name for r in found if r.armed]
    assert armed == ['d']
    assert {r.why for r in found if not r.armed} == {'run to d'}
    assert decision.explain(found, ('c',), 'create').why == 'run to d'


def test_run_to_a_nested_stack_still_says_its_target_once_stepped_into():
    from heat_breakpoint.engine import target_kinds
    kind = target_kinds.into(operations.RUN_TO)
    assert kind == 'into:to' and target_kinds.ran_to(kind)
    assert target_kinds.into(operations.SET) == operations.STEP_INTO
    assert not target_kinds.ran_to(target_kinds.into(None))
    assert target_kinds.split_kind(kind) == (operations.STEP_INTO, 'before')
    found = decision.rules(bps('db'), operations.State(
        mode=operations.RUN_TO, targets={'app_tier': kind}))
    assert decision.explain(found, ('db',), 'create').why == \
        'run to app_tier'
    # The step into still holds the first resources of the nested stack.
    inner = decision.decide(found, ('app_tier', 'web_1'), 'create',
                            first=True)
    assert inner is not None and inner.first_only


def test_a_clear_of_one_resource_beats_a_pattern():
    found = decision.rules(bps('node_*'), operations.State(
        targets={'node_2': operations.CLEAR}))
    assert decision.decide(found, ('node_2',), 'create') is None
    assert decision.decide(found, ('node_1',), 'create').name == 'node_*'
    assert decision.explain(found, ('node_2',), 'create').why == 'clear'


def test_step_into_holds_only_the_first_resources():
    found = decision.rules((), operations.State(
        targets={'nest': operations.STEP_INTO}))
    assert decision.decide(found, ('nest', 'a'), 'create', first=True)
    assert decision.decide(found, ('nest', 'b'), 'create') is None
    assert decision.decide(found, ('other',), 'create', first=True) is None


def test_kinds_of_hold_do_not_mix():
    found = decision.rules(bps('a', when='after'), operations.State())
    assert decision.decide(found, ('a',), 'create') is None
    assert decision.decide(found, ('a',), 'create', 'after').name == 'a'
    found = decision.rules((), operations.State(
        targets={'b': target_kinds.kind_of(operations.SET, 'after')}))
    assert decision.decide(found, ('b',), 'create') is None
    assert decision.decide(found, ('b',), 'create', 'after').name == 'b'


def test_nothing_holds_while_the_root_rolls_back(read):
    root = FakeStack(stack_id='root', traversal='rt')
    root.action = 'ROLLBACK'
    root.raw_template = mock.Mock(environment={})
    nested = FakeStack(marker_for('a'), owner_id='root',
                       parent_resource_name='nest')
    with mock.patch.object(decision.stack_objects.Stack, 'get_by_id',
                           return_value=root):
        assert decision.hold_name(FakeResource('a', nested),
                                  'UPDATE') is None
    read.assert_not_called()


def test_a_nested_delete_holds_at_the_roots_breakpoints(read):
    env = registry.apply_to_environment(
        {}, bps('nest/a', actions=['delete']))
    root = FakeStack(stack_id='root', traversal='rt')
    root.raw_template = mock.Mock(environment=env)
    nested = FakeStack(owner_id='root', parent_resource_name='nest')
    nested.action = 'DELETE'
    with mock.patch.object(decision.stack_objects.Stack, 'get_by_id',
                           return_value=root):
        assert decision.hold_name(FakeResource('a', nested),
                                  'DELETE') == 'nest/a'


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
    import datetime
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


def test_the_hold_key_functional_tests_look_for():
    from heat_breakpoint.engine import parking
    from tests.functional import test_watch_interactive
    assert test_watch_interactive.HOLD_KEY == parking.HOLD_KEY


def test_a_path_holds_before_and_after_by_its_two_targets():
    after = target_kinds.kind_of(operations.SET, breakpoints.AFTER)
    found = decision.rules((), operations.State(
        targets={'b': (after, operations.STEP)}))
    assert decision.decide(found, ('b',), 'create').source == decision.STEP
    held = decision.decide(found, ('b',), 'create', breakpoints.AFTER)
    assert (held.name, held.source) == ('b', decision.SET)


def test_commands_only_reads_as_no_breakpoint_but_checks():
    # A set in an operation without breakpoints leaves an empty list.
    assert decision._parsed([], 'stack-id') is decision.COMMANDS_ONLY
    assert decision.COMMANDS_ONLY and not tuple(decision.COMMANDS_ONLY)
    found = decision.rules(decision.COMMANDS_ONLY, operations.State(
        targets={'b': operations.SET}))
    assert [(r.name, r.armed) for r in found] == [('b', True)]
