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
"""Holds on a planned change (``when: changed|replaced``), real local Heat.

``OS::Heat::TestResource`` changes ``value`` in place, or by replacement
when ``update_replace`` is true: Heat's own decision, which is what the
breakpoints follow.
"""

import contextlib
import io
import json

from heatclient import exc as heat_exc
import yaml

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext import shell as legacy_shell
from tests.functional import conftest
from tests.functional import utils

SECRET_OLD = 'old-hidden-s3cret'
SECRET_NEW = 'new-hidden-s3cret'


def _test_resource(value, replace=False, **props):
    props.update(value=value)
    if replace:
        props['update_replace'] = True
    return {'type': 'OS::Heat::TestResource', 'properties': props}


def prn(value):
    """Three independent resources: p (in place), r (replaced), u."""
    return {'heat_template_version': '2018-08-31', 'resources': {
        'p': _test_resource(value),
        'r': _test_resource(value, replace=True),
        'u': _test_resource('same')}}


def env(*names, when):
    return registry.apply_to_environment(
        {}, breakpoints.parse_names(names, when=when))


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, 'stack', 'breakpoint',
                                            *argv)
    assert code == 0, err
    return out


def physical_ids(hc, stack):
    return {name: rsrc.physical_resource_id
            for name, rsrc in utils.resources(hc, stack).items()}


def held_now(hc, stack, nested_depth=0):
    try:
        listed = hc.resources.list(stack, nested_depth=nested_depth)
    except heat_exc.HTTPNotFound:
        # Stock Heat races listing nested resources while a nested stack
        # updates ("ResourcePropertiesData with id {} not found"), with or
        # without breakpoints: ask again.
        return {}
    return {r.resource_name: reasons.parse_held(r.resource_status_reason)
            for r in listed if reasons.parse_held(r.resource_status_reason)}


def ever_held(hc, stack, name):
    return [e for e in hc.events.list(stack, resource_name=name)
            if reasons.parse_held(e.resource_status_reason)]


def wait_held(hc, stack, names, nested_depth=0):
    return utils.wait_for(
        lambda: (set(held_now(hc, stack, nested_depth)) >= set(names) and
                 held_now(hc, stack, nested_depth)),
        60, what='%s held' % ', '.join(names))


def create(hc, stack, tmpl, **kwargs):
    hc.stacks.create(stack_name=stack, template=tmpl, **kwargs)
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE')
    return physical_ids(hc, stack)


def test_on_replace_holds_only_the_replaced_resource(heat_server, heat,
                                                     stack_name, tmp_path):
    before = create(heat, stack_name, prn('a'))
    path = tmp_path / 'prn.yaml'
    path.write_text(yaml.safe_dump(prn('b')))
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'update', '-t', str(path),
        '--breakpoint-on-replace', '*', stack_name)
    assert code == 0, err

    held = wait_held(heat, stack_name, ['r'])
    assert held['r'] == {'name': '*', 'action': 'UPDATE',
                         'hook': 'pre-update', 'change': 'replace'}
    # p is updated in place meanwhile, u is not touched: neither holds.
    utils.wait_resource(heat, stack_name, 'p', 'UPDATE_COMPLETE')
    assert set(held_now(heat, stack_name)) == {'r'}

    shown = json.loads(osc(heat_server, 'show', stack_name, 'r',
                           '-f', 'json'))
    assert shown['state'] == 'held'
    assert shown['when'] == breakpoints.REPLACED
    assert shown['change'] == {
        'kind': 'replace', 'forced_by': ['value'],
        'properties': {'value': {'old': 'a', 'new': 'b'}}}
    table = osc(heat_server, 'show', stack_name, 'r')
    assert 'replace (forced by: value)' in table
    assert 'value: "a" -> "b"' in table
    listed = json.loads(osc(heat_server, 'list', stack_name, '-f', 'json'))
    assert [(row['Resource'], row['When']) for row in listed
            if row['State'] == 'held'] == [('r', breakpoints.REPLACED)]
    assert 'held: before UPDATE if replaced' in osc(heat_server, 'graph',
                                                    stack_name)

    # The hit event carries the planned change too.
    hit = ever_held(heat, stack_name, 'r')
    assert len(hit) == 1
    details = heat.events.get(stack_name, 'r', hit[0].id)
    assert details.resource_properties['change']['kind'] == 'replace'

    continue_and_check_the_update(heat_server, heat, stack_name, before)
    assert not ever_held(heat, stack_name, 'p')
    outputs = {name: heat.resources.get(stack_name, name).attributes
               for name in 'pr'}
    assert {name: attrs['output'] for name, attrs in outputs.items()} == {
        'p': 'b', 'r': 'b'}


