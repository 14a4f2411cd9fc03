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
"""Tests of the pure logic of holds on a planned change.

Heat's own decision is exercised on the real local Heat
(tests/functional/test_changes.py); here: the diff and its masking, which
rule holds, the reasons, the memo of Heat's property diff, the text the
client prints, and where a cancel ends the check at Heat's decision.
"""

from unittest import mock

import pytest

from heat.engine import resource as heat_resource

from heat_breakpoint.db import operation_state
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.check import parking
from heat_breakpoint.engine.check import planned_changes as changes
from heat_breakpoint.engine.masking import inputs
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heatclient_ext.v1 import changes as client_changes

MASK = inputs.MASK


def test_property_changes_only_what_differs():
    found = changes.property_changes(
        {'value': 'a', 'same': 1, 'gone': 'x'},
        {'value': 'b', 'same': 1, 'new': [1]}, inputs.Masking())
    assert found == {'value': {'old': 'a', 'new': 'b'},
                     'gone': {'old': 'x', 'new': None},
                     'new': {'old': None, 'new': [1]}}


def test_property_changes_mask_secret_paths_and_secret_names():
    masking = inputs.Masking(paths={('value',), ('env', 'DB')})
    found = changes.property_changes(
        {'value': 'old-secret', 'admin_pass': 'p1', 'n': 1,
         'env': {'DB': 'a-secret', 'HOME': '/'}},
        {'value': 'new-secret', 'admin_pass': 'p2', 'n': 2,
         'env': {'DB': 'b-secret', 'HOME': '/root'}}, masking)
    assert found == {'value': {'old': MASK, 'new': MASK},
                     'admin_pass': {'old': MASK, 'new': MASK},
                     'n': {'old': 1, 'new': 2},
                     'env': {'old': {'DB': MASK, 'HOME': '/'},
                             'new': {'DB': MASK, 'HOME': '/root'}}}
    # A secret whose value did not change is not shown at all.
    assert changes.property_changes({'password': 'x'}, {'password': 'x'},
                                    inputs.Masking()) == {}


def test_unresolved_values_go_through_the_text_net():
    class Props(dict):
        def get(self, key):
            raise ValueError('no such image s3cret-image, nor ow')
    found = changes._values(Props(image=None), inputs.Masking(
        texts={'s3cret-image', 'ow'}))
    assert found == {'image': '<unresolved: no such image %s, nor ow>'
                     % MASK}


def test_change_record():
    assert changes.change(changes.REPLACE, {'v': {}}, ['v', 'a']) == {
        'kind': 'replace', 'properties': {'v': {}}, 'forced_by': ['a', 'v']}
    assert changes.change(changes.REPLACE, why='the resource is X')[
        'why'] == 'the resource is X'


def rules():
    changed = object()
    replaced = object()
    return changed, replaced


@pytest.mark.parametrize('kind,has_changed,has_replaced,expected', [
    (changes.REPLACE, True, True, breakpoints.REPLACED),
    (changes.REPLACE, True, False, breakpoints.CHANGED),
    (changes.REPLACE, False, True, breakpoints.REPLACED),
    (changes.IN_PLACE, True, True, breakpoints.CHANGED),
    (changes.IN_PLACE, False, True, None),
    (changes.IN_PLACE, False, False, None),
])
def test_choose(kind, has_changed, has_replaced, expected):
    changed, replaced = rules()
    rule, when = changes.choose(changed if has_changed else None,
                                replaced if has_replaced else None, kind)
    assert when == expected
    assert rule is {breakpoints.CHANGED: changed,
                    breakpoints.REPLACED: replaced, None: None}[expected]


