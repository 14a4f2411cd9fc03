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
"""Malformed breakpoints on the real local Heat: always refused, cleanly.

Every malformed case goes in through the API (raw HTTP with ``requests``
and stock python-heatclient, which sends the section as written and leaves
it to the server's filter), the real OSC shell (``--breakpoint`` and ``-e``
files) and the ``heat-breakpoint`` console script (a subprocess). Each one
must be answered with an HTTP 400 whose ``BreakpointError`` message is one
line naming the problem (API), or exit code 1 with that one line on stderr
(CLIs) - never a 500, never a traceback - and must create no stack.

The cases are built once as data (``SECTIONS``, ``TEXTS``) and fanned out
over the channels, each case and channel its own test id; a hypothesis run
then throws random JSON-ish sections at the API and checks the server
answers exactly what the breakpoint model says.
"""

import contextlib
import json
import os
import typing
import uuid

from heatclient.common import template_utils
from heatclient import exc as heat_exc
import hypothesis
from hypothesis import strategies as st
import pytest
import requests
import yaml

from heat_breakpoint.api import filter as api_filter
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import utils

TEMPLATES = os.path.join(os.path.dirname(__file__), 'templates')
CHAIN = os.path.join(TEMPLATES, 'chain.yaml')  # resources A -> B -> C -> D
with open(CHAIN) as _f:
    CHAIN_TEXT = _f.read()

NO_RESOURCE = 'matches no resource in the template'
NOT_ASCII = "Heat's API cannot address a resource whose name is not ASCII"
CONTROL = 'control characters are not allowed'
EMPTY_SEGMENT = 'empty path segment'
NOT_A_NAME = 'is not a resource name'
RESERVED = "reserved by Heat's resource registry"
NOT_YAML = 'not valid YAML'


# ---------------------------------------------------------------------------
# The cases


class Case(typing.NamedTuple):
    """One malformed input and the words its message must contain.

    ``value`` is the ``breakpoints`` section (SECTIONS) or a whole
    environment file's text (TEXTS). ``names`` is the same input as
    ``--breakpoint`` values, when a command line can say it. ``cli_bug``
    marks a product bug the CLIs have on this input (xfail there, strict).
    """

    id: str
    value: object
    words: tuple
    names: typing.Optional[tuple] = None
    cli_bug: typing.Optional[str] = None


def _name(case_id, name, *words):
    return Case(case_id, name, words, names=(name,))


def _nested_list(depth):
    value = 'B'
    for _ in range(depth):
        value = [value]
    return value


def _nested_mapping(depth):
    value = 'B'
    for _ in range(depth):
        value = {'resource': value}
    return value


TOO_MANY = tuple('r%d' % i for i in range(breakpoints.MAX_BREAKPOINTS + 1))

