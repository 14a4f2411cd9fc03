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
"""Commands validated like names; what the engine writes stays printable.

Sent as raw resource signals, the way they were seen misused (no client
check in between): 300 ``clear`` patterns of 14,000 characters, a pattern
with ESC, BEL and a newline, and more targets than one operation takes.
Each is refused with the model's words, nothing is stored, the view
stays as fast and the log as small as before, and no event reason or
log line carries a raw control character.
"""

import os
import sqlite3
import time

from heatclient import exc as heat_exc
import pytest

from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import test_engine
from tests.functional import utils

LIMIT = 1000  # heat_breakpoint.db.operation_state.MAX_TARGETS
CONTROL = '\x1b[31m\x07\n'


def command(heat, stack, path, kind='clear'):
    """A raw command signal, as any API caller can send one."""
    heat.resources.signal(stack, 'A', data={
        protocol.COMMAND_KEY: kind, protocol.COMMAND_PATH_KEY: path})


def refused(heat, stack, path, kind='clear'):
    with pytest.raises(heat_exc.HTTPBadRequest) as caught:
        command(heat, stack, path, kind)
    return str(caught.value)


def targets(server, stack_id):
    path = os.path.join(server.state_dir, 'heat.sqlite')
    db = sqlite3.connect('file:%s?mode=ro' % path, uri=True, timeout=30)
    try:
        return db.execute('SELECT path FROM breakpoint_hold_target WHERE '
                          'root_stack_id = ?', (stack_id,)).fetchall()
    finally:
        db.close()


def log_size(server):
    return os.path.getsize(server.log_file)


def view_seconds(heat, stack, times=5):
    manager = bp_v1.BreakpointManager(heat)
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        manager.current(stack)
        spent.append(time.perf_counter() - start)
    return sorted(spent)[len(spent) // 2]


@pytest.fixture
def held_b(heat, stack_name):
    test_engine.create(heat, stack_name, 'chain.yaml', 'B')
    test_engine.wait_held(heat, stack_name, 'B')
    yield heat.stacks.get(stack_name)
    bp_v1.BreakpointManager(heat).continue_(stack_name)


def test_long_patterns_are_refused_and_nothing_is_stored(
        heat_server, heat, held_b):
    before_view = view_seconds(heat, held_b.stack_name)
    before_log = log_size(heat_server)
    pattern = 'x' * 14000 + '*'
    for _ in range(300):
        message = refused(heat, held_b.id, pattern)
    assert 'a name is 14001 characters long (limit: 255)' in message
    assert targets(heat_server, held_b.id) == []
    after_view = view_seconds(heat, held_b.stack_name)
    assert after_view < before_view * 3 + 0.05, (before_view, after_view)
    # Each refusal may log a line; none carries the pattern itself.
    with open(heat_server.log_file, errors='replace') as log:
        log.seek(before_log)
        grown = log.read()
    assert 'x' * 300 not in grown
    assert len(grown) < 300 * 2000, len(grown)


def test_control_characters_never_reach_an_event_or_the_log(
        heat_server, heat, held_b):
    before_log = log_size(heat_server)
    message = refused(heat, held_b.id, 'web' + CONTROL + '*')
    assert 'control characters are not allowed' in message
    assert '\\x1b' in message and '\x1b' not in message
    message = refused(heat, held_b.id, 'C' + CONTROL, 'set')
    assert '\x1b' not in message and '\x07' not in message
    assert targets(heat_server, held_b.id) == []
    found = [e.resource_status_reason or '' for e in
             heat.events.list(held_b.id, nested_depth=2)]
    assert not [r for r in found if any(c in r for c in CONTROL)], found
    with open(heat_server.log_file, 'rb') as log:
        log.seek(before_log)
        grown = log.read()
    assert b'\x1b' not in grown and b'\x07' not in grown


def test_an_unclosed_set_is_refused_as_a_bad_pattern(heat, held_b,
                                                     heat_server):
    message = refused(heat, held_b.id, 'glob*[')
    assert "'[' opens a set that is not closed" in message
    assert targets(heat_server, held_b.id) == []


def test_one_operation_takes_at_most_a_thousand_targets(
        heat_server, heat, held_b):
    for i in range(LIMIT):
        command(heat, held_b.id, 'n%04d*' % i)
    assert len(targets(heat_server, held_b.id)) == LIMIT
    message = refused(heat, held_b.id, 'one_more*')
    assert 'limit of %d' % LIMIT in message, message
    # Said again of a stored target: nothing added, not refused.
    command(heat, held_b.id, 'n0000*')
    assert len(targets(heat_server, held_b.id)) == LIMIT
    # A step from B would add C: refused before anything is released.
    with pytest.raises(heat_exc.HTTPBadRequest) as caught:
        test_engine.signal_release(heat, held_b.id, 'B', how='step')
    assert 'Cannot step from B' in str(caught.value)
    rsrc = heat.resources.get(held_b.id, 'B')
    assert reasons.parse_held(rsrc.resource_status_reason), \
        rsrc.resource_status_reason
    assert utils.stack_status(heat, held_b.id) == 'CREATE_IN_PROGRESS'
