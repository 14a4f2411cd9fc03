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
"""Who may look and who may change an operation, with secure RBAC on.

A local Heat with ``[oslo_policy] enforce_new_defaults = true`` and
``enforce_scope = true``, whose pipeline has the test-only filter
:mod:`tests.policy_roles` right after ``noauth``: the token a client sends
names its roles and project, as Keystone's would (with Keystone's
implied roles: a member is also a reader). Every front end sends it
its own way: OSC (``--os-auth-type admin_token``), the legacy shell
(``--os-no-client-auth --os-auth-token``) and the python API (a
keystoneauth token plugin). The same server also serves Heat's stock
pipeline, without our filter, under ``/stock``: a raw signal sent there
meets the engine's own check only.

The member paths run on the local server's default configuration too
(RBAC off, every caller ``admin``): ``test_member_*`` with ``default``.
The Keystone tier runs these tests again with real users and tokens
(``tests/distributed/test_8_keystone_policy.py``, its own ``rbac``).
"""

import contextlib
import io
import json
import os
import shutil
import tempfile
from unittest import mock

from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
import pytest
import requests
import requests.adapters
import yaml

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext import exceptions as bp_exceptions
from heatclient_ext.terminal import watch_session as bp_watch
from heatclient_ext.v1 import dependency_graph as bp_graph
from heatclient_ext.v1 import editing
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import test_outcomes
from tests.functional import test_watch_interactive
from tests.functional import utils
from tests import policy_roles

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PROJECT = 'alpha'
OTHER_PROJECT = 'beta'
MEMBER = 'member@%s' % PROJECT
READER = 'reader@%s' % PROJECT
STACK_USER = 'heat_stack_user@%s' % PROJECT
NO_ROLE = '@%s' % PROJECT
OTHER_MEMBER = 'member@%s' % OTHER_PROJECT
STOCK_PREFIX = policy_roles.STOCK_PREFIX

# first -> flaky -> last, and alone on its own: alone holds before its
# create, flaky on its failure, last after its create (still waiting).
TEMPLATE = yaml.safe_load('''
heat_template_version: 2018-08-31
parameters:
  fail: {type: boolean, default: true}
resources:
  first:
    type: OS::Heat::TestResource
    properties: {value: first}
  flaky:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [first, output]}
      fail: {get_param: fail}
  last:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [flaky, output]}}
  alone:
    type: OS::Heat::TestResource
    properties: {value: alone}
''')
# Words that would tell another project something about the stack.
SECRETS_OF_THE_STACK = ('first', 'flaky', 'last', 'alone', 'CREATE',
                        'held', 'armed')

# Each changing command, as (verb, arguments); ``S`` is the stack.
CHANGING = [
    ('step', ()),
    ('step', ('alone',)),
    ('continue', ()),
    ('continue_to', ('last',)),
    ('set', ('last',)),
    ('clear', ('alone',)),   # held: a release
    ('clear', ('last',)),    # armed: a command
    ('retry', ('flaky',)),
]
VIEWING = [('list', ()), ('show', ('alone',)), ('graph', ())]


def _environment():
    env = registry.apply_to_environment(
        {}, breakpoints.parse_names(['alone'], None))
    env = registry.apply_to_environment(
        env, breakpoints.parse_names(['flaky'], None, breakpoints.FAILED))
    return registry.apply_to_environment(
        env, breakpoints.parse_names(['last'], None, breakpoints.AFTER))


class HeaderCallers(object):
    """Who calls, on a local server with the test-only role filter.

    A caller is named as that filter reads a token, ``<roles>@<project>``
    (:data:`MEMBER`, :data:`READER`...), and the name is the token. The
    Keystone tier runs the same tests with real users and tokens behind
    the same interface (``tests/distributed/test_8_keystone_policy.py``).
    """

    def __init__(self, server):
        self.server = server
        self.url = server.url

    def token(self, who):
        return who

    def endpoint(self, who, prefix=''):
        return '%s%s/v1/%s' % (self.url, prefix, who.rpartition('@')[2])

    def client(self, who, prefix=''):
        """A heatclient of ``who``, for the project the caller is in."""
        endpoint = self.endpoint(who, prefix)
        sess = ks_session.Session(auth=token_endpoint.Token(
            endpoint, self.token(who)))
        return heat_client.Client('1', session=sess,
                                  endpoint_override=endpoint)

    def osc_env(self, who):
        """``OS_*`` of the ``openstack`` CLI calling as ``who``."""
        return {'OS_AUTH_TYPE': 'admin_token', 'OS_TOKEN': self.token(who),
                'OS_ENDPOINT': self.endpoint(who)}


