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
"""The keys of ours in Heat's ``resource_data`` table.

A hold is kept on its resource, in Heat's own resource data, beside
Heat's hook flags: whoever reads the resource (any heat-engine, the
breakpoints view, the purge) finds it there. Every key is written for one
traversal and names it. The engine writes them through Heat's Resource
(:mod:`heat_breakpoint.engine.check.hold_records`); the purge and the
operator's commands find them by these names, without Heat's engine.
"""

#: The JSON record of a hold in place.
HOLD_KEY = 'breakpoint_hold'
#: The traversal whose hold was released: its re-dispatched check goes on.
RELEASED_KEY = 'breakpoint_released'
#: What the re-dispatched check of a hold after the action or on its
#: failure does (:mod:`heat_breakpoint.engine.check.outcomes`).
RESUME_KEY = 'breakpoint_resume'
#: The change a hold on a planned change decided
#: (:mod:`heat_breakpoint.engine.check.planned_changes`).
PLANNED_KEY = 'breakpoint_planned'
#: A claimed release has not sent its check yet, and which heat-engine
#: claimed it (:mod:`heat_breakpoint.engine.commands.lost_releases`).
SENDING_KEY = 'breakpoint_sending'

#: Every resource data key the plugin writes.
DATA_KEYS = (HOLD_KEY, RELEASED_KEY, RESUME_KEY, PLANNED_KEY, SENDING_KEY)
#: The keys a release leaves for the check it re-dispatches.
NOTE_KEYS = (RELEASED_KEY, RESUME_KEY, PLANNED_KEY, SENDING_KEY)
