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
"""Commands that change a running operation without releasing anything.

``set R`` arms R, ``clear R`` disarms it, ``to R`` makes R the only
resource left to hold. They arrive as a resource signal carrying
``protocol.COMMAND_KEY`` (see :mod:`seam`), addressed to the stack the user
named, with the resource's path below it: the path may reach into nested
stacks the operation has not created or updated yet, so it is checked
against the templates (members of resource groups included), not only
against the resources that exist.
"""

import copy

from oslo_log import log as logging

from heat.common import exception
from heat.db import api as db_api
from heat.engine import stack as parser
from heat.objects import resource as resource_objects

from heat_breakpoint.db import operation_state
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import events
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine import heat_internals
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heat_breakpoint.model import target_kinds

LOG = logging.getLogger(__name__)

COMMANDS = (target_kinds.SET, target_kinds.CLEAR, target_kinds.RUN_TO,
            target_kinds.CONTINUE)
_WORDS = {target_kinds.SET: 'set', target_kinds.CLEAR: 'clear',
          target_kinds.RUN_TO: 'continue --to',
          target_kinds.CONTINUE: 'continue'}

# What a command reports, besides doing it.
DONE = 'done'
ALREADY_HELD = 'already held'
ALREADY_ARMED = 'already armed'
ALREADY_DISARMED = 'already disarmed'
ARMED = 'armed'
DISARMED = 'disarmed'
RUNNING_TO = 'running to'
RUNNING = 'running'
# Holds that come before the action: too late once it runs.
BEFORE_WHENS = kinds.BEFORE_ACTION_WHENS


def _refuse(message: str):
    # Heat's own breakpoint error: the API answers it with a 400 and the
    # message as it is.
    raise exception.InvalidBreakPointHook(message=message)


def _root(stack):
    if not stack.owner_id:
        return stack
    return parser.Stack.load(stack.context, stack_id=stack.root_stack_id(),
                             force_reload=True)


def _is_nested_stack(rsrc) -> bool:
    from heat.engine.resources import stack_resource
    return isinstance(rsrc, stack_resource.StackResource)


def _names(stack) -> list:
    """The resource names of a stack, its template's and its stored ones.

    A stack being deleted has an empty template.
    """
    names = set(stack.t.resource_definitions(stack))
    if stack.id is not None:
        names.update(resource_objects.Resource.get_all_by_stack(
            stack.context, stack.id))
    return sorted(names)


def _not_found(stack_name: str, path: str, segment: str, names) -> None:
    message = 'Resource %s not found in stack %s' % (path, stack_name)
    closest = breakpoints.closest_names(segment, names, n=3, cutoff=0.4)
    if closest:
        message += '; closest: %s' % ', '.join(closest)
    if names:
        message += ' (resources%s: %s)' % (
            '' if segment == path else ' there', ', '.join(names[:30]))
    _refuse(message)


def _inner_stack(rsrc):
    """The nested stack of ``rsrc``: stored, or parsed from its template.

    None when it cannot be worked out before the resource runs (its
    template depends on values not known yet).
    """
    nested = rsrc.nested()
    if nested is not None:
        return nested
    try:
        return heat_internals.parse_nested_stack(
            rsrc, '%s-%s' % (rsrc.stack.name, rsrc.name),
            rsrc.child_template(), rsrc.child_params())
    except Exception as exc:
        LOG.info('Cannot read the nested template of %s yet: %s',
                 rsrc.name, exc)
        return None


def resolve(stack, path: str):
    """The resource at ``path`` below ``stack``, if it exists already.

    Returns ``(resource or None, stacks)``: None when the resource is in
    a template but not created yet, or below a nested template that
    cannot be read yet (the path is then taken as given). ``stacks``:
    the Stack objects walked, which the caller keeps while it uses the
    resource (a resource refers to its stack weakly). A path that cannot
    name a resource of the tree is refused, with the closest names.
    """
    segments = path.split(breakpoints.SEPARATOR)
    current = stack
    walked = [stack]
    for depth, segment in enumerate(segments):
        rsrc = current.resource_get(segment)
        if rsrc is None:
            _not_found(stack.name, path, segment, _names(current))
        if depth == len(segments) - 1:
            stored = rsrc.id is not None
            return (rsrc if stored else None), walked
        if not _is_nested_stack(rsrc):
            _refuse('Resource %s is not a nested stack: %s has no '
                    'resources below it' % (segment, path))
        inner = _inner_stack(rsrc)
        if inner is None:
            return None, walked
        current = inner
        walked.append(inner)
    return None, walked


