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
"""The local server's prompt in-process RPC delivery."""

import threading
import time

import oslo_messaging
from oslo_messaging._drivers import impl_fake

from heat_breakpoint.server import prompt_delivery


def _listener(topic):
    manager = impl_fake.FakeExchangeManager('prompt-test')
    target = oslo_messaging.Target(topic=topic, exchange='prompt-test')
    return manager, impl_fake.FakeListener(manager, [target])


def test_a_waiting_listener_wakes_when_a_message_is_sent(monkeypatch):
    assert prompt_delivery.install()
    # Idle waits as long as the test: only a wake-up can end it early.
    monkeypatch.setattr(prompt_delivery, 'MAX_IDLE_WAIT', 30.0)
    manager, listener = _listener('wake')
    got = []
    poller = threading.Thread(
        target=lambda: got.append((listener.poll(timeout=30),
                                   time.monotonic())))
    poller.start()
    time.sleep(0.2)  # the listener is waiting now
    sent = time.monotonic()
    manager.get_exchange('prompt-test').deliver_message(
        'wake', {}, {'method': 'ping'})
    poller.join(10)
    assert not poller.is_alive()
    [(messages, received)] = got
    assert [m.message for m in messages] == [{'method': 'ping'}]
    assert received - sent < 5.0


def test_poll_still_times_out_with_nothing_sent():
    assert prompt_delivery.install()
    _manager, listener = _listener('quiet')
    began = time.monotonic()
    assert listener.poll(timeout=0.2) == []
    assert 0.15 < time.monotonic() - began < 5.0


def test_a_stopped_listener_returns():
    assert prompt_delivery.install()
    _manager, listener = _listener('stop')
    listener.stop()
    assert listener.poll(timeout=5) == []


def test_install_is_idempotent():
    assert prompt_delivery.install() and prompt_delivery.install()
    assert impl_fake.FakeListener.poll.__qualname__ != 'FakeListener.poll'
