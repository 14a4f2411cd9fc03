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
"""oslo.messaging notifications of breakpoint hits and releases.

They go through Heat's own notifier, so Heat's
``[oslo_messaging_notifications]`` settings decide where they are sent.
Event types: ``orchestration.breakpoint.reached`` and
``orchestration.breakpoint.released``.
"""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

REACHED = 'breakpoint.reached'
RELEASED = 'breakpoint.released'


def payload(rsrc, path, action, breakpoint_name, **extra) -> dict:
    body = {'stack_id': rsrc.stack.id,
            'stack_name': rsrc.stack.name,
            'resource_name': rsrc.name,
            'resource_path': '/'.join(path),
            'action': action,
            'breakpoint': breakpoint_name}
    body.update(extra)
    return body


def send(context, event_type: str, body: dict) -> None:
    from heat.engine import notification
    try:
        notification.notify(context, event_type, 'INFO', body)
    except Exception:
        # A notifier outage must never fail or block a stack operation.
        LOG.exception('Could not send %s notification', event_type)
