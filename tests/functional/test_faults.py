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
"""Faults on purpose, on the local server's simulated cloud.

What a template author debugs when the cloud fails: a server refused
once (held on failure, retried), an attachment that always fails under
rollback (what was made is deleted, nothing is left), a deployment whose
script exits 1 (held with its error, the secret masked, then let fail),
a resource that hangs (the stack timeout, a cancel), and a seeded
probability over a group (the same members fail every run). Rules come
from ``--faults`` at start and ``heat-breakpoint-server faults`` while
the server runs.
"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid

from heatclient import exc as heat_exc
import pytest
import yaml

from heat_breakpoint.server import fixture
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import utils

WEB = utils.example('web_server.yaml')
SECRET = 'Sup3rS3cretPw'
# A rule given at start: no resource of these tests is named like it.
START_RULES = [{'resource': 'never_*', 'effect': 'hang'}]


@pytest.fixture(scope='module')
def server():
    state = tempfile.mkdtemp(prefix='heat-breakpoint-faults-')
    rules = state + '.faults.yaml'
    with open(rules, 'w') as out:
        yaml.safe_dump(START_RULES, out)
    local = fixture.LocalHeatProcess(
        state, extra_args=['--no-leaf-sleep', '--faults', rules])
    local.start(reset=True)
    yield local
    local.remove()
    os.unlink(rules)


def faults(server, *argv):
    """``heat-breakpoint-server faults ARGV``, the real command."""
    result = subprocess.run(
        [sys.executable, '-m', 'heat_breakpoint.server', 'faults', '--url',
         server.url] + list(argv), capture_output=True, text=True,
        timeout=60)
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
def rule(server):
    """Add rules for one test; they go when it ends."""
    added = []

    def add(*argv):
        code, out, err = faults(server, 'add', *argv)
        assert code == 0, err
        added.append(int(out.split()[0]))
        return added[-1]
    yield add
    for number in added:
        faults(server, 'remove', str(number))


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, *argv)
    assert code == 0, err + out
    return out


def show(server, stack, resource):
    return json.loads(osc(server, 'stack', 'breakpoint', 'show', stack,
                          resource, '-f', 'json'))


def live_objects(server, stack_ids):
    """What the simulated cloud still holds of these stacks."""
    db = sqlite3.connect(os.path.join(server.state_dir, 'cloud.sqlite'))
    try:
        marks = ','.join('?' * len(stack_ids))
        return db.execute(
            'SELECT kind, name FROM cloud_object WHERE deleted = 0 AND '
            'stack_id IN (%s)' % marks, list(stack_ids)).fetchall()
    finally:
        db.close()


def name(prefix):
    return '%s-%s' % (prefix, uuid.uuid4().hex[:6])


def test_rules_given_at_start_are_listed_and_bad_ones_refused(server):
    code, out, err = faults(server, 'list')
    assert code == 0 and 'never_*' in out and 'hang' in out
    code, out, err = faults(server, 'add', '--action', 'REBOOT')
    assert code == 1
    assert err.strip() == (
        "heat-breakpoint-server faults: error: fault '*': unknown action "
        "'REBOOT' (one of CREATE, UPDATE, DELETE, SUSPEND, RESUME, CHECK, "
        "SNAPSHOT, RESTORE, ADOPT)")
    code, out, err = faults(server, 'remove', '99')
    assert code == 1 and 'no fault rule 99' in err
    # Heat's own types call no cloud service: a rule there would never act.
    code, out, err = faults(server, 'add', '--resource', 'r', '--type',
                            'OS::Heat::TestResource')
    assert code == 1
    assert err.strip() == (
        "heat-breakpoint-server faults: error: fault 'r': type "
        "OS::Heat::TestResource is one of Heat's own types, which call no "
        "cloud service: fault rules act on the simulated cloud's types "
        "(OS::Nova::*, OS::Neutron::*, OS::Cinder::*...) and "
        "OS::Heat::SoftwareDeployment and OS::Heat::StructuredDeployment")
    code, out, _ = faults(server, 'list')
    assert out.count('\n') == 1, out


def test_a_server_refused_once_is_held_on_failure_and_retried(
        server, rule):
    rule('--resource', 'web', '--type', 'OS::Nova::Server', '--action',
         'CREATE', '--times', '1', '--failure', 'refused')
    stack = name('refused')
    osc(server, 'stack', 'create', stack, '-t', WEB,
        '--breakpoint-on-failure', 'web', '--wait')
    hc = server.client()
    held = show(server, stack, 'web')
    assert held['state'] == 'held'
    assert held['error'].startswith(
        'Forbidden: resources.web: Quota exceeded for instances')
    assert '(simulated fault: rule' in held['error']
    events = [e.resource_status_reason for e in utils.events(hc, stack,
                                                             'web')]
    assert any('simulated fault: rule' in e for e in events), events
    osc(server, 'stack', 'breakpoint', 'retry', stack, 'web')
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE')


# The web server without its wait condition: Heat 27 ends a rollback
# ROLLBACK_FAILED ("resource with id N not found") when a wait condition
# it did not wait for is signalled after it, with or without the plugin.
ATTACHED = {
    'heat_template_version': '2021-04-16',
    'resources': {
        'net': {'type': 'OS::Neutron::Net'},
        'subnet': {'type': 'OS::Neutron::Subnet', 'properties': {
            'network': {'get_resource': 'net'}, 'cidr': '10.5.0.0/24'}},
        'port': {'type': 'OS::Neutron::Port', 'properties': {
            'network': {'get_resource': 'net'},
            'fixed_ips': [{'subnet': {'get_resource': 'subnet'}}]}},
        'web': {'type': 'OS::Nova::Server', 'properties': {
            'image': 'cirros', 'flavor': 'm1.small',
            'networks': [{'port': {'get_resource': 'port'}}]}},
        'data': {'type': 'OS::Cinder::Volume', 'properties': {'size': 1}},
        'data_attachment': {'type': 'OS::Cinder::VolumeAttachment',
                            'properties': {
                                'instance_uuid': {'get_resource': 'web'},
                                'volume_id': {'get_resource': 'data'}}},
    }}


def test_an_attachment_that_always_fails_rolls_back_leaving_nothing(
        server, rule, tmp_path):
    rule('--resource', 'data_attachment', '--action', 'CREATE',
         '--failure', 'refused')
    stack = name('rollback')
    template = tmp_path / 'attached.yaml'
    template.write_text(yaml.safe_dump(ATTACHED))
    hc = server.client()
    # as stock heatclient's, the wait ends at CREATE_FAILED and exits 1
    code, out, err = conftest.run_openstack(
        server, 'stack', 'create', stack, '-t', str(template),
        '--enable-rollback', '--wait')
    assert code == 1, out + err
    assert err.strip() == 'Stack %s CREATE_FAILED' % stack
    stack_id = hc.stacks.get(stack).id
    utils.wait_for(lambda: hc.stacks.get(stack).stack_status in (
        'ROLLBACK_COMPLETE', 'ROLLBACK_FAILED'), 120, what='rollback')
    assert hc.stacks.get(stack).stack_status == 'ROLLBACK_COMPLETE'
    assert live_objects(server, [stack_id]) == []
    # Heat deleted in reverse order of what each resource needs: the
    # server before its port, the port before its network...
    deleted = [e.resource_name for e in hc.events.list(
        stack, sort_keys='event_time', sort_dir='asc')
        if e.resource_status == 'DELETE_COMPLETE']
    for first, then in (('web', 'port'), ('port', 'subnet'),
                        ('subnet', 'net')):
        if first in deleted and then in deleted:
            assert deleted.index(first) < deleted.index(then), deleted
    assert {'web', 'port', 'net', 'data'} <= set(deleted), deleted


DEPLOY = {
    'heat_template_version': '2021-04-16',
    'parameters': {'db_password': {'type': 'string', 'hidden': True}},
    'resources': {
        'server': {'type': 'OS::Nova::Server', 'properties': {
            'image': 'cirros', 'flavor': 'm1.small',
            'networks': [{'network': 'private'}],
            'user_data_format': 'SOFTWARE_CONFIG'}},
        'config': {'type': 'OS::Heat::SoftwareConfig', 'properties': {
            'group': 'script', 'inputs': [{'name': 'db_password'}],
            'config': "#!/bin/sh\nmysql -u root -p\"$db_password\"\n"}},
        'deploy': {'type': 'OS::Heat::SoftwareDeployment', 'properties': {
            'config': {'get_resource': 'config'},
            'server': {'get_resource': 'server'},
            'input_values': {'db_password': {'get_param': 'db_password'}}}},
    }}


def test_a_deployment_that_exits_1_is_held_then_fails_the_stack(
        server, rule, tmp_path):
    rule('--resource', 'deploy', '--stderr',
         'ERROR 1045: Access denied for root using password ${db_password}')
    stack = name('deploy')
    template = tmp_path / 'deploy.yaml'
    template.write_text(yaml.safe_dump(DEPLOY))
    osc(server, 'stack', 'create', stack, '-t', str(template),
        '--parameter', 'db_password=%s' % SECRET,
        '--breakpoint-on-failure', 'deploy', '--wait')
    hc = server.client()
    held = show(server, stack, 'deploy')
    assert held['state'] == 'held'
    assert 'non-zero status code: 1' in held['error']
    assert SECRET not in json.dumps(held)
    assert held['inputs']['input_values']['db_password'] == '******'
    # What the agent reported, shown where it held, the password masked.
    stderr = held['attributes']['deploy_stderr']
    assert 'Access denied for root using password ******' in stderr
    assert 'simulated fault: rule' in stderr
    assert held['attributes']['deploy_status_code'] == 1
    # Heat keeps it as the agent sent it.
    assert SECRET in hc.software_deployments.get(
        hc.resources.get(stack, 'deploy').physical_resource_id
    ).output_values['deploy_stderr']
    osc(server, 'stack', 'breakpoint', 'continue', stack)
    utils.wait_for(lambda: hc.stacks.get(stack).stack_status ==
                   'CREATE_FAILED', 60, what='the failure let through')


HANG = {
    'heat_template_version': '2021-04-16',
    'resources': {
        'first': {'type': 'OS::Neutron::Net'},
        'stuck': {'type': 'OS::Neutron::Net', 'depends_on': 'first'},
    }}


def test_a_hanging_resource_times_the_stack_out_without_held_time(
        server, rule, tmp_path):
    rule('--resource', 'stuck', '--effect', 'hang', '--action', 'CREATE')
    stack = name('hang')
    template = tmp_path / 'hang.yaml'
    template.write_text(yaml.safe_dump(HANG))
    began = time.monotonic()
    osc(server, 'stack', 'create', stack, '-t', str(template),
        '--timeout', '1', '--breakpoint', 'first', '--wait')
    time.sleep(15)  # held: not counted against the timeout
    osc(server, 'stack', 'breakpoint', 'continue', stack)
    hc = server.client()
    utils.wait_for(lambda: hc.stacks.get(stack).stack_status ==
                   'CREATE_FAILED', 150, interval=1, what='the timeout')
    took = time.monotonic() - began
    assert 'timed out' in hc.stacks.get(stack).stack_status_reason.lower()
    assert took >= 60 + 15 - 3, took


def test_a_hanging_update_is_cancelled_and_rolled_back(server, rule,
                                                       tmp_path):
    stack = name('cancel')
    template = tmp_path / 'hang.yaml'
    template.write_text(yaml.safe_dump(HANG))
    hc = server.client()
    osc(server, 'stack', 'create', stack, '-t', str(template), '--wait')
    # Once: the rollback updates it back, and that goes through.
    rule('--resource', 'stuck', '--effect', 'hang', '--action', 'UPDATE',
         '--times', '1')
    changed = json.loads(json.dumps(HANG))
    changed['resources']['stuck']['properties'] = {'name': 'renamed'}
    template.write_text(yaml.safe_dump(changed))
    osc(server, 'stack', 'update', stack, '-t', str(template),
        '--timeout', '1')
    utils.wait_resource(hc, stack, 'stuck', 'UPDATE_IN_PROGRESS')
    # Heat's rollback waits for the hung check to give up, at the update's
    # timeout, as it would for a resource a real cloud never finished; the
    # rollback has the same minute, from the cancel: cancelled 10 s into
    # the update, it has 10 s left to roll back once the check gave up.
    time.sleep(10)
    osc(server, 'stack', 'cancel', stack)
    utils.wait_for(lambda: hc.stacks.get(stack).stack_status.startswith(
        'ROLLBACK_') and not hc.stacks.get(stack).stack_status.endswith(
        'IN_PROGRESS'), 150, interval=1, what='the rollback')
    assert hc.stacks.get(stack).stack_status == 'ROLLBACK_COMPLETE'


GROUP = {
    'heat_template_version': '2021-04-16',
    'resources': {'group': {'type': 'OS::Heat::ResourceGroup', 'properties': {
        'count': 20, 'resource_def': {
            'type': 'OS::Nova::Server',
            # Named: the project has other tests' networks, and Nova
            # refuses to choose among several.
            'properties': {'image': 'cirros', 'flavor': 'm1.small',
                           'networks': [{'network': 'private'}]}}}}}}


def test_a_seeded_probability_fails_the_same_members_every_run(
        server, rule, tmp_path):
    rule('--resource', 'group/*', '--type', 'OS::Nova::Server',
         '--probability', '0.3', '--seed', '7', '--failure', 'refused')
    template = tmp_path / 'group.yaml'
    template.write_text(yaml.safe_dump(GROUP))
    hc = server.client()
    failed = []
    for run in range(2):
        stack = name('seeded%d' % run)
        osc(server, 'stack', 'create', stack, '-t', str(template),
            '--breakpoint-on-failure', 'group/*')

        def settled():
            members = utils.resources(hc, stack, nested_depth=1)
            states = {n: r.resource_status for n, r in members.items()
                      if n != 'group'}
            if len(states) == 20 and all(
                    s in ('CREATE_COMPLETE', 'CREATE_FAILED')
                    for s in states.values()):
                return states
        states = utils.wait_for(settled, 120, interval=1,
                                what='every member created or held')
        failed.append(sorted(n for n, s in states.items()
                             if s == 'CREATE_FAILED'))
        osc(server, 'stack', 'breakpoint', 'continue', stack)
    assert failed[0] == failed[1]
    assert 0 < len(failed[0]) < 20, failed


RETAINED = {
    'heat_template_version': '2018-08-31',
    'resources': {
        'data': {'type': 'OS::Cinder::Volume', 'properties': {'size': 1}},
        'user': {'type': 'OS::Heat::TestResource', 'properties': {
            'value': {'get_resource': 'data'}}},
    }}


def test_retain_leaves_a_volume_that_cannot_be_deleted_and_deletes_on(
        server, rule, tmp_path):
    stack = name('retain')
    template = tmp_path / 'retained.yaml'
    template.write_text(yaml.safe_dump(RETAINED))
    env = tmp_path / 'env.yaml'
    env.write_text(yaml.safe_dump({'breakpoints': [
        {'resource': 'data', 'when': 'failed', 'actions': ['delete']}]}))
    hc = server.client()
    osc(server, 'stack', 'create', stack, '-t', str(template), '-e',
        str(env), '--wait')
    stack_id = hc.stacks.get(stack).id
    volume = hc.resources.get(stack, 'data').physical_resource_id
    rule('--resource', 'data', '--action', 'DELETE', '--failure', 'refused')

    # Not a failure hold of a delete (nothing held yet): refused.
    code, out, err = conftest.run_openstack(
        server, 'stack', 'breakpoint', 'retain', stack, 'data')
    assert code == 1 and 'Nothing is held at data' in err

    osc(server, 'stack', 'delete', '-y', stack)
    row = utils.wait_for(lambda: {
        r['resource']: r for r in bp_v1.BreakpointManager(hc).held_now(
            stack_id)[1]}.get('data'), 60, what='data held on failure')
    assert (row['action'], row['when']) == ('DELETE', 'failed')
    out = json.loads(osc(server, 'stack', 'breakpoint', 'retain', stack,
                         'data', '-f', 'json'))
    assert out == [{'Resource': 'data', 'Action': 'DELETE',
                    'Result': 'retained'}]

    def gone():
        try:
            return hc.stacks.get(stack_id).stack_status == 'DELETE_COMPLETE'
        except heat_exc.HTTPNotFound:
            return True
    utils.wait_for(gone, 60, what='the delete to finish')
    # The volume Heat forgot is still in the cloud; the rest is not.
    left = live_objects(server, [stack_id])
    assert [kind for kind, _name in left] == ['volume'], left
    retained = [e.resource_status_reason for e in hc.events.list(
        stack_id, resource_name='data')
        if e.resource_status_reason.startswith('Retained ')]
    assert retained == ['Retained data: Heat forgets it, physical resource '
                        '%s is left in the cloud' % volume]
