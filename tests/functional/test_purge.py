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
"""Nothing of ours outlives its operation, on the real local Heat.

Each test leaves rows in all our tables during the operation (a hold: the
pause clock; a step: targets; a continue: the mode), then ends the
operation one way (complete, failed, cancelled, replaced by an update,
deleted) and looks in the server's database for what is left about the
stack.
"""

import os
import subprocess
import sys

from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import utils

TABLES = ('breakpoint_operation', 'breakpoint_hold_target',
          'breakpoint_pause')
RELEASED_KEY = 'breakpoint_released'
MANAGE = os.path.join(os.path.dirname(sys.executable),
                      'heat-breakpoint-manage')


def _db(server):
    return utils.heat_db(server, read_only=True)


def our_rows(server, root_id, traversal=None):
    """{table: rows} of ours about the root stack (and its resources)."""
    found = {}
    with _db(server) as db:
        for table in TABLES:
            sql = 'SELECT traversal FROM %s WHERE root_stack_id = ?' % table
            found[table] = [row[0] for row in db.execute(sql, (root_id,))
                            if traversal in (None, row[0])]
        found[RELEASED_KEY] = [
            row[0] for row in db.execute(
                'SELECT d.value FROM resource_data d JOIN resource r '
                'ON r.id = d.resource_id WHERE d.key = ? AND '
                'r.root_stack_id = ?', (RELEASED_KEY, root_id))
            if traversal in (None, row[0])]
    return {k: v for k, v in found.items() if v}


def traversal(server, stack_id):
    with _db(server) as db:
        return db.execute('SELECT current_traversal FROM stack WHERE id = ?',
                          (stack_id,)).fetchone()[0]


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, 'stack', 'breakpoint',
                                            *argv)
    assert code == 0, err
    return out


def held_then_stepped(server, heat, name, tmpl='chain.yaml', **kwargs):
    """Create, held at B, step to C: rows in every table of ours."""
    test_engine.create(heat, name, tmpl, 'B', **kwargs)
    test_engine.wait_held(heat, name, 'B')
    osc(server, 'step', name, 'B')
    test_engine.wait_held(heat, name, 'C')
    stack_id = heat.stacks.get(name).id
    rows = our_rows(server, stack_id)
    assert set(rows) >= {'breakpoint_hold_target', 'breakpoint_pause',
                         RELEASED_KEY}, rows
    return stack_id


def wait_no_rows(server, stack_id, traversal=None):
    utils.wait_for(lambda: not our_rows(server, stack_id, traversal),
                   timeout=30, what='no rows of ours about %s' % stack_id)


def test_rows_gone_after_complete(heat_server, heat, stack_name):
    stack_id = held_then_stepped(heat_server, heat, stack_name)
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    wait_no_rows(heat_server, stack_id)


def test_rows_gone_after_failed(heat_server, heat, stack_name):
    tmpl = test_engine.template('chain.yaml')
    tmpl['resources']['D']['properties']['fail'] = True
    heat.stacks.create(stack_name=stack_name, template=tmpl,
                       environment=test_engine.breakpoint_env('B'),
                       disable_rollback=True)
    test_engine.wait_held(heat, stack_name, 'B')
    stack_id = heat.stacks.get(stack_name).id
    osc(heat_server, 'step', stack_name, 'B')
    test_engine.wait_held(heat, stack_name, 'C')
    osc(heat_server, 'continue', stack_name)
    utils.wait_for(lambda: utils.stack_status(heat, stack_name) ==
                   'CREATE_FAILED', 60, what='CREATE_FAILED')
    wait_no_rows(heat_server, stack_id)


def test_rows_gone_after_cancel(heat_server, heat, stack_name):
    stack_id = held_then_stepped(heat_server, heat, stack_name)
    heat.actions.cancel_without_rollback(stack_id)
    utils.wait_for(lambda: utils.stack_status(heat, stack_name) ==
                   'CREATE_FAILED', 60, what='CREATE_FAILED (cancelled)')
    wait_no_rows(heat_server, stack_id)


def test_rows_of_a_replaced_operation_gone(heat_server, heat, stack_name):
    stack_id = held_then_stepped(heat_server, heat, stack_name)
    first = traversal(heat_server, stack_id)
    # An update while the create is held replaces its traversal.
    heat.stacks.update(stack_name, template=test_engine.template(
        'chain.yaml'), parameters={'suffix': 'two'},
        environment=test_engine.breakpoint_env('D'))
    utils.wait_for(lambda: traversal(heat_server, stack_id) != first, 30,
                   what='a new traversal')
    wait_no_rows(heat_server, stack_id, first)
    test_engine.wait_held(heat, stack_name, 'D', 'CREATE_IN_PROGRESS')
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    wait_no_rows(heat_server, stack_id)


def test_rows_gone_after_delete(heat_server, heat, stack_name):
    stack_id = held_then_stepped(heat_server, heat, stack_name)
    heat.stacks.delete(stack_id)
    utils.wait_for(lambda: not [s for s in heat.stacks.list()
                                if s.id == stack_id], 60,
                   what='%s deleted' % stack_id)
    wait_no_rows(heat_server, stack_id)


def manage(server, *argv):
    result = subprocess.run(
        [MANAGE, '--config-file', os.path.join(server.state_dir,
                                               'heat.conf')] + list(argv),
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def row_counts(server):
    """{table or data key: rows}, as ``heat-breakpoint-manage rows`` says."""
    return {name: int(count) for name, count in (
        line.split(': ') for line in manage(server, 'rows').splitlines())}


def test_manage_purge_removes_rows_of_stacks_gone(heat_server):
    # What an engine killed mid-operation leaves: rows about a stack that
    # is no more (heat-manage purge_deleted removed it). The server is
    # shared with other tests: what they left stale goes first, and the
    # rows of their running stacks are counted, not assumed absent.
    manage(heat_server, 'purge')
    counted = row_counts(heat_server)
    with utils.heat_db(heat_server) as db:
        db.execute("INSERT INTO breakpoint_operation (root_stack_id, "
                   "traversal, mode, created_at) VALUES ('gone', 't', "
                   "'continue', '2026-01-01 00:00:00')")
        db.execute("INSERT INTO breakpoint_pause (root_stack_id, "
                   "traversal, held, paused_seconds) VALUES ('gone', 't', "
                   "1, 0.0)")
    assert our_rows(heat_server, 'gone')
    out = manage(heat_server, 'purge')
    assert 'breakpoint_operation: 1 rows purged' in out
    assert 'breakpoint_pause: 1 rows purged' in out
    assert our_rows(heat_server, 'gone') == {}
    assert row_counts(heat_server) == counted


def test_manage_db_sync_and_version(heat_server):
    from heat_breakpoint.db import migration
    # The local server migrated its database on start; again is a no-op.
    assert manage(heat_server, 'db_version').strip() == migration.head()
    assert migration.head() in manage(heat_server, 'db_sync')
