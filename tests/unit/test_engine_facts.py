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
"""Tests of a check's facts: what they read, and how often.

A convergence check of a stack with breakpoints asks whether it timed
out, how much time is left, and whether its resource holds; events ask
for the stack's hidden values. These must not cost a query each. (What
the facts decide is tested without Heat's objects in
``test_engine_decision.py``.)
"""

import threading
from unittest import mock

from oslo_config import cfg
import pytest

from heat_breakpoint.db import ancestry
from heat_breakpoint.db import operation_state
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import events
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.commands import deadlines
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import operation_state as model_state
from heat_breakpoint.model import registry
from heat_breakpoint.model import target_kinds
from heat_breakpoint import opts

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
        self.t = mock.Mock(id=None)  # a template not stored
        self.convergence = True
        self.context = None
        self.adopt_stack_data = None
        self.parameters = mock.Mock(params={})
        self.dispatch_event = mock.Mock()
        # The names of its template's resources (Heat's ``in``).
        self.names = {'a', 'b'}

    def __contains__(self, name):
        return name in self.names


class FakeResource:
    INIT, DELETE, COMPLETE = 'INIT', 'DELETE', 'COMPLETE'

    def __init__(self, name, stack):
        self.name = name
        self.stack = stack
        self.context = None
        self.replaces = None
        self.action, self.status = 'INIT', 'COMPLETE'
        self.current_template_id = None
        self.t = mock.Mock()
        self.t.required_resource_names.return_value = []

    @property
    def state(self):
        return self.action, self.status


def marker_for(*names):
    env = registry.apply_to_environment(
        {}, breakpoints.parse_names(list(names), ['create']))
    return env['parameter_defaults'][registry.MARKER]


def hold_name(rsrc, action):
    """The name of the breakpoint a check of ``rsrc`` holds at, or None."""
    check = facts.check(rsrc, action)
    rule = decision.hold(check, action)
    return decision.held_name(rule, check.path) if rule else None


@pytest.fixture(autouse=True)
def fresh_thread():
    """Every test as a new check in a thread of its own would be."""
    facts._kept.set(None)
    yield


@pytest.fixture
def read():
    with mock.patch.object(operation_state, 'read',
                           return_value=model_state.State()) as found:
        yield found


def test_no_breakpoints_no_query(read):
    stack = FakeStack()
    assert hold_name(FakeResource('a', stack), 'CREATE') is None
    assert deadlines.time_elapsed(stack, 5.0) == 5.0
    read.assert_not_called()


def test_one_read_per_check(read):
    stack = FakeStack(marker_for('a'))
    read.return_value = model_state.State(paused_seconds=2.0)
    # As Heat's check: has_timed_out(), time_remaining(), then the hold.
    assert deadlines.time_elapsed(stack, 5.0) == 3.0
    assert deadlines.time_elapsed(stack, 6.0) == 4.0
    assert hold_name(FakeResource('a', stack), 'CREATE') == 'a'
    assert hold_name(FakeResource('b', stack), 'CREATE') is None
    assert read.call_count == 1
    # The next check loads the stack afresh, and reads afresh.
    deadlines.time_elapsed(FakeStack(marker_for('a')), 5.0)
    assert read.call_count == 2


@pytest.fixture
def config():
    yield cfg.CONF
    cfg.CONF.clear_override('enabled', opts.GROUP)
    cfg.CONF.clear_override('pause_counts_against_timeout', opts.GROUP)
    cfg.CONF.set_default('enabled', True, opts.GROUP)


@pytest.mark.parametrize('change', [
    lambda conf: conf.set_override('enabled', False, opts.GROUP),
    lambda conf: conf.set_default('enabled', False, opts.GROUP),
])
def test_a_changed_option_is_seen_by_the_next_check(read, config, change):
    stack = FakeStack(marker_for('a'))
    assert hold_name(FakeResource('a', stack), 'CREATE') == 'a'
    assert facts.enabled()
    change(config)
    assert not facts.enabled()
    # The next check (a stack loaded afresh) does not hold.
    assert hold_name(FakeResource('a', FakeStack(marker_for('a'))),
                     'CREATE') is None
    config.clear_override('enabled', opts.GROUP)
    config.set_default('enabled', True, opts.GROUP)
    assert hold_name(FakeResource('a', FakeStack(marker_for('a'))),
                     'CREATE') == 'a'


