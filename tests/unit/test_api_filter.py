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
"""Tests of the heat-api filter, driven through WSGI with webob."""

import configparser
import json
import os
import sys
from unittest import mock

import hypothesis
from hypothesis import strategies as st
import pytest
import webob

from heat_breakpoint.api import filter as api_filter
from heat_breakpoint.model import breakpoints as bp
from heat_breakpoint.model import registry
from tests.unit import env_hooks

TEMPLATE = {
    'heat_template_version': '2018-08-31',
    'resources': dict({name: {'type': 'OS::Heat::None'}
                       for name in ('db', 'db_user', 'web')},
                      app={'type': 'app.yaml'}),
}
TEMPLATE_YAML = ('heat_template_version: 2018-08-31\n'
                 'resources:\n'
                 '  db: {type: OS::Heat::None}\n'
                 '  web: {type: OS::Heat::None}\n')
CREATE = '/v1/tenant/stacks'
UPDATE = '/v1/tenant/stacks/mystack/0b7e6e1c-0e5c-4c4e-9d2b-5f3c6d1c7b1a'
INI = os.path.join(os.path.dirname(__file__), '..', '..', 'etc',
                   'api-paste-breakpoint.ini')


class Downstream(object):
    """A stand-in for apiv1app that records what reached it."""

    def __init__(self):
        self.calls = []

    def __call__(self, environ, start_response):
        request = webob.Request(environ)
        self.calls.append({'method': request.method,
                           'path': request.path_info,
                           'body': request.body,
                           'content_length': request.content_length})
        return webob.Response(json_body={'ok': True})(environ,
                                                      start_response)

    @property
    def body(self) -> dict:
        return json.loads(self.calls[-1]['body'])


def send(body, method='POST', path=CREATE, raw=None, **filter_args):
    downstream = Downstream()
    app = api_filter.BreakpointFilter(downstream, **filter_args)
    data = raw if raw is not None else json.dumps(body).encode('utf-8')
    request = webob.Request.blank(path, method=method, body=data,
                                  content_type='application/json')
    response = request.get_response(app)
    return response, downstream


def fault_message(response) -> str:
    assert response.status_int == 400
    fault = json.loads(response.body)
    assert fault['code'] == 400
    assert fault['title'] == 'Bad Request'
    assert fault['explanation'] == (
        'The server could not comply with the request since it is either '
        'malformed or otherwise incorrect.')
    assert fault['error']['type'] == 'BreakpointError'
    assert fault['error']['traceback'] is None
    return fault['error']['message']


registry_hooks = env_hooks.hooks_at


