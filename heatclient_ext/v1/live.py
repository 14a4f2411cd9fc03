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
"""What one refresh of the live session reads, and riding out an outage.

:func:`fetch` reads the breakpoints view with ``?progress=1``: one
request whatever the stack's size or history. Against a Heat without
the view's progress (stock Heat, or an older plugin) a refresh falls
back to the resource list and the latest events (:func:`fetch_without_view`).

A session watches operations that last minutes or hours, across a
restart of heat-api or a dropped connection: :class:`Reconnect` tells the
loop how long to wait before the next try, and when to give up
(:class:`GaveUp`), instead of ending the session at the first refused
connection with the exit code of a failed stack.
"""

import collections
import re
import time
import typing

from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc

from heat_breakpoint.model import breakpoints
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.printable import printable
from heatclient_ext.v1 import manager as bp_v1

STATES = ('waiting', 'in_progress', 'held', 'complete', 'failed')
EVENTS = 8
#: Seconds the session keeps trying to reach Heat before it gives up.
RECONNECT_TIMEOUT = 60.0
#: The first wait between tries, doubled each time up to the longest.
FIRST_WAIT, LONGEST_WAIT = 0.5, 5.0

#: What says that Heat is not reachable now (rather than a refusal).
UNREACHABLE = (ks_exc.ConnectionError, heat_exc.CommunicationError,
               heat_exc.HTTPBadGateway, heat_exc.ServiceUnavailable)

#: ``deeper``: how many resources are held below ``--nested-depth``.
Snapshot = collections.namedtuple(
    'Snapshot', ('stack_name', 'stack_id', 'status', 'rows', 'progress',
                 'deeper'), defaults=(0,))


class GaveUp(Exception):
    """Heat stayed unreachable for longer than the session waits."""


class Reconnect:
    """When to try again after Heat could not be reached, and when not."""

    def __init__(self, timeout=RECONNECT_TIMEOUT, clock=time.monotonic):
        self.timeout = timeout
        self.clock = clock
        self.since = None
        self.tries = 0
        self.reason = ''

    @property
    def waiting(self) -> bool:
        return self.since is not None

    def failed(self, exc) -> float:
        """The seconds to wait before the next try.

        :class:`GaveUp` after ``timeout`` seconds without an answer.
        """
        now = self.clock()
        if self.since is None:
            self.since = now
        self.tries += 1
        self.reason = _short_reason(exc)
        waited = now - self.since
        if waited >= self.timeout:
            raise GaveUp(_('Heat unreachable for %(seconds)d s '
                           '(%(tries)d tries): %(reason)s') % {
                               'seconds': waited, 'tries': self.tries,
                               'reason': self.reason})
        wait = min(LONGEST_WAIT, FIRST_WAIT * 2 ** (self.tries - 1))
        return min(wait, max(0.1, self.timeout - waited))

    def text(self) -> str:
        """``reconnecting (try 3, 4 s of 60 s): <reason>``."""
        return _('reconnecting (try %(tries)d, %(waited)d s of %(timeout)d '
                 's): %(reason)s') % {
                     'tries': self.tries,
                     'waited': self.clock() - self.since,
                     'timeout': self.timeout, 'reason': self.reason}

    def answered(self) -> bool:
        """Heat answered: True if it ended an outage (counted anew)."""
        was = self.since is not None
        self.since, self.tries, self.reason = None, 0, ''
        return was


class SteadyTotals:
    """Totals that do not shrink while one operation runs.

    Heat removes a resource's row once it is deleted (a delete, the
    rollback of a create): the view counts what is left, so its total
    would shrink. Within one operation of one stack the largest total
    seen stays the total, and what is gone from it counts as done.
    """

    def __init__(self) -> None:
        self.key = None
        self.most = 0

    def apply(self, snap):
        progress = snap.progress
        if not progress:
            return snap
        key = (snap.stack_id, (snap.status or '').split('_', 1)[0])
        if key != self.key:
            self.key, self.most = key, 0
        total = progress.get('total') or 0
        if total >= self.most:
            self.most = total
            return snap
        gone = self.most - total
        counts = dict(progress.get('counts') or {})
        counts['complete'] = counts.get('complete', 0) + gone
        return snap._replace(progress=dict(
            progress, total=self.most, counts=counts,
            done=(progress.get('done') or 0) + gone))


