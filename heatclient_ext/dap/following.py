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
"""The operation a debug session follows, and how its end is told.

A poller reads the watch's one-request refresh
(:func:`heatclient_ext.v1.live.fetch`) every ``interval``
seconds (every :data:`EAGER` seconds for the first second after the
operation starts or a release goes out, when the next hold most often
comes): its held rows go to the session's :class:`.holds.Holds`, its
latest events to the Debug Console, and the end of the operation (as
:class:`.ending.OperationEnd` judges it) is ``exited`` then
``terminated``, once. The requests are the session's
(:mod:`.session`); this is what runs between them.
"""

import logging
import threading
import time

from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import live

LOG = logging.getLogger(__name__)
#: Seconds between two refreshes for :data:`EAGER_FOR` seconds after a
#: start or a release: an F5 or a step is told its stop that much sooner.
EAGER = 0.05
EAGER_FOR = 1.0


class Following:
    """Polls the operation of ``session`` until it ends or is stopped."""

    def __init__(self, session, interval: float) -> None:
        self._session = session
        self.interval = interval
        self.finished = threading.Event()
        self.told_end = threading.Event()  # exited and terminated sent
        self._seen_events = set()
        self._poller = None
        self._wake = threading.Event()  # a refresh now (or the end)
        self._eager_until = 0.0

    @property
    def started(self) -> bool:
        return self._poller is not None

    def start(self) -> None:
        self.hurry()
        self._poller = threading.Thread(target=self._poll, daemon=True)
        self._poller.start()

    def hurry(self) -> None:
        """A hold is likely soon: refresh now, then eagerly for a while."""
        self._eager_until = time.monotonic() + EAGER_FOR
        self._wake.set()

    def stop(self) -> None:
        """No refresh after this one; wait for one under way (not ours)."""
        self.finished.set()
        self._wake.set()
        if self._poller is not None and \
                self._poller is not threading.current_thread():
            self._poller.join(5)

    def _poll(self) -> None:
        while not self.finished.is_set():
            try:
                self.refresh()
            except exceptions.USER_ERRORS as exc:
                self._session.say(exceptions.one_line(exc), 'stderr')
            except Exception:  # a bad refresh must not end the session
                LOG.exception('refresh failed')
            eager = time.monotonic() < self._eager_until
            self._wake.wait(EAGER if eager else self.interval)
            self._wake.clear()

    def refresh(self):
        """One request: held resources, latest events, the stack's state."""
        session = self._session
        holds, manager, stack = session.holds, session.manager, session.stack
        generation = holds.generation
        snap = live.fetch(manager, stack)
        if generation != holds.generation:
            return None  # a release went out meanwhile: read again
        if snap is None:
            # Gone (a delete finished) or no view: one stock look says.
            try:
                st = manager.get_stack(stack)
            except exceptions.USER_ERRORS:
                return self.finish('DELETE_COMPLETE', '')
            snap = live.Snapshot(st.stack_name, st.id,
                                 st.stack_status or '', [], {})
        with holds.lock:
            if generation != holds.generation:
                return None
            self._events(snap)
            holds.update(live.held_rows(snap), session.breakpoints.hits)
        if session.end.ended(stack, snap.status):
            self.finish(snap.status, '')
        return snap

    def _events(self, snap) -> None:
        for event in (snap.progress or {}).get('events') or []:
            key = tuple(sorted((k, str(v)) for k, v in event.items()))
            if key in self._seen_events:
                continue
            self._seen_events.add(key)
            self._session.say(live.event_line(event))

    def finish(self, status, reason) -> None:
        """The operation ended ``status``: say so, ``exited``, once."""
        if self.finished.is_set():
            return
        self.finished.set()
        self._wake.set()
        session = self._session
        if not reason and status.endswith('_FAILED'):
            try:
                reason = session.manager.get_stack(
                    session.stack).stack_status_reason
            except exceptions.USER_ERRORS:
                pass
        session.say(_('Stack %(stack)s %(status)s%(reason)s') % {
            'stack': session.stack, 'status': status,
            'reason': ': %s' % reason if reason else ''})
        session.holds.end()
        session.event('exited', {
            'exitCode': 0 if status.endswith('_COMPLETE') else 1})
        session.event('terminated')
        self.told_end.set()
