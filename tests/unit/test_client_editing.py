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
"""Fix and go on, the client half: the edit, its plan, the wait."""

import argparse
import collections
from unittest import mock

import pytest

from heatclient_ext import exceptions
from heatclient_ext.v1 import editing
from heatclient_ext.v1 import terms


def test_no_option_is_no_edit():
    args = argparse.Namespace(template=None, environment=None,
                              parameter=None)
    assert not editing.edit_of(args)
    assert editing.edit_of(argparse.Namespace(parameter=['a=1']))
    assert editing.edit_of(argparse.Namespace(template='t.yaml'))
    assert editing.edit_of(argparse.Namespace(environment=['e.yaml']))


def test_plan_text_names_each_kind_in_order():
    plan = {'added': ['c'], 'updated': ['a', 'b'], 'replaced': [],
            'deleted': ['d']}
    assert editing.plan_text(plan) == (
        'added: c\nupdated: a, b\ndeleted: d')
    assert editing.plan_text({}) == 'no resource changes'


def test_preview_names_include_nested_lists():
    entries = [{'resource_name': 'b'}, [{'resource_name': 'web'}],
               {'resource_name': 'a'}, 'junk']
    assert editing._names(entries) == ['a', 'b', 'web']


def test_input_changes_only_what_differs():
    assert editing.input_changes(
        {'size': 1, 'name': 'x'}, {'size': 5, 'name': 'x', 'new': 2}) == (
        'new: - -> 2; size: 1 -> 5')
    assert editing.input_changes({'a': 1}, {'a': 1}) == ''


def test_a_malformed_parameter_is_refused():
    editor = editing.Editor(mock.Mock())
    with pytest.raises(exceptions.USER_ERRORS) as raised:
        editor.fields(editing.Edit(parameters=('novalue',)))
    assert 'Cannot apply the edit' in str(raised.value)


def test_an_unknown_parameter_names_those_the_template_has():
    manager = mock.Mock()
    manager.client.stacks.template.return_value = {
        'parameters': {'size': {}, 'flavor': {}}}
    editor = editing.Editor(manager)
    with pytest.raises(exceptions.USER_ERRORS) as raised:
        editor.check_parameters('s/1', {'parameters': {'nope': '1',
                                                       'size': '2'}})
    assert str(raised.value) == (
        'Cannot apply the edit: the template has no parameter nope (it '
        'has: flavor, size); nothing changed')
    # A template given is the one checked, not the stack's.
    editor.check_parameters('s/1', {'parameters': {'nope': '1'},
                                    'template': {'parameters': {'nope': {}}}})


Stack = collections.namedtuple('Stack', 'id stack_name stack_status '
                                        'updated_time')


class FakeManager:
    """The manager's reads as an edit sees them, from scripted answers."""

    def __init__(self, stacks, views, updates=((),)):
        self.stacks, self.views = list(stacks), list(views)
        # The stack's latest "UPDATE started" event, read after each
        # update time.
        self.updates = [[mock.Mock(id=ident) for ident in found]
                        for found in updates]
        self.client = mock.Mock()
        self.client.events.list.side_effect = lambda *a, **kw: (
            self.updates.pop(0) if len(self.updates) > 1
            else self.updates[0])
        self.client.stacks.preview_update.return_value = {
            'resource_changes': {'updated': [{'resource_name': 'vol'}]}}
        self.client.stacks.template.return_value = {
            'parameters': {'size': {}}}

    def get_stack(self, ident):
        return self.stacks.pop(0) if len(self.stacks) > 1 else self.stacks[0]

    def current(self, ident):
        return self.views.pop(0) if len(self.views) > 1 else self.views[0]

    def show(self, ident, name):
        return {'inputs': {'value': 'old'}}


def held(name, since='t1'):
    return {'resource': name, 'state': terms.HELD, 'held_since': since}


def test_the_wait_ends_when_the_new_traversal_holds_again():
    running = Stack('1', 's', 'CREATE_IN_PROGRESS', None)
    updated = Stack('1', 's', 'UPDATE_IN_PROGRESS', 't2')
    manager = FakeManager(
        [running, running, updated],
        [(running, [held('vol')]),   # before the edit
         (updated, []),              # the new traversal, not there yet
         (updated, [held('vol'), held('other', 't2')]),
         # the new traversal's own hold of vol, not the old one's
         (updated, [held('vol', 't2'), held('other', 't2')])])
    said = []
    editor = editing.Editor(manager, sleep=lambda s: None)
    rows = editor.apply('s', editing.Edit(parameters=('size=5',)),
                        said.append, timeout=60)
    assert [row['resource'] for row in rows] == ['vol', 'other']
    assert {row['held_since'] for row in rows} == {'t2'}
    assert said[0] == 'Planned change of stack s:\nupdated: vol'
    manager.client.stacks.update.assert_called_once()
    assert manager.client.stacks.update.call_args.kwargs['existing'] is True


def test_an_edit_in_the_second_of_the_last_update_is_seen_starting():
    # Heat keeps update times to the second: the new traversal is told
    # by its own "UPDATE started" event.
    running = Stack('1', 's', 'UPDATE_IN_PROGRESS', 't1')
    manager = FakeManager(
        [running],
        [(running, [held('vol')]),
         (running, [held('vol', 't2')])],
        updates=[('e1',), ('e1',), ('e2',)])
    clock = iter(range(0, 1000, 10))
    editor = editing.Editor(manager, sleep=lambda s: None,
                            clock=lambda: next(clock))
    rows = editor.apply('s', editing.Edit(parameters=('size=5',)),
                        lambda text: None, timeout=60)
    assert [row['resource'] for row in rows] == ['vol']
    asked = manager.client.events.list.call_args
    assert asked.kwargs['filters'] == {
        'resource_name': 's', 'resource_type': 'OS::Heat::Stack',
        'resource_action': 'UPDATE', 'resource_status': 'IN_PROGRESS'}


def test_nothing_running_is_refused_before_anything_is_sent():
    done = Stack('1', 's', 'CREATE_COMPLETE', None)
    manager = FakeManager([done], [(done, [])])
    with pytest.raises(exceptions.USER_ERRORS) as raised:
        editing.Editor(manager).apply('s', editing.Edit(template='t.yaml'))
    assert 'Nothing is running in stack s (CREATE_COMPLETE)' in \
        str(raised.value)
    manager.client.stacks.update.assert_not_called()
    manager.client.stacks.preview_update.assert_not_called()


def test_a_rollback_is_refused():
    rolling = Stack('1', 's', 'ROLLBACK_IN_PROGRESS', None)
    manager = FakeManager([rolling], [(rolling, [])])
    with pytest.raises(exceptions.USER_ERRORS) as raised:
        editing.Editor(manager).apply('s', editing.Edit(template='t.yaml'))
    assert 'rolling back' in str(raised.value)
    manager.client.stacks.update.assert_not_called()
