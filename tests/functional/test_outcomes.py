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
"""Holds after a resource and on its failure (issue 14), on the real Heat.

``OS::Heat::TestResource`` fails when its ``fail`` property is true, and
its ``output`` attribute is its ``value``.
"""

import json
import os
import time

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import test_parked_holds
from tests.functional import utils

TEMPLATES = test_engine.TEMPLATES
NESTED_FILES = ('fail_level1.yaml', 'fail_level2.yaml')


def path(name):
    return os.path.join(TEMPLATES, name)


def env(*names, when):
    return registry.apply_to_environment(
        {}, breakpoints.parse_names(names, None, when))


def create(hc, name, tmpl, *names, when, files=None, **kwargs):
    hc.stacks.create(stack_name=name, template=test_engine.template(tmpl),
                     files=files or {}, environment=env(*names, when=when),
                     **kwargs)


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, *argv)
    assert code == 0, '%s: %s' % (' '.join(argv), err)
    return out


def held_rows(hc, stack):
    """{resource path: view row} of what is held now, at any depth."""
    return {row['resource']: row
            for row in bp_v1.BreakpointManager(hc).list(stack)
            if row['state'] == 'held'}


def wait_held_row(hc, stack, name, when, timeout=60):
    def held():
        row = held_rows(hc, stack).get(name)
        return row if row and row.get('when') == when else None
    return utils.wait_for(held, timeout, what='%s held %s' % (name, when))


def hits(hc, stack, name, when):
    return [e for e in hc.events.list(stack, resource_name=name)
            if (reasons.parse_held(e.resource_status_reason) or {}).get(
                'when') == when]


def assert_created_once(hc, stack, names):
    """Heat's own create events only: the holds' events share the state."""
    for name in names:
        done = [e for e in hc.events.list(stack, resource_name=name)
                if e.resource_status == 'CREATE_COMPLETE' and
                e.resource_status_reason == 'state changed']
        assert len(done) == 1, name


def finished(hc, stack):
    found = hc.stacks.get(stack)
    return not found.stack_status.endswith('_IN_PROGRESS') and found


def statuses(hc, stack, depth=0):
    return {name: r.resource_status
            for name, r in utils.resources(hc, stack, depth).items()}


# -- after -------------------------------------------------------------------

def test_after_holds_done_resource_before_its_dependents(heat_server, heat,
                                                         stack_name):
    osc(heat_server, 'stack', 'create', '-t', path('after_chain.yaml'),
        '--breakpoint-after', 'a', stack_name)
    row = wait_held_row(heat, stack_name, 'a', breakpoints.AFTER)
    assert row['action'] == 'CREATE' and row['hook'] == 'post-create'
    time.sleep(2)  # room for b to start, were it not held
    found = utils.resources(heat, stack_name)
    assert found['a'].resource_status == 'CREATE_COMPLETE'
    assert found['a'].physical_resource_id
    assert reasons.parse_held(found['a'].resource_status_reason) == {
        'name': 'a', 'action': 'CREATE', 'hook': 'post-create',
        'when': 'after'}
    assert found['b'].resource_status == 'INIT_COMPLETE'
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'

    shown = json.loads(osc(heat_server, 'stack', 'breakpoint', 'show',
                           stack_name, 'a', '-f', 'json'))
    assert shown['state'] == 'held' and shown['when'] == 'after'
    assert shown['attributes']['output'] == 'alpha'
    assert shown['inputs']['value'] == 'alpha'
    hit, = hits(heat, stack_name, 'a', 'after')
    details = heat.events.get(stack_name, 'a', hit.id).resource_properties
    assert details['attributes']['output'] == 'alpha'
    assert details['properties']['value'] == 'alpha'

    # A step from an after-hold holds the dependents before their action.
    osc(heat_server, 'stack', 'breakpoint', 'step', stack_name)
    held_b = test_engine.wait_held(heat, stack_name, 'b')
    assert reasons.parse_held(held_b.resource_status_reason)['hook'] == \
        'pre-create'
    assert heat.resources.get(stack_name, 'a').resource_status == \
        'CREATE_COMPLETE'
    assert list(held_rows(heat, stack_name)) == ['b']

    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    stack = utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert [o['output_value'] for o in stack.outputs] == ['alpha']
    assert_created_once(heat, stack_name, 'abc')
    assert heat.resources.get(stack_name, 'a').physical_resource_id == \
        found['a'].physical_resource_id