def as_caller(rbac, who):
    """What :func:`conftest.run_openstack` takes: ``who``'s ``env``."""
    return type('Caller', (), {'env': rbac.osc_env(who)})


@pytest.fixture(scope='module')
def rbac():
    directory = tempfile.mkdtemp(prefix='heat-breakpoint-rbac-')
    conf = policy_roles.write_rbac_config(directory)
    saved = os.environ.get('PYTHONPATH')
    # The server imports the test filter from this checkout.
    os.environ['PYTHONPATH'] = os.pathsep.join(
        [ROOT] + ([saved] if saved else []))
    try:
        server = conftest.LocalHeatProcess(
            os.path.join(directory, 'state'), config_files=[conf])
        server.start(reset=True)
    finally:
        if saved is None:
            os.environ.pop('PYTHONPATH', None)
        else:
            os.environ['PYTHONPATH'] = saved
    yield HeaderCallers(server)
    server.remove()
    shutil.rmtree(directory, ignore_errors=True)


def create_held(rbac, who, name, fail=True):
    """The shared stack shape, held at alone (before) and flaky (failed).

    With ``fail=False``, alone (before) and last (after its create).
    """
    hc = rbac.client(who)
    hc.stacks.create(stack_name=name, template=TEMPLATE,
                     environment=_environment(), parameters={'fail': fail})
    manager = bp_v1.BreakpointManager(hc)

    def held():
        rows = manager.held_now(name)[1]
        found = {row['resource'] for row in rows}
        return found == wanted and rows
    wanted = {'alone', 'flaky'} if fail else {'alone', 'last'}
    utils.wait_for(held, 90, what='%s held at %s' % (name, sorted(wanted)))
    return hc


def view_of(hc, name):
    """What is held and armed, as (resource, state, when) triples."""
    rows = bp_v1.BreakpointManager(hc).list(name)
    return sorted((r['resource'], r['state'], bp_v1.row_value(r, 'when'))
                  for r in rows)


# -- the three front ends ------------------------------------------------

class Result(object):
    """What a front end printed (or raised), and what heat-api answered.

    ``answers``: ``(HTTP status, fault message)`` of every response the
    command received, in order (see :func:`answers_recorded`).
    """

    def __init__(self, ok, text, answers=()):
        self.ok, self.text, self.answers = ok, text, list(answers)

    def __repr__(self):
        return 'Result(%r, %r, %r)' % (self.ok, self.text, self.answers)


@contextlib.contextmanager
def answers_recorded():
    """Record the responses every front end gets, through ``requests``.

    OSC (keystoneauth), the legacy shell (heatclient's HTTP client) and
    the python API all send their requests through ``requests``; the
    real transport sends them, this only writes down what came back.
    """
    seen = []
    send = requests.adapters.HTTPAdapter.send

    def recording_send(adapter, request, **kwargs):
        response = send(adapter, request, **kwargs)
        try:
            message = response.json()['error']['message']
        except (ValueError, KeyError, TypeError):
            message = None
        seen.append((response.status_code, message))
        return response
    with mock.patch.object(requests.adapters.HTTPAdapter, 'send',
                           recording_send):
        yield seen


