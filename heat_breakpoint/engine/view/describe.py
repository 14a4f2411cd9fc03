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
"""One resource as the breakpoints view describes it (``show``).

Everything ``openstack stack breakpoint show`` prints, worked out where
the facts are: whether the running operation holds the resource now,
will hold it (and by which rule, from the same :func:`decision.rules`
the engine decides with), or is done with it; the hit's inputs exactly as
its event stored them (masked once, by the engine; Heat's own
error of a failure hold through the same text net); its neighbours in the
order the operation walks them (reversed for a delete), from the
database, since a stack being deleted has an empty template, and from
the graph Heat runs the operation on (the dependencies Heat adds
itself are there before a resource's row stores them).
"""

import sqlalchemy as sa

from heat.db import api as db_api
from heat.db import models
from heat.engine import stack as parser
from heat.objects import resource_properties_data as rpd_objects

from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.commands import commands
from heat_breakpoint.engine.masking import inputs
from heat_breakpoint.model import breakpoints

SIMULATED = ('yes: its service is simulated by the local server '
             '(heat-breakpoint-server)')
HELD, ARMED, DISARMED, DONE, WAITING = (
    'held', 'armed', 'disarmed', 'done', 'waiting')


def resource(cnxt, db_stack, path, found, rows, root, remaining) -> dict:
    """The resource at ``path`` below ``db_stack``, described."""
    stack = parser.Stack.load(cnxt, stack=db_stack)
    rsrc, _walked = commands.resolve(stack, path)
    held = [row for row in rows
            if row['state'] == HELD and row['resource'] == path]
    result = {
        'resource': path, 'stack': '%s/%s' % (db_stack.name, db_stack.id),
        'state': WAITING, 'breakpoint': '', 'source': '', 'why': '',
        'actions': '', 'action': '', 'when': '', 'held_since': '',
        'timeout_remaining': remaining, 'resource_status': '',
        'resource_status_reason': '', 'requires': [], 'required_by': [],
        'next': [], 'inputs': None, 'attributes': None, 'error': '',
        'event': '', 'change': None, 'simulated': ''}
    if rsrc is not None:
        result['stack'] = '%s/%s' % (rsrc.stack.name, rsrc.stack.id)
        # Only heat-breakpoint-server's simulated cloud marks its types.
        if getattr(rsrc, 'simulated', False):
            result['simulated'] = SIMULATED
        result['resource_status'] = '%s_%s' % (rsrc.action, rsrc.status)
        result['resource_status_reason'] = rsrc.status_reason or ''
        _neighbours(result, rsrc, root['action'])
    if held:
        row = held[0]
        result.update(state=HELD, breakpoint=row['breakpoint'],
                      source=row.get('source', ''),
                      actions=row.get('actions', row['action']),
                      action=row['action'], when=row.get('when', ''),
                      held_since=row['held_since'])
        if rsrc is not None:
            _hit(result, rsrc)
        if rsrc is not None and result['when'] == breakpoints.FAILED:
            # The reason is Heat's error: the text net over it.
            result['resource_status_reason'] = inputs.failure_text(
                rsrc, result['resource_status_reason'])
        return result
    action = root['action'] if root['status'] == 'IN_PROGRESS' else None
    first = rsrc is not None and facts.is_first(rsrc)
    rule = None
    for when in breakpoints.WHENS:  # e.g. an on-change rule not reached yet
        rule = decision.explain(found, tuple(path.split('/')),
                                (action or 'create').lower(), when, first)
        if rule is not None:
            break
    if rule is not None:
        result.update(
            state=ARMED if rule.armed else DISARMED,
            breakpoint=rule.name, source=rule.source, why=rule.why,
            when=rule.breakpoint.when,
            actions=','.join(a.upper() for a in rule.breakpoint.actions))
    state_of = (action, rsrc.action, rsrc.status,
                rsrc.updated_time or rsrc.created_time,
                commands.root_started_row(root)) if rsrc is not None \
        else None
    if (action and state_of and result['state'] != DISARMED and (
            decision.is_done(*state_of) or (
                result.get('when') in commands.BEFORE_WHENS and
                decision.has_begun(*state_of, reason=rsrc.status_reason)))):
        # Before an action that began, a breakpoint no longer holds.
        result['state'] = DONE
    return result


