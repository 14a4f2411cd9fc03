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
"""Who the work after a hold runs as, with a real Keystone.

A release decides *that* an operation goes on, never *who* it goes on
as: the resources after a hold must run exactly as they would have
without it, on the operation's own credentials (Heat here defers work to
a trust: ``deferred_auth_method`` and ``reauthentication_auth_method``
are ``trusts``), whoever released it and however.

Every stack here has one template: ``before`` runs before the hold,
``gate`` is held, ``after`` and a remote stack (``OS::Heat::Stack``) run
after it. ``before``, ``gate`` and
``after`` are ``Test::WhoAmI`` (``heat_plugins/whoami.py``): each asks
Keystone whose token its create sent. The member who owns the stacks
creates them all at once; each is then released one way: stock Heat's
own hook released with ``openstack stack hook clear`` by a reader,
another member and an admin of the project; our breakpoint released by
the same, with ``hook clear``, ``continue``, ``step``, ``retry`` of a
failure, a release cut off after its claim (sent again by the engines'
scan), a release after both heat-engines were restarted, and releases
after the owner's token, then the releaser's, expired. What each
resource ran as is compared with stock Heat's, and with what it must be:
the owner, on the operation's trust.
"""

import json
import os
import time

import pytest

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from heatclient_ext.v1 import manager as bp_v1
from tests.distributed import common
from tests.distributed import conftest as tier
from tests.distributed import identity
from tests.functional import conftest as functional

OWNER = 'alpha-member'
READER = 'alpha-reader'
OTHER = 'alpha-other'
ADMIN = 'alpha-admin'
GATE = 'gate'
#: What ``before``, ``gate`` and ``after`` must have run as.
AS_THE_OWNER = {'user': OWNER, 'project': 'alpha',
                'roles': ['member', 'reader'], 'trust': "the operation's"}
EXPECTED = {'before': AS_THE_OWNER, GATE: AS_THE_OWNER,
            'after': AS_THE_OWNER,
            'remote': {'owner': OWNER, 'status': 'CREATE_COMPLETE'}}
#: Work after the release that outlives the releaser's token.
SLOW = identity.TOKEN_SECONDS + 10


def _whoami(**properties):
    return {'type': 'Test::WhoAmI', 'properties': properties}


def template(gate=GATE, fail_once='', slow=0):
    """before -> gate -> [slow ->] after, remote."""
    child = {'heat_template_version': '2021-04-16', 'resources': {
        'inner': {'type': 'OS::Heat::TestResource',
                  'properties': {'value': 'child'}}}}
    resources = {
        'before': _whoami(),
        gate: dict(_whoami(fail_once=fail_once), depends_on='before'),
    }
    last = gate
    if slow:
        resources['slow'] = {'type': 'OS::Heat::TestResource',
                             'depends_on': gate,
                             'properties': {'wait_secs': slow}}
        last = 'slow'
    resources['after'] = dict(_whoami(), depends_on=last)
    resources['remote'] = {'type': 'OS::Heat::Stack', 'depends_on': last,
                           'properties': {'template': json.dumps(child)}}
    return {'heat_template_version': '2021-04-16', 'resources': resources}


def stock_hook(gate=GATE):
    return {'resource_registry': {'resources': {
        gate: {'hooks': 'pre-create'}}}}


def breakpoint_on(gate=GATE, when=breakpoints.BEFORE):
    return registry.apply_to_environment(
        {}, breakpoints.parse_names([gate], None, when))


class Case(object):
    """One stack of the module: how it is held, who releases it, how."""

    def __init__(self, key, env, releaser, gate=GATE, **kwargs):
        self.key, self.env, self.releaser = key, env, releaser
        self.gate = gate
        self.template = template(gate, **kwargs)
        self.stack = None
        self.created = None


def _cases(base):
    marker = os.path.join(base, 'retry-fails-once')
    return {case.key: case for case in (
        Case('stock-reader', stock_hook(), READER),
        Case('stock-other', stock_hook(), OTHER),
        Case('stock-admin', stock_hook(), ADMIN),
        Case('stock-expired', stock_hook(), OTHER, slow=SLOW),
        Case('hook-clear', breakpoint_on(), READER),
        Case('continue', breakpoint_on(), OTHER),
        Case('step', breakpoint_on(), ADMIN),
        Case('retry', breakpoint_on(when=breakpoints.FAILED), OTHER,
             fail_once=marker),
        Case('lost-release', breakpoint_on(tier.CUT_GATE), OTHER,
             gate=tier.CUT_GATE),
        Case('restart', breakpoint_on(), OTHER),
        Case('expired', breakpoint_on(), OTHER, slow=SLOW),
    )}


def _held(hc, case):
    """Held: at our breakpoint or stock Heat's hook (the view has both)."""
    return bp_v1.BreakpointManager(hc).held_now(case.stack)[1]


@pytest.fixture(scope='module')
def cases(keystone_cluster):
    """Every stack of the module, created by the owner and held."""
    found = _cases(keystone_cluster.dir)
    hc = keystone_cluster.client_as(OWNER)
    tag = common.tag()
    for case in found.values():
        case.stack = 'who-%s-%s' % (case.key, tag)
        hc.stacks.create(stack_name=case.stack, template=case.template,
                         environment=case.env)
        case.created = time.monotonic()
    for case in found.values():
        common.wait_for(lambda: _held(hc, case), 120,
                        what='%s held' % case.stack)
    return found


