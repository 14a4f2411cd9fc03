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
"""The configuration and policy references list every option and rule.

``doc/source/configuration/`` generates them at build time
(``oslo_config.sphinxext``, ``oslo_policy.sphinxext``) from the entry
points. Here: the pages ask for our namespaces, what the directives
render from them names every option of
:func:`heat_breakpoint.opts.list_opts` and every rule of
:func:`heat_breakpoint.policies.list_rules`, every option the code
defines and every rule it enforces is among those, and the samples kept
in ``etc/`` are up to date (``tox -e genconfig``, ``tox -e genpolicy``).
"""

import configparser
import os
import re

from oslo_config import cfg
from oslo_config import sphinxext as config_sphinxext
from oslo_policy import sphinxext as policy_sphinxext

from heat_breakpoint import opts
from heat_breakpoint import policies
from heat_breakpoint.policies import rules

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DOC = os.path.join(ROOT, 'doc', 'source', 'configuration')
NAMESPACE = 'heat_breakpoint'


def read(*path):
    with open(os.path.join(ROOT, *path), encoding='utf-8') as f:
        return f.read()


def all_opts():
    return [(group.name, opt) for group, group_opts in opts.list_opts()
            for opt in group_opts]


def rule_names():
    return [rule.name for rule in policies.list_rules()]


def generator_namespaces(path):
    parser = configparser.ConfigParser()
    parser.read(os.path.join(ROOT, path))
    return [line.strip() for line in
            parser.get('DEFAULT', 'namespace').splitlines() if line.strip()]


def test_the_entry_points_are_the_ones_the_references_read():
    setup = read('setup.cfg')
    assert ('oslo.config.opts =\n    %s = heat_breakpoint.opts:list_opts'
            % NAMESPACE) in setup
    assert ('oslo.policy.policies =\n    %s = '
            'heat_breakpoint.policies:list_rules' % NAMESPACE) in setup
    assert generator_namespaces(
        'etc/oslo-config-generator/heat_breakpoint.conf') == [NAMESPACE]
    assert generator_namespaces(
        'etc/oslo-policy-generator/heat_breakpoint.conf') == [NAMESPACE]


def test_the_pages_ask_for_our_namespaces():
    config = read('doc', 'source', 'configuration', 'config.rst')
    assert '.. show-options:: %s\n' % NAMESPACE in config
    policy = read('doc', 'source', 'configuration', 'policy.rst')
    assert (':config-file: ../../etc/oslo-policy-generator/'
            'heat_breakpoint.conf') in policy
    conf = read('doc', 'source', 'conf.py')
    assert 'etc/oslo-config-generator/heat_breakpoint.conf' in conf
    assert 'etc/oslo-policy-generator/heat_breakpoint.conf' in conf


def test_the_configuration_reference_lists_every_option():
    rendered = '\n'.join(config_sphinxext._format_option_help(
        [NAMESPACE], False))
    assert all_opts()
    for group, opt in all_opts():
        assert '.. oslo.config:group:: %s' % group in rendered
        assert '.. oslo.config:option:: %s' % opt.dest in rendered, opt.dest
        assert str(opt.help).split()[0] in rendered


def test_the_policy_reference_lists_every_rule():
    rendered = '\n'.join(policy_sphinxext._format_policy([NAMESPACE]))
    assert rule_names()
    for rule in policies.list_rules():
        assert '\n``%s``\n' % rule.name in rendered, rule.name
        assert ':Default: ``%s``' % rule.check_str in rendered


def test_every_option_the_code_defines_is_listed():
    listed = {opt.dest for _, opt in all_opts()}
    defined = set()
    for top in ('heat_breakpoint', 'heatclient_ext'):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if not name.endswith('.py'):
                    continue
                with open(os.path.join(folder, name),
                          encoding='utf-8') as f:
                    for match in re.finditer(
                            r"cfg\.(\w+)Opt\(\s*'([\w-]+)'", f.read()):
                        # command-line parsers of our own tools are no
                        # options of heat.conf
                        if match.group(1) != 'SubCommand':
                            defined.add(match.group(2).replace('-', '_'))
    assert defined and defined <= listed, defined - listed


def test_every_rule_the_code_enforces_is_listed():
    actions = {rules.INDEX} | set(rules._COMMANDS.values()) | set(
        rules._RELEASES.values())
    enforced = {rules.POLICY_ROOT % action for action in actions}
    assert enforced <= set(rule_names()), enforced - set(rule_names())


def test_the_samples_in_etc_are_up_to_date():
    sample = read('etc', 'heat_breakpoint.conf.sample')
    for group, opt in all_opts():
        assert '[%s]' % group in sample
        assert '#%s = ' % opt.dest in sample, opt.dest
    policy = read('etc', 'heat_breakpoint.policy.yaml.sample')
    for name in rule_names():
        assert '#"%s": ' % name in policy, name


def test_options_are_registered_once_under_their_group():
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    for group, opt in all_opts():
        assert conf[group][opt.dest] == opt.default