def _hit(result, rsrc) -> None:
    """The held resource's inputs and event, as the hit stored them."""
    record = hold_records.record_of(rsrc)
    # The planned change of a ``when: changed|replaced`` hold.
    result['change'] = (record or {}).get('change')
    inputs_id = (record or {}).get('inputs_id')
    if inputs_id is None:
        return
    data = rpd_objects.ResourcePropertiesData.get_by_id(
        rsrc.context, inputs_id)
    details = data.data if data is not None else None
    if isinstance(details, dict):
        result['inputs'] = details.get('properties')
        # A hold after the action or on its failure: its attributes as
        # the hit resolved them (nothing ran on the resource since); on
        # failure also Heat's error.
        result['attributes'] = details.get('attributes')
        result['error'] = details.get('error', '')
    event = models.Event.__table__
    with db_api.get_engine().connect() as conn:
        found = conn.execute(sa.select(event.c.uuid).where(
            event.c.rsrc_prop_data_id == inputs_id)).first()
    if found is not None:
        result['event'] = found.uuid


def _operation_graph(rsrc, by_id) -> tuple:
    """Names ``rsrc`` requires and is required by in the stack's graph.

    The convergence graph of the stack's operation as Heat stored it
    (``current_deps``: edges from requirer to required, built from the
    stack's dependencies, implicit ones included); only the nodes that
    create or update a resource, not the clean-ups. Read from the edges
    themselves: a node's form differs between Heat releases.
    """
    requires, required_by = set(), set()
    edges = (getattr(rsrc.stack, 'current_deps', None) or {}).get('edges')
    for requirer, required in edges or ():
        if not (required and requirer[1] and required[1]):
            continue
        if requirer[0] == rsrc.id and required[0] in by_id:
            requires.add(by_id[required[0]])
        elif required[0] == rsrc.id and requirer[0] in by_id:
            required_by.add(by_id[requirer[0]])
    return requires, required_by


def _neighbours(result, rsrc, op_action) -> None:
    """What it requires and what requires it, from the stored graph."""
    resource = models.Resource.__table__
    with db_api.get_engine().connect() as conn:
        rows = conn.execute(sa.select(
            resource.c.id, resource.c.name, resource.c.requires).where(
                resource.c.stack_id == rsrc.stack.id)).all()
    by_id = {row.id: row.name for row in rows}
    own = next((row for row in rows if row.id == rsrc.id), None)
    requires = sorted({by_id[i] for i in (own.requires or [])
                       if i in by_id}) if own is not None else []
    required_by = sorted({row.name for row in rows
                          if rsrc.id in (row.requires or [])})
    if op_action != 'DELETE':
        # The graph Heat runs the operation on: the implicit dependencies
        # it adds (a server on the stack's subnets) are there before the
        # resource's row stores them.
        more, more_by = _operation_graph(rsrc, by_id)
        requires = sorted(set(requires) | more)
        required_by = sorted(set(required_by) | more_by)
        # The template's view, for resources not stored yet in the graph.
        defined = rsrc.stack.t.resource_definitions(rsrc.stack)
        if rsrc.name in defined:
            requires = sorted(set(requires) | set(
                defined[rsrc.name].required_resource_names()))
            required_by = sorted(set(required_by) | {
                name for name, defn in defined.items()
                if rsrc.name in defn.required_resource_names()})
    result['requires'] = requires
    result['required_by'] = required_by
    result['next'] = requires if op_action == 'DELETE' else required_by
    result['path_prefix'] = breakpoints.SEPARATOR.join(
        facts.stack_path(rsrc.stack))
