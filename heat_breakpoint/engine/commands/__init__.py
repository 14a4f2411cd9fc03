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
"""What users say to a running operation, and what it leads to.

Every command arrives as a resource signal (:mod:`.signals`): a release
resumes a hold (:mod:`.releases`, a step going where :mod:`.stepping`
planned), a command changes what holds without releasing anything
(:mod:`.commands`). A release cut off with its engine is sent again
(:mod:`.lost_releases`); both send the check on the operation's own
credentials (:mod:`.credentials`). Time held is taken off the stack's
clock (:mod:`.deadlines`).
"""
