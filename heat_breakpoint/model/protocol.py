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
"""The keys of the signals a client sends the engine, and their values.

A release is Heat's own ``{"unset_hook": hook}`` signal with
:data:`SIGNAL_KEY` saying which command released the hold; a command that
changes the running operation without releasing anything is a signal
with :data:`COMMAND_KEY`. The client extension writes them, the engine
plugin and the policy rules read them: this is the wire between the two
halves, and it stays free of Heat imports.
"""

from heat_breakpoint.model import kinds

# Extra key of the stock ``{"unset_hook": ...}`` signal that says which of
# our commands released the hold. Stock Heat ignores it.
SIGNAL_KEY = 'breakpoint_release'
RELEASE_CLEAR = 'clear'
# The exits (:mod:`.kinds`) are releases of their own name.
RELEASE_STEP = kinds.STEP.name
RELEASE_CONTINUE = kinds.CONTINUE.name
RELEASE_RUN_TO = 'run to'
# An editor's Continue (the DAP adapter): the thread's holds released, every
# other breakpoint kept armed, as a debugger's continue does; what the
# engine does is a clear's, what the stack event says is the user's verb.
RELEASE_RESUME = 'continue, breakpoints kept'
RELEASE_RETRY = kinds.RETRY.name
RELEASE_RETAIN = kinds.RETAIN.name
RELEASE_HOOK_CLEAR = 'hook clear'
RELEASE_TIMEOUT = 'stack timed out'
RELEASE_CANCEL = 'operation cancelled'
RELEASE_SUPERSEDED = 'superseded by a newer operation'
# The hold's stack (or its root) failed while it was held: Heat ended the
# operation's traversal, and nothing of it goes on.
RELEASE_FAILED = 'stack failed'
# With a release: when the hold it means began (the view's held_since).
# A release sent again after its first took effect (its answer lost with
# an engine) then finds another hold there, or none, and releases nothing.
SIGNAL_HELD_SINCE_KEY = 'breakpoint_held_since'
# With a continue: how many nested stacks down it disarms breakpoints
# (``--nested-depth``); without, every level.
SIGNAL_DEPTH_KEY = 'breakpoint_depth'
RELEASES = (RELEASE_CLEAR, RELEASE_RUN_TO, RELEASE_RESUME) + tuple(
    way.name for way in kinds.EXITS)

# A signal carrying this key (and no ``unset_hook``) changes the running
# operation without releasing anything: 'set' arms a resource, 'clear'
# disarms one not reached yet, 'to' makes it the only one to hold.
COMMAND_KEY = 'breakpoint_command'
# The command's resource path below the signalled stack, when it reaches
# into nested stacks (a resource name cannot hold '/').
COMMAND_PATH_KEY = 'breakpoint_path'
# When a ``set`` holds: before (default), after, failed, changed, replaced.
COMMAND_WHEN_KEY = 'breakpoint_when'
