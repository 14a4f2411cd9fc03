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
"""No row of ours outlives its operation; the operator's commands say so.

On a server of its own (``heat-breakpoint-manage rows`` counts the whole
database): updates held on a planned replacement inside a nested stack,
cancelled with a racing release, cancelled plainly, and released so the
replacement goes on (Heat deletes the replaced resource's row, SQLite
keeps its data). Then ``rows`` counts 0 for every table and resource
data key of ours, and ``purge`` finds an orphan. Before ``db_sync`` and
without the named configuration file the commands say what is wrong.
"""

import os
import subprocess
import sys
import tempfile

import pytest

from heat_breakpoint.model import protocol
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import test_cancel
from tests.functional import utils

MANAGE = os.path.join(os.path.dirname(sys.executable),
                      'heat-breakpoint-manage')
KEYS = ('breakpoint_hold', 'breakpoint_planned', 'breakpoint_released',
        'breakpoint_resume', 'breakpoint_sending')


@pytest.fixture(scope='module')
def own_server():
    server = conftest.LocalHeatProcess(
        tempfile.mkdtemp(prefix='heat-breakpoint-rows-')).start(reset=True)
    yield server
    server.remove()


def manage(server, *argv, conf=None):
    return subprocess.run(
        [MANAGE, '--config-file',
         conf or os.path.join(server.state_dir, 'heat.conf')] + list(argv),
        capture_output=True, text=True, timeout=120)


def counts(server):
    result = manage(server, 'rows')
    assert result.returncode == 0, result.stderr
    return dict((name, int(count)) for name, count in (
        line.rsplit(': ', 1) for line in result.stdout.splitlines()))


def held_on_replace(server, heat, name):
    test_cancel.create(server, heat, name, 1)
    test_cancel.osc(server, 'stack', 'update', name, '--existing',
                    '--parameter', 'val=v2', '--breakpoint-on-replace',
                    'inner/rep')
    return test_cancel.wait_hold(heat, name, 'inner/rep',
                                 'UPDATE_IN_PROGRESS')


def settled(heat, name):
    return utils.wait_for(
        lambda: (lambda s: not s.endswith('IN_PROGRESS') and s)(
            heat.stacks.get(name).stack_status), 150, what='settled')


def test_no_rows_left_after_cancelled_and_released_replacements(own_server):
    heat = own_server.client()
    manager = bp_v1.BreakpointManager(heat)
    # Cancelled, a release racing the cancel.
    rows = held_on_replace(own_server, heat, 'raced')
    heat.actions.cancel_update('raced')
    manager.release('raced', 'inner/rep', protocol.RELEASE_STEP, rows)
    # Cancelled, nothing else said: the rollback ends the hold.
    held_on_replace(own_server, heat, 'plain')
    heat.actions.cancel_update('plain')
    # Released: the replacement goes on, the replaced row goes.
    rows = held_on_replace(own_server, heat, 'replaced')
    manager.release('replaced', 'inner/rep', protocol.RELEASE_CLEAR, rows)
    assert settled(heat, 'raced') == 'ROLLBACK_COMPLETE'
    assert settled(heat, 'plain') == 'ROLLBACK_COMPLETE'
    assert settled(heat, 'replaced') == 'UPDATE_COMPLETE'
    found = counts(own_server)
    assert set(found) == {'breakpoint_operation', 'breakpoint_hold_target',
                          'breakpoint_pause'} | {
        'resource_data.' + key for key in KEYS}, found
    utils.wait_for(lambda: not any(counts(own_server).values()), 30,
                   what='no rows of ours: %s' % found)


def test_purge_finds_an_orphan(own_server):
    with utils.heat_db(own_server) as db:
        db.execute("INSERT INTO resource_data (created_at, key, value, "
                   "redact, resource_id) VALUES ('2026-01-01 00:00:00', "
                   "'breakpoint_planned', '{}', 0, 999999)")
    assert counts(own_server)['resource_data.breakpoint_planned'] == 1
    result = manage(own_server, 'purge')
    assert result.returncode == 0, result.stderr
    assert 'resource_data.breakpoint_planned: 1 rows purged' in \
        result.stdout
    assert not any(counts(own_server).values())


def test_commands_say_what_is_wrong_without_a_traceback(own_server,
                                                        tmp_path):
    empty = tmp_path / 'empty.conf'
    empty.write_text('[database]\nconnection = sqlite:///%s\n'
                     % (tmp_path / 'new.sqlite'))
    for argv in (('rows',), ('purge',)):
        result = manage(own_server, *argv, conf=str(empty))
        assert result.returncode == 1, result
        assert 'run "heat-breakpoint-manage db_sync" first' in \
            result.stderr
        assert 'Traceback' not in result.stderr
    result = manage(own_server, 'rows', conf=str(tmp_path / 'nowhere'))
    assert result.returncode == 1
    assert 'ERROR: Failed to find some config files' in result.stderr
    assert 'Traceback' not in result.stderr
    result = manage(own_server, 'rows')
    assert 'Warning' not in result.stderr, result.stderr
    assert result.stderr == ''