class OSC(object):
    """``openstack stack breakpoint ...``, the real OSC shell."""

    name = 'osc'
    ARGV = {'continue_to': lambda s, r: ['continue', s, '--to', r],
            'edit': lambda s, *p: ['continue', s] + [
                a for v in p for a in ('--parameter', v)]}

    def __init__(self, rbac):
        self.rbac = rbac

    def run(self, who, verb, stack, *args):
        argv = self.ARGV.get(verb, lambda s, *a: [verb, s] + list(a))(
            stack, *args)
        with answers_recorded() as answers:
            code, out, err = conftest.run_openstack(
                as_caller(self.rbac, who), 'stack', 'breakpoint', *argv)
        return Result(code == 0, out + err, answers)


class Legacy(object):
    """``heat-breakpoint breakpoint-...``, the spec's legacy spelling."""

    name = 'legacy'
    ARGV = {'continue_to': lambda s, r: ['breakpoint-continue', s, '--to',
                                         r],
            'edit': lambda s, *p: ['breakpoint-continue', s] + [
                a for v in p for a in ('-P', v)]}

    def __init__(self, rbac):
        self.rbac = rbac

    def run(self, who, verb, stack, *args):
        from heatclient_ext import shell
        argv = self.ARGV.get(verb, lambda s, *a: [
            'breakpoint-%s' % verb, s] + list(a))(stack, *args)
        endpoint = self.rbac.endpoint(who)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), \
                contextlib.redirect_stderr(stderr), \
                answers_recorded() as answers:
            code = shell.main(['--os-no-client-auth', '--heat-url', endpoint,
                               '--os-auth-token', self.rbac.token(who)] +
                              argv)
        return Result(code == 0, stdout.getvalue() + stderr.getvalue(),
                      answers)


class PythonAPI(object):
    """``heatclient_ext.v1``: the manager every front end uses."""

    name = 'api'

    def __init__(self, rbac):
        self.rbac = rbac

    def run(self, who, verb, stack, *args):
        hc = self.rbac.client(who)
        manager = bp_v1.BreakpointManager(hc)
        calls = {
            'list': lambda: manager.list(stack),
            'show': lambda r: manager.show(stack, r),
            'graph': lambda: bp_graph.fetch(hc, stack),
            'step': lambda *r: manager.step(stack, *r),
            'continue': lambda: manager.continue_(stack),
            'continue_to': lambda r: manager.continue_(stack, to=r),
            'set': lambda r: manager.set(stack, r),
            'clear': lambda r: manager.clear(stack, r),
            'retry': lambda r: manager.retry(stack, r),
            'edit': lambda *p: manager.edit(stack, editing.Edit(
                parameters=p)),
        }
        with answers_recorded() as answers:
            try:
                return Result(True, repr(calls[verb](*args)), answers)
            except (bp_exceptions.BreakpointCommandError,
                    heat_exc.HTTPException) as exc:
                return Result(False, str(exc), answers)


FRONT_ENDS = {'osc': OSC, 'legacy': Legacy, 'api': PythonAPI}


def front_end(name, rbac):
    return FRONT_ENDS[name](rbac)


def refused(result, rule):
    """Refused by heat-api with a 403 for ``rule``, and told so.

    The command received one refusal, a 403 whose fault names the rule
    (Heat's policy enforcer's words), and nothing after it; the front
    end says it.
    """
    said = 'You are not authorized to use %s.' % rule
    assert not result.ok, result
    assert [a for a in result.answers if a[0] >= 400] == [(403, said)], \
        result
    assert result.answers[-1] == (403, said), result
    assert said in result.text, result


def rule_of(verb):
    return 'breakpoints:%s' % {'continue_to': 'continue'}.get(verb, verb)


# -- one held stack that no refused caller may change ---------------------

@pytest.fixture(scope='module')
def held_stack(rbac):
    name = 'policy-held'
    hc = create_held(rbac, MEMBER, name)
    before = view_of(hc, name)
    yield name
    # Whatever was refused above, nothing of the operation changed.
    assert view_of(hc, name) == before


@pytest.mark.parametrize('fe', sorted(FRONT_ENDS))
@pytest.mark.parametrize('verb, args', CHANGING)
def test_reader_is_refused_every_change(rbac, held_stack, fe, verb,
                                        args):
    result = front_end(fe, rbac).run(READER, verb, held_stack, *args)
    refused(result, rule_of(verb))


