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
"""Deliver in-process RPC messages as soon as they are sent.

The local server carries Heat's RPC on oslo.messaging's in-process
``fake://`` transport, whose listeners look for messages every 50 ms. Every
API call is an RPC call to the engine and every convergence step an RPC
cast, so each waited up to 50 ms for nothing: a single ``stack show`` took
50 ms where a message broker answers in about one. Here a listener with
nothing to do waits on a condition that sending a message notifies, so
delivery is immediate, as with a broker. Messages, queues and ordering are
the driver's own; only the idle wait changes. The server process is ours,
so the driver is adjusted in place; if its internals are not what this
expects, nothing is changed and delivery stays as it was.
"""

import threading
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# The fake driver's own idle pause, kept as the longest wait.
MAX_IDLE_WAIT = 0.050

_sent = threading.Condition()
_generation = 0
_installed = False


def _notify_sent():
    global _generation
    with _sent:
        _generation += 1
        _sent.notify_all()


def _wait_for_send(seen: int, timeout: float) -> None:
    with _sent:
        if _generation == seen:
            _sent.wait(timeout)


def _prompt_poll(impl_fake):
    def poll(self, timeout=None):
        deadline = None if timeout is None else time.time() + timeout
        while not self._stopped.is_set():
            seen = _generation
            for target in self._targets:
                exchange = self._exchange_manager.get_exchange(
                    target.exchange)
                ctxt, message, reply_q, requeue = exchange.poll(target,
                                                                self._pool)
                if message is not None:
                    return impl_fake.FakeIncomingMessage(ctxt, message,
                                                         reply_q, requeue)
            pause = MAX_IDLE_WAIT
            if deadline is not None:
                pause = min(pause, deadline - time.time())
                if pause < 0:
                    break
            _wait_for_send(seen, pause)
        return None
    return poll


def install() -> bool:
    """Make the fake driver's listeners wake up on send; True if done."""
    global _installed
    if _installed:
        return True
    from oslo_messaging._drivers import base
    from oslo_messaging._drivers import impl_fake
    exchange, listener = impl_fake.FakeExchange, impl_fake.FakeListener
    if not (callable(getattr(exchange, 'deliver_message', None)) and
            callable(getattr(exchange, 'poll', None)) and
            callable(getattr(listener, 'poll', None)) and
            hasattr(impl_fake, 'FakeIncomingMessage')):
        LOG.warning('oslo.messaging fake driver changed: in-process RPC '
                    'keeps its 50 ms polling')
        return False
    deliver = exchange.deliver_message

    def deliver_message(self, *args, **kwargs):
        deliver(self, *args, **kwargs)
        _notify_sent()

    exchange.deliver_message = deliver_message
    listener.poll = base.batch_poll_helper(_prompt_poll(impl_fake))
    _installed = True
    return True
