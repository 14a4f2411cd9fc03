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
"""The web console panel's pure parts: its policy files and stale pages.

The policy files Horizon reads must say what heat-api enforces
(:mod:`heat_breakpoint.policies.rules`); an action on a hold released
meanwhile must be recognised before anything is sent.
"""

import os

import pytest
import yaml

from heat_breakpoint.policies import rules
import heatclient_ext.dashboard
from heatclient_ext.dashboard import actions

CONF = os.path.join(os.path.dirname(heatclient_ext.dashboard.__file__),
                    'conf')


def test_the_policy_file_is_the_rules_heat_api_enforces():
    with open(os.path.join(CONF, 'breakpoints_policy.yaml')) as f:
        found = yaml.safe_load(f)
    assert found == {rule.name: rule.check_str
                     for rule in rules.list_rules()}


def test_the_default_policies_are_the_rules_heat_api_enforces():
    with open(os.path.join(CONF, 'default_policies',
                           'breakpoints.yaml')) as f:
        found = yaml.safe_load(f)
    assert [(rule['name'], rule['check_str'], rule['scope_types'])
            for rule in found] == [
        (rule.name, rule.check_str, list(rule.scope_types))
        for rule in rules.list_rules()]


def test_every_breakpoint_action_has_its_rule():
    names = {rule.name for rule in rules.list_rules()}
    for action, (scope, rule) in actions.RULES.items():
        if action != 'cancel':
            assert scope == 'breakpoints' and rule in names, action


def row(resource, since):
    return {'resource': resource, 'held_since': since}


def test_a_hold_named_with_its_start_must_be_that_hold():
    req = actions.Request('step', resource='A', held_since='t1')
    actions.check_fresh(req, [row('A', 't1')])
    with pytest.raises(actions.Stale, match='A is no longer held'):
        actions.check_fresh(req, [row('A', 't2')])  # held again since
    with pytest.raises(actions.Stale):
        actions.check_fresh(req, [row('B', 't1')])


def test_a_stack_wide_command_needs_one_of_the_holds_shown():
    req = actions.Request('continue', seen=('A@t1', 'B@t1'))
    actions.check_fresh(req, [row('B', 't1'), row('C', 't3')])
    with pytest.raises(actions.Stale, match='released meanwhile'):
        actions.check_fresh(req, [row('C', 't3')])
    # A page that showed nothing held (continue before the first hold).
    actions.check_fresh(actions.Request('continue'), [row('C', 't3')])
