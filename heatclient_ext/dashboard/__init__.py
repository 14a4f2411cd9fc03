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
"""Breakpoints in the web console: a Horizon plugin (Project -> Orchestration).

A Django app for Horizon with heat-dashboard: the stacks whose running
operation holds, a stack's holds as ``openstack stack breakpoint list``
shows them, a hold's detail as ``show`` gives it, the dependency graph of
``graph``, and the commands (step, continue, set, clear, retry, retain,
cancel). Everything goes through :mod:`heatclient_ext.v1` with the
logged-in user's token; no service account is involved. Install with
``pip install heat-breakpoint[dashboard]``, then copy the files of
``enabled/`` into Horizon's ``openstack_dashboard/local/enabled/`` and
those of ``local_settings/`` into its ``local/local_settings.d/``.
"""