#: The actions Heat rolls back after they fail, unless the stack says not
#: to (``Stack.mark_failed``).
ROLLED_BACK = ('CREATE', 'UPDATE', 'ADOPT', 'RESTORE')
#: How long a failed operation may take to begin its rollback.
ROLLBACK_BEGINS = 15.0


class RollbackAhead:
    """Whether a failed status is the moment before Heat rolls back.

    Heat stores ``CREATE_FAILED`` (or ``UPDATE_FAILED``) first and starts
    the rollback after, once it loaded the previous template: a session
    that ended at the first ``*_FAILED`` would leave while the rollback
    runs. A failure is final when the stack disables rollback, when it is
    a cancel without rollback, or once the rollback did not begin within
    :data:`ROLLBACK_BEGINS` seconds.
    """

    def __init__(self, get_stack, clock=time.monotonic,
                 wait=ROLLBACK_BEGINS) -> None:
        self.get_stack = get_stack
        self.clock = clock
        self.wait = wait
        # (status, since when; None: no rollback ahead)
        self._seen: typing.Optional[tuple] = None

    def pending(self, stack, status) -> bool:
        action, _sep, state = status.rpartition('_')
        if state != 'FAILED' or action not in ROLLED_BACK:
            self._seen = None
            return False
        if self._seen is None or self._seen[0] != status:
            self._seen = (status, self.clock() if self._rolls_back(stack)
                          else None)
        since = self._seen[1]
        return since is not None and self.clock() - since < self.wait

    def _rolls_back(self, stack) -> bool:
        try:
            st = self.get_stack(stack)
        except exceptions.USER_ERRORS + UNREACHABLE + (
                heat_exc.HTTPException,):
            return False
        reason = st.stack_status_reason or ''
        return (getattr(st, 'disable_rollback', True) is False and
                not reason.endswith(' cancelled'))


def gone(last, status):
    """The snapshot of a stack the view no longer has (a delete ended)."""
    progress = last.progress
    if status == 'DELETE_COMPLETE' and progress:
        total = progress.get('total') or 0
        progress = dict(progress, done=total, counts=dict(
            dict.fromkeys(STATES, 0), complete=total))
    return last._replace(status=status, rows=[], progress=progress)


def _short_reason(exc) -> str:
    """The first clause of a connection error, its URL cut to the host."""
    text = exceptions.one_line(exc).split(': ', 1)[0] or type(exc).__name__
    return re.sub(r'(https?://[^/\s]+)\S*', r'\1', text)


def fetch(manager, stack, nested_depth: typing.Optional[int] = None):
    """One refresh: a :class:`Snapshot` from one request to the view.

    ``progress`` of the snapshot is None when the server's view has no
    progress (the caller may then use :func:`fetch_without_view`).
    Returns None when the server has no breakpoints view at all.
    """
    try:
        body = manager.view_body(stack, nested_depth, progress=True)
    except heat_exc.HTTPNotFound:
        return None
    except UNREACHABLE:
        raise
    except heat_exc.HTTPException as exc:
        raise exceptions.BreakpointCommandError(
            _('Cannot watch %(stack)s: %(reason)s') % {
                'stack': stack, 'reason': exceptions.one_line(exc)})
    except ValueError:
        return None
    if not isinstance(body, dict) or 'breakpoints' not in body:
        return None
    found = body.get('stack') or {}
    return Snapshot(found.get('stack_name'), found.get('id'),
                    found.get('stack_status') or '',
                    list(body['breakpoints']), body.get('progress'))


def fetch_without_view(manager, stack, nested_depth=None):
    """The same from stock calls: stack, resource list, latest events."""
    st = manager.get_stack(stack)
    ident = '%s/%s' % (st.stack_name, st.id)
    armed = manager.armed(ident)
    depth = manager.search_depth(armed, nested_depth)
    tree = manager.resource_tree(ident, depth)
    rows = manager.held(st, armed, nested_depth, tree=tree)
    rows += manager.armed_rows(st, armed, rows)
    return Snapshot(st.stack_name, st.id, st.stack_status or '', rows,
                    stock_progress(manager, st, tree, rows, depth))