def _state(root, path: str, rsrc, when: str) -> str:
    """What the running operation will do at ``path`` now."""
    if rsrc is not None:
        record = hold_records.record_of(rsrc)
        held = record is not None and record.get('traversal') == \
            rsrc.stack.current_traversal
        if held and record.get('when', breakpoints.BEFORE) == when:
            return ALREADY_HELD
        if decision.is_done(root.action, rsrc.action, rsrc.status,
                            rsrc.updated_time, root_started(root)):
            return DONE
        if not held and _running(root, rsrc):
            return RUNNING
    found = decision.rules(facts.breakpoints_in_force(root),
                           operation_state.read(facts.place(root).key))
    rule = decision.decide(found, tuple(path.split('/')),
                           root.action.lower(), when)
    return ALREADY_ARMED if rule is not None else ALREADY_DISARMED


def _running(root, rsrc) -> bool:
    """Whether the operation is acting on ``rsrc`` now (not held)."""
    started = root_started(root)
    # A first create has no update time yet.
    changed = rsrc.updated_time or rsrc.created_time
    return (rsrc.status == rsrc.IN_PROGRESS and started is not None and
            changed is not None and changed >= started)


def root_started(root):
    """When the root stack's running operation started."""
    return root.updated_time if root.action != root.CREATE and \
        root.updated_time else root.created_time


def root_started_row(root: dict):
    """:func:`root_started` of the root stack's database row."""
    return root['updated_at'] if root['action'] != 'CREATE' and \
        root['updated_at'] else root['created_at']


def command(stack, path: str, kind: str,
            when: str = breakpoints.BEFORE, depth=None) -> dict:
    """Arm, disarm or run to ``path`` (below ``stack``) in its operation.

    Nothing is released. Returns ``{'resource', 'command', 'result'}``.
    """
    if kind not in COMMANDS:
        raise exception.Invalid(reason='unknown breakpoint command %r '
                                '(known: %s)' % (kind, ', '.join(COMMANDS)))
    if when not in breakpoints.WHENS:
        _refuse('unknown when %r (allowed: %s)'
                % (when, ', '.join(breakpoints.WHENS)))
    if kind != target_kinds.CONTINUE:
        _parse(path, when)
    root = _root(stack)
    if not root.convergence:
        _refuse('%s needs the convergence engine; stack %s runs on the '
                'legacy engine' % (_WORDS[kind], root.name))
    if root.status != root.IN_PROGRESS:
        _refuse('Nothing is running in stack %s (%s_%s): %s applies to a '
                'running operation' % (root.name, root.action, root.status,
                                       _WORDS[kind]))
    if operation_state.forward_ended(root.id, root.current_traversal) == \
            operation_state.CANCELLED:
        _refuse('The operation of stack %s was cancelled: it rolls back, '
                'and %s no longer applies' % (root.name, _WORDS[kind]))
    if root.action.lower() not in breakpoints.WHEN_ACTIONS[when]:
        _refuse('A breakpoint %s applies to %s only; stack %s is running '
                '%s' % (when, ', '.join(breakpoints.WHEN_ACTIONS[when]),
                        root.name, root.action))
    if kind == target_kinds.CONTINUE:
        return _continue(root, depth)
    if any(c in path for c in '*?['):
        # A pattern names breakpoints, not one resource: clear only.
        if kind != target_kinds.CLEAR:
            _refuse('%s is a pattern: %s needs one resource path'
                    % (path, _WORDS[kind]))
        rsrc, full = None, '/'.join(_prefix(stack) + (path,))
        walked = []
        state = ARMED
    else:
        rsrc, walked = resolve(stack, path)
        full = '/'.join(facts.resource_path(rsrc)) if rsrc is not None \
            else '/'.join(_prefix(stack) + (path,))
        state = _state(root, full, rsrc, when)
    result = _apply(root, full, target_kinds.kind_of(kind, when), state,
                    walked)
    if result not in (ALREADY_HELD, ALREADY_ARMED, ALREADY_DISARMED, DONE):
        events.record_stack(root, reasons.commanded(full, kind, when))
    return {'resource': full, 'command': kind, 'result': result}


