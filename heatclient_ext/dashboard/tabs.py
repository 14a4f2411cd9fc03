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
"""A Breakpoints tab on heat-dashboard's stack detail page, while it holds.

Added to heat-dashboard's ``StackDetailTabs`` by the enabled file
(Horizon's ``EXTRA_TABS``): where the stack's running operation holds,
the tab names the holds and links to the stack's page in the panel. It
costs one request to Heat, for stacks with an operation running only.
"""

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from horizon import tabs
from openstack_auth import policy

from heatclient_ext.dashboard import actions
from heatclient_ext.dashboard import views
from heatclient_ext import exceptions
from heatclient_ext.v1 import manager as bp_v1

TAB_GROUP = 'heat_dashboard.content.stacks.tabs.StackDetailTabs'


class BreakpointsTab(tabs.Tab):
    name = _('Breakpoints')
    slug = 'breakpoints'
    template_name = 'breakpoints/_stack_tab.html'

    def held(self, request) -> list:
        if not hasattr(self, '_held'):
            stack = self.tab_group.kwargs['stack']
            try:
                self._held = views.manager_for(request).held_now(
                    bp_v1.ident(stack))[1]
            except exceptions.USER_ERRORS:
                self._held = []
        return self._held

    def allowed(self, request):
        stack = self.tab_group.kwargs.get('stack')
        return (stack is not None and
                (stack.stack_status or '').endswith('_IN_PROGRESS') and
                policy.check((actions.INDEX_RULE,), request) and
                bool(self.held(request)))

    def get_context_data(self, request):
        stack = self.tab_group.kwargs['stack']
        return {'stack': stack, 'held': bp_v1.held_text(self.held(request)),
                'url': reverse('horizon:project:breakpoints:stack',
                               args=(stack.stack_name, stack.id))}