class TestRewrite(object):

    def test_environment_dict(self):
        response, downstream = send({
            'stack_name': 's', 'template': TEMPLATE,
            'environment': {'breakpoints': {'resource': 'db'},
                            'parameters': {'x': 1}}})
        assert response.status_int == 200
        env = downstream.body['environment']
        assert 'breakpoints' not in env
        assert env['parameters'] == {'x': 1}
        assert registry_hooks(env, 'db') == ['pre-create', 'pre-update']
        assert registry.from_environment(env) == [bp.parse_name('db')]
        call = downstream.calls[-1]
        assert call['content_length'] == len(call['body'])

    def test_environment_string(self):
        text = 'breakpoints:\n  - db\n  - {resource: web, action: update}\n'
        response, downstream = send({'stack_name': 's',
                                     'template': TEMPLATE,
                                     'environment': text})
        assert response.status_int == 200
        env_text = downstream.body['environment']
        assert isinstance(env_text, str)
        env = json.loads(env_text)
        assert registry_hooks(env, 'web') == ['pre-update']
        assert {b.name for b in registry.from_environment(env)} == {
            'db', 'web'}

    def test_environment_files(self):
        env_file = 'breakpoints:\n  resource: app\n'
        other = 'parameters: {a: 1}\n'
        response, downstream = send({
            'stack_name': 's', 'template': TEMPLATE,
            'files': {'env.yaml': env_file, 'nested.yaml': 'breakpoints!',
                      'unused.yaml': other},
            'environment_files': ['env.yaml']})
        assert response.status_int == 200
        files = downstream.body['files']
        env = json.loads(files['env.yaml'])
        assert registry_hooks(env, 'app') == ['pre-create', 'pre-update']
        assert 'breakpoints' not in env
        assert files['nested.yaml'] == 'breakpoints!'
        assert files['unused.yaml'] == other

    def test_nested_breakpoint_checks_first_segment_only(self):
        response, downstream = send({
            'template': TEMPLATE,
            'environment': {'breakpoints': 'app/inner/web_*'}})
        assert response.status_int == 200
        env = downstream.body['environment']
        assert registry_hooks(env, 'app', 'inner', 'web_*')

    @pytest.mark.parametrize('method, path', [
        ('POST', CREATE), ('POST', CREATE + '/'),
        ('POST', CREATE + '/preview'), ('POST', '/tenant/stacks'),
        ('POST', '/v1/tenant/validate'),
        ('PUT', UPDATE), ('PATCH', UPDATE), ('PUT', UPDATE + '/preview'),
        ('PATCH', UPDATE + '/preview'),
        ('PUT', '/tenant/stacks/mystack/abc'),
    ])
    def test_routes_rewritten(self, method, path):
        response, downstream = send(
            {'template': TEMPLATE, 'environment': {'breakpoints': 'db'}},
            method=method, path=path)
        assert response.status_int == 200
        assert 'breakpoints' not in downstream.body['environment']

    @pytest.mark.parametrize('method, path', [
        ('GET', CREATE), ('DELETE', UPDATE), ('POST', UPDATE),
        ('PUT', CREATE), ('POST', UPDATE + '/actions'),
        ('POST', '/v1/tenant/stacks/mystack/abc/resources/db/signal'),
        ('PATCH', '/v1/tenant/stacks/mystack'),
    ])
    def test_other_routes_untouched(self, method, path):
        raw = json.dumps({'environment': {'breakpoints': 'nope'}}).encode()
        response, downstream = send(None, method=method, path=path, raw=raw)
        assert downstream.calls[-1]['body'] == raw

    def test_patch_without_template_skips_name_check(self):
        response, downstream = send(
            {'environment': {'breakpoints': 'anything'}, 'existing': True},
            method='PATCH', path=UPDATE)
        assert response.status_int == 200
        assert registry_hooks(downstream.body['environment'], 'anything')

    def test_template_url_skips_name_check(self):
        response, downstream = send({
            'template_url': 'http://example.com/t.yaml',
            'environment': {'breakpoints': 'anything'}})
        assert response.status_int == 200

    def test_nested_name_under_a_plain_resource_is_refused(self):
        response, downstream = send({
            'template': TEMPLATE,
            'environment': {'breakpoints': 'db/x'}})
        assert response.status_int == 400
        assert ("breakpoint 'db/x': 'db' is not a nested stack "
                "(OS::Heat::None); nested stack resources: app"
                in fault_message(response))
        assert not downstream.calls

    # heatclient and heat-dashboard send a nested template in ``files``,
    # under the URL the parent's type names it by
    INNER_URL = 'file:///home/u/tiers/db.yaml'
    NESTED = {'heat_template_version': '2018-08-31', 'resources': {
        'db': {'type': INNER_URL}, 'app': {'type': 'OS::Heat::None'}}}
    INNER = json.dumps({'heat_template_version': '2018-08-31',
                        'resources': {'db_server': {'type': 'OS::Heat::None'},
                                      'inner': {'type': 'inner.yaml'}}})

    def test_a_typo_in_a_sent_nested_template_is_refused(self):
        response, downstream = send({
            'template': self.NESTED, 'files': {self.INNER_URL: self.INNER},
            'environment': {'breakpoints': 'db/db_srever'}})
        assert response.status_int == 400
        assert ("breakpoint 'db/db_srever': 'db_srever' matches no resource "
                "of 'db' (db.yaml); closest: db_server (resources: "
                "db_server, inner)" in fault_message(response))
        assert not downstream.calls

    def test_a_name_in_a_sent_nested_template_passes(self):
        for name in ('db/db_server', 'db/db_*', 'db/inner/anything'):
            response, _ = send({
                'template': self.NESTED,
                'files': {self.INNER_URL: self.INNER},
                'environment': {'breakpoints': name}})
            assert response.status_int == 200, name

    def test_a_nested_template_not_sent_is_left_to_heat(self):
        response, _ = send({'template': self.NESTED,
                            'environment': {'breakpoints': 'db/db_srever'}})
        assert response.status_int == 200

    def test_a_registry_mapping_in_a_sent_environment_is_followed(self):
        other = 'file:///home/u/tiers/other.yaml'
        env = 'resource_registry:\n  "My::DB": %s\n' % other
        body = {
            'template': {'heat_template_version': '2018-08-31',
                         'resources': {'db': {'type': 'My::DB'}}},
            'files': {other: self.INNER, 'env.yaml': env,
                      'bp.yaml': 'breakpoints: db/nope\n'},
            'environment_files': ['env.yaml', 'bp.yaml']}
        response, _ = send(body)
        assert "'nope' matches no resource of 'db' (other.yaml)" in \
            fault_message(response)
        body['files']['bp.yaml'] = 'breakpoints: db/db_server\n'
        response, _ = send(body)
        assert response.status_int == 200

    def test_template_as_text_is_checked(self):
        response, _ = send({'template': TEMPLATE_YAML,
                            'environment': {'breakpoints': 'dbx'}})
        assert "'dbx' matches no resource" in fault_message(response)
        response, downstream = send({'template': TEMPLATE_YAML,
                                     'environment': {'breakpoints': 'db'}})
        assert response.status_int == 200

    def test_unreadable_template_is_left_to_heat(self):
        response, downstream = send({'template': 'a: [',
                                     'environment': {'breakpoints': 'db'}})
        assert response.status_int == 200
        assert downstream.body['template'] == 'a: ['

    def test_marker_sent_by_a_client_is_checked_but_kept(self):
        env = registry.apply_to_environment({}, ['db'])
        raw = json.dumps({'template': TEMPLATE, 'environment': env}).encode()
        response, downstream = send(None, raw=raw)
        assert downstream.calls[-1]['body'] == raw
        env = registry.apply_to_environment({}, ['nothere'])
        response, downstream = send({'template': TEMPLATE,
                                     'environment': env})
        assert "'nothere' matches no resource" in fault_message(response)


