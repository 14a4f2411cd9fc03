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
"""tools/heat_integration.py's verdict, tables and tempest stand-in."""

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _load('heat_integration', os.path.join(ROOT, 'tools',
                                              'heat_integration.py'))
stand_in = _load('tempest_config_stand_in', os.path.join(
    ROOT, 'tools', 'heat_integration', 'tempest', 'config.py'))

P = 'heat_integrationtests.functional.'
GROUP = P + 'test_resource_group.ResourceGroupTest.test_props_update'
ZERO = (P + 'test_resource_group.ResourceGroupTest.'
        'test_resource_group_zero_novalidate')
TR = (P + 'test_template_resource.TemplateResourceUpdateTest.'
      'test_template_resource_update_template_schema(provider_change)')


def test_ids_name_module_class_and_method_without_the_scenario():
    assert tool.short_id(TR) == (
        'test_template_resource.TemplateResourceUpdateTest.'
        'test_template_resource_update_template_schema(provider_change)')
    assert tool.module_of(TR) == 'test_template_resource'
    assert tool.class_and_method(TR) == (
        'TemplateResourceUpdateTest.'
        'test_template_resource_update_template_schema')


def test_outcomes_with_a_known_difference():
    known = {'ResourceGroupTest.test_resource_group_zero_novalidate': 'x'}
    assert tool.outcome('success', ZERO, known) == tool.PASSED
    assert tool.outcome('skip', ZERO, known) == tool.SKIPPED
    assert tool.outcome('fail', ZERO, known) == tool.EXPECTED
    assert tool.outcome('fail', GROUP, known) == tool.FAILED
    # A whole class may be a known difference.
    assert tool.outcome('fail', GROUP, {'ResourceGroupTest': 'y'}) == \
        tool.EXPECTED
    # Anything else that is not a pass or a skip is a failure.
    assert tool.outcome('uxsuccess', GROUP, known) == tool.FAILED


def test_a_regression_fails_with_the_plugin_or_breakpoints_and_passes_stock():
    by_way = {
        tool.STOCK: {GROUP: tool.PASSED, TR: tool.FAILED, ZERO: tool.PASSED},
        tool.PLUGIN: {GROUP: tool.FAILED, TR: tool.FAILED,
                      ZERO: tool.PASSED},
        tool.BREAKPOINTS: {GROUP: tool.PASSED, TR: tool.PASSED,
                           ZERO: tool.FAILED},
    }
    # TR fails stock too: a difference to explain, not ours.
    assert tool.regressions(by_way) == [(tool.PLUGIN, GROUP),
                                        (tool.BREAKPOINTS, ZERO)]
    assert [t for t, _seen in tool.differences(by_way)] == sorted(
        [GROUP, TR, ZERO])


def test_no_regression_without_a_stock_pass():
    by_way = {tool.PLUGIN: {GROUP: tool.FAILED}}
    assert tool.regressions(by_way) == []
    by_way[tool.STOCK] = {GROUP: tool.SKIPPED}
    assert tool.regressions(by_way) == []


def test_the_table_counts_per_module_and_way():
    by_way = {
        tool.PLUGIN: {GROUP: tool.PASSED, ZERO: tool.EXPECTED,
                      TR: tool.SKIPPED},
        tool.STOCK: {GROUP: tool.FAILED, ZERO: tool.EXPECTED,
                     TR: tool.PASSED},
    }
    lines = tool.format_tables(by_way).splitlines()
    assert lines[0].split() == ['module', 'plugin', 'stock']
    rows = {line.split()[0]: line.split()[1:] for line in lines[3:]
            if not line.startswith('-')}
    assert rows['test_resource_group'] == ['1', '0', '0', '1',
                                           '0', '1', '0', '1']
    assert rows['test_template_resource'] == ['0', '0', '1', '0',
                                              '1', '0', '0', '0']
    assert rows['total'] == ['1', '0', '1', '1', '1', '1', '0', '1']


def test_every_breakpoint_is_added_to_what_the_test_sent():
    sent = {'resource_registry': {'My::T': 't.yaml'}}
    env = tool.with_every_breakpoint(sent)
    assert env == {'resource_registry': {'My::T': 't.yaml'},
                   'breakpoints': ['*']}
    assert 'breakpoints' not in sent
    assert tool.with_every_breakpoint(None) == {'breakpoints': ['*']}
    assert tool.with_every_breakpoint({'breakpoints': 'a'}) == {
        'breakpoints': ['a', '*']}
    assert tool.with_every_breakpoint({'breakpoints': ['*']}) == {
        'breakpoints': ['*']}


def test_the_server_must_prove_its_way():
    plugin = ('heat-integration: way=plugin lifecycle_plugins=breakpoint '
              'engine_plugin_imported=True paste_flavor=noauth_breakpoint')
    stock = ('heat-integration: way=stock lifecycle_plugins=- '
             'engine_plugin_imported=False paste_flavor=noauth')
    assert tool.server_proves(tool.PLUGIN, 'x\n' + plugin) == plugin
    assert tool.server_proves(tool.STOCK, stock) == stock
    with pytest.raises(tool.IntegrationError, match='wrong Heat'):
        tool.server_proves(tool.STOCK, plugin.replace('way=plugin',
                                                      'way=stock'))
    with pytest.raises(tool.IntegrationError, match='wrong Heat'):
        tool.server_proves(tool.PLUGIN, stock)
    with pytest.raises(tool.IntegrationError, match='never said'):
        tool.server_proves(tool.PLUGIN, 'Stop with Ctrl-C.')


def test_known_and_needed_tests_name_real_classes():
    for key in list(tool.KNOWN) + list(tool.NEEDS):
        assert key.split('.')[0][0].isupper(), key
        assert len(key.split('.')) <= 2, key


def test_args_default_to_every_module_or_the_subset():
    assert tool.parse_args([]).tests == tool.MODULES
    args = tool.parse_args(['--subset', '--ways', 'plugin,stock'])
    assert args.tests == tool.SUBSET and args.ways == ['plugin', 'stock']
    assert set(tool.MODULES).isdisjoint(tool.LEFT_OUT)
    assert {s.split('.')[0] for s in tool.SUBSET} <= set(tool.MODULES)
    with pytest.raises(SystemExit):
        tool.parse_args(['--ways', 'plugin,nova'])


def test_the_stand_in_config_reads_overrides_and_refuses_typos():
    conf = stand_in.load({'HEAT_PLUGIN_BUILD_TIMEOUT': '42',
                          'HEAT_PLUGIN_SKIP_FUNCTIONAL_TEST_LIST': 'A.b, C',
                          'HEAT_PLUGIN_CONVERGENCE_ENGINE_ENABLED': 'false',
                          'OTHER': 'ignored'})
    assert conf.build_timeout == 42
    assert conf.skip_functional_test_list == ['A.b', 'C']
    assert conf.convergence_engine_enabled is False
    assert conf.username and conf.password and conf.auth_url
    with pytest.raises(KeyError, match='HEAT_PLUGIN_BUILD_TIMOUT'):
        stand_in.load({'HEAT_PLUGIN_BUILD_TIMOUT': '1'})