def test_options_are_read_once_while_unchanged(read, config):
    stack = FakeStack(marker_for('a'))
    read.return_value = model_state.State(paused_seconds=2.0)
    assert deadlines.time_elapsed(stack, 5.0) == 3.0
    config.set_override('pause_counts_against_timeout', True, opts.GROUP)
    # Within a check what was read serves; the next check sees the change.
    assert deadlines.time_elapsed(stack, 5.0) == 3.0
    assert deadlines.time_elapsed(FakeStack(marker_for('a')), 5.0) == 5.0
    with mock.patch.object(facts, 'Options',
                           side_effect=facts.Options) as made:
        for _ in range(3):
            deadlines.time_elapsed(FakeStack(marker_for('a')), 5.0)
    assert made.call_count == 0


def test_breakpoints_parsed_once_per_stack_object():
    stack = FakeStack(marker_for('a', 'b'))
    with mock.patch.object(facts, '_parse_marker',
                           wraps=facts._parse_marker) as parse:
        first = facts.stack_breakpoints(stack)
        assert facts.stack_breakpoints(stack) is first
        assert parse.call_count == 1
    assert [bp.name for bp in first] == ['a', 'b']


def test_breakpoints_parsed_once_per_stored_environment():
    def loaded(marker):
        stack = FakeStack(marker)
        stack.t.id = 'template-1'
        return stack
    with mock.patch.object(facts, 'parse_marker',
                           wraps=facts.parse_marker) as parse:
        first = facts.stack_breakpoints(loaded(marker_for('a', 'b')))
        # The next check loads the same environment again.
        assert facts.stack_breakpoints(loaded(marker_for('a', 'b'))) is \
            first
        assert parse.call_count == 1
        # A command changed it in the database meanwhile.
        assert facts.stack_breakpoints(loaded([])) is decision.COMMANDS_ONLY
        changed = facts.stack_breakpoints(loaded(marker_for('a')))
        assert [bp.name for bp in changed] == ['a']
        assert parse.call_count == 3


def test_nested_path_walked_once_per_stack_object():
    def get_by_id(context, stack_id, show_deleted):
        return {'mid': FakeStack(owner_id='root',
                                 parent_resource_name='outer'),
                'root': FakeStack(stack_id='root', traversal='rt')}[stack_id]
    stack = FakeStack(owner_id='mid', parent_resource_name='inner',
                      traversal='nested-t')
    with mock.patch.object(facts.stack_objects.Stack, 'get_by_id',
                           side_effect=get_by_id) as get, \
            mock.patch.object(ancestry, 'walk', return_value=None):
        assert facts.resource_path(FakeResource('x', stack)) == (
            'outer', 'inner', 'x')
        assert facts.resource_path(FakeResource('y', stack)) == (
            'outer', 'inner', 'y')
        assert get.call_count == 2  # one per level, once
        # The walk reached the root: its operation is known too.
        assert facts.place(stack).key == ('root', 'rt')
        assert get.call_count == 2


def test_root_resource_path_needs_no_query():
    with mock.patch.object(facts.stack_objects.Stack, 'get_by_id') as get:
        assert facts.resource_path(FakeResource('a', FakeStack())) == ('a',)
    get.assert_not_called()


def test_root_operation_and_path_share_one_walk():
    stack = FakeStack(owner_id='inner', parent_resource_name='leaf',
                      traversal='x-t')
    walked = (('outer', 'middle', 'leaf'), 'root', 'root-t', 'UPDATE')
    with mock.patch.object(ancestry, 'walk', return_value=walked) as query:
        assert facts.place(stack).key == ('root', 'root-t')
        assert facts.stack_path(stack) == ('outer', 'middle', 'leaf')
        assert query.call_count == 1
        # A new traversal of the stack may belong to a new operation.
        stack.current_traversal = 'x-t2'
        assert facts.place(stack).key == ('root', 'root-t')
        assert query.call_count == 2


def test_nothing_holds_while_the_root_rolls_back(read):
    root = FakeStack(stack_id='root', traversal='rt')
    root.action = 'ROLLBACK'
    root.raw_template = mock.Mock(environment={})
    nested = FakeStack(marker_for('a'), owner_id='root',
                       parent_resource_name='nest')
    nested.action = 'UPDATE'
    with mock.patch.object(facts.stack_objects.Stack, 'get_by_id',
                           return_value=root), \
            mock.patch.object(ancestry, 'walk', return_value=None):
        assert hold_name(FakeResource('a', nested), 'UPDATE') is None
    read.assert_not_called()


