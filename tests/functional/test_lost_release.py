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
flag cleared, the release's event written), the check never sent, and
the stack waited for good, as stock Heat waits for a check lost with its
engine. Here the real release is cut off right after its real claim
(``heat_plugins/cut_release.py``, loaded as a Heat plugin module), on the
real local Heat: the server is killed -9 there and started again, or the
release fails there and the server goes on. The plugin's scan
(``heat_breakpoint.engine.commands.lost_releases``) sends the check
again, once,
and the release is counted once: one release event, one check
re-dispatched (Heat's own ``Re-trigger resource`` line), each resource
created once.
"""

import json
import os
import re
import signal
import time

import pytest

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import utils

#: Heat's plugin directory of the servers that cut releases off.
PLUGINS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'heat_plugins')
#: The age from which the cut server takes its own marker for lost (the
#: product's minute, shortened: see ``heat_plugins/cut_release.py``).
STUCK_SECONDS = 15
RELEASED = re.compile(r'^Breakpoint .+ released \(')


_chain = utils.chain_template


def _db(server):
    return utils.heat_db(server)


def _cut_server(tmp_path, monkeypatch, cut, stuck=None):
    """A local server whose releases of ``cut`` stop after the claim."""
    conf = tmp_path / 'cut-release.conf'
    conf.write_text('[DEFAULT]\nplugin_dirs = %s\n' % PLUGINS)
    monkeypatch.setenv('CUT_RELEASE', cut)
    if stuck is not None:
        monkeypatch.setenv('CUT_RELEASE_STUCK_SECONDS', str(stuck))
    return conftest.LocalHeatProcess(
        str(tmp_path / 'state'), config_files=[str(conf)]).start(reset=True)


def _held(server, stack, names):
    """The chain created, held before its second resource."""
    heat = server.client()
    manager = bp_v1.BreakpointManager(heat)
    heat.stacks.create(
        stack_name=stack, template=_chain(names),
        environment=registry.apply_to_environment(
            {}, breakpoints.parse_names([names[1]])))
    utils.wait_for(lambda: [r['resource'] for r in manager.held_now(
        stack)[1]] == [names[1]], 60, what='held at %s' % names[1])
    return heat, manager


def _engine_ids(server):
    with _db(server) as db:
        return [row[0] for row in db.execute(
            'SELECT engine_id FROM service WHERE deleted_at IS NULL')]


def _left(server, name):
    """What the database holds of one resource: as an operator looks."""
    with _db(server) as db:
        rsrc_id, action, status, locked, traversal = db.execute(
            'SELECT r.id, r.action, r.status, r.engine_id, '
            's.current_traversal FROM resource r JOIN stack s ON '
            's.id = r.stack_id WHERE r.name = ?', (name,)).fetchone()
        data = dict(db.execute('SELECT key, value FROM resource_data '
                               'WHERE resource_id = ?', (rsrc_id,)))
        told = [row[0] for row in db.execute(
            'SELECT resource_status_reason FROM event WHERE '
            'resource_name = ? ORDER BY id', (name,))]
    return {'id': rsrc_id, 'state': (action, status), 'locked': locked,
            'traversal': traversal, 'data': data, 'events': told}


def _holds_and_releases(reasons_told):
    return ([r for r in reasons_told if reasons.parse_held(r)],
            [r for r in reasons_told if RELEASED.match(r or '')])


def _as_a_claim_left_it(left, name, engine_id):
    """The hold claimed, its release counted, its check not sent."""
    assert left['state'] == ('INIT', 'COMPLETE'), left  # put back
    assert left['locked'] is None, left  # no check runs it
    assert 'breakpoint_hold' not in left['data'], left
    assert 'pre-create' not in left['data'], left
    assert left['data'].get('breakpoint_released') == left['traversal']
    marker = json.loads(left['data']['breakpoint_sending'])
    assert (marker['traversal'], marker['engine_id']) == (
        left['traversal'], engine_id), marker
    assert _holds_and_releases(left['events']) == (
        [reasons.held(name, 'CREATE', 'pre-create')],
        [reasons.released(name, protocol.RELEASE_CONTINUE)]), left['events']


def _counted_once(server, stack, names, name, rsrc_id):
    """Complete; each created, held and released once; sent again once.

    Returns the log line that said the check was sent again.
    """
    heat = server.client()
    _created_once(heat, stack, names)
    assert _holds_and_releases(
        [ev.resource_status_reason
         for ev in utils.events(heat, stack, name)]) == (
        [reasons.held(name, 'CREATE', 'pre-create')],
        [reasons.released(name, protocol.RELEASE_CONTINUE)])
    assert 'breakpoint_sending' not in _left(server, name)['data']
    said, sent = _sent_again(server, rsrc_id)
    assert (len(said), sent) == (1, 1), (said, sent)
    return said[0]


def _sent_again(server, rsrc_id):
    """The scan's lines about the resource, and its checks re-dispatched.

    The second: Heat's own ``Re-trigger resource`` line, one per check
    re-dispatched (by a release or by the scan), whoever asked.
    """
    with open(server.log_file) as log:
        text = log.read()
    said = [line for line in text.splitlines()
            if 'Sending again the check of resource %d ' % rsrc_id in line]
    sent = re.findall(r'Re-trigger resource: ConvergenceNode\(rsrc_id=%d,'
                      % rsrc_id, text)
    return said, len(sent)


def _created_once(heat, stack, names):
    utils.wait_stack(heat, stack, 'CREATE_COMPLETE', timeout=90)
    created = [ev.resource_name for ev in utils.events(heat, stack)
               if ev.resource_status == 'CREATE_COMPLETE' and
               ev.resource_status_reason == 'state changed']
    assert sorted(created) == sorted(names)


def test_the_check_of_a_release_killed_after_its_claim_is_sent_again(
        tmp_path, monkeypatch):
    names = ['lost_a', 'lost_b', 'lost_c']
    server = _cut_server(tmp_path, monkeypatch, 'die:lost_b')
    try:
        heat, manager = _held(server, 'lost-release', names)
        engine_id, = _engine_ids(server)
        with pytest.raises(Exception):  # the server dies answering
            manager.continue_('lost-release')
        assert server.proc.wait(30) == -signal.SIGKILL
        left = _left(server, 'lost_b')
        _as_a_claim_left_it(left, 'lost_b', engine_id)
    finally:
        server.stop()
    # Started again on its state, as shipped: another heat-engine, which
    # finds the marker of one that does not answer.
    server.config_files = []
    monkeypatch.delenv('CUT_RELEASE')
    server.start()
    try:
        said = _counted_once(server, 'lost-release', names, 'lost_b',
                             left['id'])
        assert 'released by heat-engine %s' % engine_id in said, said
    finally:
        server.remove()


def test_a_release_cut_off_in_a_live_engine_is_sent_again_once(
        tmp_path, monkeypatch):
    # A release that failed half-way (a database error) in an engine that
    # still runs: the marker outlives any release, whoever wrote it.
    names = ['stuck_a', 'stuck_b', 'stuck_c']
    server = _cut_server(tmp_path, monkeypatch, 'fail:stuck_b',
                         stuck=STUCK_SECONDS)
    try:
        heat, manager = _held(server, 'stuck-release', names)
        engine_id, = _engine_ids(server)
        with pytest.raises(Exception):  # the release failed
            manager.continue_('stuck-release')
        cut_at = time.monotonic()
        left = _left(server, 'stuck_b')
        _as_a_claim_left_it(left, 'stuck_b', engine_id)
        # Claimed: nothing is held any more, nothing runs yet.
        assert manager.held_now('stuck-release')[1] == []
        said = _counted_once(server, 'stuck-release', names, 'stuck_b',
                             left['id'])
        # Its engine answers Heat's liveness call: only the marker's age
        # made it lost.
        waited = time.monotonic() - cut_at
        assert waited >= STUCK_SECONDS - 1, (
            'sent again %.1f s after the cut, before the marker was %d s '
            'old, though its engine answers' % (waited, STUCK_SECONDS))
        assert 'released by heat-engine %s' % engine_id in said, said
    finally:
        server.remove()


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
    # Each release sent its check once; the scan sent none again.
    for name in names[1:]:
        assert _sent_again(heat_server, _left(heat_server, name)['id']) == (
            [], 1), name