def test_after_hold_released_by_continue_and_stock_hook_clear(
        heat_server, heat, stack_name):
    create(heat, stack_name, 'after_chain.yaml', 'a', 'b',
           when=breakpoints.AFTER)
    wait_held_row(heat, stack_name, 'a', breakpoints.AFTER)
    # The engine refuses a retry of a hold that is not a failure.
    try:
        heat.resources.signal(stack_name, 'a', data={
            'unset_hook': 'post-create', protocol.SIGNAL_KEY: 'retry'})
    except Exception as exc:
        assert 'a is held after CREATE, not on its failure' in str(exc)
    else:
        raise AssertionError('retry of an after-hold was accepted')
    assert list(held_rows(heat, stack_name)) == ['a']
    # Stock Heat's own release of a post-create hook releases it (its
    # `hook clear` command knows pre-* hooks only); b then holds after.
    osc(heat_server, 'stack', 'resource', 'signal', stack_name, 'a',
        '--data', json.dumps({'unset_hook': 'post-create'}))
    wait_held_row(heat, stack_name, 'b', breakpoints.AFTER)
    assert heat.resources.get(stack_name, 'c').resource_status == \
        'INIT_COMPLETE'
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert_created_once(heat, stack_name, 'abc')


# -- on failure ------------------------------------------------------------

def test_failure_holds_retry_holds_again_update_fixes(heat_server, heat,
                                                      stack_name):
    osc(heat_server, 'stack', 'create', '-t', path('fail_fan.yaml'),
        '--breakpoint-on-failure', '*', stack_name)
    row = wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)
    utils.wait_resource(heat, stack_name, 'x', 'CREATE_COMPLETE')
    time.sleep(1)
    f = heat.resources.get(stack_name, 'f')
    assert f.resource_status == 'CREATE_FAILED'
    assert 'Test Resource failed f' in f.resource_status_reason
    assert row['why'] == f.resource_status_reason
    assert statuses(heat, stack_name) == {
        'a': 'CREATE_COMPLETE', 'f': 'CREATE_FAILED',
        'c': 'INIT_COMPLETE', 'x': 'CREATE_COMPLETE'}
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'
    shown = json.loads(osc(heat_server, 'stack', 'breakpoint', 'show',
                           stack_name, 'f', '-f', 'json'))
    assert shown['error'] == f.resource_status_reason
    assert shown['inputs']['fail'] is True
    assert len(hits(heat, stack_name, 'f', 'failed')) == 1
    a_id = heat.resources.get(stack_name, 'a').physical_resource_id

    # retry runs the create again: it fails again and holds again.
    out = osc(heat_server, 'stack', 'breakpoint', 'retry', stack_name, 'f',
              '-f', 'json')
    assert json.loads(out) == [{'Resource': 'f', 'Action': 'CREATE',
                                'Result': 'retried'}]
    utils.wait_for(lambda: len(hits(heat, stack_name, 'f', 'failed')) == 2,
                   60, what='f held again')
    wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)
    creates = [e.resource_status for e in heat.events.list(
        stack_name, resource_name='f', sort_dir='asc')
        if e.resource_status in ('CREATE_IN_PROGRESS', 'CREATE_FAILED') and
        not reasons.parse_held(e.resource_status_reason)]
    assert creates.count('CREATE_FAILED') >= 2, creates
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'
    assert heat.resources.get(stack_name, 'c').resource_status == \
        'INIT_COMPLETE'

    # retry of a resource not held on failure is refused by name.
    code, _out, err = conftest.run_openstack(
        heat_server, 'stack', 'breakpoint', 'retry', stack_name, 'x')
    assert code != 0 and 'Nothing is held at x' in err

    # An update that fixes f takes over; the others keep their ids.
    osc(heat_server, 'stack', 'update', '--existing', '--parameter',
        'fail=false', stack_name)
    stack = utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert [o['output_value'] for o in stack.outputs] == ['a']
    assert heat.resources.get(stack_name, 'a').physical_resource_id == a_id
    assert held_rows(heat, stack_name) == {}


