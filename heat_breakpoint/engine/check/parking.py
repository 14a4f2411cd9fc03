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
"""How a hold parks a convergence check, and how its release resumes it.

A hold is a row of state in Heat's database, never a waiting thread:

* the convergence check that reaches a breakpoint (:mod:`decision` says
  which) shows the resource ``<ACTION>_IN_PROGRESS`` with a reason naming
  the breakpoint, records the hold in the resource's data, sets Heat's own
  hook flag (so stock ``openstack stack hook clear`` accepts it) and ends
  by raising :class:`Parked`, which Heat's check treats as a cancelled
  operation: nothing fails, nothing propagates, the RPC thread goes back
  to the pool;
* the release (a resource signal ``{"unset_hook": ...}`` served by any
  engine, :mod:`releases`) restores the resource's state, notes that this
  traversal is released and re-dispatches the parked check through
  Heat's worker RPC;
* a hold whose operation was cancelled or superseded ends at the next
  check of its resource, with an event saying so; a released check whose
  operation was cancelled meanwhile ends there too.

Every step of a check gets the check's facts (:mod:`facts`), gathered
once by the seam's pipeline; :mod:`decision` says which rule holds.

The legacy engine runs a whole stack in one cooperative task, so there
the hold waits in that task, as Heat's own hooks do.
"""

import contextvars
import json

from oslo_log import log as logging

from heat.common import exception
from heat.db import api as db_api
from heat.engine import check_resource

from heat_breakpoint.db import operation_state
from heat_breakpoint.db import pause_clock
from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import events
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.masking import inputs
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import target_kinds
from heat_breakpoint import notify

LOG = logging.getLogger(__name__)


# The context of the request being served by EngineService.resource_signal.
# Heat replaces the thread's current context with the stack's stored one
# while it loads the stack; a release must re-dispatch with the caller's.
# ContextVar: the release is Heat's call (Resource._unset_hook), not ours.
request_context = contextvars.ContextVar('breakpoint_request_context',
                                         default=None)


# The check this thread parked last: (resource id, traversal). Heat ends a
# cancelled check by loading the whole stack, to see whether a newer
# traversal started meanwhile and waits on the resource
# (``CheckResource._retrigger_new_traversal``); after a hold one column of
# the stack's row answers that (:func:`newer_traversal_may_wait`).
# ContextVar: Heat's handler of the ended check asks, with its arguments.
_parked_check = contextvars.ContextVar('breakpoint_parked_check',
                                       default=None)


# The check this thread ended as its operation's forward work, before it
# took the resource's lock (:func:`end_if_forward_ended`): no newer
# traversal waits on it, so Heat sends no check again for it.
# ContextVar: Heat's handler of the ended check asks, with its arguments.
_ended_check = contextvars.ContextVar('breakpoint_ended_check',
                                      default=None)


class Parked(check_resource.CancelOperation):
    """Ends a convergence check at a breakpoint; nothing fails."""

    def __init__(self):
        BaseException.__init__(self, 'held at a breakpoint')


class Cancelled(check_resource.CancelOperation):
    """Ends a released check whose operation was cancelled meanwhile."""

    def __init__(self):
        BaseException.__init__(self, 'operation cancelled after a release')


def _show_held(rsrc, path, name, action, properties, atomic=True,
               when=breakpoints.BEFORE, details=None, **record):
    """Make the hold visible: state, hook flag, events, notification.

    Before the action the resource reads ``<ACTION>_IN_PROGRESS``; after
    it, its state stays (``<ACTION>_COMPLETE``) with the hit as reason; on
    its failure it keeps Heat's state and error. ``details``: what the
    hit event carries besides the inputs (attributes, the error).
    """
    hook = hold_records.hook_of(action, when)
    prior = [rsrc.action, rsrc.status, rsrc.status_reason]
    planned = record.get('change')  # a hold on a planned change
    reason = (reasons.held_change(name, action, planned['kind'])
              if planned else reasons.held(name, action, hook, when))
    state = (action, hold_records.IN_PROGRESS, reason)
    if when == breakpoints.AFTER:
        state = (rsrc.action, rsrc.status, reason)
    elif when == breakpoints.FAILED:
        state = tuple(prior)
    hit = {'breakpoint': name, 'resource': '/'.join(path),
           'action': action, 'hook': hook,
           'properties': inputs.resolved_inputs(
               properties(), rsrc.stack, rsrc)}
    if when != breakpoints.BEFORE:
        hit.update(details or {}, when=when)
        record['when'] = when
    # One transaction (Heat's calls below join it): whoever sees the
    # reason finds the record, the hook flag and the events too; and a
    # burst of holds (a step from a resource 55 others wait on) takes the
    # database's write lock once per hold, not six times.
    with db_api.context_manager.writer.using(rsrc.context):
        inputs_id = events.store_details(rsrc, hit)
        if not hold_records.set_state(rsrc, *state, atomic=atomic):
            raise exception.UpdateInProgress(rsrc.name)
        record.update(breakpoint=name, path='/'.join(path), action=action,
                      hook=hook, prior=prior, inputs_id=inputs_id,
                      since=rsrc.updated_time.isoformat())
        rsrc.data_set(resource_data.HOLD_KEY, json.dumps(record))
        rsrc.trigger_hook(hook)
        # Stock wording first, so `openstack stack hook poll` lists it.
        events.record(rsrc, reasons.NATIVE_PAUSED % {'action': action,
                                                     'hook': hook})
        events.record(rsrc, reason, hit, rpd_id=inputs_id)
    LOG.info('Breakpoint %s reached: %s held %s %s',
             reasons.printable(name), reasons.printable('/'.join(path)),
             when, action)
    notify.send(rsrc.context, notify.REACHED,
                notify.payload(rsrc, path, action, name))
    return record