def continue_and_check_the_update(server, heat, stack_name, before):
    """Continue; prn('a') -> prn('b') ends: r replaced, p kept, u untouched.

    ``before``: the physical ids at the create; returns those after.
    """
    osc(server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    after = physical_ids(heat, stack_name)
    assert after['r'] != before['r']
    assert after['p'] == before['p']
    assert after['u'] == before['u']
    assert not ever_held(heat, stack_name, 'u')
    return after


def legacy(server, monkeypatch, *argv):
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = legacy_shell.main(list(argv))
    assert code in (0, None), err.getvalue()
    return out.getvalue()


def test_on_change_holds_changed_resources_never_unchanged(
        heat_server, heat, stack_name, monkeypatch):
    before = create(heat, stack_name, prn('a'))
    heat.stacks.update(stack_name, template=prn('b'),
                       environment=env('*', when=breakpoints.CHANGED))

    held = wait_held(heat, stack_name, ['p', 'r'])
    assert held['p']['change'] == 'in-place'
    assert held['r']['change'] == 'replace'
    shown = json.loads(osc(heat_server, 'show', stack_name, 'p',
                           '-f', 'json'))
    assert shown['when'] == breakpoints.CHANGED
    assert shown['change'] == {
        'kind': 'in-place', 'forced_by': [],
        'properties': {'value': {'old': 'a', 'new': 'b'}}}
    text = legacy(heat_server, monkeypatch, 'breakpoint-show', stack_name,
                  'r')
    assert 'replace (forced by: value)' in text
    assert 'value: "a" -> "b"' in text

    after = continue_and_check_the_update(heat_server, heat, stack_name,
                                          before)
    # Each changed resource held once; the released check went on with
    # the outcome decided at the hold.
    assert len(ever_held(heat, stack_name, 'p')) == 1
    assert len(ever_held(heat, stack_name, 'r')) == 1

    # The same template again changes nothing: nothing holds.
    heat.stacks.update(stack_name, template=prn('b'),
                       environment=env('*', when=breakpoints.CHANGED))
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert physical_ids(heat, stack_name) == after
    assert len(ever_held(heat, stack_name, 'p')) == 1


def test_cancel_rolls_the_update_back(heat_server, heat, stack_name):
    before = create(heat, stack_name, prn('a'))
    heat.stacks.update(stack_name, template=prn('b'),
                       environment=env('r', when=breakpoints.REPLACED))
    wait_held(heat, stack_name, ['r'])
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'cancel', stack_name)
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'ROLLBACK_COMPLETE')
    after = physical_ids(heat, stack_name)
    assert after['r'] == before['r']
    assert heat.resources.get(stack_name, 'r').attributes['output'] == 'a'


def hidden_template(secret_value):
    return {'heat_template_version': '2018-08-31',
            'parameters': {'secret': {'type': 'string', 'hidden': True}},
            'resources': {
                's': _test_resource({'get_param': 'secret'}),
                'k': _test_resource('key', replace=True)}}


def test_hidden_parameter_is_masked_in_the_planned_change(
        heat_server, heat, stack_name):
    create(heat, stack_name, hidden_template(SECRET_OLD),
           parameters={'secret': SECRET_OLD})
    heat.stacks.update(stack_name, template=hidden_template(SECRET_NEW),
                       parameters={'secret': SECRET_NEW},
                       environment=env('s', when=breakpoints.CHANGED))
    wait_held(heat, stack_name, ['s'])
    shown = osc(heat_server, 'show', stack_name, 's', '-f', 'json')
    change = json.loads(shown)['change']
    assert change['kind'] == 'in-place'
    assert change['properties'] == {
        'value': {'old': '******', 'new': '******'}}
    hit = ever_held(heat, stack_name, 's')
    details = heat.events.get(stack_name, 's', hit[0].id)
    text = shown + str(details.to_dict()) + osc(heat_server, 'show',
                                                stack_name, 's')
    assert SECRET_OLD not in text and SECRET_NEW not in text
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')


INNER = {'heat_template_version': '2018-08-31',
         'parameters': {'value': {'type': 'string'}},
         'resources': {'leaf': _test_resource({'get_param': 'value'},
                                              replace=True)}}


