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
"""Project isolation of breakpoints on the real local Heat.

Heat's ``noauth`` middleware takes the project from the ``X-Auth-Project``
header and gives every request the role ``admin``. With Heat's default
``context_is_admin`` rule (``role:admin and is_admin_project:True``) and
oslo.context reading ``is_admin_project`` from ``X-Is-Admin-Project``
(default true), a plain noauth request is a *cloud* admin, which stock Heat
lets see every project (``test_noauth_default_is_cloud_admin``). Projects
of ordinary users are what isolation is about, so both projects here send
``X-Is-Admin-Project: false``: project admins of their own project, as a
Keystone-scoped token of a normal project would make them. Heat then
refuses a URL naming another project (403) and scopes every look-up to the
caller's project (404).

Project A holds a stack at two breakpoints: ``held``, whose input comes
from a hidden parameter (masked for A too), and ``open``, whose resolved
input A sees. Project B then tries everything - stock API calls, raw HTTP,
our manager, the OSC commands and ``heat-breakpoint``, by name and by id -
and must neither see A's stack nor change it; no output B gets may contain
the token in A's inputs.
"""

import contextlib
import os
import re
import subprocess
import sys
import time
import types
from unittest import mock
import uuid

from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session
import pytest
import requests

from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heatclient_ext import exceptions
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import utils

RUN = uuid.uuid4().hex[:8]
PROJECT_A = 'iso-a-%s' % RUN
PROJECT_B = 'iso-b-%s' % RUN
TOKEN = 'tok%s' % uuid.uuid4().hex
VISIBLE = 'alpha-%s' % TOKEN   # the resolved input of ``open``
SECRET = 'hidden-%s' % TOKEN   # a hidden parameter, feeds ``held``

TEMPLATE = {
    'heat_template_version': '2018-08-31',
    'parameters': {
        'word': {'type': 'string'},
        'secret': {'type': 'string', 'hidden': True},
    },
    'resources': {
        'first': {'type': 'OS::Heat::TestResource',
                  'properties': {'value': {'get_param': 'word'}}},
        'held': {'type': 'OS::Heat::TestResource',
                 'properties': {'value': {'list_join': ['-', [
                     {'get_attr': ['first', 'output']},
                     {'get_param': 'secret'}]]}}},
        'open': {'type': 'OS::Heat::TestResource',
                 'properties': {'value': {'get_attr': ['first', 'output']}}},
        'last': {'type': 'OS::Heat::TestResource',
                 'properties': {'value': {'get_attr': ['held', 'output']}},
                 'depends_on': ['open']},
    },
}
B_TEMPLATE = {
    'heat_template_version': '2018-08-31',
    'resources': {
        'mine': {'type': 'OS::Heat::TestResource',
                 'properties': {'value': 'b'}},
        'held': {'type': 'OS::Heat::TestResource',
                 'properties': {'value': {'get_attr': ['mine', 'output']}}},
    },
}


# ---------------------------------------------------------------------------
# Clients of one project


def project_headers(project, admin_project=False):
    headers = {'X-Auth-Project': project}
    if not admin_project:
        headers['X-Is-Admin-Project'] = 'false'
    return headers


def project_client(server, project, admin_project=False):
    """Stock heatclient for a project: noauth plus the project's headers."""
    sess = ks_session.Session(
        auth=noauth.NoAuth(),
        additional_headers=project_headers(project, admin_project))
    return heat_client.Client(
        '1', session=sess,
        endpoint_override='%s/v1/%s' % (server.url, project))


def project_server(server, project):
    """What ``run_openstack`` needs to talk to the project's endpoint."""
    return types.SimpleNamespace(env={
        'OS_AUTH_TYPE': 'none',
        'OS_ENDPOINT': '%s/v1/%s' % (server.url, project)})


@contextlib.contextmanager
def as_project(project):
    """Make every noauth session of this process send the project headers.

    Neither CLI can add headers under ``--os-auth-type none``; a
    Keystone token scoped to the project would carry the same.
    """
    headers = dict(project_headers(project), **{'X-Auth-Token': 'notused'})

    def get_headers(self, session, **kwargs):
        return dict(headers)

    with mock.patch.object(noauth.NoAuth, 'get_headers', get_headers):
        yield


def osc(server, project, *argv):
    with as_project(project):
        conftest.forget_osc_clients()
        code, out, err = conftest.run_openstack(
            project_server(server, project), *argv)
    conftest.forget_osc_clients()
    return code, out, err