class TestPassThrough(object):

    def test_body_without_breakpoints_is_byte_identical_and_not_parsed(self):
        raw = json.dumps({'stack_name': 's', 'template': TEMPLATE,
                          'environment': {'parameters': {'a': 1}}},
                         indent=3).encode()
        with mock.patch.object(api_filter.json, 'loads') as loads:
            response, downstream = send(None, raw=raw)
        loads.assert_not_called()
        assert response.status_int == 200
        assert downstream.calls[-1]['body'] == raw
        assert downstream.calls[-1]['content_length'] == len(raw)

    def test_invalid_json_passes_through(self):
        raw = b'{"environment": {"breakpoints": "db"'
        response, downstream = send(None, raw=raw)
        assert response.status_int == 200
        assert downstream.calls[-1]['body'] == raw

    def test_environment_without_section_is_not_reencoded(self):
        text = 'parameters: {note: "about breakpoints"}\n'
        raw = json.dumps({'template': TEMPLATE, 'environment': text}).encode()
        response, downstream = send(None, raw=raw)
        assert downstream.calls[-1]['body'] == raw

    def test_body_over_the_limit_is_left_to_heat(self):
        raw = json.dumps({'environment': {'breakpoints': 'x' * 50}}).encode()
        response, downstream = send(None, raw=raw, max_body_size=40)
        assert downstream.calls[-1]['body'] == raw

    def test_unexpected_failure_passes_request_unchanged(self):
        raw = json.dumps({'environment': {'breakpoints': 'db'}}).encode()
        with mock.patch.object(api_filter, 'rewrite_body',
                               side_effect=RuntimeError('bug')), \
                mock.patch.object(api_filter.LOG, 'exception') as log:
            response, downstream = send(None, raw=raw)
        assert response.status_int == 200
        assert downstream.calls[-1]['body'] == raw
        log.assert_called_once()

    def test_empty_body(self):
        response, downstream = send(None, raw=b'')
        assert downstream.calls[-1]['body'] == b''


class TestFaults(object):

    def test_invalid_section_is_a_heat_style_400(self):
        response, downstream = send({
            'template': TEMPLATE,
            'environment': {'breakpoints': [
                'db', 'web', {'resource': 'app', 'actoin': 'update'}]}})
        assert downstream.calls == []
        assert response.content_type == 'application/json'
        assert fault_message(response) == (
            "environment: breakpoints[2]: unknown key 'actoin' "
            "(allowed: resource, action, actions, when, hook)")

    def test_unknown_resource_lists_names(self):
        response, downstream = send({
            'template': TEMPLATE, 'environment': {'breakpoints': 'dbb'}})
        assert downstream.calls == []
        assert fault_message(response) == (
            "breakpoint 'dbb' matches no resource in the template; "
            "closest: db, db_user (resources: app, db, db_user, web)")

    def test_environment_file_error_names_the_file(self):
        response, _ = send({
            'template': TEMPLATE,
            'files': {'debug.yaml': 'breakpoints: [a//b]'},
            'environment_files': ['debug.yaml']})
        assert fault_message(response).startswith(
            "environment file 'debug.yaml': breakpoints[0]: ")

    def test_broken_file_without_breakpoints_is_left_to_heat(self):
        response, downstream = send({
            'template': TEMPLATE,
            'files': {'bad.yaml': 'a: [', 'debug.yaml': 'breakpoints: db'},
            'environment_files': ['bad.yaml', 'debug.yaml']})
        assert response.status_int == 200
        files = downstream.body['files']
        assert files['bad.yaml'] == 'a: ['
        assert registry_hooks(json.loads(files['debug.yaml']), 'db')

    def test_yaml_error_in_environment_string(self):
        response, _ = send({'template': TEMPLATE,
                            'environment': 'breakpoints: [db\n'})
        assert fault_message(response).startswith(
            'environment: environment is not valid YAML')

    def test_binary_values_cannot_be_reencoded(self):
        response, _ = send({
            'template': TEMPLATE,
            'files': {'e.yaml': 'breakpoints: db\n'
                                'parameter_defaults: {b: !!binary aGk=}\n'},
            'environment_files': ['e.yaml']})
        assert 'JSON cannot represent' in fault_message(response)


