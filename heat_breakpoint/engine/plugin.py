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
"""The lifecycle-callback plugin that stevedore loads into heat-engine.

Heat loads every class registered under ``heat.stack_lifecycle_plugins``
when it builds its global environment, in every heat-engine process.
Loading this module installs the resource-level hold (see
:mod:`heat_breakpoint.engine.seam`), because the convergence engine never
calls lifecycle plugins for create, update or delete.
"""

from heat.engine import lifecycle_plugin

from heat_breakpoint.engine import seam
from heat_breakpoint import opts


class BreakpointPlugin(lifecycle_plugin.LifecyclePlugin):
    """Stack breakpoints: hold the resource walk at chosen resources."""

    def do_pre_op(self, cnxt, stack, current_stack=None, action=None):
        pass

    def do_post_op(self, cnxt, stack, current_stack=None, action=None,
                   is_stack_failure=False):
        pass


opts.register_opts()
seam.install()
