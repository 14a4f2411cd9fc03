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
"""Scenarios 1, 4, 7... of the plan (see scenarios.py)."""

import pytest

from tests.interaction import scenarios


@pytest.mark.parametrize('scenario', scenarios.params(1))
def test_scenario(scenario, heat_server, stock_server, references,
                  workdir):
    scenarios.run_scenario(scenario, heat_server, stock_server, references,
                           workdir)