class TestEnvironmentFilesMerge(object):
    """heat-engine merges environment files shallowly; prove we survive it."""

    def _files(self, *texts):
        return {'e%d.yaml' % i: text for i, text in enumerate(texts)}

    def _send_files(self, *texts):
        files = self._files(*texts)
        response, downstream = send({'template': TEMPLATE, 'files': files,
                                     'environment_files': sorted(files)})
        assert response.status_int == 200
        return downstream.body

    def test_marker_goes_to_first_file_with_parameter_defaults(self):
        body = self._send_files('parameter_defaults: {key: v}\n',
                                'breakpoints: db\n')
        first = json.loads(body['files']['e0.yaml'])
        assert first['parameter_defaults']['key'] == 'v'
        assert [b.name for b in registry.from_environment(first)] == ['db']

    def test_last_file_with_resources_holds_every_hook(self):
        body = self._send_files(
            'breakpoints: db\n',
            'resource_registry: {resources: {app: {hooks: pre-delete}}}\n',
            'breakpoints: web\n',
            'resource_registry: {resources: {web: {OS::X: My::X}}}\n')
        last = json.loads(body['files']['e3.yaml'])
        assert registry_hooks(last, 'db') == ['pre-create', 'pre-update']
        assert registry_hooks(last, 'web') == ['pre-create', 'pre-update']
        assert last['resource_registry']['resources']['web']['OS::X'] == (
            'My::X')
        first = json.loads(body['files']['e0.yaml'])
        assert {b.name for b in registry.from_environment(first)} == {
            'db', 'web'}
        assert body['files']['e1.yaml'] == (
            'resource_registry: {resources: {app: {hooks: pre-delete}}}\n')

    def test_heat_merge_keeps_hooks_and_marker(self):
        environment_util = pytest.importorskip(
            'heat.common.environment_util')
        environment_format = pytest.importorskip(
            'heat.common.environment_format')
        body = self._send_files(
            'parameter_defaults: {key: v}\nbreakpoints: web\n',
            'resource_registry: {resources: {app: {hooks: pre-delete}}}\n',
            'breakpoints: [{resource: db, action: update}]\n')
        params = {}
        environment_format.default_for_missing(params)
        environment_util.merge_environments(
            body['environment_files'], body['files'], params, {})
        assert {b.name for b in registry.from_environment(params)} == {
            'db', 'web'}
        shown = dict(registry.native_hooks(params))
        assert shown[('db',)] == ('pre-update',)
        assert shown[('web',)] == ('pre-create', 'pre-update')


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6)
    | st.sampled_from(['breakpoints', 'db', 'a//b', 'breakpoints: db',
                       'breakpoints: [x', '- 1', 'e.yaml']),
    lambda children: (st.lists(children, max_size=4)
                      | st.dictionaries(
                          st.sampled_from(['breakpoints', 'resource',
                                           'action', 'environment',
                                           'environment_files', 'files',
                                           'template', 'resources',
                                           'heat_breakpoints',
                                           'parameter_defaults',
                                           'resource_registry', 'e.yaml']),
                          children, max_size=4)),
    max_leaves=25)
_BODY = st.fixed_dictionaries({'x': st.just('breakpoints')}, optional={
    'environment': _JSON | st.sampled_from(['breakpoints: [db, web]',
                                            'breakpoints: {resource: x}']),
    'environment_files': _JSON | st.just(['e.yaml']),
    'files': _JSON | st.just({'e.yaml': 'breakpoints: db'}),
    'template': _JSON | st.just(TEMPLATE),
})


