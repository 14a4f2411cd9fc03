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
"""URLs of the Breakpoints panel: stacks are named ``name/id``, as Heat's."""

from django.urls import re_path

from heatclient_ext.dashboard import views

STACK = r'^stack/(?P<stack_name>[^/]+)/(?P<stack_id>[^/]+)/'

urlpatterns = [
    re_path(r'^$', views.IndexView.as_view(), name='index'),
    re_path(STACK + r'$', views.StackView.as_view(), name='stack'),
    re_path(STACK + r'holds/$', views.HoldsView.as_view(), name='holds'),
    re_path(STACK + r'graph\.svg$', views.GraphView.as_view(),
            name='graph'),
    re_path(STACK + r'action/$', views.ActionView.as_view(),
            name='action'),
    re_path(STACK + r'hold/(?P<resource>.+)/$', views.HoldView.as_view(),
            name='hold'),
]