def test_a_nested_delete_holds_at_the_roots_breakpoints(read):
    env = registry.apply_to_environment(
        {}, breakpoints.parse_names(['nest/a'], actions=['delete']))
    root = FakeStack(stack_id='root', traversal='rt')
    root.raw_template = mock.Mock(environment=env)
    nested = FakeStack(owner_id='root', parent_resource_name='nest')
    nested.action = 'DELETE'
    rsrc = FakeResource('a', nested)
    rsrc.action = 'CREATE'
    with mock.patch.object(facts.stack_objects.Stack, 'get_by_id',
                           return_value=root), \
            mock.patch.object(ancestry, 'walk', return_value=None):
        assert hold_name(rsrc, 'DELETE') == 'nest/a'


def test_a_step_into_asks_heat_whether_the_resource_is_first(read):
    read.return_value = model_state.State(
        targets={'a': target_kinds.STEP_INTO})
    stack = FakeStack([])
    rsrc = FakeResource('b', stack)
    assert facts.check(rsrc, 'CREATE').first is True
    rsrc.t.required_resource_names.assert_called_once_with()
    read.return_value = model_state.State()
    stack = FakeStack([])
    rsrc = FakeResource('b', stack)
    assert facts.check(rsrc, 'CREATE').first is None
    rsrc.t.required_resource_names.assert_not_called()


def test_a_resource_no_longer_in_its_template_is_not_first(read):
    # An update removed it: its definition cannot resolve what it refers
    # to (Heat asserts), so it is not asked.
    read.return_value = model_state.State(
        targets={'a': target_kinds.STEP_INTO})
    stack = FakeStack([])
    stack.names = {'a'}
    rsrc = FakeResource('b', stack)
    rsrc.t.required_resource_names.side_effect = AssertionError
    assert facts.check(rsrc, 'CREATE').first is False
    rsrc.t.required_resource_names.assert_not_called()


def test_commands_only_reads_as_no_breakpoint_but_checks():
    # A set in an operation without breakpoints leaves an empty list.
    assert facts.parse_marker([], 'stack-id') is decision.COMMANDS_ONLY


# -- the operation's state, kept for one check --------------------------------

def test_current_reads_once_per_stack_object(db):
    stack = FakeStack()
    with mock.patch.object(operation_state, 'read',
                           wraps=operation_state.read) as query:
        first = facts.operation(stack)
        assert facts.operation(stack) is first
        assert query.call_count == 1


def test_another_engine_is_seen_by_the_next_check(db):
    check = FakeStack(stack_id='root', traversal='t1')
    assert facts.operation(check).state.mode is None
    # another engine
    operation_state.mark(('root', 't1'))
    # The next check loads the stack afresh: it sees the mark.
    assert facts.operation(FakeStack(stack_id='root', traversal='t1')) \
        .state.mode == target_kinds.CONTINUE


def test_a_kept_state_goes_stale(db):
    stack = FakeStack(stack_id='root', traversal='t1')
    facts.operation(stack)
    operation_state.mark(('root', 't1'))
    with mock.patch.object(facts, 'FRESH_SECONDS', 0.0):
        assert facts.operation(stack).state.mode == target_kinds.CONTINUE


def test_a_check_that_writes_drops_what_it_kept(db):
    stack = FakeStack()
    kept = facts.operation(stack)
    facts.forget(stack)
    assert facts.operation(stack) is not kept


def test_what_a_check_kept_is_not_another_threads(read):
    stack = FakeStack()
    kept = facts.operation(stack)
    found = []
    thread = threading.Thread(target=lambda: found.append(
        facts.operation(stack)))
    thread.start()
    thread.join()
    assert found[0] is not kept
    assert read.call_count == 2


def test_nested_stack_is_keyed_by_the_root_operation(db):
    root = FakeStack(stack_id='root', traversal='root-t')
    nested = FakeStack(owner_id='root', parent_resource_name='inner',
                       stack_id='child', traversal='child-t')
    with mock.patch.object(facts.stack_objects.Stack, 'get_by_id',
                           return_value=root) as get, \
            mock.patch.object(ancestry, 'walk', return_value=None):
        operation_state.add_targets(facts.place(nested).key, ['inner/x'],
                                    target_kinds.SET)
        assert facts.place(nested).key == ('root', 'root-t')
        assert get.call_count == 1  # once per stack object
    state = operation_state.read(facts.place(root).key)
    assert (state.mode, state.targets) == (None, {'inner/x':
                                                  target_kinds.SET})


# -- events of a stack with breakpoints --------------------------------------

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