def _parse(path: str, when: str) -> None:
    """Every path of every command passes the model's parser first."""
    try:
        breakpoints.parse_pattern(path, when=when)
    except breakpoints.BreakpointError as exc:
        _refuse(str(exc))


def _add(root, full: str, kind: str, walked=()) -> None:
    try:
        operation_state.add_targets(facts.place(root).key, [full], kind,
                                    limit=operation_state.MAX_TARGETS)
    except operation_state.TooManyTargets as exc:
        _refuse('Stack %s: %s' % (root.name, exc))
    if target_kinds.split_kind(kind)[0] != target_kinds.CLEAR:
        _take_commands(root, walked)


def _take_commands(root, walked=()) -> None:
    """Make the checks of an operation without breakpoints read its targets.

    The checks of an operation whose environment has no breakpoints do
    not look for commands (they cost nothing). An armed target writes an
    empty breakpoint list in the environment of the template the root
    stack runs (a delete's too), which :mod:`decision` reads as "commands
    only", and which the nested stacks created from then on inherit; and
    in the templates of the stored nested stacks on the way to the target
    (``walked``, :func:`resolve`), which have their own copies of the
    environment while they are created or updated.
    """
    stacks = [root]
    if root.action != root.DELETE:  # a delete reads the root's
        stacks += [stack for stack in walked if stack.owner_id]
    for stack in stacks:
        if stack.id is None or stack.t.id is None:
            continue  # parsed from its template, not created yet
        if registry.MARKER in stack.env.param_defaults:
            continue
        # The stored environment as it is (encrypted parameters stay so).
        row = db_api.raw_template_get(stack.context, stack.t.id)
        env = copy.deepcopy(row.environment or {})
        defaults = env.setdefault('parameter_defaults', {})
        if registry.MARKER in defaults:
            continue
        defaults[registry.MARKER] = []
        db_api.raw_template_update(stack.context, stack.t.id,
                                   {'environment': env})
        stack.env.param_defaults[registry.MARKER] = []


def _continue(root, depth=None) -> dict:
    """Disarm every breakpoint for the rest of the operation.

    What ``continue`` does when nothing is held yet (with holds, their
    releases say so, :mod:`releases`).
    """
    disarmed = sorted({rule.name for rule in decision.rules(
        facts.breakpoints_in_force(root),
        operation_state.read(facts.place(root).key)) if rule.armed})
    operation_state.mark(facts.place(root).key,
                         target_kinds.continue_mode(depth))
    events.record_stack(root, reasons.CONTINUED)
    return {'resource': '', 'command': target_kinds.CONTINUE,
            'result': DISARMED, 'disarmed': disarmed}


def _prefix(stack) -> tuple:
    if not stack.owner_id:
        return ()
    return facts.stack_path(stack)


def _apply(root, full: str, kind: str, state: str,
           walked=()) -> str:
    base = target_kinds.split_kind(kind)[0]
    if state == DONE:
        _refuse('%s is already done in this operation: nothing to %s'
                % (full, _WORDS[base]))
    when = target_kinds.split_kind(kind)[1]
    if state == RUNNING and base in (target_kinds.SET, target_kinds.RUN_TO) \
            and when in BEFORE_WHENS:
        _refuse('%s is already running in this operation: a breakpoint '
                'before it would never hold' % full)
    _parse(full, when)
    if base == target_kinds.SET:
        if state in (ALREADY_HELD, ALREADY_ARMED):
            return state
        _add(root, full, kind, walked)
        return ARMED
    if base == target_kinds.CLEAR:
        if state == ALREADY_DISARMED:
            return state
        _add(root, full, kind)
        return DISARMED
    operation_state.mark(facts.place(root).key, target_kinds.RUN_TO)
    _add(root, full, kind, walked)
    return RUNNING_TO
