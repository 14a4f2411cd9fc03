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
"""How the release of a hold resumes its operation, or does not.

A release is Heat's own resource signal ``{"unset_hook": ...}``; Heat
clears the hook flag, then :func:`release` gathers what it decides with
once (:func:`gather`: the hold's record, the way out, where the stack
sits, whether its operation may go on), as a check gathers its facts,
and passes that value on. It claims the hold (of two racing releases
one wins), puts the resource back as it was, does what the release
asked (a step arms the next resources, a continue disarms the rest) and
re-dispatches the parked check through Heat's worker RPC (a release cut
off in between is sent again: :mod:`lost_releases`).

A cancel wins. Once a cancel was asked for the operation, or it rolls
back, or a newer operation replaced it, a release never resumes its
forward work, whoever sends it (``watch -i``, a second terminal, a raw
``openstack stack hook clear``) and at any depth: the hold ends as the
rollback would end it (``released (operation cancelled)``), nothing is
re-dispatched, nothing is left for a check that will not run.
"""

import typing

from oslo_context import context as oslo_context
from oslo_log import log as logging

from heat.common import exception
from heat.db import api as db_api
from heat.engine import check_resource
from heat.rpc import worker_client

from heat_breakpoint.db import operation_state
from heat_breakpoint.db import pause_clock
from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import events
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.check import outcomes
from heat_breakpoint.engine.check import parking
from heat_breakpoint.engine.commands import credentials
from heat_breakpoint.engine.commands import lost_releases
from heat_breakpoint.engine.commands import stepping
from heat_breakpoint.engine import heat_internals
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import operation_state as model_state
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import target_kinds
from heat_breakpoint import notify

LOG = logging.getLogger(__name__)

_ENDED = {operation_state.CANCELLED: protocol.RELEASE_CANCEL,
          operation_state.FAILED: protocol.RELEASE_FAILED,
          operation_state.SUPERSEDED: protocol.RELEASE_SUPERSEDED}


def check_release(rsrc, details) -> None:
    """Refuse a release signal that does not fit the hold it names."""
    if not isinstance(details, dict) or 'unset_hook' not in details:
        return
    how = details.get(protocol.SIGNAL_KEY)
    since = details.get(protocol.SIGNAL_HELD_SINCE_KEY)
    if since is not None:
        _check_same_hold(rsrc, since)
    if how not in (protocol.RELEASE_RETRY, protocol.RELEASE_STEP,
                   protocol.RELEASE_RETAIN):
        return
    record = hold_records.record_of(rsrc)
    if record is None or record['hook'] != details['unset_hook']:
        if how != protocol.RELEASE_STEP:
            raise exception.InvalidBreakPointHook(
                message='%s is not held on failure: nothing to %s'
                % (rsrc.name, how))
        return
    why = outcomes.refusal(record, how, rsrc.resource_id)
    if why:
        raise exception.InvalidBreakPointHook(message=why)
    if how == protocol.RELEASE_STEP and 'traversal' in record:
        _check_step_room(rsrc, record)


def _check_same_hold(rsrc, since) -> None:
    """Refuse a release meant for a hold that is no longer there.

    A release sent again (its first answer lost with the engine that
    took it) must not release the hold made since.
    """
    record = hold_records.record_of(rsrc)
    held = hold_records.since_text(record.get('since')) if record else None
    if held != since:
        raise exception.InvalidBreakPointHook(
            message='%s is no longer held as it was at %s%s: nothing '
            'released' % (rsrc.name, since, ' (held again since %s)' % held
                          if held else ''))


def _check_step_room(rsrc, record) -> None:
    """A step may not take its operation past its number of targets.

    Where it goes is worked out here, once: the release of the same
    signal arms it (:func:`stepping.planned`, :func:`release`).
    """
    stored = operation_state.count_targets(facts.place(rsrc.stack).key)
    adding = len(stepping.plan(rsrc, record['action'], into=record.get(
        'when') not in hold_records.DONE_WHENS))
    if stored + adding > operation_state.MAX_TARGETS:
        raise exception.InvalidBreakPointHook(
            message='Cannot step from %s: %s' % (
                rsrc.name, operation_state.TooManyTargets(
                    stored, adding, operation_state.MAX_TARGETS)))


def _caller_context(rsrc):
    return (parking.request_context.get() or oslo_context.get_current() or
            rsrc.context)


class Release(typing.NamedTuple):
    """What one release decides with, gathered once (:func:`gather`).

    As a check's facts are (:class:`decision.Check`), read at the start
    and passed to every step of the release. ``record``: the hold's, as
    stored. ``how``: the way out the release takes
    (``protocol.RELEASES``; a stock ``hook clear``; or, once the
    operation may no longer go on, why: ``ended``, else None). ``place``:
    where the resource's stack sits (None for a hold of the legacy
    engine, which has no traversal: nothing is claimed or sent on).
    ``depth``: the ``--nested-depth`` of a continue (None: every level).
    """

    record: dict
    how: str
    ended: typing.Optional[str] = None
    place: typing.Optional[facts.Place] = None
    depth: typing.Optional[int] = None

    @property
    def convergence(self) -> bool:
        return self.place is not None


