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
"""Where the engine decides whether a resource holds.

What holds in a running operation is the environment's breakpoints
adjusted by what the user said during it (see :mod:`operations`):
``continue`` disarms the environment's breakpoints, ``continue --to R``
disarms them and arms R, ``step`` and ``set`` arm resources, ``clear``
disarms one. :func:`rules` turns both into one ordered list of
:class:`Rule`; :func:`decide` picks the rule that holds a resource. The
breakpoints view (:mod:`listing`) shows the same rules, so what the list
says and what the engine does cannot disagree.

The breakpoints are the root stack's: a nested stack's environment is a
copy made when its own create or update started, which an update of the
root stack that has not reached it yet, or a delete, would not see.
"""

import dataclasses
import functools
import json
import typing

from oslo_config import cfg
from oslo_log import log as logging

from heat.objects import stack as stack_objects

from heat_breakpoint import breakpoints
from heat_breakpoint.engine import ancestry
from heat_breakpoint.engine import operations
from heat_breakpoint.engine import target_kinds
from heat_breakpoint import reasons
from heat_breakpoint import registry

LOG = logging.getLogger(__name__)

# Where a rule came from.
ENVIRONMENT = 'environment'
SET = 'set'
STEP = 'step'
RUN_TO = 'run-to'
_SOURCES = {operations.SET: SET, operations.STEP: STEP,
            operations.STEP_INTO: STEP, operations.RUN_TO: RUN_TO}

ROLLBACK = 'ROLLBACK'


@dataclasses.dataclass(frozen=True)
class Rule:
    """One breakpoint as it stands in the running operation.

    ``armed`` False: it no longer holds in this operation, ``why`` says
    what disarmed it (``continue``, ``clear``, ``run to R``). ``exact``:
    it names one resource (a command's target), which beats any pattern.
    ``first_only``: it holds only the first resources of a nested stack
    (a step into it). ``upto``/``beyond``: it applies only to resources
    at most / more than that many nested stacks down (``continue
    --nested-depth N`` disarms the first N levels only).
    """

    breakpoint: breakpoints.Breakpoint
    source: str
    armed: bool = True
    why: str = ''
    exact: bool = False
    first_only: bool = False
    upto: typing.Optional[int] = None
    beyond: typing.Optional[int] = None

    @property
    def name(self) -> str:
        return self.breakpoint.name

    def reaches(self, path) -> bool:
        depth = len(path) - 1
        return ((self.upto is None or depth <= self.upto) and
                (self.beyond is None or depth > self.beyond))


def enabled() -> bool:
    return cfg.CONF.breakpoint.enabled


@functools.lru_cache(maxsize=4096)
def _target(path: str, kind: str) -> Rule:
    """The rule of one command target (``operations`` kinds).

    Every check of the operation reads all its targets (each step adds
    the resources it arms), so their rules are parsed once per engine;
    a rule is immutable.
    """
    base, when = target_kinds.split_kind(kind)
    cleared = base == operations.CLEAR
    origin = target_kinds.cleared_origin(kind) if cleared else base
    bp = breakpoints.parse_name(path, breakpoints.WHEN_ACTIONS[when], when)
    if base == operations.STEP_INTO:
        bp = breakpoints.Breakpoint(bp.segments, '*', bp.actions, when)
    return Rule(bp, _SOURCES.get(origin, ENVIRONMENT), armed=not cleared,
                why='clear' if cleared else '', exact=True,
                first_only=base == operations.STEP_INTO)


_MALFORMED_SEEN = set()
_MALFORMED_SEEN_MAX = 1024


def _malformed(path: str, exc) -> None:
    """Say once per engine that a stored target cannot be read.

    Every check and every view request reads all the targets; a line per
    target and read would flood the log with what the user typed.
    """
    seen = hash(path)
    if seen in _MALFORMED_SEEN or len(_MALFORMED_SEEN) >= \
            _MALFORMED_SEEN_MAX:
        return
    _MALFORMED_SEEN.add(seen)
    LOG.warning('Ignoring a malformed breakpoint target: %s', exc)


