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
"""Fix and go on: ``step|continue|retry --template|-e|--parameter``.

At a hold the fix is applied to the running operation (a PATCH update
that supersedes it, completed resources kept) and the command then goes
on with the held resource's new definition, on the real local Heat.
"""

import json

import pytest

from tests.functional import conftest
from tests.functional import test_outcomes
from tests.functional import utils

CHAIN = """\
heat_template_version: 2018-08-31
parameters:
  size: {type: string, default: "1"}
  fails: {type: boolean, default: false}
resources:
  first:
    type: OS::Heat::TestResource
    properties: {value: first}
  vol:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [{get_attr: [first, output]}, %(vol)s]]}
      fail: {get_param: fails}
  after:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [vol, output]}}
outputs:
  out: {value: {get_attr: [after, output]}}
"""


def chain(tmp_path, name='chain.yaml', vol='{get_param: size}'):
    path = tmp_path / name
    path.write_text(CHAIN % {'vol': vol})
    return str(path)


def osc(server, *argv):
    return test_outcomes.osc(server, *argv)


def osc_fails(server, *argv):
    code, out, err = conftest.run_openstack(server, *argv)
    assert code != 0, out
    return err


def ids(hc, stack, depth=0):
    return {name: r.physical_resource_id
            for name, r in utils.resources(hc, stack, depth).items()}


def output(stack):
    return {o['output_key']: o['output_value'] for o in stack.outputs}


def held(hc, stack):
    return test_outcomes.held_rows(hc, stack)


def test_continue_with_a_parameter_goes_on_with_the_fix(heat_server, heat,
                                                        stack_name, tmp_path):
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--breakpoint', 'vol', stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'vol', 'before')
    first = ids(heat, stack_name)['first']
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'breakpoint', 'continue', stack_name,
        '--parameter', 'size=5')
    assert code == 0, err
    # The planned change first, then what the held resource goes on with.
    assert 'updated: vol' in err
    assert 'vol goes on with: value: first-1 -> first-5' in err
    assert 'released' in out
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert output(stack) == {'out': 'first-5'}
    assert ids(heat, stack_name)['first'] == first
    test_outcomes.assert_created_once(heat, stack_name, ['first', 'vol'])
    assert held(heat, stack_name) == {}


def test_continue_with_a_template_replaces_the_template(
        heat_server, heat, stack_name, tmp_path):
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--breakpoint', 'vol', stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'vol', 'before')
    first = ids(heat, stack_name)['first']
    fixed = chain(tmp_path, 'fixed.yaml', vol='fixed')
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name,
        '--template', fixed)
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert output(stack) == {'out': 'first-fixed'}
    assert ids(heat, stack_name)['first'] == first
    test_outcomes.assert_created_once(heat, stack_name, ['first', 'vol'])


def test_step_with_a_fix_holds_at_the_next_resource(heat_server, heat,
                                                    stack_name, tmp_path):
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--breakpoint', 'vol', stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'vol', 'before')
    out = osc(heat_server, 'stack', 'breakpoint', 'step', stack_name,
              '--parameter', 'size=7', '-f', 'json')
    assert [row['Resource'] for row in json.loads(out)] == ['vol']
    row = test_outcomes.wait_held_row(heat, stack_name, 'after', 'before')
    assert row['source'] == 'step'
    shown = json.loads(osc(heat_server, 'stack', 'breakpoint', 'show',
                           stack_name, 'after', '-f', 'json'))
    assert shown['inputs']['value'] == 'first-7'
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert output(stack) == {'out': 'first-7'}


def test_retry_with_a_fix_from_a_failure_hold(heat_server, heat, stack_name,
                                              tmp_path):
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--parameter', 'fails=true', '--breakpoint-on-failure', 'vol',
        stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'vol', 'failed')
    first = ids(heat, stack_name)['first']
    out = osc(heat_server, 'stack', 'breakpoint', 'retry', stack_name, 'vol',
              '--parameter', 'fails=false', '-f', 'json')
    assert json.loads(out)[0]['Result'] == 'retried with the edit'
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert output(stack) == {'out': 'first-1'}
    assert ids(heat, stack_name)['first'] == first
    assert held(heat, stack_name) == {}


def test_fix_at_an_after_hold_reaches_the_dependents(heat_server, heat,
                                                     stack_name, tmp_path):
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--breakpoint-after', 'vol', stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'vol', 'after')
    before = ids(heat, stack_name)
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name,
        '--parameter', 'size=3')
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    # vol is updated in place with the new value; after sees it.
    assert output(stack) == {'out': 'first-3'}
    after = ids(heat, stack_name)
    assert after['first'] == before['first']
    assert after['vol'] == before['vol']


NESTED_PARENT = """\
heat_template_version: 2018-08-31
resources:
  first:
    type: OS::Heat::TestResource
    properties: {value: first}
  tier:
    type: tier.yaml
    properties: {base: {get_attr: [first, output]}}
outputs:
  out: {value: {get_attr: [tier, out]}}
"""

