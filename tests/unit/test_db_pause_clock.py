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
"""The pause clock stops while anything is held, on an in-memory SQLite."""

from heat_breakpoint.db import operation_state
from heat_breakpoint.db import pause_clock

KEY = ('root', 't1')


def test_pause_clock(db):
    pause_clock.hold_started(KEY)
    pause_clock.hold_started(KEY)
    pause_clock.hold_ended(KEY)
    assert operation_state.read(KEY).held == 1
    pause_clock.hold_ended(KEY)
    state = operation_state.read(KEY)
    assert state.held == 0 and state.since is None
    assert state.paused() == state.paused_seconds > 0.0
