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
"""Where the engine decides whether a resource holds: pure functions.

What holds in a running operation is the environment's breakpoints
adjusted by what the user said during it (stored by
:mod:`heat_breakpoint.db.operation_state`): ``continue`` disarms the
environment's breakpoints, ``continue --to R`` disarms them and arms R,
``step`` and ``set`` arm resources, ``clear`` disarms one. :func:`rules`
turns both into one ordered list of :class:`Rule`; :func:`decide` picks
the rule that holds a resource. The breakpoints view (:mod:`listing`)
shows the same rules, so what the list says and what the engine does
cannot disagree.

A convergence check decides with the facts :mod:`facts` gathered for it
once (:class:`Check`, defined here so that the decision needs nothing
else): whether the check may hold at all (:func:`eligible`, the one
place that says so) and which rule holds it (:func:`hold`). Nothing here
reads the database, the configuration or a Heat object: every function
answers from its arguments. So this module imports only the model and
the standard library (what was said, as stored, is
:class:`heat_breakpoint.model.operation_state.State`), and its tests run
without Heat (``tox -e decision``).
"""

import dataclasses
import functools
import logging
import typing

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heat_breakpoint.model import operation_state
from heat_breakpoint.model import reasons
from heat_breakpoint.model import target_kinds

LOG = logging.getLogger(__name__)

# Where a rule came from.
ENVIRONMENT = 'environment'
SET = 'set'
STEP = 'step'
RUN_TO = 'run-to'
_SOURCES = {target_kinds.SET: SET, target_kinds.STEP: STEP,
            target_kinds.STEP_INTO: STEP, target_kinds.RUN_TO: RUN_TO}

ROLLBACK = 'ROLLBACK'
# Holds once the action is over, and holds on what an update plans.
_DONE_WHENS = kinds.DONE_WHENS
_PLANNED_WHENS = kinds.PLANNED_WHENS


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


@functools.lru_cache(maxsize=4096)
def _target(path: str, kind: str) -> Rule:
    """The rule of one command target (``operations`` kinds).

    Every check of the operation reads all its targets (each step adds
    the resources it arms), so their rules are parsed once per engine;
    a rule is immutable.
    """
    base, when = target_kinds.split_kind(kind)
    cleared = base == target_kinds.CLEAR
    origin = target_kinds.cleared_origin(kind) if cleared else base
    bp = breakpoints.parse_name(path, breakpoints.WHEN_ACTIONS[when], when)
    if base == target_kinds.STEP_INTO:
        bp = breakpoints.Breakpoint(bp.segments, '*', bp.actions, when)
    return Rule(bp, _SOURCES.get(origin, ENVIRONMENT), armed=not cleared,
                why='clear' if cleared else '', exact=True,
                first_only=base == target_kinds.STEP_INTO)


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


def rules(env_breakpoints, state) -> tuple:
    """The rules of an operation, in the order they are tried.

    ``state``: what was said during the operation
    (:class:`heat_breakpoint.model.operation_state.State`). Command targets
    first, then the environment's breakpoints (disarmed by ``continue``
    and ``--to``).
    """
    if state.mode is None and not state.targets:
        # Nothing said: the environment's rules, the same for every check.
        return _environment(env_breakpoints)
    return Rules(_rules(env_breakpoints, state))


class Rules(tuple):
    """Rules in the order they are tried, and which of them may hold what.

    ``named``: ``(action, when, path)`` of each armed rule that names one
    resource (no pattern, at any depth, not only a stack's first);
    ``patterns``: whether an armed rule is of another kind. A check of a
    resource no armed rule names, without patterns, holds nowhere: no
    rule is tried.
    """

    def __new__(cls, rules):
        self = super().__new__(cls, rules)
        self.named = frozenset()
        self.patterns = False
        named = set()
        for rule in self:
            if not rule.armed:
                continue
            bp = rule.breakpoint
            if (rule.first_only or rule.upto is not None or
                    rule.beyond is not None or
                    any(_PATTERN_CHARS.intersection(segment)
                        for segment in bp.segments)):
                self.patterns = True
                continue
            named.update((action, bp.when, bp.segments)
                         for action in bp.actions)
        self.named = frozenset(named)
        return self

    def may_hold(self, path: tuple, action: str, when: str) -> bool:
        """Whether an armed rule may hold ``path`` (``action`` lower)."""
        return self.patterns or (action.lower(), when, path) in self.named


# What makes a segment a pattern for fnmatch.
_PATTERN_CHARS = frozenset('*?[')


def _environment(env_breakpoints) -> Rules:
    """The rules of the environment's breakpoints, nothing said.

    The same for every check of the same parsed breakpoints (mostly the
    last ones asked for).
    """
    global _last_environment
    last = _last_environment
    if last[0] is env_breakpoints:
        return last[1]
    found = _environment_rules(tuple(env_breakpoints))
    if isinstance(env_breakpoints, tuple):  # a list may change meanwhile
        _last_environment = (env_breakpoints, found)
    return found


_last_environment = (None, ())


@functools.lru_cache(maxsize=256)
def _environment_rules(env_breakpoints: tuple) -> Rules:
    return Rules(Rule(bp, ENVIRONMENT) for bp in env_breakpoints)


