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
"""What the editor's adapter imports before it launches its local Heat.

``heat-breakpoint dap`` launches the local Heat first thing; every
module imported before that delays an F5. Checked in a fresh
interpreter, where nothing else was imported first.
"""

import subprocess
import sys

import pytest

#: Modules that must not be imported yet (a prefix matches submodules).
HEAVY = ('heat', 'heatclient', 'keystoneauth1', 'requests', 'sqlalchemy',
         'oslo_config', 'heatclient_ext.dap.session', 'heatclient_ext.shell',
         'heat_breakpoint.server.cli')


def _imported_after(statement):
    script = ('import sys\n%s\nprint("\\n".join(sorted(sys.modules)))'
              % statement)
    out = subprocess.run([sys.executable, '-c', script], check=True,
                         capture_output=True, text=True).stdout
    return set(out.split())


@pytest.mark.parametrize('statement', [
    'from heatclient_ext import console',
    'from heatclient_ext.dap import main',
    'from heatclient_ext.dap import local_process',
    'import heat_breakpoint.server',
])
def test_nothing_heavy_before_the_local_heat_is_launched(statement):
    loaded = _imported_after(statement)
    heavy = sorted(name for name in loaded for prefix in HEAVY
                   if name == prefix or name.startswith(prefix + '.'))
    assert heavy == []