NESTED_TIER = """\
heat_template_version: 2018-08-31
parameters:
  base: {type: string}
resources:
  web:
    type: OS::Heat::TestResource
    properties: {value: {list_join: ['-', [{get_param: base}, %s]]}}
outputs:
  out: {value: {get_attr: [web, output]}}
"""


def test_an_edited_nested_template_is_applied(heat_server, heat, stack_name,
                                              tmp_path):
    parent = tmp_path / 'parent.yaml'
    parent.write_text(NESTED_PARENT)
    tier = tmp_path / 'tier.yaml'
    tier.write_text(NESTED_TIER % 'broken')
    osc(heat_server, 'stack', 'create', '-t', str(parent),
        '--breakpoint', 'tier/web', stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'tier/web', 'before')
    first = ids(heat, stack_name)['first']
    tier.write_text(NESTED_TIER % 'fixed')
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name,
        '--template', str(parent))
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert output(stack) == {'out': 'first-fixed'}
    assert ids(heat, stack_name)['first'] == first


@pytest.mark.parametrize('edit, words', [
    (('--parameter', 'nope=1'),
     'the template has no parameter nope (it has: fails, size)'),
    (('--template', 'BAD'), 'OS::Nope'),
    (('--template', 'NUMBER'), 'Items to join must be string'),
    (('--parameter', 'fails=maybe'), 'fails'),
])
def test_a_bad_edit_is_refused_and_changes_nothing(heat_server, heat,
                                                   stack_name, tmp_path,
                                                   edit, words):
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--breakpoint', 'vol', stack_name)
    row = test_outcomes.wait_held_row(heat, stack_name, 'vol', 'before')
    bad = tmp_path / 'bad.yaml'
    bad.write_text('heat_template_version: 2018-08-31\n'
                   'resources: {x: {type: OS::Nope}}\n')
    number = chain(tmp_path, 'number.yaml', vol='1')
    edit = [{'BAD': str(bad), 'NUMBER': number}.get(arg, arg)
            for arg in edit]
    updated = heat.stacks.get(stack_name).updated_time
    err = osc_fails(heat_server, 'stack', 'breakpoint', 'continue',
                    stack_name, *edit)
    assert 'Cannot apply the edit' in err and words in err
    assert len(err.strip().splitlines()) == 1, err
    # Nothing applied: the same operation, still held at the same hold.
    stack = heat.stacks.get(stack_name)
    assert stack.stack_status == 'CREATE_IN_PROGRESS'
    assert stack.updated_time == updated
    assert held(heat, stack_name)['vol']['held_since'] == row['held_since']


def test_an_edit_that_removes_the_held_resource_ends_its_hold(
        heat_server, heat, stack_name, tmp_path):
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--breakpoint', 'vol', stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'vol', 'before')
    gone = tmp_path / 'gone.yaml'
    gone.write_text(CHAIN.split('  vol:')[0] + """\
  after:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, output]}}
outputs:
  out: {value: {get_attr: [after, output]}}
""")
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'breakpoint', 'continue', stack_name,
        '--template', str(gone))
    assert code == 0, err
    assert 'deleted: vol' in err
    assert 'The hold at vol ends: the edit removes the resource' in err
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert output(stack) == {'out': 'first'}
    assert 'vol' not in ids(heat, stack_name)


def test_an_edit_with_nothing_running_is_refused(heat_server, heat,
                                                 stack_name, tmp_path):
    osc(heat_server, 'stack', 'create', '--wait', '-t', chain(tmp_path),
        stack_name)
    err = osc_fails(heat_server, 'stack', 'breakpoint', 'continue',
                    stack_name, '--parameter', 'size=2')
    assert 'Nothing is running in stack %s (CREATE_COMPLETE)' % stack_name \
        in err
    assert heat.stacks.get(stack_name).stack_status == 'CREATE_COMPLETE'


def test_the_legacy_spelling_applies_the_fix(heat_server, heat, stack_name,
                                             tmp_path, monkeypatch):
    from tests.functional import test_changes
    osc(heat_server, 'stack', 'create', '-t', chain(tmp_path),
        '--parameter', 'fails=true', '--breakpoint', 'vol',
        '--breakpoint-on-failure', 'vol', stack_name)
    test_outcomes.wait_held_row(heat, stack_name, 'vol', 'before')
    out = test_changes.legacy(heat_server, monkeypatch, 'breakpoint-step',
                              stack_name, '-P', 'size=4;fails=false')
    assert 'Stepped from vol' in out
    test_outcomes.wait_held_row(heat, stack_name, 'after', 'before')
    test_changes.legacy(heat_server, monkeypatch, 'breakpoint-continue',
                        stack_name)
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert output(stack) == {'out': 'first-4'}
