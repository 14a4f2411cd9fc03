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
"""A remote stack takes none of its parent's breakpoints.

``OS::Heat::Stack`` creates another stack tree, through Heat's API, with
an environment Heat builds from its parent's
(``environment.get_child_environment``): every hook and every parameter
default, our marker among them. The parent's breakpoints would then hold
in a tree its ``step`` and ``continue`` never reach, or fail the child's
validation when it has no resource of their name. The remote stack gets
its parent's environment without them (their hooks and the marker); the
hooks a user set by hand go along, as in stock Heat. Breakpoints of the
remote stack are given to that stack itself.
"""

from oslo_config import cfg
from oslo_log import log as logging

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry

LOG = logging.getLogger(__name__)


def without_breakpoints(parent_env):
    """Heat's ``Environment`` of the parent, less its breakpoints."""
    from heat.engine import environment
    env = parent_env.user_env_as_dict()
    try:
        found = registry.from_environment(env)
        if not found:
            return parent_env
        env = registry.remove_from_environment(env, found)
    except breakpoints.BreakpointError as exc:
        # Not ours to judge here: without the marker, what is left are
        # hooks, as stock Heat passes them on.
        LOG.warning('Remote stack: dropping an unreadable breakpoint '
                    'marker of its parent (%s)', exc)
        defaults = dict(env.get('parameter_defaults') or {})
        defaults.pop(registry.MARKER, None)
        env = dict(env, parameter_defaults=defaults)
    return environment.Environment(env)


class RemoteEnvironment(object):
    """``heat.engine.environment`` as Heat's remote stack resource sees it.

    The same module, but a child environment is made from the parent's
    without its breakpoints.
    """

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name)

    def get_child_environment(self, parent_env, child_params, *args,
                              **kwargs):
        if cfg.CONF.breakpoint.enabled:
            parent_env = without_breakpoints(parent_env)
        return self._module.get_child_environment(parent_env, child_params,
                                                  *args, **kwargs)