def stock_progress(manager, st, tree, rows, depth) -> dict:
    """Counts from resource states, as well as stock Heat tells them."""
    action = (st.stack_status or '').split('_', 1)[0]
    held = {row['resource'] for row in rows if row['state'] == bp_v1.HELD}
    counts = dict.fromkeys(STATES, 0)
    for res in tree:
        status = res.status
        if res.path_name in held:
            state = 'held'
        elif status.endswith('_IN_PROGRESS'):
            state = 'in_progress'
        elif status.endswith('_FAILED'):
            state = 'failed'
        elif status == '%s_COMPLETE' % action:
            state = 'complete'
        else:
            state = 'waiting'
        counts[state] += 1
    listed = manager.latest_events('%s/%s' % (st.stack_name, st.id),
                                   EVENTS, depth)
    events = [{'time': getattr(ev, 'event_time', '') or '',
               'resource': getattr(ev, 'resource_name', '') or '',
               'action': (getattr(ev, 'resource_status', '') or ''
                          ).split('_', 1)[0],
               'status': (getattr(ev, 'resource_status', '') or ''
                          ).partition('_')[2],
               'reason': getattr(ev, 'resource_status_reason', '') or ''}
              for ev in reversed(listed)]
    started = manager.operation_start(st)
    return {'counts': counts, 'total': sum(counts.values()),
            'done': counts['complete'], 'events': events,
            'elapsed': _seconds_since(started),
            'timeout_remaining': manager.timeout_remaining(st)}


def _seconds_since(started) -> int:
    if started is None:
        return 0
    from oslo_utils import timeutils
    return max(0, int((timeutils.utcnow() - started).total_seconds()))


FALLBACK_NOTE = _('Note: this Heat has no breakpoints view with progress: '
                  'each refresh lists every resource (slower)')


class Follower:
    """The latest snapshot of one stack's operation, read on demand.

    Follows the stack it first found (not a later one given the same
    name), falls back once to stock calls (``say`` tells the user), and
    keeps the totals steady within an operation.
    """

    def __init__(self, client, stack, nested_depth=None, say=None) -> None:
        self.client = client
        self.manager = bp_v1.BreakpointManager(client)
        self.stack = stack
        self.nested_depth = nested_depth
        self.say = say or (lambda text: None)
        self.without_view = False
        self.totals = SteadyTotals()
        self.snap = None

    def _held_deeper(self, snap) -> int:
        """How many are held below the depth watched (one more request)."""
        try:
            body = self.manager.view_body(self.stack)
        except (heat_exc.HTTPException, ValueError):
            return 0
        seen = {row['resource'] for row in snap.rows
                if row.get('state') == bp_v1.HELD}
        return sum(1 for row in body.get('breakpoints') or ()
                   if row.get('state') == bp_v1.HELD and
                   row.get('resource') not in seen)

    def refresh(self):
        """A new :class:`Snapshot`; :data:`UNREACHABLE` errors go up."""
        snap = None
        if not self.without_view:
            snap = fetch(self.manager, self.stack, self.nested_depth)
        if snap is None and self.snap is not None and \
                not self.without_view:
            # The view had it: the stack is gone (a delete finished).
            st = self.manager.get_stack(self.stack)
            snap = gone(self.snap, st.stack_status or '')
        if snap is None or snap.progress is None:
            snap = fetch_without_view(self.manager, self.stack,
                                      self.nested_depth)
            if not self.without_view:
                self.without_view = True
                self.say(FALLBACK_NOTE)
        if snap.stack_id:
            self.stack = '%s/%s' % (snap.stack_name, snap.stack_id)
        if self.nested_depth is not None and not self.without_view and \
                snap.status.endswith('_IN_PROGRESS'):
            snap = snap._replace(deeper=self._held_deeper(snap))
        self.snap = snap = self.totals.apply(snap)
        return snap


def held_rows(snap) -> list:
    """The held rows, by resource path (the prompt's order)."""
    return sorted((row for row in snap.rows if row['state'] == bp_v1.HELD),
                  key=lambda row: breakpoints.natural_key(row['resource']))


def _short_time(value) -> str:
    # '2026-11-30T20:19:19Z' -> '20:19:19'
    match = re.search(r'(\d\d:\d\d:\d\d)', value or '')
    return match.group(1) if match else printable(value)


def event_line(event) -> str:
    return '%s  %s  %s_%s  %s' % (
        _short_time(event.get('time')), printable(event.get('resource')),
        printable(event.get('action')), printable(event.get('status')),
        printable(event.get('reason')))
