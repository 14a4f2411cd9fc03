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
"""A release cut off after its claim, before it sent the check on.

The distributed tier's chaos test saw heat-engines killed -9 in that
moment: the hold was claimed (the resource put back as it was, its hook
flag cleared), the check never sent, and the stack waited for good, as
stock Heat waits for a check lost with its engine. Here the database is
left as such an engine left it, on the real local Heat; the plugin's
scan (``heat_breakpoint.engine.lost_releases``) sends the check again.
"""

import datetime
import json
import os
import sqlite3

from heat_breakpoint import breakpoints
from heat_breakpoint import registry
from heatclient_ext.v1 import breakpoints as bp_v1
from tests.functional import utils

# An engine nobody runs: Heat's liveness call to it goes unanswered.
DEAD_ENGINE = '00000000-dead-4000-8000-000000000000'


def _chain(names):
    resources = {names[0]: {'type': 'OS::Heat::TestResource',
                            'properties': {'value': 'one'}}}
    for before, name in zip(names, names[1:]):
        resources[name] = {'type': 'OS::Heat::TestResource',
                           'properties': {'value': {
                               'get_attr': [before, 'output']}}}
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def _db(server):
    return sqlite3.connect(os.path.join(server.state_dir, 'heat.sqlite'),
                           timeout=30)


def _claim_as_an_engine_that_died(server, name, engine_id, age):
    """What releases.release writes in its claim, and nothing after."""
    with _db(server) as db:
        rsrc_id, traversal = db.execute(
            'SELECT r.id, s.current_traversal FROM resource r JOIN stack s '
            'ON s.id = r.stack_id WHERE r.name = ?', (name,)).fetchone()
        raw, = db.execute("SELECT value FROM resource_data WHERE "
                          "resource_id = ? AND key = 'breakpoint_hold'",
                          (rsrc_id,)).fetchone()
        action, status, reason = json.loads(raw)['prior']
        db.execute('UPDATE resource SET action = ?, status = ?, '
                   'status_reason = ?, atomic_key = atomic_key + 1 '
                   'WHERE id = ?', (action, status, reason, rsrc_id))
        assert db.execute(
            "DELETE FROM resource_data WHERE resource_id = ? AND key IN "
            "('breakpoint_hold', 'pre-create')", (rsrc_id,)).rowcount == 2
        since = datetime.datetime.utcnow() - datetime.timedelta(seconds=age)
        marker = json.dumps({'traversal': traversal, 'engine_id': engine_id,
                             'since': since.isoformat()})
        for key, value in (('breakpoint_released', traversal),
                           ('breakpoint_sending', marker)):
            db.execute("INSERT INTO resource_data (created_at, key, value, "
                       "redact, resource_id) VALUES (?, ?, ?, 0, ?)",
                       (since.isoformat(' '), key, value, rsrc_id))
    return rsrc_id


def _markers(server, rsrc_id):
    with _db(server) as db:
        return db.execute("SELECT count(*) FROM resource_data WHERE "
                          "resource_id = ? AND key = 'breakpoint_sending'",
                          (rsrc_id,)).fetchone()[0]


def _own_engine(server):
    with _db(server) as db:
        return db.execute("SELECT engine_id FROM service WHERE "
                          "deleted_at IS NULL").fetchone()[0]


def _held_then_lost(server, stack, names, engine_id, age):
    heat = server.client()
    manager = bp_v1.BreakpointManager(heat)
    heat.stacks.create(
        stack_name=stack, template=_chain(names),
        environment=registry.apply_to_environment(
            {}, breakpoints.parse_names([names[1]])))
    utils.wait_for(lambda: [r['resource'] for r in manager.held_now(
        stack)[1]] == [names[1]], 60, what='held at %s' % names[1])
    rsrc_id = _claim_as_an_engine_that_died(server, names[1], engine_id,
                                            age)
    # Claimed: nothing is held any more, nothing runs yet.
    assert manager.held_now(stack)[1] == []
    return heat, rsrc_id


def _created_once(heat, stack, names):
    utils.wait_stack(heat, stack, 'CREATE_COMPLETE', timeout=90)
    created = [ev.resource_name for ev in utils.events(heat, stack)
               if ev.resource_status == 'CREATE_COMPLETE' and
               ev.resource_status_reason == 'state changed']
    assert sorted(created) == sorted(names)


def test_the_check_of_a_dead_engine_s_release_is_sent_again(heat_server):
    names = ['lost_a', 'lost_b', 'lost_c']
    heat, rsrc_id = _held_then_lost(heat_server, 'lost-release', names,
                                    DEAD_ENGINE, age=0)
    _created_once(heat, 'lost-release', names)
    assert _markers(heat_server, rsrc_id) == 0
    with open(heat_server.log_file) as log:
        said = [line for line in log if 'Sending again the check' in line]
    assert len(said) == 1, said
    assert DEAD_ENGINE in said[0]


def test_a_release_stuck_in_a_live_engine_is_sent_again(heat_server):
    # A release that failed half-way (a database error) in an engine that
    # still runs: the marker outlived any release, whoever wrote it.
    names = ['stuck_a', 'stuck_b']
    heat, rsrc_id = _held_then_lost(heat_server, 'stuck-release', names,
                                    _own_engine(heat_server), age=600)
    _created_once(heat, 'stuck-release', names)
    assert _markers(heat_server, rsrc_id) == 0


def test_a_release_sent_leaves_no_marker(heat_server):
    names = ['sent_a', 'sent_b', 'sent_c']
    heat = heat_server.client()
    manager = bp_v1.BreakpointManager(heat)
    heat.stacks.create(
        stack_name='release-sent', template=_chain(names),
        environment=registry.apply_to_environment(
            {}, breakpoints.parse_names(['sent_b'])))
    utils.wait_for(lambda: [r['resource'] for r in manager.held_now(
        'release-sent')[1]] == ['sent_b'], 60, what='held at sent_b')
    manager.step('release-sent')
    utils.wait_for(lambda: [r['resource'] for r in manager.held_now(
        'release-sent')[1]] == ['sent_c'], 60, what='stepped to sent_c')
    # The operation still runs (nothing of it is purged yet): the release
    # of sent_b sent its check, which arrived.
    with _db(heat_server) as db:
        found = db.execute(
            "SELECT r.name, d.key FROM resource_data d JOIN resource r ON "
            "r.id = d.resource_id WHERE r.name IN (?, ?, ?)",
            names).fetchall()
    assert ('sent_b', 'breakpoint_released') in found
    assert not [row for row in found if row[1] == 'breakpoint_sending']
    manager.continue_('release-sent')
    _created_once(heat, 'release-sent', names)