def test_continue_lets_the_failure_through_as_stock(heat_server, heat,
                                                    stack_name):
    create(heat, stack_name, 'fail_fan.yaml', 'f', when=breakpoints.FAILED)
    wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)
    reason = heat.resources.get(stack_name, 'f').resource_status_reason
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    stack = utils.wait_for(lambda: finished(heat, stack_name), 60,
                           what='stack done')
    assert stack.stack_status == 'CREATE_FAILED'
    # Heat's own words, as without the hold.
    assert stack.stack_status_reason == 'Resource CREATE failed: ' + reason
    assert heat.resources.get(stack_name, 'c').resource_status == \
        'INIT_COMPLETE'
    assert held_rows(heat, stack_name) == {}


def test_continue_with_rollback_enabled_rolls_back_as_stock(
        heat_server, heat, stack_name):
    create(heat, stack_name, 'fail_fan.yaml', 'f', when=breakpoints.FAILED,
           disable_rollback=False)
    wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)
    utils.wait_resource(heat, stack_name, 'x', 'CREATE_COMPLETE')
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    stack = utils.wait_for(
        lambda: heat.stacks.get(stack_name).stack_status.startswith(
            'ROLLBACK_') and finished(heat, stack_name), 90,
        what='rollback done')
    assert stack.stack_status == 'ROLLBACK_COMPLETE'
    assert held_rows(heat, stack_name) == {}


def test_failure_two_levels_down_holds_without_failing_parents(
        heat_server, heat, stack_name):
    # '*' is every resource, nested ones included.
    create(heat, stack_name, 'fail_nested_root.yaml', '*',
           when=breakpoints.FAILED,
           files=test_engine.template_files(*NESTED_FILES))
    wait_held_row(heat, stack_name, 'outer/inner/leaf', breakpoints.FAILED)
    time.sleep(2)
    found = statuses(heat, stack_name, depth=3)
    assert found['leaf'] == 'CREATE_FAILED'
    assert found['outer'] == 'CREATE_IN_PROGRESS'
    assert found['inner'] == 'CREATE_IN_PROGRESS'
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'
    assert list(held_rows(heat, stack_name)) == ['outer/inner/leaf']

    # continue: the failure goes up as stock (the parents' failure
    # breakpoints are off for the rest of the operation).
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    stack = utils.wait_for(lambda: finished(heat, stack_name), 90,
                           what='stack done')
    assert stack.stack_status == 'CREATE_FAILED'
    assert held_rows(heat, stack_name) == {}


def test_failure_hold_survives_a_restart():
    with test_parked_holds.local_heat('failure-restart') as server:
        hc = server.client()
        create(hc, 'held', 'fail_fan.yaml', 'f', when=breakpoints.FAILED)
        wait_held_row(hc, 'held', 'f', breakpoints.FAILED)
        assert server.stop() == 0, server.read_output()
        server.start()
        hc = server.client()
        time.sleep(5)  # Heat resets stacks it thinks were left running
        assert utils.stack_status(hc, 'held') == 'CREATE_IN_PROGRESS'
        assert hc.resources.get('held', 'f').resource_status == \
            'CREATE_FAILED'
        assert list(held_rows(hc, 'held')) == ['f']

        osc(server, 'stack', 'breakpoint', 'retry', 'held', 'f')
        utils.wait_for(lambda: len(hits(hc, 'held', 'f', 'failed')) == 2,
                       60, what='f held again')
        osc(server, 'stack', 'update', '--existing', '--parameter',
            'fail=false', 'held')
        utils.wait_stack(hc, 'held', 'UPDATE_COMPLETE')