def nested_template(value):
    return {'heat_template_version': '2018-08-31', 'resources': {
        'outer': {'type': 'inner.yaml', 'properties': {'value': value}}}}


def test_nested_inner_resource_replaced(heat_server, heat, stack_name):
    files = {'inner.yaml': yaml.safe_dump(INNER)}
    create(heat, stack_name, nested_template('a'), files=files)
    leaf_before = utils.resources(heat, stack_name, 2)['leaf']
    heat.stacks.update(stack_name, template=nested_template('b'),
                       files=files,
                       environment=env('*', when=breakpoints.REPLACED))
    held = wait_held(heat, stack_name, ['leaf'], nested_depth=2)
    # The nested stack's resource itself changes in place: not held.
    assert set(held) == {'leaf'}
    assert held['leaf']['change'] == 'replace'
    shown = json.loads(osc(heat_server, 'show', stack_name, 'outer/leaf',
                           '-f', 'json'))
    assert shown['change']['kind'] == 'replace'
    assert shown['change']['properties'] == {
        'value': {'old': 'a', 'new': 'b'}}
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    leaf_after = utils.resources(heat, stack_name, 2)['leaf']
    assert (leaf_after.physical_resource_id !=
            leaf_before.physical_resource_id)


def test_on_change_holds_added_and_removed_resources(heat_server, heat,
                                                     stack_name):
    old = {'heat_template_version': '2018-08-31', 'resources': {
        'u': _test_resource('same'), 'x': _test_resource('gone')}}
    new = {'heat_template_version': '2018-08-31', 'resources': {
        'u': _test_resource('same'), 'n': _test_resource('added')}}
    create(heat, stack_name, old)
    heat.stacks.update(stack_name, template=new,
                       environment=env('*', when=breakpoints.CHANGED))
    held = wait_held(heat, stack_name, ['n', 'x'])
    assert held['n']['change'] == 'add'
    assert held['n']['action'] == 'CREATE'
    assert held['x']['change'] == 'remove'
    assert held['x']['action'] == 'DELETE'
    assert 'u' not in held
    shown = json.loads(osc(heat_server, 'show', stack_name, 'x',
                           '-f', 'json'))
    assert shown['change']['properties']['value'] == {'old': 'gone',
                                                      'new': None}
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert set(utils.resources(heat, stack_name)) == {'u', 'n'}

    # replaced holds neither an added nor a removed resource.
    heat.stacks.update(stack_name, template=old,
                       environment=env('*', when=breakpoints.REPLACED))
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert set(utils.resources(heat, stack_name)) == {'u', 'x'}


def test_set_on_replace_during_the_update(heat_server, heat, stack_name):
    def chained(value):
        tmpl = prn(value)
        tmpl['resources']['r']['depends_on'] = ['p']
        return tmpl
    before = create(heat, stack_name, chained('a'))
    heat.stacks.update(stack_name, template=chained('b'),
                       environment=env('p', when=breakpoints.BEFORE))
    wait_held(heat, stack_name, ['p'])
    osc(heat_server, 'set', stack_name, 'r', '--on-replace')
    armed = json.loads(osc(heat_server, 'show', stack_name, 'r',
                           '-f', 'json'))
    assert (armed['state'], armed['when']) == ('armed',
                                               breakpoints.REPLACED)
    # (continue would end what was set: clear releases p alone)
    osc(heat_server, 'clear', stack_name, 'p')
    held = wait_held(heat, stack_name, ['r'])
    assert held['r']['change'] == 'replace'
    shown = json.loads(osc(heat_server, 'show', stack_name, 'r',
                           '-f', 'json'))
    assert (shown['when'], shown['source']) == (breakpoints.REPLACED, 'set')
    osc(heat_server, 'step', stack_name, 'r')
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert physical_ids(heat, stack_name)['r'] != before['r']


def chain_of(value):
    """a -> r -> b: r changes in place with ``value``, a and b never."""
    return {'heat_template_version': '2018-08-31', 'resources': {
        'a': _test_resource('same'),
        'r': _test_resource({'list_join': ['-', [
            {'get_attr': ['a', 'output']}, value]]}),
        'b': _test_resource({'get_attr': ['r', 'output']})}}


