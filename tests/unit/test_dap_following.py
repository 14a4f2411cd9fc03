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
"""How often a debug session refreshes (:mod:`heatclient_ext.dap.following`).

The refresh itself is the watch's, tested with it; here only its pace.
"""

import threading
import time

from heatclient_ext.dap import following


class Counted(following.Following):
    def __init__(self, interval):
        super().__init__(session=None, interval=interval)
        self.times = []
        self.refreshed = threading.Event()

    def refresh(self):
        self.times.append(time.monotonic())
        self.refreshed.set()


def _count_until(follow, seconds):
    time.sleep(seconds)
    return len(follow.times)


def test_the_first_second_of_an_operation_is_refreshed_eagerly():
    follow = Counted(interval=30)
    follow.start()
    try:
        # An F5's first stop is seen within EAGER, not a whole interval.
        assert _count_until(follow, 0.5) >= 4
        time.sleep(following.EAGER_FOR)
        settled = len(follow.times)
        assert _count_until(follow, 0.5) == settled
    finally:
        follow.stop()


def test_a_release_refreshes_at_once_then_eagerly():
    follow = Counted(interval=30)
    follow.start()
    try:
        time.sleep(following.EAGER_FOR + 0.2)
        before = len(follow.times)
        follow.refreshed.clear()
        follow.hurry()
        assert follow.refreshed.wait(5)
        assert _count_until(follow, 0.5) >= before + 4
    finally:
        follow.stop()


def test_stop_ends_the_wait_at_once():
    follow = Counted(interval=30)
    follow.start()
    time.sleep(following.EAGER_FOR + 0.2)
    began = time.monotonic()
    follow.stop()
    assert time.monotonic() - began < 1
    assert not follow._poller.is_alive()