@pytest.mark.parametrize('fe', sorted(FRONT_ENDS))
@pytest.mark.parametrize('verb, args', VIEWING)
def test_reader_can_look(rbac, held_stack, fe, verb, args):
    result = front_end(fe, rbac).run(READER, verb, held_stack, *args)
    assert result.ok, result
    assert 'alone' in result.text


@pytest.mark.parametrize('fe', sorted(FRONT_ENDS))
@pytest.mark.parametrize('token', [STACK_USER, NO_ROLE])
@pytest.mark.parametrize('verb, args', VIEWING + CHANGING)
def test_stack_user_and_no_role_are_refused(rbac, held_stack, fe,
                                            token, verb, args):
    # Every command looks at the breakpoints first: refused there.
    refused(front_end(fe, rbac).run(token, verb, held_stack, *args),
            'breakpoints:index')


@pytest.mark.parametrize('fe', sorted(FRONT_ENDS))
@pytest.mark.parametrize('verb, args', VIEWING + CHANGING)
def test_another_project_learns_nothing(rbac, held_stack, fe, verb,
                                        args):
    result = front_end(fe, rbac).run(OTHER_MEMBER, verb, held_stack, *args)
    assert not result.ok, result
    assert 'not found' in result.text.lower(), result
    said = result.text.replace(held_stack, '')
    for arg in args:  # echoed back is not learned
        said = said.replace(arg, '')
    assert not [w for w in SECRETS_OF_THE_STACK if w in said], result


def test_another_project_gets_404_by_id(rbac, held_stack):
    stack = rbac.client(MEMBER).stacks.get(held_stack)
    other = '%s/stacks/%s/%s' % (rbac.endpoint(OTHER_MEMBER), held_stack,
                                 stack.id)
    headers = {'X-Auth-Token': rbac.token(OTHER_MEMBER)}
    view = requests.get(other + '/breakpoints', headers=headers)
    signal = requests.post(
        other + '/resources/alone/signal', headers=headers,
        json={'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'step'})
    for answer in (view, signal):
        assert answer.status_code == 404, answer.text
        said = answer.text.replace(held_stack, '')
        assert not [w for w in SECRETS_OF_THE_STACK if w in said], said


def test_reader_watch_looks_and_cannot_release(rbac, held_stack):
    hc = rbac.client(READER)
    out = io.StringIO()
    session = bp_watch.Session(
        hc, held_stack, out, interactive=True,
        stdin=io.StringIO('\nc\nalone\nto last\nset last\nclear last\nq\n'),
        sleep=lambda seconds: None)
    assert session.run() == bp_watch.EXIT_COMPLETE
    text = out.getvalue()
    assert 'alone' in text and 'flaky' in text  # it saw the hold
    for rule in ('step', 'continue', 'clear', 'continue', 'set', 'clear'):
        assert 'You are not authorized to use breakpoints:%s' % rule in \
            text, text
    assert text.count('not authorized') == 6, text


def test_osc_watch_as_reader(rbac, held_stack, monkeypatch):
    monkeypatch.setattr('sys.stdin', io.StringIO('c\nq\n'))
    result = OSC(rbac).run(READER, 'watch', held_stack, '-i')
    assert result.ok, result
    assert 'You are not authorized to use breakpoints:continue' in \
        result.text


@test_watch_interactive.NEEDS_TMUX
def test_reader_watch_interactive_in_a_terminal(rbac, held_stack):
    """As a person types: the prompt shows, each release says 403."""
    pane = test_watch_interactive.Pane(as_caller(rbac, READER), [
        'openstack', 'stack', 'breakpoint', 'watch', '-i', held_stack])
    try:
        pane.wait('Enter: step it')
        pane.answer('c')
        pane.wait('not authorized to use breakpoints:continue')
        pane.answer('set last')
        pane.wait('not authorized to use breakpoints:set')
        pane.answer('q')
        pane.wait('EXIT=0')
    finally:
        pane.close()


# -- a raw resource signal with our payload ------------------------------

RAW = [
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'step'}, 'step'),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'continue'},
     'continue'),
    ({protocol.COMMAND_KEY: 'set', protocol.COMMAND_PATH_KEY: 'last'}, 'set'),
    ({protocol.COMMAND_KEY: 'to', protocol.COMMAND_PATH_KEY: 'last'},
     'continue'),
    ({protocol.COMMAND_KEY: 'clear', protocol.COMMAND_PATH_KEY: 'last'},
     'clear'),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'retain'}, 'retain'),
]