def test_continue_to_keeps_the_on_change_breakpoint_of_its_target(
        heat_server, heat, stack_name):
    create(heat, stack_name, chain_of('one'))
    environment = registry.apply_to_environment(
        env('a', when=breakpoints.BEFORE),
        breakpoints.parse_names(['r'], when=breakpoints.CHANGED))
    heat.stacks.update(stack_name, template=chain_of('two'),
                       environment=environment)
    wait_held(heat, stack_name, ['a'])
    osc(heat_server, 'continue', stack_name, '--to', 'r')
    held = wait_held(heat, stack_name, ['r'])
    # r holds on its planned change, as its own breakpoint says.
    assert held['r']['change'] == 'in-place'
    shown = json.loads(osc(heat_server, 'show', stack_name, 'r', '-f',
                           'json'))
    assert shown['change']['kind'] == 'in-place'
    assert shown['change']['properties']['value'] == {
        'old': 'same-one', 'new': 'same-two'}


def test_update_hold_translates_heat_old_property_names(heat_server, heat,
                                                        stack_name):
    """Inputs at an update hold resolve ``network_id`` and the like.

    Heat translates its old property names (``network_id`` to
    ``network``...) before it resolves; a create hold shows them, and so
    must an update hold.
    """
    def tmpl(name):
        return {'heat_template_version': '2018-08-31', 'resources': {
            'net': {'type': 'OS::Neutron::Net'},
            'subnet': {'type': 'OS::Neutron::Subnet', 'properties': {
                'name': name, 'network_id': {'get_resource': 'net'},
                'cidr': '10.0.3.0/24'}},
            'router': {'type': 'OS::Neutron::Router'},
            'iface': {'type': 'OS::Neutron::RouterInterface',
                      'properties': {
                          'router_id': {'get_resource': 'router'},
                          'subnet_id': {'get_resource': 'subnet'}}}}}
    create(heat, stack_name, tmpl('a'))
    ids = physical_ids(heat, stack_name)
    heat.stacks.update(stack_name, template=tmpl('b'),
                       environment=env('subnet', 'iface',
                                       when=breakpoints.BEFORE))
    wait_held(heat, stack_name, ['subnet'])
    shown = json.loads(osc(heat_server, 'show', stack_name, 'subnet',
                           '-f', 'json'))
    assert 'unresolved' not in shown['inputs'], shown['inputs']
    assert shown['inputs']['network'] == ids['net']
    assert shown['inputs']['name'] == 'b'
    hit = ever_held(heat, stack_name, 'subnet')[-1]
    details = heat.events.get(stack_name, 'subnet', hit.id)
    assert details.resource_properties['properties']['network'] == \
        ids['net']
    osc(heat_server, 'clear', stack_name, 'subnet')
    wait_held(heat, stack_name, ['iface'])
    shown = json.loads(osc(heat_server, 'show', stack_name, 'iface',
                           '-f', 'json'))
    assert 'unresolved' not in shown['inputs'], shown['inputs']
    assert (shown['inputs']['router'], shown['inputs']['subnet']) == (
        ids['router'], ids['subnet'])
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')


def test_on_change_holds_what_a_count_change_adds_inside_members(
        heat_server, heat, stack_name):
    """``workers/*/volume`` holds the volume of a member a count adds.

    The member's nested stack is created by the stack update: what is
    in it is added by the update too.
    """
    from heatclient_ext.v1 import manager as bp_v1
    member = {'heat_template_version': '2018-08-31', 'resources': {
        'volume': _test_resource('data')}}
    files = {'member.yaml': yaml.safe_dump(member)}

    def group(count):
        return {'heat_template_version': '2018-08-31', 'resources': {
            'workers': {'type': 'OS::Heat::ResourceGroup', 'properties': {
                'count': count,
                'resource_def': {'type': 'member.yaml'}}}}}
    create(heat, stack_name, group(1), files=files)
    heat.stacks.update(stack_name, template=group(2), files=files,
                       environment=env('workers/*/volume',
                                       when=breakpoints.CHANGED))

    def held():
        return {row['resource']: row
                for row in bp_v1.BreakpointManager(heat).list(stack_name)
                if row['state'] == 'held'}
    rows = utils.wait_for(lambda: held().get('workers/1/volume') and held(),
                          60, what='workers/1/volume held')
    assert set(rows) == {'workers/1/volume'}
    assert (rows['workers/1/volume']['action'],
            rows['workers/1/volume']['when']) == ('CREATE',
                                                  breakpoints.CHANGED)
    shown = json.loads(osc(heat_server, 'show', stack_name,
                           'workers/1/volume', '-f', 'json'))
    assert shown['change']['kind'] == 'add'
    assert shown['change']['properties']['value'] == {'old': None,
                                                      'new': 'data'}
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
