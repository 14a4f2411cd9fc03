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
"""The one exception the client half raises for a user's mistake.

Both CLIs turn it (and the model's ``BreakpointError``) into a one-line
message on stderr and exit code 1; anything else is a bug and keeps its
traceback under ``--debug``.
"""

from heat_breakpoint.model import breakpoints


class BreakpointCommandError(breakpoints.BreakpointError):
    """A breakpoint command cannot do what it was asked; one-line message."""


# What the shells report as a one-line error.
USER_ERRORS = (breakpoints.BreakpointError,)


def one_line(text) -> str:
    """A message folded to one line, as the shells print it."""
    return ' '.join(str(text).split())
