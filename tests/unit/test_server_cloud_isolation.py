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
"""The simulated cloud exists in the local server only.

A Heat with the plugin installed loads ``heat_breakpoint.engine`` (through
stevedore) and ``heat_breakpoint.api`` (through paste), never
``heat_breakpoint.server``: no module of those imports the simulation,
and a Heat that loads the plugin the way a heat-engine does offers no
simulated type and simulates no client.
"""

import ast
import os
import subprocess
import sys

import heat_breakpoint

PACKAGE = os.path.dirname(heat_breakpoint.__file__)


def _imports(path):
    with open(path) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            for alias in node.names:
                yield '%s.%s' % (node.module, alias.name)


def test_nothing_outside_the_local_server_imports_the_simulation():
    offenders = []
    for folder, _, files in os.walk(PACKAGE):
        if os.path.join(PACKAGE, 'server') in folder:
            continue
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                if any(i.startswith('heat_breakpoint.server')
                       for i in _imports(path)):
                    offenders.append(os.path.relpath(path, PACKAGE))
    assert offenders == []


def test_entry_points_never_name_the_local_server_but_its_command():
    setup_cfg = os.path.join(PACKAGE, '..', 'setup.cfg')
    with open(setup_cfg) as f:
        lines = [line.strip() for line in f if 'heat_breakpoint.server' in
                 line]
    assert lines == ['heat-breakpoint-server = heat_breakpoint.server:main']


PROBE = '''
import sys
from oslo_service import backend
backend.init_backend(backend.BackendType.THREADING)
from oslo_config import cfg
cfg.CONF([], project='heat', default_config_files=[])
from heat.engine import clients, resources
from heat_breakpoint.engine import plugin  # what stevedore loads
clients.initialise()
resources.initialise()
registry = resources.global_env().registry
simulated = [name for name, info in registry._registry.items()
             if getattr(getattr(info, 'value', None), 'simulated', False)]
plugins = [clients._mgr[name].plugin.__name__ for name in clients._mgr.names()
           if clients._mgr[name].plugin.__name__.startswith('Simulated')]
print(len(registry._registry), simulated, plugins,
      [m for m in sys.modules if m.startswith('heat_breakpoint.server')])
'''


def test_a_heat_with_the_plugin_simulates_nothing():
    result = subprocess.run([sys.executable, '-c', PROBE],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    count, rest = result.stdout.strip().split(' ', 1)
    assert int(count) > 150
    assert rest == '[] [] []'
