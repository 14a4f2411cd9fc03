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
"""Web console cost: the Breakpoints stack page vs heat-dashboard's tab.

A stack of 200 independent ``OS::Heat::None`` resources on a local Heat,
created with breakpoints on 20 of them (``r000`` to ``r019``), all 20
held at once. Horizon (its test settings, heat-dashboard and our panel)
then serves, in this process through Django's test client, alternating:
the panel's stack page (its holds, as ``breakpoint list`` shows them, and
the commands) and heat-dashboard's own Resources tab of the same stack
(as the browser loads it: the tab alone, an XMLHttpRequest). Server time
is the wall time of one request, Heat's answers included. Informational:
the panel's refresh (the holds alone) and its graph (SVG, Graphviz).
Target: stack page / Resources tab <= 1.0 (medians, and pair by pair).

    python benchmarks/dashboard_cost.py [--quick] [--rounds N]

Needs Horizon and heat-dashboard (``pip install -e .[dashboard]``).
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'tests.dashboard.settings')

import _common  # noqa: E402

from heat_breakpoint.model import breakpoints  # noqa: E402
from heat_breakpoint.model import registry  # noqa: E402
from heat_breakpoint.server import fixture  # noqa: E402
from heatclient_ext.v1 import manager as bp_v1  # noqa: E402

RESOURCES = 200
HELD = ['r%03d' % index for index in range(20)]
TARGET = 1.0
PROJECT = 'bench'


def logged_in(server):
    """Django's test client as a member of PROJECT, as the tests log in."""
    import django
    django.setup()
    from django import test
    from django.test import utils as test_utils
    from openstack_auth import utils
    from openstack_dashboard.api import keystone

    from tests.dashboard import conftest
    test_utils.setup_test_environment()  # the test client's host
    who = conftest.make_user(server, PROJECT, 'member')
    utils.get_user = lambda request: who
    keystone.get_identity_api_version = lambda request: (3, 0)
    return test.Client()


def timed(client, url, **headers):
    began = time.perf_counter()
    answer = client.get(url, **headers)
    took = time.perf_counter() - began
    assert answer.status_code == 200, (url, answer.status_code)
    return took, answer.content.decode()


def main():
    parser = _common.parser(__doc__)
    parser.add_argument('--rounds', type=int, default=None)
    args = parser.parse_args()
    rounds = args.rounds or (5 if args.quick else 20)
    _common.header('Web console: Breakpoints stack page vs Resources tab',
                   args.quick)
    clock = _common.Clock()
    with fixture.local_heat('heat-breakpoint-bench-dash-') as server:
        heat = server.client(PROJECT)
        heat.stacks.create(
            stack_name='dash', template=_common.independent(RESOURCES),
            environment=registry.apply_to_environment(
                {}, breakpoints.parse_names(HELD)), timeout_mins=60)
        manager = bp_v1.BreakpointManager(heat)
        deadline = time.monotonic() + 600
        while len(manager.held_now('dash')[1]) < len(HELD):
            if time.monotonic() > deadline:
                raise SystemExit('the 20 holds did not come')
            time.sleep(1)
        st = heat.stacks.get('dash')
        _common.note('stack dash: %d resources, %d held (%s)' % (
            len(heat.resources.list(st.id)), len(HELD), st.stack_status))
        client = logged_in(server)
        ours = '/project/breakpoints/stack/dash/%s/' % st.id
        theirs = '/project/stacks/stack/%s/?tab=stack_details__resources' \
            % st.id
        ajax = {'HTTP_X_REQUESTED_WITH': 'XMLHttpRequest'}
        # Warm both (templates, policy files, the first client).
        page = timed(client, ours)[1]
        assert page.count('data-state="held"') == len(HELD), 'held rows'
        tab = timed(client, theirs, **ajax)[1]
        assert 'r199' in tab and 'r000' in tab, 'the Resources tab'
        samples = {'page': [], 'tab': [], 'holds': [], 'graph': []}
        for round_ in range(rounds):
            for label in _common.order(('page', 'tab'), round_):
                if label == 'page':
                    samples['page'].append(timed(client, ours)[0])
                else:
                    samples['tab'].append(timed(client, theirs, **ajax)[0])
            samples['holds'].append(timed(client, ours + 'holds/')[0])
            if round_ < 5:
                samples['graph'].append(timed(client, ours + 'graph.svg')[0])
        _common.note(_common.describe('Breakpoints stack page', samples[
            'page']))
        _common.note(_common.describe('heat-dashboard Resources tab',
                                      samples['tab']))
        _common.note(_common.describe('(info) page refresh (holds)',
                                      samples['holds']))
        _common.note(_common.describe('(info) graph.svg', samples['graph']))
        _common.note(_common.ratio('page / Resources tab (medians)',
                                   samples['page'], samples['tab']))
        _common.note(_common.paired('page / Resources tab (pairs)',
                                    samples['page'], samples['tab']))
        ratio = _common.median(samples['page']) / _common.median(
            samples['tab'])
        _common.note('target <= %.1f: %s' % (
            TARGET, 'met' if ratio <= TARGET else 'NOT met'))
    clock.footer()


if __name__ == '__main__':
    main()
