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
"""Horizon's enabled file: the Breakpoints panel in Project -> Orchestration.

Copied into ``openstack_dashboard/local/enabled/`` next to heat-dashboard's
``_1610_project_orchestration_panel.py`` (whose panel group it joins). It
also adds a Breakpoints tab to heat-dashboard's stack detail page, shown
while the stack holds, with a link to the panel.
"""

PANEL = 'breakpoints'
PANEL_DASHBOARD = 'project'
PANEL_GROUP = 'orchestration'
ADD_PANEL = 'heatclient_ext.dashboard.panel.Breakpoints'
ADD_INSTALLED_APPS = ['heatclient_ext.dashboard']
EXTRA_TABS = {
    'heat_dashboard.content.stacks.tabs.StackDetailTabs': (
        'heatclient_ext.dashboard.tabs.BreakpointsTab',),
}