def osc_as(cluster, user, *argv):
    """The ``openstack`` CLI as ``user``, with a password: its output."""
    code, out, err = functional.run_openstack(
        type('Caller', (), {'env': cluster.keystone.env(user)}), *argv)
    return code, out + err


def release(cluster, case, how):
    code, said = osc_as(cluster, case.releaser, *{
        'hook clear': ('stack', 'hook', 'clear', case.stack, case.gate),
        'continue': ('stack', 'breakpoint', 'continue', case.stack),
        'step': ('stack', 'breakpoint', 'step', case.stack),
        'retry': ('stack', 'breakpoint', 'retry', case.stack, case.gate),
    }[how])
    return code, said


def ran_as(hc, case):
    """Who each resource ran as, and the remote stack's owner."""
    found = {name: hc.resources.get(case.stack, name).attributes[
        'identity']['keystone'] for name in ('before', case.gate, 'after')}
    trust = found['before']['trust_id']

    def shape(seen):
        return {'user': seen['user'], 'project': seen['project'],
                'roles': seen['roles'],
                'trust': "the operation's" if seen['trust_id'] and
                seen['trust_id'] == trust else seen['trust_id']}
    shown = {GATE if name == case.gate else name: shape(seen)
             for name, seen in found.items()}
    child = hc.stacks.get(hc.resources.get(
        case.stack, 'remote').physical_resource_id)
    shown['remote'] = {'owner': child.stack_owner,
                       'status': child.stack_status}
    return shown


def wait_done(cluster, case, timeout=180):
    hc = cluster.client_as(OWNER)
    common.wait_stack(hc, case.stack, 'CREATE_COMPLETE', timeout=timeout,
                      explain=lambda: '\n' + cluster.errors())
    return ran_as(hc, case)


# What stock Heat ran as, by releaser.
STOCK = {}


def test_stock_heat_goes_on_as_the_owner(keystone_cluster, cases):
    """The reference: stock Heat's hook, cleared by each releaser."""
    for key in ('stock-reader', 'stock-other', 'stock-admin'):
        code, said = release(keystone_cluster, cases[key], 'hook clear')
        assert code == 0, said
    for key in ('stock-reader', 'stock-other', 'stock-admin'):
        STOCK[cases[key].releaser] = wait_done(keystone_cluster, cases[key])
        assert STOCK[cases[key].releaser] == EXPECTED, key


def _like_stock(keystone_cluster, case):
    ours = wait_done(keystone_cluster, case)
    assert ours == STOCK.get(case.releaser, EXPECTED)
    assert ours == EXPECTED


def test_a_reader_clears_the_hook(keystone_cluster, cases):
    case = cases['hook-clear']
    code, said = release(keystone_cluster, case, 'hook clear')
    assert code == 0, said
    _like_stock(keystone_cluster, case)


def test_another_member_continues(keystone_cluster, cases):
    case = cases['continue']
    code, said = release(keystone_cluster, case, 'continue')
    assert code == 0, said
    _like_stock(keystone_cluster, case)


def test_an_admin_steps(keystone_cluster, cases):
    """A step releases gate and holds what follows; continue, again."""
    case = cases['step']
    code, said = release(keystone_cluster, case, 'step')
    assert code == 0, said
    hc = keystone_cluster.client_as(OWNER)
    common.wait_held_set(hc, case.stack, ['after', 'remote'],
                         explain=lambda: '\n' + keystone_cluster.errors())
    code, said = release(keystone_cluster, case, 'continue')
    assert code == 0, said
    _like_stock(keystone_cluster, case)


def test_another_member_retries_a_failure(keystone_cluster, cases):
    case = cases['retry']
    code, said = release(keystone_cluster, case, 'retry')
    assert code == 0, said
    _like_stock(keystone_cluster, case)


def test_a_release_cut_off_is_sent_again_as_the_owner(keystone_cluster,
                                                      cases):
    """The engine that claimed it fails; the engines' scan sends it."""
    case = cases['lost-release']
    release(keystone_cluster, case, 'continue')  # fails after its claim
    _like_stock(keystone_cluster, case)
    assert keystone_cluster.log_lines('Sending again the check of resource')


def test_expired_tokens_during_the_hold_and_after_it(keystone_cluster,
                                                     cases):
    """The owner's token expires while held, the releaser's after.

    The release comes once the token the stack was created with has
    expired; the work after it lasts longer than the releaser's token.
    """
    ours, stock = cases['expired'], cases['stock-expired']
    wait = ours.created + identity.TOKEN_SECONDS + 5 - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    for case, how in ((stock, 'hook clear'), (ours, 'continue')):
        code, said = release(keystone_cluster, case, how)
        assert code == 0, said
    assert wait_done(keystone_cluster, stock, 240) == EXPECTED
    assert wait_done(keystone_cluster, ours, 240) == EXPECTED


def test_a_release_after_both_engines_restarted(keystone_cluster, cases):
    """Last: the stock hooks of this module wait in an engine's thread."""
    case = cases['restart']
    engines = list(keystone_cluster.engines)
    for name in engines:
        keystone_cluster.kill_engine(name)
    started = [keystone_cluster.start_engine(wait=False) for _ in engines]
    for name in started:
        keystone_cluster.wait_engine(name)
    code, said = release(keystone_cluster, case, 'continue')
    assert code == 0, said
    _like_stock(keystone_cluster, case)
