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
"""Held resources as the editor's threads; a new hold is a stop.

Each held resource is a thread named by its path and hold; a hold that
was not there at the last refresh is a ``stopped`` event (why: the
breakpoint it is at, a failure, or the step, entry or pause that armed
it), and one that went is a thread that exited. A release this session
sends ends its threads at once and makes the refresh that was in flight
stale: it would show the released hold again. Heat clears a hook in a
thread of its own after the signal returns, so a released hold may still
be listed for a moment: it is not a new stop unless it is listed with
another ``held_since``, or still after :data:`RELEASE_GRACE` seconds.
"""

import threading
import time
import typing

from heat_breakpoint.model import breakpoints
from heatclient_ext._i18n import _
from heatclient_ext.v1 import manager as bp_v1

OPERATION_THREAD = 1
RELEASE_GRACE = 1.5


def hold_text(row) -> str:
    """``before CREATE``, ``after UPDATE``, ``on CREATE failure``."""
    if row is None:
        return ''
    return bp_v1.when_text(bp_v1.row_value(row, 'when'),
                           row.get('action') or '')


class Holds:
    """The held rows by path, their thread ids, and the stops they made.

    ``event(name, body)`` sends a DAP event.
    """

    def __init__(self, event) -> None:
        self.event = event
        self.lock = threading.RLock()
        self.held: dict[str, dict] = {}  # path -> row
        self.threads: dict[str, int] = {}  # path -> thread id
        self._next = OPERATION_THREAD + 1
        self.generation = 0
        self.reason = None  # 'step', for the next holds
        self.reason_at: dict[str, str] = {}  # path -> 'entry' or 'pause'
        # path -> (its held_since, until when)
        self.released: dict[str, tuple] = {}

    def path(self, tid) -> typing.Optional[str]:
        for path, found in self.threads.items():
            if found == tid:
                return path
        return None

    def rows(self, tid=None, single=True) -> list:
        """The rows a control request applies to: one thread's, or all."""
        with self.lock:
            path = self.path(tid)
            if path is not None and single:
                return [self.held[path]]
            return list(self.held.values())

    def sorted_rows(self) -> list:
        with self.lock:
            return sorted(self.held.values(), key=lambda r: r['resource'])

    def _exit(self, path) -> None:
        self.held.pop(path, None)
        self.event('thread', {'reason': 'exited',
                              'threadId': self.threads.pop(path)})

    def update(self, rows, hits) -> None:
        """Compare a refresh's held rows with the last; send the changes.

        ``hits(row)``: the editor's breakpoint ids the row is at.
        """
        listed = {row['resource']: row for row in rows}
        # A released hold leaves the list once; then any hold is new.
        self.released = {path: value for path, value in
                         self.released.items() if path in listed}
        now = {}
        for path, row in listed.items():
            since, until = self.released.get(path, (None, 0))
            if since == row.get('held_since') and time.monotonic() < until:
                continue  # the hold just released, not cleared yet
            self.released.pop(path, None)
            now[path] = row
        for path in sorted(set(self.held) - set(now)):
            self._exit(path)
        for path in sorted(set(now) - set(self.held)):
            row = self.held[path] = now[path]
            tid = self.threads[path] = self._next
            self._next += 1
            self.event('thread', {'reason': 'started', 'threadId': tid})
            self.event('stopped', self._stopped(path, row, tid, hits(row)))

    def _stopped(self, path, row, tid, hit_ids) -> dict:
        when = bp_v1.row_value(row, 'when')
        if when == breakpoints.FAILED:
            reason = 'exception'
        elif path in self.reason_at and not hit_ids:
            reason = self.reason_at.pop(path)
        elif self.reason and not hit_ids:
            reason = self.reason
        else:
            reason = 'breakpoint'
        body = {'reason': reason, 'threadId': tid,
                'allThreadsStopped': False,
                'description': _('%(path)s held %(hold)s') % {
                    'path': path, 'hold': hold_text(row)}}
        if hit_ids:
            body['hitBreakpointIds'] = hit_ids
        if when == breakpoints.FAILED:
            body['text'] = row.get('why') or ''
        return body

    def resumed(self, reason=None, rows=()) -> None:
        """Before a release: its threads go, its next holds are new."""
        with self.lock:
            self.generation += 1
            self.reason = reason
            for row in rows:
                self.released[row['resource']] = (
                    row.get('held_since'), time.monotonic() + RELEASE_GRACE)
                if row['resource'] in self.held:
                    self._exit(row['resource'])

    def end(self) -> None:
        with self.lock:
            for path in list(self.held):
                self._exit(path)

    def threads_body(self, stack) -> dict:
        with self.lock:
            found = [{'id': OPERATION_THREAD, 'name': _('stack %s') % (
                (stack or '').split('/')[0] or _('(not started)'))}]
            for path in sorted(self.held, key=lambda p: self.threads[p]):
                found.append({'id': self.threads[path], 'name': '%s (%s)' % (
                    path, hold_text(self.held[path]))})
        return {'threads': found}
