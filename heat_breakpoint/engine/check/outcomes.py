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
"""Holds after a resource's action, and on its failure.

The seam's pipeline runs Heat's own create, update or delete of a
resource through :func:`run`, with the check's facts (:mod:`facts`).
When the action completed and an ``after`` breakpoint matches, the
resource is held done (``<ACTION>_COMPLETE``) with its attributes
resolved for the hit; when it raised Heat's resource failure
and a ``failed`` breakpoint matches, the failure is held instead of
failing the stack (the resource keeps ``<ACTION>_FAILED`` and Heat's
error, shown with the attributes it reports, such as a deployment's
stderr). Both park like a hold before the action (:func:`parking.park`).

Their release (:func:`released`) leaves a note that the re-dispatched
check reads first (:func:`resume`): after an ``after`` hold the check
only hands the resource's data to its dependents, the action is not run
again; after a failure hold, ``retry`` puts the resource back as it was
before the action, which then runs again in the same operation, and any
other release lets the failure go on exactly as stock Heat would have
let it (:class:`HeldFailure`: the stack fails, rolls back if enabled);
after a failed delete, ``retain`` has Heat forget the resource, left in
the cloud, and the delete goes on.
"""

import json

from oslo_log import log as logging

from heat.common import exception

from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import events
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.check import parking
from heat_breakpoint.engine.masking import inputs
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons

LOG = logging.getLogger(__name__)

# What the re-dispatched check of a released hold does (its note, under
# resource_data.RESUME_KEY).
PROPAGATE = 'propagate'
FAIL = 'fail'

# Heat's catch-all attribute, which may ask the service for everything.
_SHOW_ATTRIBUTE = 'show'


class HeldFailure(exception.ResourceFailure):
    """The failure a hold kept, raised again as Heat first raised it.

    Heat's convergence check turns it into the stack's failure with the
    same words as it would have without the hold.
    """

    def __init__(self, text: str, action: str):
        Exception.__init__(self, text)
        self.text = text
        self.action = action
        self.resource = None
        self.exc = None
        self.error = ''
        self.path = []
        self.error_message = text

    def __str__(self):
        return self.text


def run(rsrc, check: decision.Check, action: str, properties, stock):
    """Run Heat's action (``stock()``); hold after it or on its failure."""
    before = [rsrc.action, rsrc.status, rsrc.status_reason]
    try:
        result = stock()
    except exception.ResourceFailure as exc:
        _hold_failure(rsrc, check, exc, properties, before)
        raise
    _hold_after(rsrc, check, action, properties)
    return result


def _hold_failure(rsrc, check, exc, properties, before) -> None:
    action = str(exc.action or rsrc.action).upper()
    if (rsrc.status != rsrc.FAILED or rsrc.id is None or
            not decision.eligible(check, action, breakpoints.FAILED)):
        return
    check = facts.fresh(rsrc, check)
    rule = decision.hold(check, action, breakpoints.FAILED)
    if rule is None:
        return
    error = str(exc)
    # What the failed resource reports (a deployment's stderr), as after
    # an action: the author reads why it failed where it held.
    found = {} if action == 'DELETE' else attributes(rsrc)
    parking.park(rsrc, check, rule, action, properties,
                 when=breakpoints.FAILED,
                 details={'error': inputs.failure_text(rsrc, error),
                          'attributes': found},
                 error=error, before=before)


def _hold_after(rsrc, check, action: str, properties) -> None:
    if rsrc.status != rsrc.COMPLETE or rsrc.id is None:
        return
    if action == 'DELETE' and rsrc.action != rsrc.DELETE:
        return  # nothing was deleted: not this operation's to delete
    if not decision.eligible(check, action, breakpoints.AFTER):
        return
    check = facts.fresh(rsrc, check)
    rule = decision.hold(check, action, breakpoints.AFTER)
    if rule is None:
        return
    found = {} if action == 'DELETE' else attributes(rsrc)
    parking.park(rsrc, check, rule, action, properties,
                 when=breakpoints.AFTER, details={'attributes': found})


def attributes(rsrc) -> dict:
    """The resource's attributes as resolved now, secrets masked.

    An attribute that cannot be resolved shows why.
    """
    found = {}
    for name in sorted(rsrc.attributes):
        if name == _SHOW_ATTRIBUTE:
            continue
        try:
            found[name] = rsrc.FnGetAtt(name)
        except Exception as exc:
            found[name] = 'unavailable: %s' % exc
    found = json.loads(json.dumps(found, default=str))
    return inputs.masked_attributes(rsrc, found)


def refusal(record, how: str, resource_id=None):
    """Why a release ``how`` cannot apply to this hold, or None."""
    when = record.get('when', breakpoints.BEFORE)
    name, action = record['breakpoint'], record['action']
    if how == protocol.RELEASE_RETRY:
        if when != breakpoints.FAILED:
            return ('%s is held %s %s, not on its failure: retry applies '
                    'to a resource held on failure' % (name, when, action))
        if action == 'CREATE' and resource_id:
            return ('The failed %s of %s left physical resource %s: '
                    'retrying would lose it; use continue, clear or a '
                    'stack update' % (action, name, resource_id))
    if how == protocol.RELEASE_RETAIN and (
            when != breakpoints.FAILED or action != 'DELETE'):
        return ('%s is held %s %s: retain applies to a resource held on '
                'the failure of its delete' % (name, when, action))
    if how == protocol.RELEASE_STEP and when == breakpoints.FAILED:
        return ('%s is held on its %s failure: use retry, continue or '
                'clear' % (name, action))
    return None


def released(rsrc, record, how: str) -> None:
    """Called by :func:`releases.release` for a hold after or on failure.

    The hold is claimed (its state restored); say what the re-dispatched
    check does.
    """
    when = record.get('when')
    if when == breakpoints.AFTER:
        _note(rsrc, record, PROPAGATE)
    elif when == breakpoints.FAILED and how == protocol.RELEASE_RETRY:
        # As before the action: the check runs it again.
        hold_records.set_state(rsrc, *record['before'])
    elif when == breakpoints.FAILED and how == protocol.RELEASE_RETAIN:
        # Deleted as far as Heat knows (it purges the row as it purges
        # every deleted resource's); the check hands on as after a hold.
        text = reasons.retained(record['breakpoint'], rsrc.resource_id)
        hold_records.set_state(rsrc, rsrc.DELETE, rsrc.COMPLETE, text)
        events.record(rsrc, text)
        _note(rsrc, record, PROPAGATE)
    elif when == breakpoints.FAILED:
        _note(rsrc, record, FAIL, error=record.get('error', ''))


def _note(rsrc, record, then: str, **extra) -> None:
    rsrc.data_set(resource_data.RESUME_KEY, json.dumps(dict(
        extra, traversal=record['traversal'], then=then,
        action=record['action'])))


def resume(rsrc) -> bool:
    """Called first by every convergence check of a resource.

    True: a hold after the action was released, the check only hands
    the resource's data on. Raises :class:`HeldFailure` when a held
    failure was let go. False otherwise (a note of an older operation is
    dropped).
    """
    raw = rsrc.data().get(resource_data.RESUME_KEY)
    if not raw:
        return False
    rsrc.data_delete(resource_data.RESUME_KEY)
    note = json.loads(raw)
    if note.get('traversal') != rsrc.stack.current_traversal:
        return False
    if note.get('then') == FAIL:
        LOG.info('Letting the held %s failure of %s go on',
                 note['action'], rsrc.name)
        raise HeldFailure(note.get('error', ''), note['action'])
    return True