@pytest.mark.parametrize('prefix', ['', STOCK_PREFIX],
                         ids=['our-api', 'stock-api'])
@pytest.mark.parametrize('token', [READER, STACK_USER])
@pytest.mark.parametrize('payload, rule', RAW)
def test_raw_signal_cannot_bypass(rbac, held_stack, prefix, token,
                                  payload, rule):
    """heat-api refuses it; without our filter, the engine does."""
    stack = rbac.client(MEMBER).stacks.get(held_stack)
    hc = rbac.client(token, prefix)
    with pytest.raises(heat_exc.HTTPForbidden) as caught:
        hc.resources.signal('%s/%s' % (held_stack, stack.id), 'alone',
                            data=payload)
    assert 'breakpoints:%s' % rule in str(caught.value)


def test_raw_signal_in_osc_as_reader(rbac, held_stack):
    code, out, err = conftest.run_openstack(
        as_caller(rbac, READER), 'stack', 'resource', 'signal', held_stack,
        'alone', '--data', json.dumps({'unset_hook': 'pre-create',
                                       protocol.SIGNAL_KEY: 'step'}))
    assert code != 0
    assert 'You are not authorized to use breakpoints:step' in out + err


# -- stock behaviour stays stock -----------------------------------------

def test_stock_hook_clear_keeps_resource_signal(rbac):
    """A reader may clear a breakpoint's hook the stock way, as in Heat."""
    name = 'policy-hook-clear'
    hc = create_held(rbac, MEMBER, name, fail=False)
    code, out, err = conftest.run_openstack(
        as_caller(rbac, READER), 'stack', 'hook', 'clear', name, 'alone')
    assert code == 0, out + err
    utils.wait_resource(hc, name, 'alone', 'CREATE_COMPLETE')


# -- a member may do everything ------------------------------------------

def commands_told(hc, name):
    """The stack's events of commands given to its running operation."""
    told = [reasons.commanded('last', verb, when)
            for verb in ('set', 'clear') for when in ('before', 'after')]
    return sorted(ev.resource_status_reason
                  for ev in utils.events(hc, name, name)
                  if ev.resource_status_reason in told)