SECTIONS = [
    # -- wrong types for the whole section ---------------------------------
    Case('section-number', 42, ('breakpoints:', 'got a number')),
    Case('section-float', 1.5, ('breakpoints:', 'got a number')),
    Case('section-true', True, ('breakpoints:', 'got a boolean')),
    Case('section-false', False, ('breakpoints:', 'got a boolean')),
    # -- wrong types for one entry -----------------------------------------
    Case('entry-null', [None], ('breakpoints[0]', 'got null')),
    Case('entry-number', ['B', 7], ('breakpoints[1]', 'got a number')),
    Case('entry-boolean', [True], ('breakpoints[0]', 'got a boolean')),
    Case('entry-nested-list', [['B']], ('breakpoints[0]', 'got a list')),
    Case('entry-nested-12-lists', _nested_list(12),
         ('breakpoints[0]', 'got a list')),
    Case('entry-nested-12-mappings', _nested_mapping(12),
         ('breakpoints.resource', 'got a mapping')),
    # -- the mapping form ----------------------------------------------------
    Case('mapping-empty', {}, ("missing key 'resource'",)),
    Case('mapping-no-resource', {'action': 'create'},
         ("missing key 'resource'",)),
    Case('mapping-unknown-key', {'resource': 'B', 'actoin': 'update'},
         ("unknown key 'actoin'", 'allowed: resource, action, actions')),
    Case('mapping-only-unknown-key', [{'name': 'B'}],
         ('breakpoints[0]', "unknown key 'name'")),
    Case('mapping-marker-key', {'resource': 'B', 'native_hooks': []},
         ("unknown key 'native_hooks'",)),
    Case('resource-null', {'resource': None},
         ('breakpoints.resource', 'got null')),
    Case('resource-number', {'resource': 5},
         ('breakpoints.resource', 'got a number')),
    Case('resource-boolean', {'resource': False},
         ('breakpoints.resource', 'got a boolean')),
    Case('resource-list', {'resource': ['B', 'C']},
         ('breakpoints.resource', 'got a list', 'list them')),
    # -- actions ---------------------------------------------------------
    Case('action-invalid', {'resource': 'B', 'action': 'explode'},
         ("unknown action 'explode'", 'allowed: create, update, delete')),
    Case('action-hook-name', {'resource': 'B', 'action': 'pre-create'},
         ("unknown action 'pre-create'",)),
    Case('action-suspend', {'resource': 'B', 'actions': ['create',
                                                         'suspend']},
         ("unknown action 'suspend'",)),
    Case('action-number', {'resource': 'B', 'action': 3},
         ('breakpoints.action', 'got a number')),
    Case('actions-empty', {'resource': 'B', 'actions': []},
         ('breakpoints.actions', 'no action given')),
    Case('actions-null-item', {'resource': 'B', 'actions': [None]},
         ('breakpoints.actions', 'got null')),
    Case('actions-mapping', {'resource': 'B', 'actions': {'create': True}},
         ('breakpoints.actions', 'got a mapping')),
    Case('action-and-actions',
         {'resource': 'B', 'action': 'create', 'actions': ['update']},
         ("either 'action' or 'actions', not both",)),
    # -- duplicates and sizes ----------------------------------------------
    Case('duplicate-names', ['B', 'B'],
         ("'B' is", 'given'), names=('B', 'B')),
    Case('duplicate-name-and-mapping',
         ['B', {'resource': 'B', 'action': 'delete'}],
         ('breakpoints[1]', "'B' is already given",)),
    Case('too-many-breakpoints', list(TOO_MANY),
         ('too many breakpoints (201; limit: 200)',), names=TOO_MANY),
    _name('name-256-chars', 'x' * 256,
          '256 characters long (limit: 255)'),
    _name('name-256-unicode-chars', '\u00e9' * 256,
          '256 characters long (limit: 255)'),
    _name('segment-300-chars', 'B/' + 'y' * 300,
          '300 characters long (limit: 255)'),
    _name('path-11-levels', '/'.join(['n'] * 11),
          'nested 11 levels deep (limit: 10)'),
    # -- path tricks -------------------------------------------------------
    _name('path-dotdot', '../B', "'..'", NOT_A_NAME),
    _name('path-trailing-dotdot', 'B/..', "'..'", NOT_A_NAME),
    _name('path-dot', '.', "'.'", NOT_A_NAME),
    _name('path-dot-segment', './B', "'.'", NOT_A_NAME),
    _name('path-leading-double-slash', '//B', EMPTY_SEGMENT),
    _name('path-inner-double-slash', 'A//B', EMPTY_SEGMENT),
    _name('path-trailing-slash', 'B/', EMPTY_SEGMENT),
    _name('path-leading-slash', '/B', EMPTY_SEGMENT),
    _name('path-only-slash', '/', EMPTY_SEGMENT),
    _name('name-empty', '', 'breakpoint name is empty'),
    _name('name-reserved-hooks', 'hooks', "'hooks'", RESERVED),
    _name('path-reserved-restricted-actions', 'A/restricted_actions',
          "'restricted_actions'", RESERVED),
    # -- control characters and unicode ---------------------------------
    _name('control-nul', 'B\x00', r"'B\x00'", CONTROL),
    _name('control-newline', 'B\nC', r"'B\nC'", CONTROL),
    _name('control-tab', 'B\tC', r"'B\tC'", CONTROL),
    _name('control-escape-sequence', '\x1b[2JB', CONTROL),
    _name('control-del', 'B\x7f', CONTROL),
    _name('control-c1-nel', 'B\x85', CONTROL),
    # Not ASCII: a hold there could never be released (Heat's API reads a
    # resource URL as Latin-1), so refused before the template is looked at.
    _name('unicode-emoji', '\U0001f4a5', NOT_ASCII),
    _name('unicode-zero-width-space', 'B\u200b', NOT_ASCII),
    _name('unicode-right-to-left', '\u202eB', NOT_ASCII),
    _name('unicode-lone-surrogate', 'B\ud800', NOT_ASCII),
    # -- well-formed names of nothing ------------------------------------
    _name('unknown-resource', 'nope', "'nope'", NO_RESOURCE,
          'resources: A, B, C, D'),
    _name('near-miss-resource', 'BB', NO_RESOURCE, 'closest: B'),
    _name('wrong-case-resource', 'b', "'b'", NO_RESOURCE),
    _name('wildcard-matches-nothing', 'Z*', "'Z*'", NO_RESOURCE),
    _name('nested-under-unknown', 'nope/B', "'nope'", NO_RESOURCE),
    _name('yaml-mapping-in-a-string', 'resource: B', "'resource: B'",
          NO_RESOURCE),
    # (a valid '[B, C]' would be an fnmatch class matching B)
    _name('yaml-list-in-a-string', '[X, Y]', "'[X, Y]'", NO_RESOURCE),
    _name('json-in-a-string', '{"resource": "B"}', NO_RESOURCE),
]


def _billion_laughs(levels=9, width=10):
    lines = ['l0: &l0 [%s]' % ', '.join(['lol'] * width)]
    for level in range(1, levels):
        lines.append('l%d: &l%d [%s]' % (
            level, level, ', '.join(['*l%d' % (level - 1)] * width)))
    lines.append('breakpoints: *l%d' % (levels - 1))
    return '\n'.join(lines) + '\n'


