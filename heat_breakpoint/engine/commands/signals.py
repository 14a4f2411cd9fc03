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
"""Where the engine takes what users say to a running operation.

Every command of ours reaches the engine as a resource signal (Heat's
``EngineService.resource_signal``, wrapped by :mod:`seam`): a release
(``{"unset_hook": ..., "breakpoint_release": how}``: step, continue,
clear, retry, run to) or a command that releases nothing
(``{"breakpoint_command": ...}``: set, clear, to, continue).
:func:`take` is the one function every such signal passes, so whatever
must hold for all of them (who may send them) is decided there, once,
before anything is read or changed. A signal without our keys (a stock
``openstack stack hook clear``, a native hook, a resource's own signal)
goes to Heat exactly as it came.

A stack cancel passes :func:`cancel` first, which notes the cancel for
the operation before Heat starts the rollback, so that no release can
resume the operation's forward work after it (:mod:`releases`).
"""

from oslo_log import log as logging

from heat_breakpoint.db import operation_state
from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import parking
from heat_breakpoint.engine.commands import commands
from heat_breakpoint.engine.commands import releases
from heat_breakpoint.engine import heat_internals
from heat_breakpoint.engine import rpc_policy
from heat_breakpoint.model import protocol

LOG = logging.getLogger(__name__)

#: What of ours a signal carries (:func:`carried`).
COMMAND = 'command'
RELEASE = 'release'


def carried(details):
    """:data:`COMMAND`, :data:`RELEASE`, or None for a stock signal."""
    if not isinstance(details, dict):
        return None
    if protocol.COMMAND_KEY in details:
        return COMMAND
    if 'unset_hook' in details and protocol.SIGNAL_KEY in details:
        return RELEASE
    return None


def take(service, cnxt, stack_identity, resource_name, details, sync_call,
         stock):
    """Serve one resource signal; ``stock`` is Heat's own method.

    The single entry point of our commands into the engine: both kinds
    (:func:`carried`) pass here before anything of the stack is read.
    """
    rpc_policy.check_signal(cnxt, details)  # before commands, releases
    kind = carried(details)
    if kind == COMMAND:
        return _command(service, cnxt, stack_identity, resource_name,
                        details)
    token = parking.request_context.set(cnxt)
    try:
        stack, held = None, None
        if kind == RELEASE:
            stack, held = _held_namesake(service, cnxt, stack_identity,
                                         resource_name)
        if held is not None:
            # As Heat's own resource_signal does, for the held one (which
            # keeps only a weak reference to ``stack``).
            heat_internals.check_signal_action(held)
            held.signal(details)
            return None
        return stock(service, cnxt, stack_identity, resource_name, details,
                     sync_call)
    finally:
        parking.request_context.reset(token)


def _held_namesake(service, cnxt, stack_identity, name):
    """(stack, the held resource of that name) where Heat picks another.

    Heat finds a signal's resource by name, but an update can hold a
    resource while a namesake (a failed replacement Heat cleans up) is in
    the stack too; Heat may pick the namesake and refuse the signal
    (``Signal resource during DELETE``), and the hold could never be
    released. One small query when the name is unique, as it nearly
    always is.
    """
    from heat.db import api as db_api
    from heat.db import models
    from heat.engine import stack as parser
    from heat.objects import resource as resource_objects
    db_stack = service._get_stack(cnxt, stack_identity)
    with db_api.context_manager.reader.using(cnxt):
        query = cnxt.session.query(models.Resource.id).filter_by(
            stack_id=db_stack.id, name=name)
        if query.count() < 2:
            return None, None
        held = [row.id for row in query.join(
            models.ResourceData,
            models.ResourceData.resource_id == models.Resource.id).filter(
                models.ResourceData.key == resource_data.HOLD_KEY)]
    if len(held) != 1:
        return None, None
    stack = parser.Stack.load(cnxt, stack=db_stack, use_stored_context=True)
    found = stack.resource_get(name)
    if found is not None and found.id == held[0]:
        return None, None  # Heat picks the held one itself
    LOG.info('Releasing %(name)s (id %(id)s), not its namesake', {
        'name': name, 'id': held[0]})
    return stack, heat_internals.resource_of_row(
        stack, resource_objects.Resource.get_obj(cnxt, held[0]))


def _command(service, cnxt, stack_identity, resource_name, details):
    from heat.common import exception
    from heat.engine import stack as parser
    import oslo_messaging
    try:
        stack = parser.Stack.load(
            cnxt, stack=service._get_stack(cnxt, stack_identity))
        # The path may reach below resources that do not exist yet.
        path = details.get(protocol.COMMAND_PATH_KEY) or resource_name
        return commands.command(
            stack, str(path), details[protocol.COMMAND_KEY],
            details.get(protocol.COMMAND_WHEN_KEY) or 'before',
            releases.depth_of(details))
    except exception.HeatException:
        # As Heat's own request_context does: an expected error goes
        # back to the caller without a traceback in the engine log.
        raise oslo_messaging.rpc.dispatcher.ExpectedException()


def cancel(service, cnxt, stack_identity, cancel_with_rollback, stock):
    """Heat's ``stack_cancel_update`` (``stock``), noted first.

    Noted only where Heat will cancel (the same states it accepts), and
    never in the way of Heat's own cancel.
    """
    try:
        _note_cancel(service, cnxt, stack_identity, cancel_with_rollback)
    except Exception:
        LOG.exception('Could not note the cancel of stack %s',
                      stack_identity)
    return stock(service, cnxt, stack_identity, cancel_with_rollback)


def _note_cancel(service, cnxt, stack_identity, cancel_with_rollback):
    from heat.common import exception
    from heat.engine import stack as parser
    try:
        stack = parser.Stack.load(
            cnxt, stack=service._get_stack(cnxt, stack_identity))
    except exception.HeatException:
        return  # Heat's own cancel says what is wrong
    if stack.owner_id is not None and not cancel_with_rollback:
        # Heat's own cancel of a nested operation: preempted by a newer
        # operation of the root (StackResource.handle_preempt), which must
        # hold where its breakpoints say, or a root's cancel passed down,
        # noted at the root already.
        return
    allowed = (stack.UPDATE,) if cancel_with_rollback else (
        stack.UPDATE, stack.CREATE)
    if (not stack.convergence or stack.status != stack.IN_PROGRESS or
            stack.action not in allowed or
            facts.place(stack).root_action == decision.ROLLBACK):
        return
    operation_state.cancel_asked(facts.place(stack).key)
    LOG.info('Cancel asked for stack %s: no breakpoint holds or resumes '
             'its operation from now on', stack.id)