def _place_of(rsrc, check: decision.Check) -> facts.Place:
    """Where the check's stack sits: as its facts read it, if they did."""
    if check.operation is not None:
        return check.operation.place
    return facts.place(rsrc.stack)


def _end_stale(rsrc, record, where: facts.Place) -> None:
    """End a hold left by an operation a newer one replaced."""
    hold_records.forget(rsrc, record, atomic=False)
    rsrc.clear_hook(record['hook'])
    hold_records.drop_notes(rsrc)
    how = (protocol.RELEASE_CANCEL
           if where.root_action == decision.ROLLBACK
           else protocol.RELEASE_SUPERSEDED)
    events.record(rsrc, reasons.released(record['breakpoint'], how))


def hold_before(rsrc, check: decision.Check, properties) -> None:
    """Before a convergence check acts on ``rsrc``: hold it, or go on.

    Returns when the resource may go on; raises :class:`Parked` when it
    must wait at a breakpoint. A hold left by an older operation ends
    here, whether or not this check is one a breakpoint applies to.
    """
    record = hold_records.record_of(rsrc)
    traversal = rsrc.stack.current_traversal
    if record is not None and record.get('traversal') != traversal:
        _end_stale(rsrc, record, _place_of(rsrc, check))
    hold_records.arrived(rsrc)
    end_if_forward_ended(rsrc, check)
    if not decision.eligible(check, check.action):
        return
    if hold_records.data(rsrc).get(resource_data.RELEASED_KEY) == \
            traversal:
        if traversal:
            end_if_cancelled(rsrc, _place_of(rsrc, check))
        return
    rule = decision.hold(check, check.action)
    if rule is None:
        return
    park(rsrc, check, rule, check.action, properties)


def end_if_forward_ended(rsrc, check: decision.Check) -> None:
    """No check of a cancelled operation's forward work acts, held or not.

    A cancel disarms every breakpoint so that the rollback runs; a check
    of the cancelled operation that reaches a resource no hold stopped
    (a group member's ``rep`` not held yet when the cancel came) must
    not go on in its place: in a nested stack Heat stops the forward
    work only once the rollback reaches the stack's parent resource,
    seconds later, and a replacement made meanwhile stays. So, with
    breakpoints in force, a check ends as Heat ends a cancelled one
    while a cancel was asked for its root operation, or while the root
    rolls back and the check's stack began its operation before that
    rollback did (a stack the rollback itself updates began after it).
    """
    if not check.breakpoints:
        return  # exactly as stock
    if check.root_action == decision.ROLLBACK:
        ended = _began_before_rollback(rsrc.stack)
    else:
        ended = (check.operation is not None and
                 check.operation.state.mode == target_kinds.CANCEL)
    if ended:
        _end_forward(rsrc)


def end_if_cancelled_since(rsrc, check: decision.Check) -> None:
    """At Heat's update decision: a cancel asked since the check began ends it.

    Between the check's start and Heat's decision that the resource is
    replaced (where an ``on replace`` hold is decided) a cancel may come;
    it disarms the hold, and the replacement must not be made in its
    stead. Read now, from the database (one query, only where an update
    is due and breakpoints are in force).
    """
    if check.operation is None:
        return
    if operation_state.forward_ended(*check.operation.place.key) != \
            operation_state.CANCELLED:
        return
    # Heat's check holds the resource's lock here: a newer traversal may
    # wait on it, so Heat's end of a cancelled check runs as stock.
    _end_forward(rsrc, locked=True)


