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
"""Run Heat 24 (2025.1), written for eventlet, on the local server's threads.

The local server runs Heat on OS threads (oslo.service's threading
backend), as Heat itself does from 25 (2025.2) on. Heat 24's heat-engine
runs under eventlet instead, and two of its pieces only work there: its RPC
server asks oslo.messaging for the ``eventlet`` executor (whose green
threads never run in a process that is not monkey-patched, so no RPC call
is ever answered), and ``NotifyEvent``, which an API call waits on until
the engine has stored the stack, is an eventlet queue (a waiter in one OS
thread is never woken by a signal from another). Here, in the local
server's process only, the RPC server gets the ``threading`` executor and
``NotifyEvent`` a thread-safe queue, as in later releases. Nothing changes
for a Heat that does not have these traits, and nothing in a deployed
heat-engine: the plugin itself runs under eventlet as it is.
"""

import queue

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class NotifyEvent(object):
    """Heat 24's ``NotifyEvent`` with an OS-thread queue (as Heat 25's)."""

    def __init__(self):
        self._queue = queue.Queue(maxsize=1)
        self._signalled = False

    def signalled(self):
        return self._signalled

    def signal(self):
        if self._signalled:
            return
        self._signalled = True
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass

    def wait(self):
        from oslo_config import cfg
        try:
            self._queue.get(timeout=cfg.CONF.rpc_response_timeout)
        except queue.Empty:
            LOG.warning('Timed out waiting for operation to start')


class _ThreadedMessaging(object):
    """``oslo_messaging`` as heat.common.messaging sees it."""

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)

    def get_rpc_server(self, *args, **kwargs):
        if kwargs.get('executor') == 'eventlet':
            kwargs['executor'] = 'threading'
        return self._real.get_rpc_server(*args, **kwargs)


def install() -> bool:
    """Adapt a Heat written for eventlet; False if Heat needs nothing."""
    from heat.common import messaging
    from heat.engine import service
    if not hasattr(messaging, 'eventlet') or isinstance(
            messaging.oslo_messaging, _ThreadedMessaging):
        return False
    messaging.oslo_messaging = _ThreadedMessaging(messaging.oslo_messaging)
    service.NotifyEvent = NotifyEvent
    LOG.info('Heat written for eventlet: its RPC server and NotifyEvent '
             'run on OS threads in this local server')
    return True