def _rules(env_breakpoints, state) -> list:
    found = []
    for path, kind in operation_state.target_items(state.targets):
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
    elif state.mode == target_kinds.CANCEL:
        # Nothing holds once a cancel was asked: the rollback runs.
        return [Rule(rule.breakpoint, rule.source, armed=False,
                     why='cancel', exact=rule.exact,
                     first_only=rule.first_only) for rule in found] + [
            Rule(bp, ENVIRONMENT, armed=False, why='cancel')
            for bp in env_breakpoints]
    own = frozenset()
    if state.mode == target_kinds.RUN_TO:
        # A target stepped into since is still what was run to.
        to = [path for path, kind in
              operation_state.target_items(state.targets)
              if target_kinds.ran_to(kind)]
        why = 'run to %s' % ', '.join(to) if to else 'run to'
        # What is run to keeps its own breakpoints (after, on change...):
        # they hold it as they would have, in place of a plain before.
        own = frozenset(bp.name for bp in env_breakpoints if bp.name in to)
        found = [rule for rule in found if not (
            rule.source == RUN_TO and not rule.first_only and
            rule.name in own)]
    cleared = {rule.breakpoint.key for rule in found
               if not rule.armed and not rule.first_only}
    for bp in env_breakpoints:
        if bp.name in own:
            found.append(Rule(bp, ENVIRONMENT))
        elif why:
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
    if not breakpoints.addressable(path):
        return None  # it could never be released (breakpoints.NOT_ASCII)
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
    if isinstance(found, Rules) and \
            not found.may_hold(tuple(path), action, when):
        return None
    rule = explain(found, path, action, when, first)
    return rule if rule is not None and rule.armed else None


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


# ---------------------------------------------------------------------------
# One convergence check, from its facts

class Check(typing.NamedTuple):
    """What one convergence check of a resource decides with.

    Gathered once per check (:func:`facts.check`). ``action``: the
    check's (CREATE, UPDATE, DELETE). Eligibility (:func:`eligible`): the
    stack's action, whether it adopts, whether the resource replaces
    another, has something a delete would act on (neither INIT nor
    deleted), and has a template other than the check's. With
    breakpoints in force (``breakpoints``, the root stack's): the
    resource's ``path`` from the root stack, the root's action, the
    operation as read (``operation``, a :class:`facts.Operation` the
    steps after the decision read; the decision does not), its
    ``rules`` (:func:`rules`) and, when a rule asks (a step into a
    nested stack), whether the resource is one of its stack's ``first``.
    """

    action: str
    stack_action: str
    adopting: bool = False
    replacement: bool = False
    acted_on: bool = True
    template_changed: bool = True
    breakpoints: tuple = ()
    path: tuple = ()
    root_action: str = ''
    rules: tuple = ()
    first: typing.Optional[bool] = None
    operation: typing.Any = None


def eligible(check: Check, action: str,
             when: str = breakpoints.BEFORE) -> bool:
    """Whether a hold ``when`` of ``action`` may apply in this check.

    Mirrors where stock Heat consults pre-* hooks, except that a resource
    *added* by a stack update is held before its create too: a create
    holds in a stack create or update (before it, not a replacement; after
    it or on its failure, a replacement too), an update in a stack update,
    a delete in a stack delete (before it, only of a resource that has
    something to delete and a template other than the check's). What an
    update plans (``changed``, ``replaced``) holds in a stack update: its
    updates, the resources it adds (not replacements, and what is in a
    nested stack it creates) and those it removes.
    Nothing holds in a rollback or an adopt (and nothing while the root
    rolls back: :func:`hold`).
    """
    if check.adopting:
        return False
    operation = check.stack_action
    if action == 'UPDATE':
        return operation == 'UPDATE'
    if when in _PLANNED_WHENS:
        if action == 'CREATE':
            # A nested stack the root's update creates (a member a
            # ResourceGroup's count adds) holds what is in it: added too.
            return (operation == 'UPDATE' or (
                operation == 'CREATE' and check.root_action == 'UPDATE')) \
                and not check.replacement
        return (action == 'DELETE' and operation == 'UPDATE' and
                check.acted_on and check.template_changed)
    if action == 'CREATE':
        return operation == 'CREATE' or (operation == 'UPDATE' and (
            when in _DONE_WHENS or not check.replacement))
    if action == 'DELETE':
        return operation == 'DELETE' and (when in _DONE_WHENS or (
            check.acted_on and check.template_changed))
    return False


def may_act_in(operation: str, bp: breakpoints.Breakpoint) -> bool:
    """Whether ``bp`` names an action a stack ``operation`` may run.

    A stack create only creates, a delete only deletes (see
    :func:`eligible`); an update may do all three.
    """
    operation = (operation or '').lower()
    if operation in ('create', 'delete'):
        return operation in bp.actions
    return True


def hold(check: Check, action: str,
         when: str = breakpoints.BEFORE) -> typing.Optional[Rule]:
    """The rule that holds the checked resource ``when`` of ``action``.

    None when none does. Nothing holds while an operation rolls back (at
    any depth: a nested stack rolls back as an update of its own): a user
    who cancels wants the rollback to run.
    """
    if not check.rules or check.root_action == ROLLBACK:
        return None
    return decide(check.rules, check.path, action.lower(), when,
                  bool(check.first))


def held_name(rule: Rule, path: tuple) -> str:
    """What a hold by ``rule`` of the resource at ``path`` is called.

    The rule's name, or for a step into a nested stack the resource held.
    """
    if rule.first_only:
        return breakpoints.SEPARATOR.join(path)
    return rule.name


def find_breakpoint(found, path: tuple, action: str,
                    when: str = breakpoints.BEFORE):
    """The breakpoint of ``found`` holding ``path`` ``when`` of ``action``.

    For the legacy engine, whose operations take no commands, and for the
    stock hook check, which leaves a marked hook to the plugin: the
    stack's own environment's breakpoints (``found``), nothing said.
    """
    action = action.lower()
    if not _environment(found).may_hold(tuple(path), action, when):
        return None
    for bp in found:
        if bp.matches(path, action, when):
            return bp
    return None


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
