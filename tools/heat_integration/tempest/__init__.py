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
"""A stand-in for tempest's ``config`` module, for Heat's integration tests.

``heat_integrationtests`` reads its settings from
``tempest.config.CONF.heat_plugin`` (options the heat-tempest-plugin
registers). Tempest itself is not needed to run them against one local
Heat: ``tools/heat_integration.py`` puts this directory first on the
test process's ``sys.path``.
"""
