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
"""The breakpoints view's routing and argument checks (no server).

Its answers come from the real engine: tests/functional/test_list_view.py.
"""

from unittest import mock

from heat.common import exception
import pytest
import webob

from heat_breakpoint.api import filter as bp_filter
from heat_breakpoint.api import request_policy
from heat_breakpoint.api import view


def environ(path, method='GET', query=''):
    return {'REQUEST_METHOD': method, 'PATH_INFO': path,
            'QUERY_STRING': query}


@pytest.mark.parametrize('path, parts', [
    ('/admin/stacks/web/breakpoints',
     {'tenant': 'admin', 'stack': 'web', 'stack_id': None}),
    ('/v1/p1/stacks/web/0b1c/breakpoints/',
     {'tenant': 'p1', 'stack': 'web', 'stack_id': '0b1c'}),
])
def test_match(path, parts):
    assert view.match(environ(path)) == parts


@pytest.mark.parametrize('path, method', [
    ('/admin/stacks/web/breakpoints', 'POST'),
    ('/admin/stacks/web/breakpoints', 'DELETE'),
    ('/admin/stacks/web/0b1c/resources', 'GET'),
    ('/admin/stacks/web/0b1c/breakpoints/x', 'GET'),
    ('/admin/stacks/breakpoints', 'GET'),
])
def test_no_match(path, method):
    assert view.match(environ(path, method)) is None


@pytest.mark.parametrize('query, depth', [
    ('', None), ('nested_depth=0', 0), ('a=1&nested_depth=3', 3)])
def test_nested_depth(query, depth):
    assert view._nested_depth(query) == depth


@pytest.mark.parametrize('query', [
    'nested_depth=-1', 'nested_depth=x', 'nested_depth=99999',
    'nested_depth=1.5'])
def test_bad_nested_depth_names_the_parameter(query):
    with pytest.raises(exception.Invalid, match='nested_depth must be'):
        view._nested_depth(query)


def _context(project='p1', is_admin=False, allowed=True):
    cnxt = mock.Mock(project_id=project, is_admin=is_admin)
    cnxt.policy.enforce.return_value = allowed
    cnxt.policy.enforcer.registered_rules = {}
    cnxt.policy.exc = exception.Forbidden
    return cnxt


def test_other_project_in_the_url_is_forbidden():
    with pytest.raises(exception.Forbidden):
        request_policy.view(_context('p1'), 'p2')


def test_policy_is_breakpoints_index():
    cnxt = _context('p1')
    request_policy.view(cnxt, 'p1')
    kwargs = cnxt.policy.enforce.call_args.kwargs
    assert (kwargs['scope'], kwargs['action']) == ('breakpoints', 'index')
    with pytest.raises(exception.Forbidden):
        request_policy.view(_context('p1', allowed=False), 'p1')


def test_filter_passes_the_view_to_heat_without_a_context():
    seen = []

    def app(env, start_response):
        seen.append(env['PATH_INFO'])
        return webob.Response('heat')(env, start_response)

    request = webob.Request.blank('/admin/stacks/web/breakpoints')
    response = request.get_response(bp_filter.BreakpointFilter(app, 100))
    assert seen == ['/admin/stacks/web/breakpoints']
    assert response.text == 'heat'


@pytest.mark.parametrize('error', [
    type('NoSuchMethod_Remote', (Exception,), {})('breakpoint_list'),
    type('RemoteError', (Exception,), {'exc_type': 'NoSuchMethod'})(),
])
def test_an_engine_without_the_method_leaves_the_answer_to_heat(error):
    seen = []

    def app(env, start_response):
        seen.append(env['PATH_INFO'])
        return webob.Response('heat 404', status=404)(env, start_response)

    request = webob.Request.blank('/admin/stacks/web/breakpoints')
    request.context = _context('admin')
    the_filter = bp_filter.BreakpointFilter(app, 100)
    the_filter.view._engine = mock.Mock()
    the_filter.view._engine.call.side_effect = error
    response = request.get_response(the_filter)
    assert response.status_int == 404 and seen


@pytest.mark.parametrize('error', [
    type('DBConnectionError_Remote', (Exception,), {})('(2003, refused)'),
    type('RemoteError', (Exception,), {'exc_type': 'DBConnectionError'})(),
])
def test_an_engine_without_its_database_answers_503_saying_so(error):
    request = webob.Request.blank('/admin/stacks/web/breakpoints')
    request.context = _context('admin')
    the_filter = bp_filter.BreakpointFilter(lambda e, s: [], 100)
    the_filter.view._engine = mock.Mock()
    the_filter.view._engine.call.side_effect = error
    response = request.get_response(the_filter)
    assert response.status_int == 503
    fault = response.json['error']
    assert fault['type'] == 'DBConnectionError'
    assert fault['traceback'] is None
    assert 'cannot reach its database' in fault['message']
    assert '2003' not in response.text  # nothing of the engine's error


def test_other_engine_errors_are_raised_for_heat_to_report():
    request = webob.Request.blank('/admin/stacks/web/breakpoints')
    request.context = _context('admin')
    the_filter = bp_filter.BreakpointFilter(lambda e, s: [], 100)
    the_filter.view._engine = mock.Mock()
    the_filter.view._engine.call.side_effect = exception.EntityNotFound(
        entity='Stack', name='web')
    with pytest.raises(exception.EntityNotFound):
        request.get_response(the_filter)


def test_the_view_answers_json_from_the_engine():
    request = webob.Request.blank('/admin/stacks/web/sid/breakpoints'
                                  '?nested_depth=2')
    request.context = _context('admin')
    the_filter = bp_filter.BreakpointFilter(lambda e, s: [], 100)
    engine = the_filter.view._engine = mock.Mock()
    engine.make_msg.side_effect = lambda method, **kw: (method, kw)
    engine.call.return_value = {'stack': {}, 'breakpoints': []}
    response = request.get_response(the_filter)
    assert response.json == {'stack': {}, 'breakpoints': []}
    method, kwargs = engine.call.call_args[0][1]
    assert method == 'breakpoint_list'
    assert kwargs['nested_depth'] == 2
    assert kwargs['stack_identity']['stack_name'] == 'web'
    assert kwargs['stack_identity']['stack_id'] == 'sid'