TEXTS = [
    Case('yaml-billion-laughs', _billion_laughs(),
         ('aliases expand to more than 100000',)),
    Case('yaml-alias-bomb-in-marker',
         _billion_laughs().replace('breakpoints: ', 'x: ') +
         'parameter_defaults: {heat_breakpoints: *l8}\n',
         ('aliases expand to more than 100000',)),
    Case('yaml-recursive-alias', 'a: &a [*a]\nbreakpoints: *a\n',
         ('recursive YAML alias',)),
    Case('yaml-undefined-alias', 'breakpoints: *nowhere\n', (NOT_YAML,)),
    Case('yaml-unclosed-flow-list', 'breakpoints: [B\n', (NOT_YAML,)),
    Case('yaml-tab-indentation', 'breakpoints:\n\t- B\n', (NOT_YAML,)),
    Case('yaml-python-object-tag',
         'breakpoints: !!python/object/apply:os.system [true]\n',
         (NOT_YAML, 'constructor')),
    Case('yaml-5000-digit-integer', 'breakpoints: %s\n' % ('9' * 5000),
         (NOT_YAML,)),
    Case('yaml-two-documents', 'breakpoints: [B]\n---\nbreakpoints: [C]\n',
         (NOT_YAML,)),
    Case('yaml-250-levels-deep',
         'breakpoints: %s%s\n' % ('[' * 250, ']' * 250),
         ('nested too deeply (limit: 200 levels)',)),
    Case('yaml-lone-surrogate-escape', 'breakpoints: ["B\\uD800"]\n',
         (NOT_YAML,)),
    Case('yaml-set', 'breakpoints: !!set {B: null}\n', ('got a set',)),
    Case('yaml-binary', 'breakpoints: !!binary QkJC\n', ('breakpoints',)),
    Case('yaml-integer-key', 'breakpoints: {1: B}\n',
         ('unknown key a number',)),
    Case('yaml-date-name', 'breakpoints: 2024-01-01\n',
         ("'2024-01-01'", NO_RESOURCE)),
    Case('top-level-list', '- breakpoints: [B]\n',
         ('must be a mapping of sections, got a list',)),
    Case('top-level-string', '"breakpoints: [B]"\n',
         ('must be a mapping of sections, got a string',)),
    Case('registry-entry-is-a-string',
         'breakpoints: [B]\nresource_registry: {resources: {B: x.yaml}}\n',
         ('resource_registry.resources.B is a string, not a mapping',)),
    Case('registry-hooks-a-number',
         'breakpoints: [B]\nresource_registry: {resources: {B: {hooks: 5}}}'
         '\n', ('resources.B.hooks', 'got a number')),
    Case('registry-is-a-list',
         'breakpoints: [B]\nresource_registry: [x]\n',
         ('resource_registry is a list, not a mapping',)),
    Case('registry-is-a-string',
         'breakpoints: [B]\nresource_registry: x\n',
         ('resource_registry is a string, not a mapping',)),
    Case('parameter-defaults-a-list',
         'breakpoints: [B]\nparameter_defaults: [1]\n',
         ('parameter_defaults must be a mapping, got a list',)),
    Case('parameter-defaults-a-string',
         'breakpoints: [B]\nparameter_defaults: x\n',
         ('parameter_defaults must be a mapping, got a string',)),
    Case('marker-garbage-with-section',
         'breakpoints: [B]\nparameter_defaults: {heat_breakpoints: 5}\n',
         ('parameter_defaults.heat_breakpoints', 'got a number')),
    Case('marker-garbage-alone',
         'parameter_defaults: {heat_breakpoints: 5}\n',
         ('parameter_defaults.heat_breakpoints', 'got a number')),
    Case('marker-bad-native-hooks',
         'parameter_defaults:\n  heat_breakpoints:\n'
         '  - {resource: B, native_hooks: 7}\n',
         ('heat_breakpoints[0].native_hooks', 'got a number')),
]

SECTION_IDS = frozenset(case.id for case in SECTIONS)
CASE_IDS = [case.id for case in SECTIONS + TEXTS]
assert len(set(CASE_IDS)) == len(CASE_IDS), 'case ids must be unique'


def _params(cases, cli=False):
    params = []
    for case in cases:
        marks = []
        if cli and case.cli_bug:
            marks.append(pytest.mark.xfail(strict=True, reason=case.cli_bug))
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


def _section_env(case):
    return {'breakpoints': case.value}


# ---------------------------------------------------------------------------
# Checks shared by every channel


def stack_ids(heat):
    return {stack.id for stack in heat.stacks.list()}


@contextlib.contextmanager
def creates_no_stack(heat, *names):
    """Nothing new in the stack list, and no stack of these names."""
    before = stack_ids(heat)
    yield
    new = [stack for stack in heat.stacks.list() if stack.id not in before]
    for stack in new:  # a failing case must not leave a held stack behind
        heat.stacks.delete(stack.id)
    assert [(s.stack_name, s.stack_status) for s in new] == [], \
        'stacks created'
    for name in names:
        with pytest.raises(heat_exc.HTTPNotFound):
            heat.stacks.get(name)


def assert_message(message, words):
    assert message.strip(), 'empty message'
    assert '\n' not in message.strip(), 'more than one line: %r' % message
    assert 'Traceback' not in message, message
    for word in words:
        assert word in message, 'missing %r in %r' % (word, message)