class TestOddBodies(object):

    @pytest.mark.parametrize('body', [
        ['breakpoints'], 'breakpoints', 7,
        {'environment': 5, 'x': 'breakpoints'},
        {'environment': ['breakpoints']},
        {'environment': {'breakpoints': 'db'}, 'template': 5},
        {'environment': {'breakpoints': 'db'}, 'template': {'resources': 3}},
        {'environment_files': 'e.yaml', 'files': {'e.yaml': 'breakpoints'}},
        {'environment_files': ['e.yaml'], 'files': ['breakpoints']},
        {'environment_files': ['e.yaml', 3],
         'files': {'e.yaml': 'breakpoints: db', '3': 4}},
        {'environment_files': ['a', 'b'],
         'files': {'a': 'parameter_defaults: [1]', 'b': 'breakpoints: db'}},
        {'environment_files': ['a', 'b'],
         'files': {'a': 'resource_registry: {resources: [1]}',
                   'b': 'breakpoints: db'}},
        {'environment_files': ['missing.yaml'],
         'files': {'e.yaml': 'breakpoints: db'}},
        {'environment': {'breakpoints': 'db',
                         'resource_registry': {'resources': {'db': 'X'}}}},
        {'environment': {'breakpoints': 'db', 'parameter_defaults': 3}},
    ])
    def test_never_500(self, body):
        with mock.patch.object(api_filter.LOG, 'exception') as log:
            response, downstream = send(body)
        log.assert_not_called()
        assert response.status_int in (200, 400)
        if response.status_int == 400:
            fault_message(response)

    def test_json_too_deep_to_parse_is_a_400(self):
        # Heat would answer it with a 500 (RecursionError).
        raw = (b'{"breakpoints": ' + b'[' * 100000 + b']' * 100000 + b'}')
        response, downstream = send(None, raw=raw)
        assert response.status_int == 400
        assert 'nested too deeply' in response.json['error']['message']
        assert not downstream.calls

    @hypothesis.settings(max_examples=200, deadline=None)
    @hypothesis.given(_JSON | _BODY)
    def test_random_bodies_answer_200_or_400(self, body):
        bodies = [body, {'breakpoints': None, 'environment': body}]
        if isinstance(body, dict):
            bodies.append(dict(body, note='breakpoints'))
        with mock.patch.object(api_filter.LOG, 'exception') as log:
            for candidate in bodies:
                data = json.dumps(candidate).encode()
                response, downstream = send(None, raw=data)
                assert response.status_int in (200, 400)
                if response.status_int == 400:
                    fault_message(response)
        log.assert_not_called()


class TestPaste(object):

    def test_filter_factory_builds_the_middleware(self):
        make = api_filter.filter_factory({}, max_body_size='10')
        middleware = make(Downstream())
        assert isinstance(middleware, api_filter.BreakpointFilter)
        assert middleware.max_body_size == 10

    def test_default_limit_without_heat_config(self):
        middleware = api_filter.filter_factory({})(Downstream())
        assert middleware.max_body_size > 0

    def test_ini_snippet(self):
        parser = configparser.ConfigParser()
        assert parser.read(INI)
        assert parser['filter:breakpoint']['paste.filter_factory'] == (
            'heat_breakpoint.api.filter:filter_factory')
        pipelines = parser['heat_breakpoint:pipelines']
        for flavor in ('noauth_breakpoint', 'default_breakpoint',
                       'standalone_breakpoint'):
            assert pipelines[flavor].split()[-2:] == ['breakpoint',
                                                      'apiv1app']
        assert set(parser['heat_breakpoint:cfn_pipelines']) == {
            'default_breakpoint', 'standalone_breakpoint'}

    def test_ini_pipelines_are_heats_plus_breakpoint(self):
        heat_ini = os.path.join(sys.prefix, 'etc', 'heat', 'api-paste.ini')
        if not os.path.exists(heat_ini):
            pytest.skip('Heat api-paste.ini not installed')
        heat = configparser.ConfigParser()
        heat.read(heat_ini)
        ours = configparser.ConfigParser()
        ours.read(INI)
        for flavor, pipeline in ours['heat_breakpoint:pipelines'].items():
            stock = heat['composite:api'][flavor[:-len('_breakpoint')]]
            assert pipeline.replace(' breakpoint ', ' ') == stock
        for flavor, pipeline in ours['heat_breakpoint:cfn_pipelines'].items():
            stock = heat['composite:api-cfn'][flavor[:-len('_breakpoint')]]
            assert pipeline == stock