def rules(env_breakpoints, state: operations.State) -> list:
    """The rules of an operation, in the order they are tried.

    Command targets first, then the environment's breakpoints (disarmed
    by ``continue`` and ``--to``).
    """
    found = []
    for path, kind in operations.target_items(state.targets):
        try:
            found.append(_target(path, kind))
        except breakpoints.BreakpointError as exc:
            _malformed(path, exc)
    why = ''
    continued, depth = target_kinds.continue_depth(state.mode)
    if continued and depth is not None:
        for bp in env_breakpoints:
            # A name holds at its own depth; a lone '*' at every depth.
            everywhere = bp.segments == ('*',)
            level = len(bp.segments) - 1
            if everywhere or level <= depth:
                found.append(Rule(bp, ENVIRONMENT, armed=False,
                                  why='continue',
                                  upto=depth if everywhere else None))
            if everywhere or level > depth:
                found.append(Rule(bp, ENVIRONMENT,
                                  beyond=depth if everywhere else None))
        return found
    if continued:
        why = 'continue'
    elif state.mode == operations.CANCEL:
        # Nothing holds once a cancel was asked: the rollback runs.
        return [Rule(rule.breakpoint, rule.source, armed=False,
                     why='cancel', exact=rule.exact,
                     first_only=rule.first_only) for rule in found] + [
            Rule(bp, ENVIRONMENT, armed=False, why='cancel')
            for bp in env_breakpoints]
    elif state.mode == operations.RUN_TO:
        # A target stepped into since is still what was run to.
        to = [path for path, kind in operations.target_items(state.targets)
              if target_kinds.ran_to(kind)]
        why = 'run to %s' % ', '.join(to) if to else 'run to'
    cleared = {rule.breakpoint.key for rule in found
               if not rule.armed and not rule.first_only}
    for bp in env_breakpoints:
        if why:
            found.append(Rule(bp, ENVIRONMENT, armed=False, why=why))
        elif bp.key in cleared:
            found.append(Rule(bp, ENVIRONMENT, armed=False, why='clear'))
        else:
            found.append(Rule(bp, ENVIRONMENT))
    return found


def explain(found, path, action: str, when: str = breakpoints.BEFORE,
            first: bool = False) -> typing.Optional[Rule]:
    """The rule that decides the resource at ``path``, or None.

    An armed rule holds it; a disarmed one says why it no longer would.
    ``first``: the resource is one of the first of its stack (it requires
    nothing there). A disarmed exact rule (``clear R``) keeps every
    pattern off R.
    """
    disarmed = None
    for rule in found:
        if rule.first_only and not first:
            continue
        if not rule.reaches(path):
            continue
        if not rule.breakpoint.matches(path, action, when):
            continue
        if rule.armed:
            return rule
        if rule.exact:
            return rule
        disarmed = disarmed or rule
    return disarmed


def decide(found, path, action: str, when: str = breakpoints.BEFORE,
           first: bool = False) -> typing.Optional[Rule]:
    """The rule that holds the resource at ``path``, or None."""
    rule = explain(found, path, action, when, first)
    return rule if rule is not None and rule.armed else None


# ---------------------------------------------------------------------------
# The stack's side: its breakpoints, its path, its root operation

@functools.lru_cache(maxsize=512)
def _parse_marker(marker_json: str) -> tuple:
    env = {'parameter_defaults': {registry.MARKER:
                                  json.loads(marker_json)}}
    return tuple(registry.from_environment(env))


# Where a Stack object keeps what this module worked out for it once.
_BREAKPOINTS_ATTR = '_breakpoint_parsed'
_TREE_ATTR = '_breakpoint_stack_tree'


class _CommandsOnly(tuple):
    """No breakpoint in the environment, but commands to read.

    An operation whose environment has no breakpoints costs its checks
    nothing: they do not look for commands. A ``set`` during it leaves an
    empty list of breakpoints in the environment (:mod:`commands`), which
    reads as this: no rule of the environment, yet every check reads the
    operation's targets (and its pause clock).
    """

    def __bool__(self):
        return True


COMMANDS_ONLY = _CommandsOnly()


