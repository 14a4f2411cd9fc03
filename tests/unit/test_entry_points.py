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
"""The package's entry points, as Heat and OpenStackClient consume them."""

import contextlib
import io
import logging

import stevedore

from heat_breakpoint.engine import plugin
from heat_breakpoint.engine import seam


def test_heat_finds_our_lifecycle_plugin():
    mgr = stevedore.ExtensionManager('heat.stack_lifecycle_plugins')
    assert 'breakpoint' in mgr.names()
    loaded = mgr['breakpoint'].plugin
    from heat.engine import lifecycle_plugin
    assert issubclass(loaded, lifecycle_plugin.LifecyclePlugin)
    assert loaded is plugin.BreakpointPlugin


def test_global_environment_lists_the_plugin():
    from heat.engine import resources
    resources.initialise()
    plugins = resources.global_env().get_stack_lifecycle_plugins()
    assert ('breakpoint', plugin.BreakpointPlugin) in plugins
    assert seam.installed()


def test_oslo_config_generator_sees_our_options():
    mgr = stevedore.NamedExtensionManager('oslo.config.opts',
                                          ['heat_breakpoint'],
                                          invoke_on_load=False)
    groups = dict((group.name, opts) for group, opts in
                  mgr['heat_breakpoint'].plugin())
    assert {o.name for o in groups['breakpoint']} >= {
        'enabled', 'pause_counts_against_timeout'}


def test_openstack_stack_create_help_builds_with_our_hook():
    from openstackclient import shell
    out = io.StringIO()
    with contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(io.StringIO()):
        try:
            code = shell.main(['stack', 'create', '--help'])
        except SystemExit as exc:
            code = exc.code
    assert code == 0
    text = out.getvalue()
    assert '--breakpoint' in text
    assert '--template' in text  # heatclient's own options survived


def test_seam_refuses_a_heat_that_does_not_look_as_expected(
        monkeypatch, caplog):
    from heat.engine import resource

    def create_convergence(self, template_id, requires):  # changed API
        return 'stock'

    monkeypatch.setattr(resource.Resource, 'create_convergence',
                        create_convergence)
    monkeypatch.setattr(seam, '_installed', False)
    with caplog.at_level(logging.ERROR):
        assert seam.install() is False
    assert 'heat-breakpoint is DISABLED' in caplog.text
    assert 'create_convergence' in caplog.text
    # Heat is left as it was: nothing wrapped.
    assert resource.Resource.create_convergence is create_convergence
    assert not seam.installed()
