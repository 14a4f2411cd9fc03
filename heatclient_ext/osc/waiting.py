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
"""``--wait`` of a create or update that can hold at a breakpoint.

heatclient's own wait (``event_utils.poll_for_events``) would sit out a
held operation until the stack's timeout, so the hooks hand such a wait
to :func:`follow`: heatclient's loop, the same event lines and the same
end (the first stack event of ``<ACTION>_COMPLETE`` or ``_FAILED`` after
the marker, so a failed create that rolls back ends at its
``CREATE_FAILED`` as stock's does), and one more way out: the operation
is held. Scripts then see what they see without a breakpoint, exit codes
included; a wait without a breakpoint is heatclient's, untouched.

More ends, where stock's wait has none: an update cancelled (``openstack
stack cancel``, or ``cancel`` in ``watch -i``) goes straight to
``ROLLBACK_IN_PROGRESS``, with no ``UPDATE_FAILED``; a create held and
then superseded by an update becomes that update, with no
``CREATE_COMPLETE``; and heatclient's wait for its own action never
ends. Released, cancelled or superseded between two polls (a hold too
brief for the wait to see), the wait must not run forever: once its
operation began, the end of any operation of the stack ends it.
"""

import time

from heatclient.common import event_utils
from heatclient.common import utils as heat_utils

from heatclient_ext._i18n import _

#: heatclient's words at the end of a wait (its CommandError's message).
END_TEXT = _("\n Stack %(name)s %(status)s \n")

_ENDS = ('_COMPLETE', '_FAILED')
#: The ends ``--wait`` exits 0 at: the stack built as last asked.
BUILT = ('CREATE_COMPLETE', 'UPDATE_COMPLETE')


def last_event_id(client, stack):
    """The marker stock's ``stack update --wait`` takes before it sends."""
    events = event_utils.get_events(client, stack_id=stack,
                                    event_args={'sort_dir': 'desc'},
                                    limit=1)
    return events[0].id if events else None


def _is_stack_event(event, stack_name) -> bool:
    # as heatclient tells its stack's own events from its resources'
    if getattr(event, 'resource_name', '') != stack_name:
        return False
    phys_id = getattr(event, 'physical_resource_id', '')
    links = {link.get('rel'): link.get('href')
             for link in getattr(event, 'links', [])}
    return links.get('stack', phys_id).rsplit('/', 1)[-1] == phys_id


def follow(client, stack_name, action, held_now, status_now, out, poll=5,
           marker=None) -> tuple:
    """Print the stack's events until its ``action`` ends or it holds.

    ``held_now()`` gives the held rows (empty: nothing held),
    ``status_now()`` the stack's status (read where heatclient reads
    it, after two polls without an event). Returns
    ``(status, message, held rows)``: ``status`` and ``message`` as
    heatclient's ``poll_for_events`` returns them (or the end of the
    operation that took this one's place), or ``(None, None, rows)``
    when the operation is held.
    """
    stop = ('%s_FAILED' % action, '%s_COMPLETE' % action)
    began = '%s_IN_PROGRESS' % action
    started = False  # this operation's stack event seen: others end it
    context = heat_utils.EventLogContext()
    quiet_polls = 0
    while True:
        # read before the events: a hold is then never reported ahead
        # of the events that led to it
        held = held_now()
        events = event_utils.get_events(
            client, stack_id=stack_name, nested_depth=0,
            event_args={'sort_dir': 'asc', 'marker': marker})
        if events:
            quiet_polls = 0
            marker = getattr(events[-1], 'id', None)
            out.write(heat_utils.event_log_formatter(events, context))
            out.write('\n')
            for event in events:
                if not _is_stack_event(event, stack_name):
                    continue
                status = getattr(event, 'resource_status', '')
                started = started or status == began
                if status in stop or (started and status.endswith(_ENDS)):
                    return status, END_TEXT % {'name': stack_name,
                                               'status': status}, []
        else:
            quiet_polls += 1
        if held:
            return None, None, held
        if quiet_polls >= 2:
            # heatclient's fallback after two polls without events
            quiet_polls = 0
            status = status_now() or ''
            if status in stop or (started and status.endswith(_ENDS)):
                return status, END_TEXT % {'name': stack_name,
                                           'status': status}, []
        time.sleep(poll)