def _parsed(marker, stack_id) -> tuple:
    if marker == []:
        return COMMANDS_ONLY
    try:
        return _parse_marker(json.dumps(marker, sort_keys=True))
    except (breakpoints.BreakpointError, TypeError, ValueError) as exc:
        LOG.error('Ignoring malformed breakpoints of stack %s: %s',
                  stack_id, exc)
        return ()


def stack_breakpoints(stack) -> tuple:
    """The breakpoints in a stack's own environment (fast if none)."""
    marker = stack.env.param_defaults.get(registry.MARKER)
    if not marker and marker != []:
        return ()
    known = getattr(stack, _BREAKPOINTS_ATTR, None)
    if known is not None and known[0] is marker:
        return known[1]
    found = _parsed(marker, stack.id)
    _remember(stack, _BREAKPOINTS_ATTR, (marker, found))
    return found


def _remember(stack, attr, value) -> None:
    try:
        setattr(stack, attr, value)
    except AttributeError:  # an object that takes no attributes
        pass


@dataclasses.dataclass
class _Tree:
    """Where a nested stack sits: its path and its root stack's state."""

    path: tuple
    root_id: str
    root_action: str
    # The root's breakpoints, read when first asked for (a delete).
    root_breakpoints: typing.Optional[tuple] = None


def _tree(stack) -> _Tree:
    """Walk from ``stack`` up to its root once per Stack object.

    One recursive query (:mod:`ancestry`), or where the database cannot,
    a query per level; the walk also tells :mod:`operations` the root
    operation.
    """
    known = getattr(stack, _TREE_ATTR, None)
    if known is not None:
        return known
    found = ancestry.walk(stack)
    if found is not None:
        # The walk stays on the object: :mod:`operations` finds the root
        # operation there.
        path, root_id, _root_traversal, root_action = found
        tree = _Tree(path, root_id, root_action)
        _remember(stack, _TREE_ATTR, tree)
        return tree
    names = []
    parent_name, owner_id = stack.parent_resource_name, stack.owner_id
    while owner_id:
        names.append(parent_name or '')
        parent = stack_objects.Stack.get_by_id(stack.context, owner_id,
                                               show_deleted=True)
        parent_name, owner_id = parent.parent_resource_name, parent.owner_id
    operations.remember_root(stack, parent.id, parent.current_traversal)
    tree = _Tree(tuple(reversed(names)), parent.id, parent.action)
    _remember(stack, _TREE_ATTR, tree)
    return tree


def _root_breakpoints(stack) -> tuple:
    """The breakpoints in the root stack's environment (once per object)."""
    tree = _tree(stack)
    if tree.root_breakpoints is None:
        root = stack_objects.Stack.get_by_id(stack.context, tree.root_id,
                                             show_deleted=True)
        env = root.raw_template.environment or {}
        marker = (env.get('parameter_defaults') or {}).get(
            registry.MARKER)
        tree.root_breakpoints = _parsed(marker, root.id) \
            if marker or marker == [] else ()
    return tree.root_breakpoints


def operation_breakpoints(stack) -> tuple:
    """The breakpoints in force for ``stack``: its root stack's.

    A nested stack being created or updated has a fresh copy of them
    (made when its own operation started); one being deleted asks its
    root, whose environment the last update changed even if it never
    reached this stack.
    """
    if not stack.owner_id or stack.action != stack.DELETE:
        return stack_breakpoints(stack)
    return _root_breakpoints(stack)


def root_action(stack) -> str:
    return _tree(stack).root_action if stack.owner_id else stack.action


def resource_path(rsrc) -> tuple:
    """The resource's names from the root stack down, e.g. (outer, inner)."""
    return stack_path(rsrc.stack) + (rsrc.name,)


