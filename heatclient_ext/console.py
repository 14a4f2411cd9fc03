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
"""Console script ``heat-breakpoint``: the legacy shell, or ``dap``.

Imports nothing until it knows which: ``heat-breakpoint dap`` launches
its local Heat before it imports the rest of itself
(:mod:`heatclient_ext.dap.local_process`), and the shell's imports
would come first if this were :mod:`heatclient_ext.shell`.
"""

import sys


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ['dap']:
        # The editor's front end has its own options and speaks DAP.
        from heatclient_ext.dap import main as dap_main
        return dap_main.main(argv[1:])
    from heatclient_ext import shell
    return shell.main(argv)
