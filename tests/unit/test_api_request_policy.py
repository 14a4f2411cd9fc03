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
"""The API filter decides who may before it does any work (no server).

With Heat's own enforcer and request contexts under the new defaults.
On the real server: tests/functional/test_policy.py.
"""

import json
from unittest import mock

from heat.common import context as heat_context
from heat.common import exception
import pytest
import webob

from heat_breakpoint.api import filter as api_filter
from heat_breakpoint.model import protocol

pytestmark = pytest.mark.filterwarnings(
    'ignore:Policy enforcement is depending on:DeprecationWarning')

CREATE = json.dumps({
    'stack_name': 's',
    'template': {'heat_template_version': '2018-08-31',
                 'resources': {'a': {'type': 'OS::Heat::None'}}},
    'environment': {'breakpoints': ['a']}}).encode()
SIGNAL_PATH = '/p1/stacks/s/0b1c/resources/a/signal'


def request(enforcer, path, body, roles, project='p1', method='POST'):
    req = webob.Request.blank(path, method=method, body=body,
                              content_type='application/json')
    cnxt = heat_context.RequestContext(project_id=project, roles=roles,
                                       user_id='u1', is_admin=False)
    cnxt.policy = enforcer
    req.context = cnxt
    return req


class App(object):
    """Heat's side: records what reached it."""

    def __init__(self):
        self.bodies = []

    def __call__(self, environ, start_response):
        length = int(environ.get('CONTENT_LENGTH') or 0)
        self.bodies.append(environ['wsgi.input'].read(length))
        return webob.Response('heat')(environ, start_response)


def call(req):
    app = App()
    req.get_response(api_filter.BreakpointFilter(app, 1024 * 1024))
    return app


def test_a_reader_create_is_refused_before_any_parsing(enforcer):
    req = request(enforcer, '/p1/stacks', CREATE, ['reader'])
    with mock.patch.object(api_filter, 'rewrite_body',
                           side_effect=AssertionError('parsed')):
        with pytest.raises(exception.Forbidden, match='stacks:create'):
            call(req)


@pytest.mark.parametrize('method, path, rule', [
    ('POST', '/p1/stacks/preview', 'stacks:preview'),
    ('POST', '/p1/validate', 'stacks:validate_template'),
    ('PUT', '/p1/stacks/s/0b1c', 'stacks:update'),
    ('PATCH', '/p1/stacks/s/0b1c', 'stacks:update_patch'),
    ('PUT', '/p1/stacks/s/0b1c/preview', 'stacks:preview_update'),
])
def test_each_stack_route_is_held_to_heats_rule(enforcer, method, path,
                                                rule):
    req = request(enforcer, path, CREATE, [], method=method)
    with pytest.raises(exception.Forbidden, match=rule):
        call(req)


def test_a_member_create_is_rewritten(enforcer):
    app = call(request(enforcer, '/p1/stacks', CREATE, ['member',
                                                        'reader']))
    assert b'heat_breakpoints' in app.bodies[0]
    assert b'"breakpoints"' not in app.bodies[0]


def test_another_project_in_the_path_is_refused(enforcer):
    req = request(enforcer, '/p2/stacks', CREATE, ['member', 'reader'])
    with pytest.raises(exception.Forbidden):
        call(req)


@pytest.mark.parametrize('payload, rule', [
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'step'},
     'breakpoints:step'),
    ({protocol.COMMAND_KEY: 'set', protocol.COMMAND_PATH_KEY: 'a'},
     'breakpoints:set'),
])
def test_a_reader_signal_with_our_command_is_refused(enforcer, payload,
                                                     rule):
    req = request(enforcer, SIGNAL_PATH, json.dumps(payload).encode(),
                  ['reader'])
    with pytest.raises(exception.Forbidden, match=rule):
        call(req)


@pytest.mark.parametrize('payload', [
    {'unset_hook': 'pre-create'},          # stock hook clear
    {'data': 'a wait condition'},
])
def test_other_signals_are_heats_to_judge(enforcer, payload):
    body = json.dumps(payload).encode()
    app = call(request(enforcer, SIGNAL_PATH, body, ['reader']))
    assert app.bodies == [body]


def test_a_member_signal_goes_on_unchanged(enforcer):
    body = json.dumps({'unset_hook': 'pre-create',
                       protocol.SIGNAL_KEY: 'continue'}).encode()
    app = call(request(enforcer, SIGNAL_PATH, body, ['member', 'reader']))
    assert app.bodies == [body]
