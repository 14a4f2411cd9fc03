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
"""One convergence check: its facts gathered once, what holds, the hold.

The seam runs each resource check through these modules in order:
:mod:`.facts` (what decides, read once), :mod:`.decision` (pure: what
holds), :mod:`.parking` (a hold before the action),
:mod:`.planned_changes` (a hold on what an update plans),
:mod:`.outcomes` (after the action, or on its failure). A hold is
stored by :mod:`.hold_records` and told in events (:mod:`.events`); a
remote stack takes none of its parent's breakpoints
(:mod:`.remote_stacks`).
"""
