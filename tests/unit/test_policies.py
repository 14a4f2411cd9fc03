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
"""Our policy rules: the sample, the defaults, and who they let in.

Decided with Heat's own enforcer and request contexts (no server): for
every role set, under new and legacy defaults, our viewing rule answers
as Heat's ``resource:index`` and every changing rule as Heat's
``stacks:update``. Enforcement on the real server:
tests/functional/test_policy.py.
"""

import itertools
import os

from heat.common import context as heat_context
from heat.common import exception
from heat.common import policy as heat_policy
from heat import policies as heat_policies
from oslo_config import cfg
from oslo_policy import generator
import pytest

from heat_breakpoint.model import protocol
from heat_breakpoint import policies
from heat_breakpoint.policies import rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Heat's context hands oslo.policy its deprecated keys too (user, tenant):
# Heat's to fix, not ours.
pytestmark = pytest.mark.filterwarnings(
    'ignore:Policy enforcement is depending on:DeprecationWarning')
SAMPLE = os.path.join(ROOT, 'etc', 'heat_breakpoint.policy.yaml.sample')
CHANGING = rules.EXITS + (rules.SET, rules.CLEAR)
ROLE_SETS = [list(roles) for n in range(3) for roles in
             itertools.combinations(
                 ['reader', 'member', 'admin', 'heat_stack_user'], n)]


def heat_rule(name):
    return {rule.name: rule for rule in heat_policies.list_rules()}[name]


def test_sample_is_generated_from_the_entry_point(tmp_path):
    """``oslopolicy-sample-generator --namespace heat_breakpoint``."""
    out = tmp_path / 'policy.yaml'
    generator.generate_sample(args=['--namespace', 'heat_breakpoint',
                                    '--output-file', str(out)],
                              conf=cfg.ConfigOpts())
    text = out.read_text()
    for rule in policies.list_rules():
        assert '#"%s": "%s"' % (rule.name, rule.check_str) in text
        assert '"%s":"rule:deny_stack_user" has been deprecated' \
            % rule.name in text
    with open(SAMPLE) as committed:
        assert committed.read() == text, 'run tox -e genpolicy'


def test_the_rules_and_their_defaults():
    found = {rule.name: rule for rule in policies.list_rules()}
    assert sorted(found) == sorted(
        'breakpoints:%s' % action for action in (rules.INDEX,) + CHANGING)
    index = heat_rule('resource:index')
    update = heat_rule('stacks:update')
    delete = heat_rule('stacks:delete')
    assert found['breakpoints:retain'].check_str == delete.check_str
    assert found['breakpoints:retain'].deprecated_rule.check_str == \
        delete.deprecated_rule.check_str
    assert found['breakpoints:index'].check_str == index.check_str
    assert found['breakpoints:index'].deprecated_rule.check_str == \
        index.deprecated_rule.check_str
    for action in CHANGING:
        rule = found['breakpoints:%s' % action]
        assert rule.check_str == update.check_str
        assert rule.deprecated_rule.check_str == \
            update.deprecated_rule.check_str
        assert rule.scope_types == ['project']
        assert rule.operations[0]['method'] == 'POST'


@pytest.mark.parametrize('details, action', [
    ({'unset_hook': 'pre-create'}, None),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'hook clear'}, None),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'step'}, 'step'),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'continue'},
     'continue'),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'run to'},
     'continue'),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'clear'}, 'clear'),
    ({'unset_hook': 'post-create', protocol.SIGNAL_KEY: 'retry'}, 'retry'),
    ({'unset_hook': 'post-delete', protocol.SIGNAL_KEY: 'retain'},
     'retain'),
    ({protocol.COMMAND_KEY: 'set'}, 'set'),
    ({protocol.COMMAND_KEY: 'clear'}, 'clear'),
    ({protocol.COMMAND_KEY: 'to'}, 'continue'),
    ({protocol.COMMAND_KEY: 'unknown'}, 'set'),
    ({protocol.COMMAND_KEY: ['set']}, 'set'),
    ({'anything': 'else'}, None),
    ('not a mapping', None),
    (None, None),
])
def test_what_a_signal_needs(details, action):
    assert rules.action_for_signal(details) == action