def applies(rsrc, action: str) -> bool:
    """Whether this check acts on the resource for ``action``.

    Mirrors where stock Heat consults pre-* hooks, except that a resource
    *added* by a stack update is held before its create too. (Nothing
    holds during a rollback: see :func:`hold_rule`.)
    """
    stack = rsrc.stack
    if stack.adopt_stack_data:
        return False
    if action == 'CREATE':
        ok = (stack.action == stack.CREATE or
              (stack.action == stack.UPDATE and rsrc.replaces is None))
    elif action == 'UPDATE':
        ok = stack.action == stack.UPDATE
    elif action == 'DELETE':
        ok = (stack.action == stack.DELETE and
              rsrc.action != rsrc.INIT and
              rsrc.state != (rsrc.DELETE, rsrc.COMPLETE))
    else:
        ok = False
    return ok


def hold_rule(rsrc, action: str,
              when: str = breakpoints.BEFORE) -> typing.Optional[Rule]:
    """The rule that holds ``rsrc`` at ``when`` of ``action``, or None.

    Nothing holds while an operation rolls back (at any depth: a nested
    stack rolls back as an update of its own): a user who cancels wants
    the rollback to run.
    """
    if not enabled():
        return None
    found = operation_breakpoints(rsrc.stack)
    if not found or root_action(rsrc.stack) == ROLLBACK:
        return None
    found = rules(found, operations.current(rsrc.stack))
    # Whether the resource is one of its stack's first: Heat works it out
    # from the whole definition, and only a step into a nested stack asks.
    first = any(rule.first_only for rule in found) and is_first(rsrc)
    return decide(found, resource_path(rsrc), action.lower(), when, first)


def is_first(rsrc) -> bool:
    """Whether ``rsrc`` requires nothing in its stack (a step into it).

    False while its stack is deleted: a step goes into no nested stack
    then, and the definitions of a stack being deleted cannot resolve
    what they refer to (its template is empty).
    """
    if rsrc.stack.action == rsrc.stack.DELETE:
        return False
    return not rsrc.t.required_resource_names()


def held_name(rule: Rule, rsrc) -> str:
    """What a hold by ``rule`` is called.

    The rule's name, or for a step into a nested stack the resource held.
    """
    if rule.first_only:
        return '/'.join(resource_path(rsrc))
    return rule.name


def hold_name(rsrc, action: str, when: str = breakpoints.BEFORE):
    """The name of the breakpoint holding ``rsrc`` (:func:`hold_rule`)."""
    rule = hold_rule(rsrc, action, when)
    return held_name(rule, rsrc) if rule is not None else None


def find_breakpoint(rsrc, action: str, when: str = breakpoints.BEFORE):
    """The environment breakpoint holding ``rsrc`` at ``when`` of ``action``.

    For the legacy engine, whose operations take no commands, and for the
    stock hook check, which leaves a marked hook to the plugin.
    """
    if not enabled():
        return None
    path = resource_path(rsrc) if stack_breakpoints(rsrc.stack) else ()
    for bp in stack_breakpoints(rsrc.stack):
        if bp.matches(path, action.lower(), when):
            return bp
    return None


def stack_path(stack) -> tuple:
    """The names of the resources leading to ``stack`` from its root."""
    return _tree(stack).path if stack.owner_id else ()


def has_begun(op_action: str, action: str, status: str, updated,
              started, reason: typing.Optional[str] = None) -> bool:
    """Whether a resource's action of the running operation has begun.

    Done, failed or running: a breakpoint *before* that action can no
    longer hold in this operation, a retry of a failure included. One
    held before it (its status ``reason`` says so) has not begun.
    """
    if status not in ('COMPLETE', 'FAILED', 'IN_PROGRESS'):
        return False
    held = reasons.parse_held(reason) if status == 'IN_PROGRESS' else None
    if held is not None and 'when' not in held:
        return False
    return is_done(op_action, action, 'COMPLETE', updated, started)


def is_done(op_action: str, action: str, status: str, updated,
            started) -> bool:
    """Whether a resource has finished its part of the running operation.

    It completed an action after the operation started: a create for a
    create, a create or an update for an update (an unchanged resource
    keeps its CREATE state), a delete for a delete.
    """
    if status != 'COMPLETE' or updated is None or started is None:
        return False
    if updated < started:
        return False
    if op_action == 'DELETE':
        return action == 'DELETE'
    if op_action == 'CREATE':
        return action == 'CREATE'
    return action in ('CREATE', 'UPDATE')