def gather(rsrc, details) -> typing.Optional[Release]:
    """The facts of this release, or None when it is no hold of ours.

    Heat cleared the hook flag already; a plain native hook needs
    nothing more.
    """
    record = hold_records.record_of(rsrc)
    if record is None or record['hook'] != details.get('unset_hook'):
        return None
    how = details.get(protocol.SIGNAL_KEY)
    if how not in protocol.RELEASES:
        how = protocol.RELEASE_HOOK_CLEAR
    depth = depth_of(details)
    if 'traversal' not in record:
        return Release(record, how, depth=depth)
    place = facts.place(rsrc.stack)
    ended = _forward_ended(rsrc, record, place)
    return Release(record, how if ended is None else ended, ended, place,
                   depth)


def _forward_ended(rsrc, record, place: facts.Place):
    """Why the hold's operation may not go on (a reason), or None."""
    if 'root_traversal' in record:
        ended = operation_state.forward_ended(place.root_id,
                                              record['root_traversal'])
        if ended is not None:
            return _ENDED[ended]
    stored = operation_state.stored_traversal(rsrc.stack.id)
    if stored != record['traversal']:
        return _ENDED[operation_state.failed_or_superseded(stored)]
    return None


def _run_to_targets(place: facts.Place) -> str:
    state = operation_state.read(place.key)
    return ', '.join(sorted(
        path for path, kind in model_state.target_items(state.targets)
        if target_kinds.ran_to(kind)))


def release(rsrc, details) -> None:
    """Called after Heat cleared a hook flag for a resource signal."""
    heat_internals.keep_data(rsrc, None)
    found = gather(rsrc, details)
    if found is None:
        return  # a plain native hook: stock Heat has done everything
    record, how = found.record, found.how
    shown = how
    if how == protocol.RELEASE_RUN_TO and found.convergence:
        shown = '%s %s' % (how, _run_to_targets(found.place))
    event = reasons.released(record['breakpoint'], shown)
    if found.convergence and not _claim(rsrc, found, event):
        LOG.info('Breakpoint on %s already released', rsrc.name)
        return
    if not found.convergence:
        events.record(rsrc, event)
    elif found.ended is not None:
        LOG.info('Not resuming %s: %s', rsrc.name, found.ended)
    else:
        _go_on(rsrc, found)
    path = tuple(record['path'].split('/'))
    notify.send(_caller_context(rsrc), notify.RELEASED,
                notify.payload(rsrc, path, record['action'],
                               record['breakpoint'], released_by=how))
    if found.convergence and found.ended is None:
        _redispatch(rsrc, record)
        lost_releases.sent(rsrc)


def _claim(rsrc, found: Release, event) -> bool:
    """Claim the release: of two racing releases only one wins.

    One transaction: the resource put back as it was, with what its
    re-dispatched check needs (or nothing left, when it will not run),
    the marker of a check not sent yet and the release's event. An
    engine that dies after it leaves a release another engine finishes
    (:mod:`lost_releases`), counted once.
    """
    record = found.record
    with db_api.context_manager.writer.using(rsrc.context):
        if not hold_records.forget(rsrc, record):
            return False
        if found.ended is None:
            rsrc.data_set(resource_data.RELEASED_KEY, record['traversal'])
            if record.get('when') in hold_records.DONE_WHENS:
                # After the action or on its failure: see outcomes.
                outcomes.released(rsrc, record, found.how)
            rsrc.data_set(resource_data.SENDING_KEY,
                          lost_releases.marker(record['traversal']))
        else:
            hold_records.drop_notes(rsrc)
        events.record(rsrc, event)
    pause_clock.hold_ended(found.place.key)
    return True


def depth_of(details):
    """The ``--nested-depth`` a continue carries, or None (every level)."""
    depth = details.get(protocol.SIGNAL_DEPTH_KEY)
    if isinstance(depth, int) and not isinstance(depth, bool) and \
            0 <= depth <= breakpoints.MAX_DEPTH:
        return depth
    return None


def _go_on(rsrc, found: Release) -> None:
    """What the release asked for the rest of the operation."""
    key, record = found.place.key, found.record
    if found.how == protocol.RELEASE_CONTINUE:
        operation_state.mark(key, target_kinds.continue_mode(found.depth))
    elif found.how == protocol.RELEASE_STEP:
        by_kind = {}
        for path, kind in stepping.planned(
                rsrc, record['action'],
                into=record.get('when') not in hold_records.DONE_WHENS,
                path=found.place.path + (rsrc.name,)):
            by_kind.setdefault(kind, []).append(path)
        for kind, paths in sorted(by_kind.items()):
            operation_state.add_targets(key, paths, kind)


def _redispatch(rsrc, record) -> None:
    cnxt = credentials.operation_context(rsrc.stack)
    # The stack as loaded for this release, after the hold: the hold's
    # traversal and graph (a newer operation was looked for above).
    stack = rsrc.stack
    if stack.current_traversal != record['traversal']:
        LOG.info('Not resuming %s: its operation was superseded',
                 rsrc.name)
        return
    checker = check_resource.CheckResource(
        None, worker_client.WorkerClient(), None, None, {})
    checker.retrigger_check_resource(cnxt, rsrc.id, stack)