_HB_BOOT = '''
import sys
from keystoneauth1 import noauth
HEADERS = %r
noauth.NoAuth.get_headers = lambda self, session, **kw: dict(HEADERS)
from heatclient_ext.shell import main
sys.exit(main())
'''


def heat_breakpoint(server, project, *argv):
    """``heat-breakpoint`` in a subprocess, as a user of the project."""
    headers = dict(project_headers(project), **{'X-Auth-Token': 'notused'})
    env = dict(os.environ, **project_server(server, project).env)
    proc = subprocess.run(
        [sys.executable, '-c', _HB_BOOT % (headers,)] + list(argv),
        env=env, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


# ---------------------------------------------------------------------------
# Project A's held stack


@pytest.fixture(scope='module')
def a_stack(heat_server):
    heat = project_client(heat_server, PROJECT_A)
    name = 'iso-%s' % RUN
    heat.stacks.create(stack_name=name, template=TEMPLATE,
                       parameters={'word': VISIBLE, 'secret': SECRET},
                       environment={'breakpoints': ['held', 'open']})
    stack = heat.stacks.get(name)
    test_engine.wait_held(heat, stack.id, 'held')
    test_engine.wait_held(heat, stack.id, 'open')
    hit = [event for event in heat.events.list(stack.id,
                                               resource_name='held')
           if reasons.parse_held(event.resource_status_reason)]
    assert hit, 'no hit event for held'
    a = types.SimpleNamespace(
        heat=heat, name=name, id=stack.id,
        ident='%s/%s' % (name, stack.id), hit_event=hit[0].id,
        refs={'by-name': name, 'by-id': stack.id,
              'by-name-and-id': '%s/%s' % (name, stack.id)})
    yield a
    try:
        if heat.stacks.get(stack.id).stack_status == 'CREATE_IN_PROGRESS':
            bp_v1.BreakpointManager(heat).continue_(stack.id)
            utils.wait_stack(heat, stack.id, 'CREATE_COMPLETE')
    finally:
        heat.stacks.delete(stack.id)


@pytest.fixture
def b_heat(heat_server):
    return project_client(heat_server, PROJECT_B)


def assert_a_untouched(a):
    """Both of A's breakpoints still hold and nothing was released."""
    for name in ('held', 'open'):
        rsrc = a.heat.resources.get(a.id, name)
        assert rsrc.resource_status == 'CREATE_IN_PROGRESS', name
        assert reasons.parse_held(rsrc.resource_status_reason), name
    assert a.heat.resources.get(a.id, 'last').resource_status == \
        'INIT_COMPLETE'
    released = [event.resource_status_reason
                for event in a.heat.events.list(a.id)
                if RELEASE_EVENT.match(event.resource_status_reason or '')]
    assert released == []
    stack = a.heat.stacks.get(a.id)
    assert stack.stack_status == 'CREATE_IN_PROGRESS'
    assert stack.updated_time is None


NOT_FOUND = re.compile(r'not (be )?found', re.IGNORECASE)
RELEASE_EVENT = re.compile(
    r'^(Breakpoint .+ released \(|Hook pre-[a-z]+ is cleared$|'
    r'Breakpoint .+: [a-z]+ in this operation$)')


def assert_no_leak(*texts):
    for text in texts:
        text = str(text)
        for secret in (TOKEN, VISIBLE, SECRET):
            assert secret not in text, text[:500]


# ---------------------------------------------------------------------------
# Controls: the harness reaches A's stack as A, Heat's own admin rule


def test_a_sees_its_breakpoints_and_inputs(heat_server, a_stack):
    manager = bp_v1.BreakpointManager(a_stack.heat)
    rows = {row['resource']: row for row in manager.list(a_stack.name)}
    assert rows['held']['state'] == rows['open']['state'] == 'held'
    assert manager.show(a_stack.name, 'open')['inputs']['value'] == VISIBLE
    held = manager.show(a_stack.id, 'held')
    # Masked as the hit event masked it: the hidden value inside it.
    assert held['inputs']['value'].endswith(bp_v1.MASK)
    assert SECRET not in str(held)
    # masked by the engine already: the raw hit event has no secret either
    event = a_stack.heat.events.get(a_stack.id, 'held', a_stack.hit_event)
    assert event.resource_properties, event.to_dict()
    assert SECRET not in str(event.to_dict())


def test_a_sees_its_breakpoints_through_both_clis(heat_server, a_stack):
    code, out, err = osc(heat_server, PROJECT_A, 'stack', 'breakpoint',
                         'list', a_stack.name, '-f', 'value')
    assert code == 0, err
    assert 'held' in out and 'open' in out
    # by name: a look-up by name is scoped to the caller's project
    code, out, err = heat_breakpoint(heat_server, PROJECT_A,
                                     'breakpoint-list', a_stack.name)
    assert code == 0, err
    assert 'held' in out and 'open' in out


def test_noauth_default_is_cloud_admin(heat_server, a_stack):
    """Stock Heat: noauth without X-Is-Admin-Project sees every project.

    Why the other tests send ``X-Is-Admin-Project: false``; nothing of
    ours decides this (``heat.db.api``: ``if not context.is_admin``).
    """
    admin = project_client(heat_server, PROJECT_B, admin_project=True)
    assert admin.stacks.get(a_stack.id).id == a_stack.id
    plain = project_client(heat_server, PROJECT_B)
    with pytest.raises(heat_exc.HTTPNotFound):
        plain.stacks.get(a_stack.id)


# ---------------------------------------------------------------------------
# Project B through the stock API


def test_b_stack_list_is_its_own(b_heat, a_stack):
    listed = list(b_heat.stacks.list())
    assert a_stack.id not in [stack.id for stack in listed]
    assert_no_leak(*[stack.to_dict() for stack in listed])


def test_b_cannot_list_all_projects(b_heat, a_stack):
    with pytest.raises(heat_exc.HTTPForbidden) as caught:
        list(b_heat.stacks.list(global_tenant=True))
    assert_no_leak(caught.value)


def _signal(data, resource='held'):
    # name/id: heatclient posts the signal without looking the stack up
    # first, so the request reaches the engine
    return lambda b, a: b.resources.signal(a.ident, resource, data=data)


B_API_CALLS = {
    'stack-show-by-name': lambda b, a: b.stacks.get(a.name),
    'stack-show-by-id': lambda b, a: b.stacks.get(a.id),
    'stack-show-by-name-and-id': lambda b, a: b.stacks.get(a.ident),
    'stack-environment': lambda b, a: b.stacks.environment(a.ident),
    'stack-template': lambda b, a: b.stacks.template(a.ident),
    'stack-outputs': lambda b, a: b.stacks.output_list(a.ident),
    'resource-list': lambda b, a: b.resources.list(a.ident),
    'resource-list-nested': lambda b, a: b.resources.list(
        a.ident, nested_depth=5),
    'resource-list-by-id': lambda b, a: b.resources.list(a.id),
    'resource-list-by-name': lambda b, a: b.resources.list(a.name),
    'resource-show-held': lambda b, a: b.resources.get(a.ident, 'held'),
    'resource-show-open': lambda b, a: b.resources.get(a.ident, 'open'),
    'resource-show-open-by-id': lambda b, a: b.resources.get(a.id, 'open'),
    'resource-metadata': lambda b, a: b.resources.metadata(a.ident, 'held'),
    'event-list': lambda b, a: list(b.events.list(a.ident)),
    'event-list-held': lambda b, a: list(b.events.list(
        a.ident, resource_name='held')),
    'event-show-hit': lambda b, a: b.events.get(a.ident, 'held',
                                                a.hit_event),
    'signal-release-continue': _signal({
        'unset_hook': 'pre-create',
        protocol.SIGNAL_KEY: protocol.RELEASE_CONTINUE}),
    'signal-release-step': _signal({
        'unset_hook': 'pre-create',
        protocol.SIGNAL_KEY: protocol.RELEASE_STEP}),
    'signal-release-clear': _signal({
        'unset_hook': 'pre-create',
        protocol.SIGNAL_KEY: protocol.RELEASE_CLEAR}),
    'signal-stock-unset-hook': _signal({'unset_hook': 'pre-create'}),
    'signal-release-by-id': lambda b, a: b.resources.signal(
        a.id, 'open', data={'unset_hook': 'pre-create'}),
    'signal-command-set': _signal({protocol.COMMAND_KEY: 'set'}, 'last'),
    'signal-command-clear': _signal({protocol.COMMAND_KEY: 'clear'}, 'open'),
    'signal-command-to': _signal({protocol.COMMAND_KEY: 'to'}, 'last'),
    'update-patch-no-breakpoints': lambda b, a: b.stacks.update(
        a.ident, existing=True, environment={'breakpoints': []}),
    'update-patch-breakpoint': lambda b, a: b.stacks.update(
        a.ident, existing=True, environment={'breakpoints': ['last']}),
    'update-preview': lambda b, a: b.stacks.preview_update(
        a.ident, existing=True, environment={'breakpoints': ['last']}),
}


@pytest.mark.parametrize('call', sorted(B_API_CALLS))
def test_b_api_call_is_not_found(b_heat, a_stack, call):
    with pytest.raises(heat_exc.HTTPNotFound) as caught:
        B_API_CALLS[call](b_heat, a_stack)
    assert_no_leak(caught.value)
    if call.startswith(('signal-', 'update-')):
        assert_a_untouched(a_stack)


# ---------------------------------------------------------------------------
# Project B over raw HTTP: another project's URL, or its own


RAW_PATHS = [
    ('get', '/stacks/{name}'),
    ('get', '/stacks/{name}/{id}'),
    ('get', '/stacks/{id}'),
    ('get', '/stacks/{name}/{id}/resources?nested_depth=3'),
    ('get', '/stacks/{name}/{id}/resources/held'),
    ('get', '/stacks/{name}/{id}/resources/open'),
    ('get', '/stacks/{name}/{id}/events'),
    ('get', '/stacks/{name}/{id}/resources/held/events/{event}'),
    ('get', '/stacks/{name}/{id}/environment'),
    ('get', '/stacks/{name}/{id}/template'),
    ('post', '/stacks/{name}/{id}/resources/held/signal'),
    ('post', '/stacks/{name}/{id}/resources/last/signal'),
    ('patch', '/stacks/{name}/{id}'),
]
RAW_BODIES = {
    ('post', '/stacks/{name}/{id}/resources/held/signal'): {
        'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'continue'},
    ('post', '/stacks/{name}/{id}/resources/last/signal'): {
        protocol.COMMAND_KEY: 'set'},
    ('patch', '/stacks/{name}/{id}'): {'environment': {'breakpoints': []}},
}


@pytest.mark.parametrize('url_project, status', [
    pytest.param('A', 403, id='url-of-A'),
    pytest.param('B', 404, id='url-of-B')])
@pytest.mark.parametrize('method, path', [
    pytest.param(method, path, id='%s-%s' % (method, path))
    for method, path in RAW_PATHS])
def test_b_raw_http(heat_server, a_stack, url_project, status, method,
                    path):
    project = PROJECT_A if url_project == 'A' else PROJECT_B
    url = '%s/v1/%s%s' % (heat_server.url, project, path.format(
        name=a_stack.name, id=a_stack.id, event=a_stack.hit_event))
    resp = requests.request(method, url, headers=project_headers(PROJECT_B),
                            json=RAW_BODIES.get((method, path)),
                            allow_redirects=False, timeout=30)
    assert resp.status_code == status, (resp.status_code, resp.text[:300])
    assert_no_leak(resp.text, resp.headers)
    if method != 'get':
        assert_a_untouched(a_stack)


def test_b_command_signal_logs_no_traceback_control(heat_server, a_stack,
                                                    b_heat):
    """A refused stock signal leaves no ERROR traceback in heat.log."""
    new = _log_of(heat_server, _signal({'unset_hook': 'pre-create'}),
                  b_heat, a_stack)
    assert 'Traceback' not in new, new


def test_b_command_signal_logs_no_traceback(heat_server, a_stack, b_heat):
    new = _log_of(heat_server, _signal({protocol.COMMAND_KEY: 'set'}, 'last'),
                  b_heat, a_stack)
    assert 'Traceback' not in new, new


def _log_of(server, call, b_heat, a_stack):
    with open(server.log_file, 'rb') as log:
        log.seek(0, os.SEEK_END)
        start = log.tell()
    with pytest.raises(heat_exc.HTTPNotFound):
        call(b_heat, a_stack)
    time.sleep(0.5)
    with open(server.log_file, 'rb') as log:
        log.seek(start)
        return log.read().decode('utf-8', 'replace')


# ---------------------------------------------------------------------------
# Project B through our manager (what both CLIs call)


MANAGER_CALLS = {
    'list': lambda m, ref: m.list(ref),
    'list-nested': lambda m, ref: m.list(ref, nested_depth=3),
    'show-held': lambda m, ref: m.show(ref, 'held'),
    'show-open': lambda m, ref: m.show(ref, 'open'),
    'step': lambda m, ref: m.step(ref),
    'step-held': lambda m, ref: m.step(ref, 'held'),
    'continue': lambda m, ref: m.continue_(ref),
    'continue-to': lambda m, ref: m.continue_(ref, to='last'),
    'release-open': lambda m, ref: m.release(ref, 'open'),
    'clear-held': lambda m, ref: m.clear(ref, 'held'),
    'set-last': lambda m, ref: m.set(ref, 'last'),
    'wait': lambda m, ref: m.wait(ref, poll=0),
    'remove-from-environment': lambda m, ref: m.update_environment(
        ref, remove=['held']),
    'add-to-environment': lambda m, ref: m.update_environment(
        ref, add=['last']),
}


@pytest.mark.parametrize('ref', ['by-name', 'by-id', 'by-name-and-id'])
@pytest.mark.parametrize('call', sorted(MANAGER_CALLS))
def test_b_manager(b_heat, a_stack, call, ref):
    target = a_stack.refs[ref]
    with pytest.raises(exceptions.BreakpointCommandError) as caught:
        MANAGER_CALLS[call](bp_v1.BreakpointManager(b_heat), target)
    assert str(caught.value) == 'Stack not found: %s' % target
    assert_no_leak(caught.value)
    if not call.startswith(('list', 'show', 'wait')):
        assert_a_untouched(a_stack)


# ---------------------------------------------------------------------------
# Project B through the CLIs


def one_error_line(err):
    lines = [line for line in err.splitlines()
             if line.strip() and not line.startswith('Could not load ')]
    assert len(lines) == 1, err
    return lines[0]


OSC_BREAKPOINT = [
    ('list', ()), ('show', ('held',)), ('show', ('open',)), ('step', ()),
    ('step', ('held',)), ('continue', ()), ('continue', ('--to', 'last')),
    ('clear', ('held',)), ('set', ('last',)),
]


@pytest.mark.parametrize('ref', ['by-name', 'by-id'])
@pytest.mark.parametrize('command, args', [
    pytest.param(command, args, id='-'.join((command,) + args))
    for command, args in OSC_BREAKPOINT])
def test_b_osc_breakpoint_commands(heat_server, a_stack, command, args, ref):
    target = a_stack.refs[ref]
    code, out, err = osc(heat_server, PROJECT_B, 'stack', 'breakpoint',
                         command, target, *args)
    assert code == 1, (out, err)
    assert 'Traceback' not in err
    assert one_error_line(err) == 'Stack not found: %s' % target
    assert_no_leak(out, err)
    if command not in ('list', 'show'):
        assert_a_untouched(a_stack)


OSC_STOCK = {
    'stack-show': ('stack', 'show', '{id}'),
    'stack-environment-show': ('stack', 'environment', 'show', '{id}'),
    'stack-template-show': ('stack', 'template', 'show', '{id}'),
    'resource-list': ('stack', 'resource', 'list', '{id}', '-n', '3'),
    'resource-show': ('stack', 'resource', 'show', '{id}', 'open'),
    'event-list': ('stack', 'event', 'list', '{id}'),
    'event-show': ('stack', 'event', 'show', '{id}', 'held', '{event}'),
    'hook-poll': ('stack', 'hook', 'poll', '{id}'),
    'hook-clear': ('stack', 'hook', 'clear', '{id}', 'held', '--pre-create'),
    'update-no-breakpoint': ('stack', 'update', '{id}', '--existing',
                             '--no-breakpoint', 'held'),
    'update-breakpoint': ('stack', 'update', '{id}', '--existing',
                          '--breakpoint', 'last'),
}


@pytest.mark.parametrize('command', sorted(OSC_STOCK))
def test_b_osc_stack_commands(heat_server, a_stack, command):
    argv = [arg.format(id=a_stack.id, event=a_stack.hit_event)
            for arg in OSC_STOCK[command]]
    code, out, err = osc(heat_server, PROJECT_B, *argv)
    assert code == 1, (out, err)
    assert 'Traceback' not in err
    assert NOT_FOUND.search(one_error_line(err)), err
    assert_no_leak(out, err)
    if command.startswith(('hook-clear', 'update-')):
        assert_a_untouched(a_stack)


def test_b_osc_stack_list(heat_server, a_stack):
    code, out, err = osc(heat_server, PROJECT_B, 'stack', 'list', '-f',
                         'value')
    assert code == 0, err
    assert a_stack.id not in out and a_stack.name not in out
    code, out, err = heat_breakpoint(heat_server, PROJECT_B, 'stack-list')
    assert code == 0, err
    assert a_stack.id not in out and a_stack.name not in out


HB_COMMANDS = {
    'breakpoint-list': ('breakpoint-list', '{ref}'),
    'breakpoint-show': ('breakpoint-show', '{ref}', 'open'),
    'breakpoint-step': ('breakpoint-step', '{ref}', 'held'),
    'breakpoint-continue': ('breakpoint-continue', '{ref}'),
    'breakpoint-continue-to': ('breakpoint-continue', '{ref}', '--to',
                               'last'),
    'breakpoint-clear': ('breakpoint-clear', '{ref}', 'held'),
    'breakpoint-set': ('breakpoint-set', '{ref}', 'last'),
    'stack-update-nobreakpoint': ('stack-update', '{ref}', '--existing',
                                  '--nobreakpoint', 'held'),
}


@pytest.mark.parametrize('ref', ['by-name', 'by-id'])
@pytest.mark.parametrize('command', sorted(HB_COMMANDS))
def test_b_heat_breakpoint(heat_server, a_stack, command, ref):
    target = a_stack.refs[ref]
    argv = [arg.format(ref=target) for arg in HB_COMMANDS[command]]
    code, out, err = heat_breakpoint(heat_server, PROJECT_B, *argv)
    assert code == 1, (out, err)
    assert err == 'Stack not found: %s\n' % target
    assert_no_leak(out, err)
    if command not in ('breakpoint-list', 'breakpoint-show'):
        assert_a_untouched(a_stack)


@pytest.mark.parametrize('argv', [
    ('stack-show', '{id}'), ('resource-list', '{id}'),
    ('event-list', '{id}'), ('hook-poll', '{id}')],
    ids=lambda argv: argv[0])
def test_b_heat_breakpoint_stock_commands(heat_server, a_stack, argv):
    argv = [arg.format(id=a_stack.id) for arg in argv]
    code, out, err = heat_breakpoint(heat_server, PROJECT_B, *argv)
    assert code == 1, (out, err)
    assert NOT_FOUND.search(err) and err.count('\n') == 1, err
    assert_no_leak(out, err)


# ---------------------------------------------------------------------------
# The same stack name in both projects


def test_same_name_in_b_is_b_own(heat_server, a_stack, b_heat):
    """B's stack of the same name: B lists, shows and continues only it."""
    b_heat.stacks.create(stack_name=a_stack.name, template=B_TEMPLATE,
                         environment={'breakpoints': ['held']})
    b_stack = b_heat.stacks.get(a_stack.name)
    try:
        assert b_stack.id != a_stack.id
        test_engine.wait_held(b_heat, b_stack.id, 'held')
        manager = bp_v1.BreakpointManager(b_heat)
        rows = manager.list(a_stack.name)
        assert [(r['resource'], r['state']) for r in rows] == [
            ('held', 'held')]
        assert {r['stack'].split('/')[-1] for r in rows} == {b_stack.id}
        shown = manager.show(a_stack.name, 'held')
        assert shown['inputs']['value'] == 'b'
        assert_no_leak(rows, shown)
        with pytest.raises(exceptions.BreakpointCommandError) as caught:
            manager.show(a_stack.name, 'open')
        assert 'Resource open not found' in str(caught.value)

        code, out, err = osc(heat_server, PROJECT_B, 'stack', 'breakpoint',
                             'list', a_stack.name, '-f', 'value')
        assert code == 0, err
        assert out.split()[0] == 'held' and 'open' not in out
        assert_no_leak(out, err)

        released = manager.continue_(a_stack.name)
        assert [r['resource'] for r in released] == ['held']
        utils.wait_stack(b_heat, b_stack.id, 'CREATE_COMPLETE')
        assert_a_untouched(a_stack)
    finally:
        b_heat.stacks.delete(b_stack.id)

        def gone():
            try:
                status = b_heat.stacks.get(b_stack.id).stack_status
            except heat_exc.HTTPNotFound:
                return True
            return status == 'DELETE_COMPLETE'
        utils.wait_for(gone, 60, what='B stack deleted')


def test_a_after_everything_b_tried(heat_server, a_stack):
    """Last: A still holds at both breakpoints and releases them itself."""
    assert_a_untouched(a_stack)
    manager = bp_v1.BreakpointManager(a_stack.heat)
    assert manager.show(a_stack.name, 'open')['inputs']['value'] == VISIBLE
    released = manager.continue_(a_stack.name)
    assert sorted(row['resource'] for row in released) == ['held', 'open']
    utils.wait_stack(a_stack.heat, a_stack.id, 'CREATE_COMPLETE')
    for name in ('first', 'held', 'open', 'last'):
        assert len(test_engine.complete_events(
            a_stack.heat, a_stack.id, name)) == 1, name
