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
"""A hold as it is stored on its resource, and how it is put back.

Holding (:mod:`parking`, :mod:`outcomes`) and releasing
(:mod:`releases`) both read and write the same few things: the hold's
record in the resource's data (under the keys of
:mod:`heat_breakpoint.db.resource_data`), the resource's state, the stock
hook flag a hold sets. They live here, below all three, so that none of
them needs another's private names.
"""

import datetime
import json

from oslo_utils import timeutils

from heat.common import timeutils as heat_timeutils
from heat.objects import resource as resource_objects

from heat_breakpoint.db import resource_data
from heat_breakpoint.engine import heat_internals
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds

PRE_HOOKS = {'CREATE': 'pre-create', 'UPDATE': 'pre-update',
             'DELETE': 'pre-delete'}
IN_PROGRESS = 'IN_PROGRESS'
# Holds once the action is over (its data has a ``when`` of these): the
# resource keeps its state, a post-* hook flag releases it.
DONE_WHENS = kinds.DONE_WHENS


def data(rsrc) -> dict:
    """The resource's data, read once per resource object.

    Heat keeps what it read, but not an empty answer: without this, every
    look at a resource without data (most of them) is another query.
    Heat's own ``data_set`` and ``data_delete`` drop what is kept.
    """
    found = rsrc.data()
    if not found and heat_internals.cached_data(rsrc) is None and \
            rsrc.id is not None:
        heat_internals.keep_data(rsrc, {})
    return found


def release_interrupted(rsrc, details) -> bool:
    """A release signal for a hold whose earlier release was cut off.

    Heat clears the hook flag, then the plugin claims the hold. When the
    heat-engine serving a release dies between the two, the hold record
    (under convergence) is still there, without its flag: Heat would
    refuse every later release ("hook is not defined") and the hold could
    never go on. Such a release goes through the plugin's claim instead.
    """
    hook = details.get('unset_hook') if isinstance(details, dict) else None
    if not hook or rsrc.has_hook(hook):
        return False
    record = record_of(rsrc)
    return (record is not None and record.get('hook') == hook and
            'traversal' in record)


def arrived(rsrc) -> None:
    """A released check began: it is not lost (:mod:`lost_releases`)."""
    if resource_data.SENDING_KEY in data(rsrc):
        rsrc.data_delete(resource_data.SENDING_KEY)


def record_of(rsrc):
    """The hold record of a resource, or None."""
    raw = data(rsrc).get(resource_data.HOLD_KEY)
    return json.loads(raw) if raw else None


def since_text(value) -> str:
    """A record's ``since`` as the view's rows say it (``held_since``)."""
    if not value:
        return ''
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value)
        except ValueError:
            return value
    return heat_timeutils.isotime(value)


def is_parked(rsrc) -> bool:
    return resource_data.HOLD_KEY in rsrc.data()


def set_state(rsrc, action, status, reason, atomic=True) -> bool:
    """Write the resource's state; ``atomic``: only if nobody else did."""
    values = {'action': action, 'status': status,
              'status_reason': reason, 'updated_at': timeutils.utcnow()}
    if atomic:
        if not resource_objects.Resource.select_and_update_by_id(
                rsrc.context, rsrc.id, values, expected_engine_id=None,
                atomic_key=heat_internals.row_version(rsrc)):
            return False
        heat_internals.row_written(rsrc, heat_internals.row_version(rsrc))
    else:
        resource_objects.Resource.update_by_id(rsrc.context, rsrc.id,
                                               values)
    rsrc.action, rsrc.status, rsrc.status_reason = action, status, reason
    rsrc.updated_time = values['updated_at']
    return True


def hook_of(action: str, when: str = breakpoints.BEFORE) -> str:
    """The stock hook flag a hold sets: post-* once the action is over."""
    if when in DONE_WHENS:
        return 'post-' + action.lower()
    return PRE_HOOKS[action]


def forget(rsrc, record, atomic=True) -> bool:
    """Put the resource back as it was before the hold."""
    if not set_state(rsrc, *record['prior'], atomic=atomic):
        return False
    rsrc.data_delete(resource_data.HOLD_KEY)
    return True


def drop_notes(rsrc) -> None:
    """Delete what a release left for a check that will not run."""
    found = set(data(rsrc))
    for key in resource_data.NOTE_KEYS:
        if key in found:
            rsrc.data_delete(key)