def assert_api_refused(resp, words):
    assert resp.status_code == 400, (resp.status_code, resp.text[:500])
    error = resp.json()['error']
    assert error['type'] == 'BreakpointError', error
    assert not error.get('traceback'), error
    assert_message(error['message'], words)
    return error['message']


def assert_heatclient_refused(caught, words):
    error = caught.value.error['error']
    assert error.get('type') == 'BreakpointError', error
    assert_message(error['message'], words)


def assert_cli_refused(code, err, words):
    assert 'Traceback' not in err, err
    lines = [line for line in err.splitlines()
             if line.strip() and not line.startswith('Could not load ')]
    assert code == 1, (code, err)
    assert len(lines) == 1, 'expected one line on stderr: %r' % err
    assert_message(lines[0], words)


def osc(server, *argv):
    conftest.forget_osc_clients()
    return conftest.run_openstack(server, *argv)


heat_breakpoint = utils.heat_breakpoint


def breakpoint_args(names):
    args = []
    for name in names:
        args += ['--breakpoint', name]
    return args


def write_env(tmp_path, case):
    """The case as an ``-e`` file: a section is dumped as YAML."""
    path = tmp_path / ('%s.yaml' % case.id)
    if isinstance(case.value, bytes):
        path.write_bytes(case.value)
    elif case.id in SECTION_IDS:
        # ASCII with escapes, so control characters and lone surrogates
        # survive the trip through the file.
        path.write_text(yaml.safe_dump(_section_env(case)))
    else:
        path.write_text(case.value)
    return str(path)


# ---------------------------------------------------------------------------
# API: raw HTTP


def post_stack(server, body, path='/stacks', method='post', data=None):
    return requests.request(method, server.endpoint + path,
                            json=None if data else body, data=data,
                            headers={'Content-Type': 'application/json'},
                            timeout=60)


@pytest.mark.parametrize('case', _params(SECTIONS))
def test_api_http_section(heat_server, heat, stack_name, case):
    with creates_no_stack(heat, stack_name):
        resp = post_stack(heat_server, {
            'stack_name': stack_name, 'template': CHAIN_TEXT,
            'environment': _section_env(case)})
        assert_api_refused(resp, case.words)


@pytest.mark.parametrize('case', _params(TEXTS))
def test_api_http_environment_text(heat_server, heat, stack_name, case):
    with creates_no_stack(heat, stack_name):
        resp = post_stack(heat_server, {
            'stack_name': stack_name, 'template': CHAIN_TEXT,
            'environment': case.value})
        assert_api_refused(resp, case.words)


@pytest.mark.parametrize('case', _params(TEXTS))
def test_api_http_environment_file(heat_server, heat, stack_name, case):
    with creates_no_stack(heat, stack_name):
        resp = post_stack(heat_server, {
            'stack_name': stack_name, 'template': CHAIN_TEXT,
            'files': {'ok.yaml': 'parameters: {suffix: two}\n',
                      'debug.yaml': case.value},
            'environment_files': ['ok.yaml', 'debug.yaml']})
        message = assert_api_refused(resp, case.words)
        # Names are checked against the template after all files are
        # merged, and a marker without a section only then; the rest
        # names the file.
        if NO_RESOURCE not in message and \
                not message.startswith('parameter_defaults.'):
            assert message.startswith(
                "environment file 'debug.yaml': "), message


# Bodies that are malformed around the section rather than in it.
BODIES = {
    'parameter-defaults-list-beside-section': (
        {'breakpoints': ['B'], 'parameter_defaults': [1]},
        ('parameter_defaults must be a mapping, got a list',)),
    'registry-resources-list-beside-section': (
        {'breakpoints': ['B'], 'resource_registry': {'resources': [1]}},
        ('resource_registry.resources is a list, not a mapping',)),
    'marker-is-a-mapping': (
        {'parameter_defaults': {'heat_breakpoints': {'resource': 7}}},
        ('heat_breakpoints.resource', 'got a number')),
    'marker-and-section-disagree': (
        {'breakpoints': ['B'], 'parameter_defaults': {
            'heat_breakpoints': [{'resource': '../C'}]}},
        ("'..'", NOT_A_NAME)),
    'section-in-both-environment-and-text': (
        json.dumps({'breakpoints': {'resource': 'B', 'action': 'boom'}}),
        ("unknown action 'boom'",)),
}


@pytest.mark.parametrize('env, words', [
    pytest.param(env, words, id=name) for name, (env, words)
    in BODIES.items()])
def test_api_http_environment_around_section(heat_server, heat, stack_name,
                                             env, words):
    with creates_no_stack(heat, stack_name):
        resp = post_stack(heat_server, {
            'stack_name': stack_name, 'template': CHAIN_TEXT,
            'environment': env})
        assert_api_refused(resp, words)


def _deep_json_body(stack_name, depth):
    return ('{"stack_name": %s, "template": %s, "environment": '
            '{"breakpoints": ["B"], "parameter_defaults": {"x": %s%s}}}'
            % (json.dumps(stack_name), json.dumps(CHAIN_TEXT),
               '[' * depth, ']' * depth))