def test_reasons_of_a_change_hold_parse_back():
    for kind in changes.KINDS:
        reason = reasons.held_change('app/db', 'UPDATE', kind)
        assert reasons.parse_held(reason) == {
            'name': 'app/db', 'action': 'UPDATE', 'hook': 'pre-update',
            'change': kind}
    assert reasons.parse_held(
        reasons.held_change('n', 'CREATE', 'add'))['hook'] == 'pre-create'
    # The other holds keep their exact shape.
    assert reasons.parse_held(reasons.held('a', 'UPDATE', 'pre-update')) == {
        'name': 'a', 'action': 'UPDATE', 'hook': 'pre-update'}
    assert reasons.parse_held(
        'Breakpoint a reached before UPDATE (rebuild)') is None
    assert set(reasons.CHANGES) == set(changes.KINDS)


class FakeResource:
    """What changes.plan asks of a resource, answering as told."""

    def __init__(self, replace_keys=(), allowed=('value',),
                 tmpl_replace=False):
        self.replace_keys = set(replace_keys)
        self.allowed = set(allowed)
        self.tmpl_replace = tmpl_replace
        self.diff_calls = 0
        self.stack = None
        self.current_template_id = None

    def update_template_diff(self, after, before):
        return {'Metadata': 1} if self.tmpl_replace else {}

    def needs_replace_with_tmpl_diff(self, tmpl_diff):
        return self.tmpl_replace

    def calc_update_allowed(self, props):
        return self.allowed

    def needs_replace_with_prop_diff(self, changed, after, before):
        return bool(changed & self.replace_keys)

    def update_template_diff_properties(self, after, before):
        self.diff_calls += 1
        changed = {k for k in after if after.get(k) != before.get(k)}
        if not changed <= self.allowed or changed & self.replace_keys:
            raise heat_resource.UpdateReplace('r')
        return {k: after[k] for k in changed}


# As the seam installs it on Heat's Resource: Heat's own later call gets
# what plan() worked out.
FakeResource.update_template_diff_properties = changes.remembering(
    FakeResource.update_template_diff_properties)


class FakeDefn:
    def freeze(self):
        return self


@pytest.fixture
def no_hidden(monkeypatch):
    monkeypatch.setattr(changes, '_masking',
                        lambda rsrc, *args: inputs.Masking())


def test_plan_in_place_remembers_heats_diff_for_its_own_call(no_hidden):
    rsrc = FakeResource()
    after, before = {'value': 'b', 'n': 1}, {'value': 'a', 'n': 1}
    planned = changes.plan(rsrc, FakeDefn(), None, after, before)
    assert planned == {'kind': 'in-place', 'forced_by': [],
                       'properties': {'value': {'old': 'a', 'new': 'b'}}}
    assert rsrc.diff_calls == 1
    # Heat's own call with the same objects: the remembered result.
    assert rsrc.update_template_diff_properties(after, before) == {
        'value': 'b'}
    assert rsrc.diff_calls == 1
    # Once only, and never for other objects.
    rsrc.update_template_diff_properties(after, before)
    assert rsrc.diff_calls == 2


def test_plan_replace_names_the_property_forcing_it(no_hidden):
    rsrc = FakeResource(replace_keys={'value'}, allowed=('value', 'n'))
    after, before = {'value': 'b', 'n': 2}, {'value': 'a', 'n': 1}
    planned = changes.plan(rsrc, FakeDefn(), None, after, before)
    assert planned['kind'] == 'replace'
    assert planned['forced_by'] == ['value']
    with pytest.raises(heat_resource.UpdateReplace):
        rsrc.update_template_diff_properties(after, before)
    assert rsrc.diff_calls == 1


def test_plan_replace_forced_by_a_property_not_update_allowed(no_hidden):
    rsrc = FakeResource(allowed=('value',))
    planned = changes.plan(rsrc, FakeDefn(), None,
                           {'value': 'b', 'image': 'new'},
                           {'value': 'a', 'image': 'old'})
    assert planned['kind'] == 'replace'
    assert planned['forced_by'] == ['image']


def test_plan_replace_by_template_diff(no_hidden):
    planned = changes.plan(FakeResource(tmpl_replace=True), FakeDefn(),
                           None, {'value': 'a'}, {'value': 'a'})
    assert planned == {'kind': 'replace', 'forced_by': ['Metadata'],
                       'properties': {}}