def test_update_failure_holds_retry_runs_the_update_again(heat_server, heat,
                                                          stack_name):
    heat.stacks.create(stack_name=stack_name,
                       template=test_engine.template('fail_fan.yaml'),
                       parameters={'fail': False})
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    f_id = heat.resources.get(stack_name, 'f').physical_resource_id
    osc(heat_server, 'stack', 'update', '--existing', '--parameter',
        'fail=true', '--breakpoint-on-failure', 'f', stack_name)
    row = wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)
    assert row['action'] == 'UPDATE'
    f = heat.resources.get(stack_name, 'f')
    assert f.resource_status == 'UPDATE_FAILED'
    assert row['why'] == f.resource_status_reason
    assert utils.stack_status(heat, stack_name) == 'UPDATE_IN_PROGRESS'

    osc(heat_server, 'stack', 'breakpoint', 'retry', stack_name, 'f')
    utils.wait_for(lambda: len(hits(heat, stack_name, 'f', 'failed')) == 2,
                   60, what='f held again')
    updates = [e for e in heat.events.list(stack_name, resource_name='f')
               if e.resource_status == 'UPDATE_FAILED' and
               not reasons.parse_held(e.resource_status_reason)]
    assert len(updates) >= 2
    # Retried in place: not replaced.
    assert heat.resources.get(stack_name, 'f').physical_resource_id == f_id

    osc(heat_server, 'stack', 'breakpoint', 'clear', stack_name, 'f')
    stack = utils.wait_for(lambda: finished(heat, stack_name), 60,
                           what='stack done')
    assert stack.stack_status == 'UPDATE_FAILED'
    assert stack.stack_status_reason.startswith('Resource UPDATE failed: ')


def test_after_delete_holds_what_it_requires(heat_server, heat, stack_name):
    heat.stacks.create(
        stack_name=stack_name,
        template=test_engine.template('after_chain.yaml'),
        environment=registry.apply_to_environment(
            {}, breakpoints.parse_names(['b'], ['delete'],
                                        breakpoints.AFTER)))
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    heat.stacks.delete(stack_name)
    row = wait_held_row(heat, stack_name, 'b', breakpoints.AFTER)
    assert row['action'] == 'DELETE'
    time.sleep(2)
    found = statuses(heat, stack_name)
    assert found['b'] == 'DELETE_COMPLETE'
    assert found['c'] == 'DELETE_COMPLETE'
    assert found['a'] == 'CREATE_COMPLETE'  # b's requirement waits
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)

    def gone():
        return stack_name not in [s.stack_name for s in heat.stacks.list()]
    utils.wait_for(gone, 60, what='stack deleted')


def test_stock_post_create_hook_keeps_stock_behaviour(heat_server, heat,
                                                      stack_name):
    paused = reasons.NATIVE_PAUSED % {'action': 'CREATE',
                                      'hook': 'post-create'}
    heat.stacks.create(stack_name=stack_name,
                       template=test_engine.template('after_chain.yaml'),
                       environment={'resource_registry': {'resources': {
                           'a': {'hooks': 'post-create'}}}})
    utils.wait_for(lambda: [e for e in heat.events.list(stack_name)
                            if e.resource_name == 'a' and
                            e.resource_status_reason == paused],
                   60, what='stock pause')
    time.sleep(1)
    found = statuses(heat, stack_name)
    assert found['a'] == 'CREATE_COMPLETE' and found['b'] == 'INIT_COMPLETE'
    # Not a breakpoint: the plugin neither lists nor parks it.
    assert held_rows(heat, stack_name) == {}
    assert not hits(heat, stack_name, 'a', 'after')
    heat.resources.signal(stack_name, 'a',
                          data={'unset_hook': 'post-create'})
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_continue_to_from_an_after_hold(heat_server, heat, stack_name):
    create(heat, stack_name, 'after_chain.yaml', 'a', when=breakpoints.AFTER)
    wait_held_row(heat, stack_name, 'a', breakpoints.AFTER)
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name,
        '--to', 'c')
    test_engine.wait_held(heat, stack_name, 'c')
    assert heat.resources.get(stack_name, 'b').resource_status == \
        'CREATE_COMPLETE'
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert_created_once(heat, stack_name, 'abc')