def test_api_http_deeply_nested_json_beside_section(heat_server, heat,
                                                    stack_name):
    # Deep enough for the model's copy, not for Python's JSON parser.
    with creates_no_stack(heat, stack_name):
        resp = post_stack(heat_server, None,
                          data=_deep_json_body(stack_name, 900))
        assert_api_refused(resp, ('nested too deeply',))


def test_api_http_json_nested_past_the_parser(heat_server, heat, stack_name):
    with creates_no_stack(heat, stack_name):
        resp = post_stack(heat_server, None,
                          data=_deep_json_body(stack_name, 5000))
        assert resp.status_code == 400, (resp.status_code, resp.text[:300])


# ---------------------------------------------------------------------------
# API: stock python-heatclient


@pytest.mark.parametrize('case', _params(SECTIONS))
def test_api_heatclient_section(heat, stack_name, case):
    with creates_no_stack(heat, stack_name):
        with pytest.raises(heat_exc.HTTPBadRequest) as caught:
            heat.stacks.create(stack_name=stack_name,
                               template=CHAIN_TEXT,
                               environment=_section_env(case))
        assert_heatclient_refused(caught, case.words)


@pytest.mark.parametrize('case', _params(TEXTS))
def test_api_heatclient_environment_file(heat, stack_name, case):
    with creates_no_stack(heat, stack_name):
        with pytest.raises(heat_exc.HTTPBadRequest) as caught:
            heat.stacks.create(stack_name=stack_name, template=CHAIN_TEXT,
                               files={'debug.yaml': case.value},
                               environment_files=['debug.yaml'])
        assert_heatclient_refused(caught, case.words)


# ---------------------------------------------------------------------------
# API: the other routes the filter guards, on an existing stack


@pytest.fixture(scope='module')
def existing(heat_server):
    """A complete stack without breakpoints, for update-shaped requests."""
    heat = heat_server.client()
    name = 'bad-input-%s' % uuid.uuid4().hex[:8]
    heat.stacks.create(stack_name=name, template=CHAIN_TEXT)
    stack = utils.wait_stack(heat, name, 'CREATE_COMPLETE')
    yield stack
    heat.stacks.delete(stack.id)


def assert_unchanged(heat, stack):
    now = heat.stacks.get(stack.id)
    assert now.stack_status == 'CREATE_COMPLETE', now.stack_status
    assert now.updated_time == stack.updated_time
    assert registry.from_environment(
        heat.stacks.environment(stack.id)) == []


ROUTE_CASES = [case for case in SECTIONS if case.id in (
    'section-number', 'mapping-unknown-key', 'action-invalid',
    'path-dotdot', 'control-nul', 'too-many-breakpoints')]


@pytest.mark.parametrize('route', ['patch', 'put', 'preview-update',
                                   'validate', 'preview-create'])
@pytest.mark.parametrize('case', _params(ROUTE_CASES))
def test_api_http_other_routes(heat_server, heat, existing, stack_name,
                               route, case):
    stack_path = '/stacks/%s/%s' % (existing.stack_name, existing.id)
    env = _section_env(case)
    method, path, body = {
        'patch': ('patch', stack_path, {'environment': env}),
        'put': ('put', stack_path, {'template': CHAIN_TEXT,
                                    'environment': env}),
        'preview-update': ('put', stack_path + '/preview',
                           {'template': CHAIN_TEXT, 'environment': env}),
        'validate': ('post', '/validate', {'template': CHAIN_TEXT,
                                           'environment': env}),
        'preview-create': ('post', '/stacks/preview',
                           {'stack_name': stack_name,
                            'template': CHAIN_TEXT, 'environment': env}),
    }[route]
    with creates_no_stack(heat, stack_name):
        resp = post_stack(heat_server, body, path=path, method=method)
        assert_api_refused(resp, case.words)
    assert_unchanged(heat, existing)


def test_api_http_valid_section_still_works(heat_server, heat, stack_name):
    """The control case: the same request with a good section."""
    resp = post_stack(heat_server, {
        'stack_name': stack_name, 'template': CHAIN_TEXT,
        'environment': {'breakpoints': [{'resource': 'B',
                                         'action': 'create'}]}})
    assert resp.status_code == 201, resp.text
    test_engine.wait_held(heat, stack_name, 'B')
    test_engine.signal_release(heat, stack_name, 'B')
    stack = utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    heat.stacks.delete(stack.id)


def test_api_heatclient_valid_file_still_works(heat, stack_name):
    heat.stacks.create(stack_name=stack_name, template=CHAIN_TEXT,
                       files={'debug.yaml': 'breakpoints: {resource: C}\n'},
                       environment_files=['debug.yaml'])
    test_engine.wait_held(heat, stack_name, 'C')
    test_engine.signal_release(heat, stack_name, 'C')
    stack = utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    heat.stacks.delete(stack.id)


# ---------------------------------------------------------------------------
# The CLIs: --breakpoint and -e files