def test_plan_nothing_to_show_is_no_change(no_hidden):
    # Heat updates e.g. a nested stack's resource whatever its inputs;
    # with no difference at all, the resources inside decide.
    assert changes.plan(FakeResource(), FakeDefn(), None, {'value': 'a'},
                        {'value': 'a'}) is None


def test_client_text_of_a_planned_change():
    text = client_changes.text({
        'kind': 'replace', 'forced_by': ['value'],
        'properties': {'value': {'old': 'a', 'new': 'b'},
                       'n': {'old': None, 'new': 2}}})
    assert text.splitlines() == ['replace (forced by: value)',
                                 'n: - -> 2', 'value: "a" -> "b"']
    assert client_changes.text({'kind': 'replace', 'why': 'FAILED',
                                'properties': {}}) == 'replace (FAILED)'
    assert client_changes.text(None) == ''


def test_client_text_of_an_added_resource_leaves_out_unset_properties():
    text = client_changes.text({
        'kind': 'add', 'properties': {
            'value': {'old': None, 'new': 'x'},
            'fail': {'old': None, 'new': None},
            'wait_secs': {'old': None, 'new': 0}}})
    assert text.splitlines() == ['add', 'value: - -> "x"',
                                 'wait_secs: - -> 0']
    assert '- -> -' not in text


class _CancelNoted:
    """The database's cancel mark, noted at a moment the test chooses."""

    def __init__(self, monkeypatch):
        self.noted = False
        self.decided_on = []
        monkeypatch.setattr(operation_state, 'forward_ended',
                            lambda *key: operation_state.CANCELLED
                            if self.noted else None)
        monkeypatch.setattr(hold_records, 'drop_notes', lambda rsrc: None)

        def hold(check, action, when):
            # Noted, the cancel disarms every rule (the facts say so).
            self.decided_on.append(check)
            return None if check.cancelled else 'rule'
        monkeypatch.setattr(decision, 'hold', hold)


class _Check:
    def __init__(self, cancelled=False):
        self.cancelled = cancelled
        self.operation = mock.Mock(place=mock.Mock(key=('s1', 't1')))


def test_a_cancel_noted_while_the_facts_are_read_again_ends_the_check(
        monkeypatch):
    """Read again after the cancel, the facts hold nothing: the check ends.

    A check whose facts are older than a second reads them again at
    Heat's update decision; a cancel noted just before that read must
    not leave the replacement to go on unheld.
    """
    cancel = _CancelNoted(monkeypatch)

    def fresh(rsrc, check):
        cancel.noted = True  # the cancel comes as the facts are read
        return _Check(cancelled=True)
    monkeypatch.setattr(facts, 'fresh', fresh)
    with pytest.raises(parking.Cancelled):
        changes._hold_if_required(mock.Mock(), _Check(), {}, None,
                                  lambda: {'kind': changes.REPLACE})
    assert cancel.decided_on == []


def test_with_no_cancel_the_fresh_facts_decide(monkeypatch):
    cancel = _CancelNoted(monkeypatch)
    fresh_check = _Check()
    monkeypatch.setattr(facts, 'fresh', lambda rsrc, check: fresh_check)
    monkeypatch.setattr(changes, 'choose', lambda *args: (None, None))
    changes._hold_if_required(mock.Mock(), _Check(), {}, None,
                              lambda: {'kind': changes.REPLACE})
    assert cancel.decided_on == [fresh_check, fresh_check]


def test_a_released_hold_is_not_replayed_after_a_cancel(monkeypatch):
    """Released, then cancelled before the re-dispatched check decides.

    The replacement the hold decided is not made.
    """
    cancel = _CancelNoted(monkeypatch)
    cancel.noted = True
    monkeypatch.setattr(decision, 'eligible', lambda *args: True)
    monkeypatch.setattr(changes, '_released', lambda rsrc: True)
    monkeypatch.setattr(changes, '_replay', lambda rsrc: changes.REPLACE)
    with pytest.raises(parking.Cancelled):
        changes.needs_update(mock.Mock(), _Check(), None, None, None,
                             None, {}, {}, None, False)
