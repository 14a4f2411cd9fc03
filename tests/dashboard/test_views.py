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
"""``openstack stack breakpoint graph``: where the operation stands."""
"""The Breakpoints panel's views against a real local Heat.

Each test launches a stack with breakpoints in its own project of the
local Heat (heat-breakpoint-server, the real Heat engine) and drives the
panel through Django's test client as a member or a reader would: what
the pages show, each action, the policy, CSRF, a stale action and the
masking of hidden values.
"""

import re

import pytest

from heatclient_ext.v1 import manager as bp_v1
from tests.functional import test_engine
from tests.functional import utils

SECRET = test_engine.SECRET
BASE = '/project/breakpoints/'


def stack_url(heat, name, tail=''):
    st = heat.stacks.get(name)
    return '%sstack/%s/%s/%s' % (BASE, name, st.id, tail)


def launch(heat, name, template, *bps, wait=True):
    test_engine.create(heat, name, template, *bps)
    if wait:
        return held(heat, name, len(bps))
    return None


def held(heat, name, count=1, timeout=90):
    manager = bp_v1.BreakpointManager(heat)
    return utils.wait_for(
        lambda: (lambda rows: len(rows) >= count and rows)(
            manager.held_now(name)[1]), timeout, what='holds of %s' % name)


def test_index_lists_the_running_stack_and_what_it_holds(
        login, heat, stack_name):
    launch(heat, stack_name, 'two_branches.yaml', 'a2')
    answer = login('reader').get(BASE)
    assert answer.status_code == 200, answer.content[:2000]
    page = answer.content.decode()
    assert 'data-stack="%s"' % stack_name in page
    assert 'a2 (CREATE)' in page