def member_does_everything(rbac, fe, token, name):
    """Every command, in an order that keeps something to act on."""
    run = front_end(fe, rbac).run
    hc = create_held(rbac, token, name)
    manager = bp_v1.BreakpointManager(hc)
    for verb, args in VIEWING:
        assert run(token, verb, name, *args).ok
    # last holds after its create (the environment); set arms it before
    # too, for this operation, and clear disarms that again.
    before = view_of(hc, name)
    assert ('last', 'armed', 'after') in before, before
    assert run(token, 'set', name, 'last').ok
    assert view_of(hc, name) == sorted(
        before + [('last', 'armed', 'before')])
    # clear disarms every breakpoint on it: set's, and the environment's
    # after its create.
    assert run(token, 'clear', name, 'last').ok
    assert view_of(hc, name) == sorted(
        [row for row in before if row[0] != 'last'] +
        [('last', 'disarmed', 'before'), ('last', 'disarmed', 'after')])
    assert commands_told(hc, name) == sorted([
        reasons.commanded('last', 'set'), reasons.commanded('last', 'clear'),
        reasons.commanded('last', 'clear', 'after')])
    assert run(token, 'retry', name, 'flaky').ok
    utils.wait_for(lambda: len(test_outcomes.hits(
        hc, name, 'flaky', breakpoints.FAILED)) == 2, 60,
        what='flaky failed and held again')
    assert run(token, 'step', name, 'alone').ok
    utils.wait_resource(hc, name, 'alone', 'CREATE_COMPLETE')
    assert run(token, 'clear', name, 'flaky').ok  # the failure goes on
    utils.wait_for(lambda: hc.stacks.get(name).stack_status ==
                   'CREATE_FAILED', 60, what='%s failed' % name)

    chain = name + '-chain'
    hc.stacks.create(stack_name=chain, template=TEMPLATE,
                     parameters={'fail': False},
                     environment=registry.apply_to_environment(
                         {}, breakpoints.parse_names(['first', 'alone'],
                                                     None)))
    utils.wait_for(lambda: len(manager.held_now(chain)[1]) == 2, 60,
                   what='%s held' % chain)
    assert run(token, 'continue_to', chain, 'last').ok
    utils.wait_for(lambda: [r['resource'] for r in
                            manager.held_now(chain)[1]] == ['last'], 60,
                   what='held at last')
    assert run(token, 'step', chain).ok
    utils.wait_for(lambda: hc.stacks.get(chain).stack_status ==
                   'CREATE_COMPLETE', 60, what='%s complete' % chain)
    hc.stacks.create(stack_name=chain + '-2', template=TEMPLATE,
                     parameters={'fail': False},
                     environment=registry.apply_to_environment(
                         {}, breakpoints.parse_names(['first'], None)))
    utils.wait_for(lambda: manager.held_now(chain + '-2')[1], 60,
                   what='held at first')
    assert run(token, 'continue', chain + '-2').ok
    utils.wait_for(lambda: hc.stacks.get(chain + '-2').stack_status ==
                   'CREATE_COMPLETE', 60, what='run to completion')


@pytest.mark.parametrize('fe', sorted(FRONT_ENDS))
def test_member_can_do_everything(rbac, fe):
    member_does_everything(rbac, fe, MEMBER, 'policy-member-' + fe)


@pytest.mark.parametrize('fe', sorted(FRONT_ENDS))
def test_member_paths_with_rbac_off(heat_server, fe):
    """The local server's default: noauth's admin, legacy defaults."""
    member_does_everything(HeaderCallers(heat_server), fe, 'admin@admin',
                           'policy-default-' + fe)


@pytest.mark.parametrize('fe', sorted(FRONT_ENDS))
def test_reader_cannot_edit_from_any_front_end(rbac, held_stack, fe):
    """continue with an edit: Heat's rule for the update's preview.

    Refused at the preview, the first request that changes anything's
    way; nothing is sent after it (the module's fixture checks that the
    operation is as it was). A reader's ``retain`` is refused by its own
    rule: ``test_raw_signal_cannot_bypass``.
    """
    said = 'You are not authorized to use stacks:preview_update_patch.'
    result = front_end(fe, rbac).run(READER, 'edit', held_stack,
                                     'fail=false')
    assert not result.ok, result
    assert [a for a in result.answers if a[0] >= 400] == [(403, said)], \
        result
    assert result.answers[-1] == (403, said), result
    assert 'not authorized to use stacks:preview_update_patch' in \
        result.text and 'nothing changed' in result.text, result


def test_reader_cannot_fix_and_go_on(rbac, held_stack):
    """An edit is a stack update: Heat's own rules refuse a reader.

    Before anything is sent (the preview), and the update itself too.
    """
    hc = rbac.client(READER)
    manager = bp_v1.BreakpointManager(hc)
    before = rbac.client(MEMBER).stacks.get(held_stack)
    with pytest.raises(bp_exceptions.BreakpointCommandError) as raised:
        manager.edit(held_stack, editing.Edit(parameters=('fail=false',)))
    assert str(raised.value) == (
        'Cannot apply the edit: You are not authorized to use '
        'stacks:preview_update_patch; nothing changed')
    with pytest.raises(heat_exc.HTTPForbidden):
        hc.stacks.update(stack_id='%s/%s' % (held_stack, before.id),
                         existing=True, parameters={'fail': 'false'})
    after = rbac.client(MEMBER).stacks.get(held_stack)
    assert after.updated_time == before.updated_time
    assert after.stack_status == 'CREATE_IN_PROGRESS'
