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
"""The heatclient ``Client`` an OSC command runs with.

OSC's ``ClientManager`` gets each plugin's client as an attribute when
the plugin loads (python-heatclient's is ``orchestration``): no type
declares it, so the commands and hooks read it here, in one place.
"""


def orchestration(app):
    """The orchestration client of OSC application ``app``."""
    # Left unannotated: the attribute exists from the plugin's load on.
    return app.client_manager.orchestration