NAME_CASES = [case for case in SECTIONS if case.names]
# Cases an ``-e`` file adds over --breakpoint: the section's own shapes,
# a few names, YAML and the environment around the section.
FILE_CASES = [case for case in SECTIONS if not case.names or case.id in (
    'duplicate-names', 'too-many-breakpoints', 'path-dotdot', 'control-nul',
    'path-trailing-slash', 'unknown-resource')] + TEXTS + [
    Case('file-not-utf8', b'breakpoints: [B\xff\xfe]\n', (NOT_ASCII,)),
]


def _argv_safe(case):
    """Whether a subprocess's argv can carry the case's names."""
    try:
        for name in case.names:
            os.fsencode(name)
    except UnicodeError:
        return False
    return not any('\x00' in name for name in case.names)


@pytest.mark.parametrize('case', _params(NAME_CASES, cli=True))
def test_osc_create_breakpoint_option(heat_server, heat, stack_name, case):
    with creates_no_stack(heat, stack_name):
        code, out, err = osc(heat_server, 'stack', 'create', stack_name,
                             '-t', CHAIN, *breakpoint_args(case.names))
        assert_cli_refused(code, err, case.words)


@pytest.mark.parametrize('case', _params(FILE_CASES, cli=True))
def test_osc_create_environment_file(heat_server, heat, stack_name, tmp_path,
                                     case):
    path = write_env(tmp_path, case)
    with creates_no_stack(heat, stack_name):
        code, out, err = osc(heat_server, 'stack', 'create', stack_name,
                             '-t', CHAIN, '-e', path)
        assert_cli_refused(code, err, case.words)


# The console script parses names with the same code as OSC: one case of
# each kind of problem (each is a subprocess, about a second).
HB_NAME_CASES = [case for case in NAME_CASES if _argv_safe(case) and
                 case.id in (
                     'duplicate-names', 'too-many-breakpoints',
                     'name-256-chars', 'path-11-levels', 'path-dotdot',
                     'path-dot', 'path-inner-double-slash',
                     'path-trailing-slash', 'name-empty',
                     'name-reserved-hooks', 'control-newline',
                     'control-escape-sequence', 'control-c1-nel',
                     'unicode-emoji', 'unknown-resource',
                     'wildcard-matches-nothing', 'nested-under-unknown',
                     'yaml-mapping-in-a-string')]


@pytest.mark.parametrize('case', _params(HB_NAME_CASES, cli=True))
def test_heat_breakpoint_create_breakpoint_option(heat_server, heat,
                                                  stack_name, case):
    with creates_no_stack(heat, stack_name):
        code, out, err = heat_breakpoint(
            heat_server, 'stack-create', stack_name, '-f', CHAIN,
            *breakpoint_args(case.names))
        assert_cli_refused(code, err, case.words)


HB_FILE_CASES = [case for case in FILE_CASES if case.id in (
    'section-number', 'entry-null', 'entry-nested-12-lists',
    'mapping-unknown-key', 'resource-list', 'action-invalid',
    'actions-empty', 'action-and-actions', 'duplicate-name-and-mapping',
    'too-many-breakpoints', 'control-nul', 'yaml-lone-surrogate-escape',
    'yaml-billion-laughs', 'yaml-recursive-alias', 'yaml-unclosed-flow-list',
    'yaml-python-object-tag', 'yaml-250-levels-deep', 'yaml-set',
    'top-level-list', 'registry-entry-is-a-string', 'registry-is-a-list',
    'parameter-defaults-a-list', 'marker-garbage-with-section',
    'marker-garbage-alone', 'file-not-utf8')]


@pytest.mark.parametrize('case', _params(HB_FILE_CASES, cli=True))
def test_heat_breakpoint_create_environment_file(heat_server, heat,
                                                 stack_name, tmp_path, case):
    path = write_env(tmp_path, case)
    with creates_no_stack(heat, stack_name):
        code, out, err = heat_breakpoint(
            heat_server, 'stack-create', stack_name, '-f', CHAIN,
            '-e', path)
        assert_cli_refused(code, err, case.words)


# -- the CLIs on an existing stack: updates and the breakpoint commands -----

UPDATE_CASES = [
    ('no-breakpoint-dotdot', ('--existing', '--no-breakpoint', '../B'),
     ("'..'", NOT_A_NAME)),
    ('no-breakpoint-empty', ('--existing', '--no-breakpoint', ''),
     ('breakpoint name is empty',)),
    ('no-breakpoint-not-set', ('--existing', '--no-breakpoint', 'B'),
     ('has no breakpoint B',)),
    ('added-and-removed', ('--existing', '--breakpoint', 'B',
                           '--no-breakpoint', 'B'),
     ('Breakpoint B is both added and removed',)),
    ('breakpoint-trailing-slash', ('--existing', '--breakpoint', 'C/'),
     (EMPTY_SEGMENT,)),
    ('breakpoint-unknown-with-template', ('-t', CHAIN, '--breakpoint', 'Q'),
     ("'Q'", NO_RESOURCE)),
    ('breakpoint-control-char', ('--existing', '--breakpoint', 'C\x1b'),
     (CONTROL,)),
]


