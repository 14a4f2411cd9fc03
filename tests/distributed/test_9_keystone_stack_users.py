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
"""Heat's other callers with a real Keystone: stack users, remote stacks.

A wait condition is signalled by the user Heat made for it in its stack
user domain, with that user's token, through heat-api and our filter,
while a breakpoint holds another resource of the stack. A remote stack
(``OS::Heat::Stack``) held at a breakpoint is created, once released by
another member, through heat-api on the operation's trust: it belongs
to the stack's owner, and takes none of its parent's breakpoints.
"""

import json

import requests

from heatclient_ext.v1 import manager as bp_v1
from tests.distributed import common

OWNER = 'alpha-member'


def test_a_wait_condition_signalled_while_another_is_held(
        keystone_cluster, keystone):
    template = {
        'heat_template_version': '2021-04-16',
        'resources': {
            'handle': {'type': 'OS::Heat::WaitConditionHandle'},
            'wait': {'type': 'OS::Heat::WaitCondition', 'properties': {
                'handle': {'get_resource': 'handle'}, 'timeout': 300}},
            'held': {'type': 'OS::Heat::TestResource'},
            'after_wait': {'type': 'OS::Heat::TestResource', 'properties': {
                'value': {'get_attr': ['wait', 'data']}}},
        },
        'outputs': {name: {'value': {'get_attr': ['handle', name]}}
                    for name in ('token', 'endpoint')},
    }
    stack = 'wait-%s' % common.tag()
    hc = keystone_cluster.client_as(OWNER)
    hc.stacks.create(stack_name=stack, template=template,
                     environment=common.breakpoint_env('held'))
    common.wait_held_set(hc, stack, ['held'])
    handle = common.wait_for(
        lambda: hc.resources.get(stack, 'handle').resource_status ==
        'CREATE_COMPLETE' and hc.resources.get(stack, 'handle'), 60,
        what='the handle')
    token = handle.attributes['token']
    endpoint = handle.attributes['endpoint']
    # The stack user's own token: of Heat's stack user domain, not the
    # owner's project.
    who = keystone.whoami(token)
    assert who['user'] != OWNER and who['project'] != 'alpha', who
    answer = requests.post(
        endpoint, headers={'X-Auth-Token': token,
                           'Content-Type': 'application/json'},
        data=json.dumps({'status': 'SUCCESS', 'reason': 'done',
                         'data': 'signalled', 'id': '1'}), timeout=60)
    assert answer.status_code == 200, answer.text
    common.wait_for(lambda: hc.resources.get(stack, 'after_wait')
                    .resource_status == 'CREATE_COMPLETE', 60,
                    what='the wait condition and what needs it')
    assert list(common.held_resources(hc, stack)) == ['held']
    bp_v1.BreakpointManager(hc).continue_(stack)
    common.wait_stack(hc, stack, 'CREATE_COMPLETE',
                      explain=lambda: '\n' + keystone_cluster.errors())
    assert hc.stacks.get(stack).outputs


def test_a_remote_stack_held_then_made_on_the_owners_trust(
        keystone_cluster, keystone):
    """Its child has a resource of the breakpoint's name: it goes on."""
    child = {'heat_template_version': '2021-04-16', 'resources': {
        'remote': {'type': 'OS::Heat::TestResource'}}}
    template = {'heat_template_version': '2021-04-16', 'resources': {
        'remote': {'type': 'OS::Heat::Stack', 'properties': {
            'template': json.dumps(child)}}}}
    stack = 'remote-%s' % common.tag()
    hc = keystone_cluster.client_as(OWNER)
    hc.stacks.create(stack_name=stack, template=template,
                     environment=common.breakpoint_env('remote'))
    common.wait_held_set(hc, stack, ['remote'])
    bp_v1.BreakpointManager(keystone_cluster.client_as(
        'alpha-other')).continue_(stack)
    common.wait_stack(hc, stack, 'CREATE_COMPLETE',
                      explain=lambda: '\n' + keystone_cluster.errors())
    made = hc.stacks.get(hc.resources.get(
        stack, 'remote').physical_resource_id)
    assert (made.stack_status, made.stack_owner) == ('CREATE_COMPLETE',
                                                     OWNER)
    env = hc.stacks.environment(made.id)
    assert 'heat_breakpoints' not in env.get('parameter_defaults', {})
    assert not env.get('resource_registry', {}).get('resources'), env
