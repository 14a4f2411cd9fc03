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
"""A stack's stored environment: read, changed, and the files sent.

Its own part of the client API because both the commands (a clear of a
stack with nothing running removes the breakpoint from it) and the
operations (a delete's breakpoints are stored before it starts) change
it; neither needs the other for that.
"""

from heatclient.common import template_utils
from heatclient import exc as heat_exc

from heat_breakpoint.model import registry
from heatclient_ext.v1 import environment


class StoredEnvironment:
    """The environment files to send, and the stack's stored one."""

    def __init__(self, client) -> None:
        self.client = client

    def prepare(self, env_paths, add=(), remove=(), stack=None,
                existing=False, template_names=None, extra_hooks=()):
        """The environment files to send; see :mod:`.environment`."""
        return environment.prepare(self.client, env_paths, add, remove,
                                   stack, existing, template_names,
                                   extra_hooks)

    def stored_breakpoints(self, stack) -> list:
        """The breakpoints in a stack's stored environment.

        An update with ``--existing`` keeps them. None of an unknown
        stack: the command sent next says so in heatclient's words.
        """
        try:
            return registry.from_environment(
                self.client.stacks.environment(stack))
        except heat_exc.HTTPNotFound:
            return []

    def update(self, stack_ident: str, add=(), remove=()) -> None:
        """PATCH the stored environment: the stack's template is kept."""
        prepared = self.prepare([], add, remove, stack_ident, existing=True)
        try:
            tracker: list = []
            files, env = (
                template_utils.process_multiple_environments_and_files(
                    env_paths=prepared.paths, env_list_tracker=tracker))
            self.client.stacks.update(
                stack_id=stack_ident, existing=True, template=None,
                parameters={}, files=files, environment=env,
                environment_files=tracker)
        finally:
            prepared.cleanup()