@pytest.mark.parametrize('argv, words', [
    pytest.param(argv, words, id=name) for name, argv, words
    in UPDATE_CASES])
def test_osc_update(heat_server, heat, existing, argv, words):
    with creates_no_stack(heat):
        code, out, err = osc(heat_server, 'stack', 'update', existing.id,
                             *argv)
        assert_cli_refused(code, err, words)
    assert_unchanged(heat, existing)


def _hb_update_argv(argv):
    return tuple({'--no-breakpoint': '--nobreakpoint', '-t': '-f'}.get(
        arg, arg) for arg in argv)


@pytest.mark.parametrize('argv, words', [
    pytest.param(_hb_update_argv(argv), words, id=name)
    for name, argv, words in UPDATE_CASES])
def test_heat_breakpoint_update(heat_server, heat, existing, argv, words):
    with creates_no_stack(heat):
        code, out, err = heat_breakpoint(heat_server, 'stack-update',
                                         existing.id, *argv)
        assert_cli_refused(code, err, words)
    assert_unchanged(heat, existing)


@pytest.mark.parametrize('shell', ['osc', 'heat-breakpoint'])
def test_update_existing_unknown_resource(heat_server, heat, stack_name,
                                          shell):
    heat.stacks.create(stack_name=stack_name, template=CHAIN_TEXT)
    stack = utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    try:
        if shell == 'osc':
            code, out, err = osc(heat_server, 'stack', 'update', stack.id,
                                 '--existing', '--breakpoint', 'nope')
        else:
            code, out, err = heat_breakpoint(
                heat_server, 'stack-update', stack.id, '--existing',
                '--breakpoint', 'nope')
        assert_cli_refused(code, err, ("'nope'", NO_RESOURCE))
        assert_unchanged(heat, stack)
    finally:
        heat.stacks.delete(stack.id)


COMMAND_CASES = [
    ('show-dotdot', ('show', '{stack}', '../B'), ("'..'", NOT_A_NAME)),
    ('show-pattern', ('show', '{stack}', 'B*'), ('is a pattern',)),
    ('show-reserved', ('show', '{stack}', 'A/hooks'), (RESERVED,)),
    ('show-too-long', ('show', '{stack}', 'x' * 300),
     ('300 characters long',)),
    ('show-too-deep', ('show', '{stack}', '/'.join('n' * 12)),
     ('nested 12 levels deep',)),
    ('show-control-char', ('show', '{stack}', 'B\x07'), (CONTROL,)),
    ('show-not-a-breakpoint', ('show', '{stack}', 'B'),
     ('No breakpoint on B',)),
    ('continue-to-empty-segment', ('continue', '{stack}', '--to', 'A//B'),
     (EMPTY_SEGMENT,)),
    ('continue-nothing-held', ('continue', '{stack}'),
     ('Nothing is held',)),
    ('clear-unknown', ('clear', '{stack}', 'nope'), ('No breakpoint nope',)),
    ('set-not-running', ('set', '{stack}', 'B'),
     ('has no operation in progress',)),
    ('step-nothing-held', ('step', '{stack}'), ('Nothing is held',)),
]


def _command_argv(argv, existing, hb=False):
    argv = [arg.format(stack=existing.id) for arg in argv]
    if hb:
        return ['breakpoint-' + argv[0]] + argv[1:]
    return ['stack', 'breakpoint'] + argv


@pytest.mark.parametrize('argv, words', [
    pytest.param(argv, words, id=name) for name, argv, words
    in COMMAND_CASES])
def test_osc_breakpoint_commands(heat_server, heat, existing, argv, words):
    with creates_no_stack(heat):
        code, out, err = osc(heat_server, *_command_argv(argv, existing))
        assert_cli_refused(code, err, words)
    assert_unchanged(heat, existing)


@pytest.mark.parametrize('argv, words', [
    pytest.param(argv, words, id=name) for name, argv, words
    in COMMAND_CASES])
def test_heat_breakpoint_commands(heat_server, heat, existing, argv, words):
    with creates_no_stack(heat):
        code, out, err = heat_breakpoint(
            heat_server, *_command_argv(argv, existing, hb=True))
        assert_cli_refused(code, err, words)
    assert_unchanged(heat, existing)


# ---------------------------------------------------------------------------
# Fuzz: random sections at the API, answered as the model says

_NAMES = st.one_of(
    st.sampled_from(['A', 'B', 'D', 'B*', 'A/B', '../B', 'B/', '//', '.',
                     '', 'hooks', 'nope', 'b', 'B\x00', 'B\n', 'x' * 256,
                     '/'.join('n' * 11)]),
    st.text(max_size=12))
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
    st.floats(allow_nan=False, allow_infinity=False), _NAMES)
_ACTIONS = st.one_of(
    st.sampled_from(['create', 'update', 'delete', 'CREATE', 'explode', '',
                     'pre-create']), _SCALARS)
_KEYS = st.one_of(
    st.sampled_from(['resource', 'action', 'actions', 'Resource',
                     'native_hooks', 'hooks']), st.text(max_size=8))