def test_before_create_requires_are_heats_implicit_ones_too(
        heat_server, heat, stack_name):
    """A server on a network requires the stack's subnets (Heat adds it).

    ``requires`` before CREATE comes from the graph Heat runs the
    operation on, so it agrees with what Heat stores once it ran.
    """
    tmpl = {'heat_template_version': '2018-08-31', 'resources': {
        'net': {'type': 'OS::Neutron::Net'},
        'subnet': {'type': 'OS::Neutron::Subnet', 'properties': {
            'network': {'get_resource': 'net'}, 'cidr': '10.0.7.0/24'}},
        'server': {'type': 'OS::Nova::Server', 'properties': {
            'image': 'cirros', 'flavor': 'm1.small',
            'networks': [{'network': {'get_resource': 'net'}}]}}}}
    heat.stacks.create(stack_name=stack_name, template=tmpl,
                       environment=env('subnet', 'server',
                                       when=breakpoints.BEFORE))

    def show(name):
        return json.loads(osc(heat_server, 'stack', 'breakpoint', 'show',
                              stack_name, name, '-f', 'json'))
    wait_held_row(heat, stack_name, 'subnet', breakpoints.BEFORE)
    assert show('subnet')['required_by'] == ['server']
    osc(heat_server, 'stack', 'breakpoint', 'clear', stack_name, 'subnet')
    wait_held_row(heat, stack_name, 'server', breakpoints.BEFORE)
    held = show('server')
    assert held['state'] == 'held'
    assert held['requires'] == ['net', 'subnet']
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    # What Heat stored once the server ran: the same.
    assert show('server')['requires'] == held['requires']


def test_a_release_sent_again_releases_no_later_hold(
        heat_server, heat, stack_name):
    """A retry sent twice (its answer lost): the second is refused.

    Each release names the hold it means (when it began); a later hold
    of the same resource, with the same hook, is not it.
    """
    create(heat, stack_name, 'fail_fan.yaml', 'f', when=breakpoints.FAILED)
    first = wait_held_row(heat, stack_name, 'f', breakpoints.FAILED)
    manager = bp_v1.BreakpointManager(heat)
    time.sleep(1.1)  # the next hold begins in another second
    manager.release(stack_name, 'f', protocol.RELEASE_RETRY, [first])
    second = utils.wait_for(
        lambda: (held_rows(heat, stack_name).get('f') or {}).get(
            'held_since', first['held_since']) != first['held_since'] and
        held_rows(heat, stack_name)['f'], 60, what='f held again')
    try:
        manager.release(stack_name, 'f', protocol.RELEASE_RETRY, [first])
    except Exception as exc:
        refused = str(exc)
    else:
        refused = ''
    assert 'f is no longer held as it was at %s (held again since %s): ' \
        'nothing released' % (first['held_since'], second['held_since']) \
        in refused
    assert held_rows(heat, stack_name)['f']['held_since'] == \
        second['held_since']
    manager.release(stack_name, 'f', protocol.RELEASE_CONTINUE, [second])
    utils.wait_for(lambda: finished(heat, stack_name), 60, what='the end')
