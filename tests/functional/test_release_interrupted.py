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
"""A release cut off by its engine's death can be sent again.

Heat clears a hook flag, then the plugin claims the hold. The distributed
tier's chaos test saw heat-engines killed -9 between the two: the hold
was still listed, and every later ``continue`` was refused by Heat (``The
"pre-create" hook is not defined``), the stack held for good. Here the
flag is deleted as such an engine left it, on the real local Heat.
"""

import re

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import utils

RELEASED = re.compile(r'^Breakpoint .+ released \(')


_chain = utils.chain_template


def _clear_flag_as_a_dead_engine_did(server, name):
    with utils.heat_db(server) as db:
        gone = db.execute(
            "DELETE FROM resource_data WHERE key = 'pre-create' AND "
            "resource_id IN (SELECT id FROM resource WHERE name = ?)",
            (name,)).rowcount
    assert gone == 1


def _hold_and_release_events(heat, stack, name):
    """The reasons of the resource's hold and release events, in order."""
    found = ([], [])
    for ev in utils.events(heat, stack, name):
        reason = ev.resource_status_reason or ''
        if reasons.parse_held(reason):
            found[0].append(reason)
        elif RELEASED.match(reason):
            found[1].append(reason)
    return found


def test_continue_after_a_release_cut_off_before_its_claim(heat_server):
    heat = heat_server.client()
    manager = bp_v1.BreakpointManager(heat)
    names = ['cut_a', 'cut_b', 'cut_c']
    heat.stacks.create(
        stack_name='release-cut-off', template=_chain(names),
        environment=registry.apply_to_environment(
            {}, breakpoints.parse_names(['cut_b'])))
    utils.wait_for(lambda: [r['resource'] for r in manager.held_now(
        'release-cut-off')[1]] == ['cut_b'], 60, what='held at cut_b')
    _clear_flag_as_a_dead_engine_did(heat_server, 'cut_b')
    # Still listed as held, and now released by the plugin's claim.
    rows = manager.continue_('release-cut-off')
    assert [row['resource'] for row in rows] == ['cut_b']
    utils.wait_stack(heat, 'release-cut-off', 'CREATE_COMPLETE')
    created = [ev.resource_name for ev in utils.events(heat,
                                                       'release-cut-off')
               if ev.resource_status == 'CREATE_COMPLETE' and
               ev.resource_status_reason == 'state changed']
    assert sorted(created) == sorted(names)
    # One hold, one release: the continue released what the dead engine
    # had not, and nothing released it a second time.
    assert _hold_and_release_events(heat, 'release-cut-off', 'cut_b') == (
        [reasons.held('cut_b', 'CREATE', 'pre-create')],
        [reasons.released('cut_b', protocol.RELEASE_CONTINUE)])


def test_a_stock_hook_not_set_is_still_refused(heat_server):
    heat = heat_server.client()
    heat.stacks.create(stack_name='no-hook-set', template=_chain(['nh_a']))
    utils.wait_stack(heat, 'no-hook-set', 'CREATE_COMPLETE')
    try:
        heat.resources.signal(stack_id='no-hook-set', resource_name='nh_a',
                              data={'unset_hook': 'pre-create'})
    except Exception as exc:  # noqa: Heat's own refusal
        assert 'hook is not defined' in str(exc), exc
    else:
        raise AssertionError('Heat accepted unset_hook of a hook not set')