_ENTRIES = st.one_of(
    _NAMES,
    st.fixed_dictionaries({'resource': st.one_of(_NAMES, _SCALARS)},
                          optional={'action': _ACTIONS,
                                    'actions': st.lists(_ACTIONS,
                                                        max_size=4),
                                    'extra': _SCALARS}),
    st.dictionaries(_KEYS, _SCALARS, max_size=3))
_SECTIONS = st.recursive(
    st.one_of(_SCALARS, _ENTRIES),
    lambda inner: st.one_of(st.lists(inner, max_size=6),
                            st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=12)


def expected_refusal(raw):
    """The model's verdict on a body: its error message, or None."""
    try:
        api_filter.rewrite_body(raw)
    except breakpoints.BreakpointError as error:
        return error.message
    return None


def test_api_fuzz_sections(heat_server):
    heat = heat_server.client()
    prefix = 'fuzz-%s-' % uuid.uuid4().hex[:6]
    sent = []

    @hypothesis.settings(max_examples=100, deadline=None, database=None,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(section=_SECTIONS, as_text=st.booleans())
    def one(section, as_text):
        env = {'breakpoints': section}
        body = {'stack_name': '%s%d' % (prefix, len(sent)),
                'template': CHAIN_TEXT,
                'environment': json.dumps(env) if as_text else env}
        raw = json.dumps(body).encode('utf-8')
        expected = expected_refusal(raw)
        hypothesis.assume(expected is not None)  # valid ones would create
        sent.append(body['stack_name'])
        resp = post_stack(heat_server, None, data=raw)
        message = assert_api_refused(resp, ())
        assert message == expected

    with creates_no_stack(heat):
        one()
    assert len(sent) >= 50, 'only %d malformed examples sent' % len(sent)
    names = {stack.stack_name for stack in heat.stacks.list()}
    assert not names & set(sent)


def test_a_typo_in_a_nested_path_is_refused_at_create(heat_server, heat,
                                                      stack_name):
    """The nested template beside the root names what the path may say."""
    app = os.path.join(os.path.dirname(__file__), '..', '..', 'examples',
                       'app.yaml')
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', app, '--breakpoint',
        'app_tier/web_11', stack_name)
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "breakpoint 'app_tier/web_11': 'web_11' matches no resource of "
        "'app_tier' (app_tier.yaml); closest: web_1, web_2 (resources: "
        "web_1, web_2)")
    assert stack_name not in [s.stack_name for s in heat.stacks.list()]
    # A pattern, and a right name, are taken.
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', app, '--dry-run',
        '--breakpoint', 'app_tier/web_*', '--breakpoint', 'app_tier/web_2',
        stack_name)
    assert code == 0, err


def test_a_typo_in_a_nested_path_is_refused_by_the_api_too(heat_server,
                                                           heat, stack_name):
    """Sent as heat-dashboard's Launch Stack sends it: no client check.

    The nested template comes in ``files``; heat-api refuses the typo
    with the same words, and nothing is created.
    """
    app = os.path.join(os.path.dirname(__file__), '..', '..', 'examples',
                       'app.yaml')
    files, template = template_utils.get_template_contents(
        template_file=app)
    with pytest.raises(heat_exc.HTTPBadRequest) as refused:
        heat.stacks.create(stack_name=stack_name, template=template,
                           files=files, environment={
                               'breakpoints': ['app_tier/web_11']})
    assert ("breakpoint 'app_tier/web_11': 'web_11' matches no resource of "
            "'app_tier' (app_tier.yaml); closest: web_1, web_2 (resources: "
            "web_1, web_2)") in str(refused.value)
    assert stack_name not in [s.stack_name for s in heat.stacks.list()]
    heat.stacks.preview(stack_name=stack_name, template=template,
                        files=files, environment={
                            'breakpoints': ['app_tier/web_*']})


def test_a_typo_below_a_registry_mapped_template_is_refused_at_create(
        heat_server, heat, stack_name, tmp_path):
    """``-e`` maps the nested stack's type to a template beside it."""
    (tmp_path / 'root.yaml').write_text(
        'heat_template_version: 2018-08-31\n'
        'resources:\n'
        '  db_tier: {type: "My::DB::Tier"}\n')
    (tmp_path / 'db_tier.yaml').write_text(
        'heat_template_version: 2018-08-31\n'
        'resources:\n'
        '  db_server: {type: OS::Heat::TestResource}\n'
        '  db_user: {type: OS::Heat::TestResource}\n')
    (tmp_path / 'env.yaml').write_text(
        'resource_registry:\n  "My::DB::Tier": db_tier.yaml\n')
    root, env = str(tmp_path / 'root.yaml'), str(tmp_path / 'env.yaml')
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', root, '-e', env,
        '--breakpoint', 'db_tier/db_srever', stack_name)
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "breakpoint 'db_tier/db_srever': 'db_srever' matches no resource "
        "of 'db_tier' (db_tier.yaml); closest: db_server, db_user "
        "(resources: db_server, db_user)")
    assert stack_name not in [s.stack_name for s in heat.stacks.list()]
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', root, '-e', env, '--dry-run',
        '--breakpoint', 'db_tier/db_server', stack_name)
    assert code == 0, err
