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
"""The heat-api filter on the real local Heat, driven by stock heatclient.

No extension code runs on the client side here: python-heatclient's own
API sends the ``breakpoints`` section as the user wrote it, and the
filter in the server's paste pipeline turns it into native hooks.
(Stock OSC parses ``-e`` files itself and refuses unknown sections before
sending anything; our extension's hooks handle that side.)
"""

from heatclient import exc as heat_exc
import pytest
import requests

from heat_breakpoint.model import registry
from tests.functional import test_engine
from tests.functional import utils


def stored_env(heat, stack):
    return heat.stacks.environment(stack)


def test_section_in_environment_becomes_native_hooks(heat, stack_name):
    heat.stacks.create(stack_name=stack_name,
                       template=test_engine.template('chain.yaml'),
                       environment={'breakpoints': {'resource': 'B'}})
    test_engine.wait_held(heat, stack_name, 'B')
    env = stored_env(heat, stack_name)
    assert 'breakpoints' not in env
    assert env['resource_registry']['resources']['B']['hooks'] == [
        'pre-create', 'pre-update']
    assert [b.name for b in registry.from_environment(env)] == ['B']
    test_engine.signal_release(heat, stack_name, 'B')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_section_in_environment_files(heat, stack_name):
    env_file = 'breakpoints:\n  - resource: C\n    action: create\n'
    heat.stacks.create(stack_name=stack_name,
                       template=test_engine.template('chain.yaml'),
                       files={'debug.yaml': env_file},
                       environment_files=['debug.yaml'])
    test_engine.wait_held(heat, stack_name, 'C')
    env = stored_env(heat, stack_name)
    assert env['resource_registry']['resources']['C']['hooks'] == [
        'pre-create']


@pytest.mark.parametrize('section, words', [
    ({'resource': 'nope'}, ["'nope'", 'A, B, C, D']),
    ({'resource': 'B', 'action': 'explode'}, ['explode', 'create']),
    ([{'resource': 'B', 'actoin': 'update'}], ['actoin']),
    (['B', 'B'], ["'B' is already given"]),
    ({'resource': '../B'}, ['..']),
    (42, ['breakpoints']),
])
def test_malformed_section_is_a_400_and_creates_nothing(heat, stack_name,
                                                        section, words):
    with pytest.raises(heat_exc.HTTPBadRequest) as caught:
        heat.stacks.create(stack_name=stack_name,
                           template=test_engine.template('chain.yaml'),
                           environment={'breakpoints': section})
    message = str(caught.value)
    for word in words:
        assert word in message, message
    assert stack_name not in [s.stack_name for s in heat.stacks.list()]


def test_raw_request_gets_our_error_body(heat_server, stack_name):
    body = {'stack_name': stack_name,
            'template': test_engine.template_files('chain.yaml')[
                'chain.yaml'],
            'environment': 'breakpoints: {resource: DD}\n'}
    resp = requests.post(heat_server.endpoint + '/stacks', json=body,
                         timeout=30)
    assert resp.status_code == 400
    error = resp.json()['error']
    assert error['type'] == 'BreakpointError'
    assert "'DD'" in error['message'] and 'closest: D' in error['message']
