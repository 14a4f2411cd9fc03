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
"""Tests of the hold decision's cost: what it reads, and how often.

A convergence check of a stack with breakpoints asks whether it timed
out, how much time is left, and whether its resource holds; events ask
for the stack's hidden values. These must not cost a query each.
"""

from unittest import mock

import pytest

from heat_breakpoint import breakpoints
from heat_breakpoint.engine import hold
from heat_breakpoint.engine import operations
from heat_breakpoint import opts

opts.register_opts()


class FakeStack:
    def __init__(self, marker=None, owner_id=None, parent_resource_name=None,
                 stack_id='s', traversal='t'):
        defaults = {}
        if marker is not None:
            defaults[breakpoints.MARKER] = marker
        self.env = mock.Mock(param_defaults=defaults)
        self.owner_id = owner_id
        self.parent_resource_name = parent_resource_name
        self.id = stack_id
        self.current_traversal = traversal
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
    env = breakpoints.apply_to_environment(
        {}, breakpoints.parse_names(list(names), ['create']))
    return env['parameter_defaults'][breakpoints.MARKER]


@pytest.fixture
def read():
    with mock.patch.object(operations, 'read',
                           return_value=operations.State()) as found:
        yield found


def test_no_breakpoints_no_query(read):
    stack = FakeStack()
    assert hold.hold_name(FakeResource('a', stack), 'CREATE') is None
    assert hold.time_elapsed(stack, 5.0) == 5.0
    read.assert_not_called()


def test_one_read_per_check(read):
    stack = FakeStack(marker_for('a'))
    read.return_value = operations.State(paused_seconds=2.0)
    # As Heat's check: has_timed_out(), time_remaining(), then the hold.
    assert hold.time_elapsed(stack, 5.0) == 3.0
    assert hold.time_elapsed(stack, 6.0) == 4.0
    assert hold.hold_name(FakeResource('a', stack), 'CREATE') == 'a'
    assert hold.hold_name(FakeResource('b', stack), 'CREATE') is None
    assert read.call_count == 1
    # The next check loads the stack afresh, and reads afresh.
    hold.time_elapsed(FakeStack(marker_for('a')), 5.0)
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
    assert hold.hold_name(FakeResource(name, stack), 'CREATE') == expected


def test_breakpoints_parsed_once_per_stack_object():
    stack = FakeStack(marker_for('a', 'b'))
    with mock.patch.object(hold, '_parse_marker',
                           wraps=hold._parse_marker) as parse:
        first = hold.stack_breakpoints(stack)
        assert hold.stack_breakpoints(stack) is first
        assert parse.call_count == 1
    assert [bp.name for bp in first] == ['a', 'b']


def test_nested_path_walked_once_per_stack_object():
    def get_by_id(context, stack_id, show_deleted):
        return {'mid': FakeStack(owner_id='root',
                                 parent_resource_name='outer'),
                'root': FakeStack(stack_id='root', traversal='rt')}[stack_id]
    stack = FakeStack(owner_id='mid', parent_resource_name='inner',
                      traversal='nested-t')
    with mock.patch.object(hold.stack_objects.Stack, 'get_by_id',
                           side_effect=get_by_id) as get:
        assert hold.resource_path(FakeResource('x', stack)) == (
            'outer', 'inner', 'x')
        assert hold.resource_path(FakeResource('y', stack)) == (
            'outer', 'inner', 'y')
        assert get.call_count == 2  # one per level, once
        # The walk reached the root: its operation is known too.
        assert operations.root_operation(stack) == ('root', 'rt')
        assert get.call_count == 2


def test_root_resource_path_needs_no_query():
    with mock.patch.object(hold.stack_objects.Stack, 'get_by_id') as get:
        assert hold.resource_path(FakeResource('a', FakeStack())) == ('a',)
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
    with mock.patch.object(hold.heat_event, 'Event') as event:
        hold.add_event(rsrc, 'CREATE', 'COMPLETE', 'done', stock)
    stock.assert_called_once_with(rsrc, 'CREATE', 'COMPLETE', 'done')
    event.assert_not_called()


def test_events_with_secrets_are_masked():
    stack = FakeStack(marker_for('a'))
    secret = mock.Mock(hidden=lambda: True, value=lambda: 's3cret')
    stack.parameters = mock.Mock(params={'p': secret})
    rsrc = EventResource('a', stack, {'name': 'web-s3cret'})
    stock = mock.Mock()
    with mock.patch.object(hold.heat_event, 'Event') as event, \
            mock.patch.object(hold.rpd_objects.ResourcePropertiesData,
                              'create') as rpd:
        hold.add_event(rsrc, 'CREATE', 'COMPLETE', 'done', stock)
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
    hold.add_event(rsrc, 'CREATE', 'COMPLETE', 'done', stock)
    stock.assert_called_once()