def _end_forward(rsrc, locked=False):
    hold_records.drop_notes(rsrc)
    LOG.info('Not acting on %s: its operation was cancelled', rsrc.name)
    if not locked:
        _ended_check.set((rsrc.id, rsrc.stack.current_traversal))
    raise Cancelled()


def _began_before_rollback(stack) -> bool:
    """Whether nested ``stack``'s operation is forward work of its root.

    Heat stamps a stack's ``updated_at`` when a convergence operation (a
    rollback too) begins; a stack the operation created has only its
    ``created_at``. The rollback reaches a nested stack through its
    parent's update: its own update of a nested stack began after the
    root's rollback did, and so did every stack's between. One that
    began before, or whose parent's operation did, is the cancelled
    operation's: a group member whose update the group's forward check
    started after the rollback had begun is too.
    """
    from heat.objects import stack as stack_objects
    if not stack.owner_id or stack.action == decision.ROLLBACK:
        return False
    root_id = facts.place(stack).root_id
    root = stack_objects.Stack.get_by_id(
        stack.context, root_id, show_deleted=True)
    if root is None or not root.updated_at:
        return False
    began = stack.updated_time or stack.created_time
    owner_id = stack.owner_id
    while began and began >= root.updated_at:
        if owner_id == root_id:
            return False  # the rollback's own, all the way down
        parent = stack_objects.Stack.get_by_id(
            stack.context, owner_id, show_deleted=True)
        if parent is None:
            return False
        began = parent.updated_at or parent.created_at
        owner_id = parent.owner_id
    return bool(began)


def end_if_cancelled(rsrc, where: facts.Place) -> None:
    """A released check goes on only while its operation runs forward.

    The release itself looked (:mod:`releases`); this closes the moment
    between its look and the check it re-dispatched: a cancel asked in
    between ends the check as Heat ends a cancelled one. ``where``: the
    check's stack's place.
    """
    if operation_state.forward_ended(*where.key) is None:
        return
    hold_records.drop_notes(rsrc)
    LOG.info('Not resuming %s: its operation was cancelled', rsrc.name)
    raise Cancelled()


def park(rsrc, check: decision.Check, rule, action: str, properties,
         when=breakpoints.BEFORE, details=None, **record) -> None:
    """Hold ``rsrc`` by ``rule`` and end the check (raises :class:`Parked`).

    ``record``: what the release of this kind of hold needs besides.
    """
    key = check.operation.place.key
    _show_held(rsrc, check.path, decision.held_name(rule, check.path),
               action, properties, when=when, details=details,
               traversal=rsrc.stack.current_traversal,
               root_traversal=key[1],
               actions=[a.upper() for a in rule.breakpoint.actions],
               source=rule.source, **record)
    pause_clock.hold_started(key)
    facts.forget(rsrc.stack)
    _parked_check.set((rsrc.id, rsrc.stack.current_traversal))
    raise Parked()


def newer_traversal_may_wait(rsrc_id, traversal, stack_id) -> bool:
    """Heat ends a cancelled check: may a newer traversal wait on it?

    For the check this thread just parked, the stored traversal
    answers (False while it is still the check's). Any other check: True,
    and Heat loads the stack and looks for itself, as stock.
    """
    if _ended_check.get() == (rsrc_id, traversal):
        # Heat sends a cancelled check again for a newer traversal that
        # found the resource locked by it and waits; this one never took
        # the lock, and a second check of the newer traversal would find
        # the first one's lock and cancel its work (handle_preempt).
        _ended_check.set(None)
        return False
    if _parked_check.get() != (rsrc_id, traversal):
        return True
    _parked_check.set(None)
    return operation_state.stored_traversal(stack_id) != traversal


def hold_cooperatively(rsrc, action, bp):
    """The legacy engine's hold: wait in the stack's task for a release."""
    hook = hold_records.PRE_HOOKS[action]
    record = _show_held(rsrc, facts.resource_path(rsrc), bp.name, action,
                        lambda: rsrc.properties, atomic=False)
    try:
        while rsrc.has_hook(hook):
            yield
    except BaseException:
        rsrc.clear_hook(hook)
        raise
    finally:
        if hold_records.record_of(rsrc) is not None:
            hold_records.forget(rsrc, record, atomic=False)
