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
runs under eventlet instead, and three of its pieces only work there:

* its RPC server asks oslo.messaging for the ``eventlet`` executor, whose
  green threads never run in a process that is not monkey-patched (no RPC
  call would ever be answered): here it gets the ``threading`` executor;
* ``NotifyEvent``, which an API call waits on until the engine has stored
  the stack, is an eventlet queue (a waiter in one OS thread is never woken
  by a signal from another): here it is a thread-safe queue, as in Heat 25;
* ``ThreadGroupManager`` releases stack locks and message queues in
  callbacks ``link()``-ed to its green threads, and waits for them in
  ``stop()``; oslo.service's threading backend makes ``link()`` a no-op
  or absent (the lock would never be released; ``stop()`` fails, or never
  returns; seen on SIGTERM with a stack thread running): here
  the threads it starts run their linked callbacks when they end, and
  ``stop()`` waits for the threads, as Heat 25's does.

This happens in the local server's process only, and only for a Heat that
has these traits; a deployed Heat 24 heat-engine runs under eventlet, where
the plugin runs as it is.
"""

import queue
import threading

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


class _LinkedThread(object):
    """A stack thread whose ``link()`` callbacks run when it ends."""

    def __init__(self):
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._links = []
        self._result = self._error = None
        self.thread = None

    def run(self, func, *args, **kwargs):
        try:
            self._result = func(*args, **kwargs)
        except BaseException as exc:
            self._error = exc
            if isinstance(exc, Exception):
                # What Heat's own link (log_exceptions) would have logged.
                LOG.exception('Unhandled error in asynchronous task')
        finally:
            with self._lock:
                self._done.set()
                links, self._links = self._links, []
            for link, link_args, link_kwargs in links:
                link(self, *link_args, **link_kwargs)

    def link(self, func, *args, **kwargs):
        with self._lock:
            if not self._done.is_set():
                self._links.append((func, args, kwargs))
                return
        func(self, *args, **kwargs)

    def wait(self):
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._result

    def stop(self):
        pass  # OS threads cannot be stopped, as oslo.service's own


def _thread_group_manager(manager_cls):
    start = manager_cls.start

    def start_linked(self, stack_id, func, *args, **kwargs):
        linked = _LinkedThread()
        linked.thread = start(self, stack_id, linked.run, func, *args,
                              **kwargs)
        return linked

    def stop(self, stack_id, graceful=False):
        """Stop any active threads on a stack (Heat 25's)."""
        if stack_id in self.groups:
            self.msg_queues.pop(stack_id, None)
            group = self.groups.pop(stack_id)
            group.stop(graceful)
            group.wait()

    manager_cls.start = start_linked
    manager_cls.stop = stop


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
    _thread_group_manager(service.ThreadGroupManager)
    LOG.info('Heat written for eventlet: its RPC server, NotifyEvent and '
             'stack threads run on OS threads in this local server')
    return True
