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
"""The interaction tier's templates and invariants, without a Heat."""

import types

from tests.interaction import dimensions
from tests.interaction import invariants
from tests.interaction import runner
from tests.interaction import templates


def _run(**out):
    outcome = runner.Outcome()
    for key, value in out.items():
        setattr(outcome, key, value)
    return types.SimpleNamespace(
        out=outcome, secret='hidden-123456', held='res', prior='first',
        s={'release': 'continue', 'setter': 'cli'})


def test_every_family_builds_a_chain_through_its_resource():
    for family in dimensions.FAMILIES:
        body, held = templates.template(family, 'res')
        resources = body['resources']
        assert held.split('/')[0] == 'res'
        assert resources['tail']['depends_on'] == 'res'
        assert 'first' in resources
        assert body['parameters']['secret']['hidden'] is True


def test_without_the_resource_tail_follows_first():
    body, held = templates.template('test', 'res', present=False)
    assert held is None and 'res' not in body['resources']
    assert body['resources']['tail']['depends_on'] == 'first'


def test_the_longest_name_leaves_room_for_a_nested_stack_name():
    assert len(templates.resource_name('longest', 'test')) == 255
    nested = templates.resource_name('longest', 'group')
    assert len('ix-01234567-%s-%s' % (nested, 'x' * 12)) == 255


def test_native_hooks_nest_by_path():
    assert templates.stock_hooks_env('grp/0', 'post-create') == {
        'resource_registry': {'resources': {'grp': {'0': {
            'hooks': 'post-create'}}}}}


def test_breakpoint_env_says_when():
    assert templates.breakpoint_env('r', 'on-failure') == {
        'breakpoints': [{'resource': 'r', 'when': 'failed'}]}
    assert templates.breakpoint_env('r', 'delete') == {
        'breakpoints': [{'resource': 'r', 'action': 'delete'}]}


def test_reference_hook_stands_in_for_a_cancel_only():
    s = {'hold': 'on-change', 'operation': 'update-change',
         'release': 'continue'}
    assert runner.reference_hook(s) is None
    assert runner.reference_hook(dict(s, release='cancel')) == 'pre-update'
    assert runner.reference_hook(dict(s, hold='after')) == 'post-update'
    assert runner.reference_hook({'hold': 'delete', 'operation': 'delete',
                                  'release': 'step'}) == 'pre-delete'


def test_a_hidden_value_in_the_log_is_found():
    run = _run(log='INFO x\nDEBUG value hidden-123456 here\n')
    assert invariants.nothing_hidden_shown(run)
    assert not invariants.nothing_hidden_shown(_run(log='INFO ******'))


def test_a_traceback_is_found():
    log = 'x\nTraceback (most recent call last):\n  File "a"\nKeyError: 1\n'
    assert invariants.no_traceback(_run(log=log))
    assert not invariants.no_traceback(_run(log='fine\n'))


def test_ends_as_stock_compares_status_outputs_and_wait():
    ref = _run(status='CREATE_COMPLETE', outputs={'a': 1}, wait_code=0)
    assert not invariants.ends_as_stock(
        _run(status='CREATE_COMPLETE', outputs={'a': 1}, wait_code=0), ref)
    assert invariants.ends_as_stock(
        _run(status='CREATE_FAILED', outputs={'a': 1}, wait_code=0), ref)
    assert invariants.ends_as_stock(
        _run(status='CREATE_COMPLETE', outputs={'a': 2}, wait_code=0), ref)
    assert invariants.ends_as_stock(
        _run(status='CREATE_COMPLETE', outputs={'a': 1}, wait_code=1), ref)
    held = _run(status='CREATE_COMPLETE', outputs={'a': 1}, wait_code=1,
                wait_returned_held=True)
    assert invariants.ends_as_stock(held, ref)


def test_a_second_physical_id_is_a_second_create():
    ref = _run(creates={'res': {'a'}})
    assert invariants.none_created_twice(_run(creates={'res': {'a', 'b'}}),
                                         ref)
    assert not invariants.none_created_twice(_run(creates={'res': {'a'}}),
                                             ref)