@pytest.fixture(params=[True, False], ids=['new-defaults', 'legacy'])
def enforcer(request):
    # oslo.policy registers its options as an enforcer is made, and reads
    # them when it first enforces. (Scope is always enforced since
    # oslo.policy 6: it has no enforce_scope option left.)
    # No heat.conf, no policy file: Heat's defaults in code, ours added.
    cfg.CONF([], project='heat', default_config_files=[],
             default_config_dirs=[])
    made = heat_policy.Enforcer()
    cfg.CONF.set_override('enforce_new_defaults', request.param,
                          group='oslo_policy')
    try:
        yield made
    finally:
        cfg.CONF.clear_override('enforce_new_defaults', group='oslo_policy')


def context(enforcer, roles, project='p1'):
    cnxt = heat_context.RequestContext(project_id=project, roles=roles,
                                       user_id='u1', is_admin=False)
    cnxt.policy = enforcer
    return cnxt


def allowed(check):
    try:
        check()
    except exception.Forbidden:
        return False
    return True


@pytest.mark.parametrize('roles', ROLE_SETS, ids=lambda r: '+'.join(r) or
                         'none')
def test_ours_answer_as_heats(enforcer, roles):
    cnxt = context(enforcer, roles)

    def heat(scope, action):
        return lambda: enforcer.enforce(
            cnxt, action, scope=scope, target={'project_id': 'p1'},
            is_registered_policy=True)

    def ours(action):
        return lambda: policies.authorize(cnxt, action)

    assert allowed(ours(rules.INDEX)) == allowed(heat('resource', 'index'))
    may_update = allowed(heat('stacks', 'update'))
    for action in CHANGING:
        assert allowed(ours(action)) == may_update, action


def test_under_new_defaults_a_reader_may_look_not_change():
    enforcer = heat_policy.Enforcer()
    cfg.CONF.set_override('enforce_new_defaults', True, group='oslo_policy')
    try:
        reader = context(enforcer, ['reader'])
        member = context(enforcer, ['member', 'reader'])
        stack_user = context(enforcer, ['heat_stack_user'])
        policies.authorize(reader, rules.INDEX)
        for action in CHANGING:
            with pytest.raises(exception.Forbidden,
                               match='breakpoints:%s' % action):
                policies.authorize(reader, action)
            with pytest.raises(exception.Forbidden):
                policies.authorize(stack_user, action)
            policies.authorize(member, action)
        # ... while Heat's own rule for signals lets both in.
        for cnxt in (reader, stack_user):
            enforcer.enforce(cnxt, 'signal', scope='resource',
                             target={'project_id': 'p1'},
                             is_registered_policy=True)
    finally:
        cfg.CONF.clear_override('enforce_new_defaults', group='oslo_policy')


def test_register_is_idempotent():
    enforcer = heat_policy.Enforcer()
    policies.register(enforcer.enforcer)
    policies.register(enforcer.enforcer)
    assert 'breakpoints:step' in enforcer.enforcer.registered_rules


def test_requests_at_once_register_once():
    # A fresh heat-engine serves several of our requests at once (seen
    # in the chaos run: DuplicatePolicyError from one of them). Each
    # thread finds the rules missing, then registers; oslo.policy's own
    # check-then-add is made slow here to open the window.
    import threading
    import time

    from oslo_policy import policy as oslo_policy

    enforcer = heat_policy.Enforcer().enforcer
    register_default = enforcer.register_default

    def slow(default):
        time.sleep(0.01)
        return register_default(default)
    enforcer.register_default = slow
    errors = []
    start = threading.Barrier(6)

    def request():
        start.wait()
        try:
            policies.register(enforcer)
        except oslo_policy.DuplicatePolicyError as exc:
            errors.append(exc)
    threads = [threading.Thread(target=request) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert 'breakpoints:continue' in enforcer.registered_rules
