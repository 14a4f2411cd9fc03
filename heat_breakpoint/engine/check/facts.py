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
"""The facts of one convergence check, gathered once.

Whether a resource holds depends on where its stack sits in its tree
(its path from the root stack, the root operation our rows are keyed by,
whether the root rolls back), on the breakpoints in force (the root
stack's: a nested stack's environment is a copy made when its own create
or update started, which an update of the root that has not reached it
yet, or a delete, would not see), on what was said during the operation
(:mod:`heat_breakpoint.db.operation_state`) and on the check itself (its
resource one of its stack's first? may it hold at all?). :func:`check`
gathers them into one small frozen value, :class:`decision.Check`, that
the seam's pipeline passes to every step of the check; :mod:`decision`
decides from it and nothing else.

Heat asks about a check's stack before the check reaches the seam (its
timeout, ``Stack.time_elapsed``, reads the pause clock) and loads the
stack afresh for every check. What was read for a stack object (our
options, where it sits, the operation's state) serves the rest of the
check in the same thread, the state for at most :data:`FRESH_SECONDS` (a
long action is followed by a fresh read); it is kept here, never on
Heat's objects, and never serves another check: another engine may have
changed the rows since (the local server, its database's only writer,
knows when: :func:`heat_breakpoint.db.operation_state.read`).
"""

import contextvars
import functools
import json
import time
import typing
import weakref

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils

from heat.objects import stack as stack_objects

from heat_breakpoint.db import ancestry
from heat_breakpoint.db import operation_state
from heat_breakpoint.db import tables
from heat_breakpoint.engine.check import decision
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import operation_state as model_state
from heat_breakpoint.model import registry
from heat_breakpoint import opts

LOG = logging.getLogger(__name__)

#: How long the operation's state read for a stack object serves. A check
#: uses it for milliseconds; this bounds a check whose action is long.
FRESH_SECONDS = 1.0


def enabled() -> bool:
    return _options(None).enabled


class Options(typing.NamedTuple):
    """The options a check reads (``[breakpoint]``)."""

    enabled: bool
    pause_counts_against_timeout: bool


class Place(typing.NamedTuple):
    """Where a stack sits: its path from the root, the root operation."""

    path: tuple
    root_id: str
    root_traversal: str
    root_action: str

    @property
    def key(self) -> tables.Key:
        """The root operation, which our rows are keyed by."""
        return self.root_id, self.root_traversal


class Operation(typing.NamedTuple):
    """A stack's running operation, as read at ``read_at`` (monotonic)."""

    place: Place
    state: model_state.State
    read_at: float


class _Kept:
    """What this thread read for one Stack object (and traversal)."""

    __slots__ = ('ref', 'traversal', 'place', 'operation', 'options')

    def __init__(self, ref, traversal):
        self.ref = ref
        self.traversal = traversal
        self.place = None
        self.operation = None
        self.options = None


# ContextVar: Heat asks first (Stack.time_elapsed); no call of ours joins.
_kept = contextvars.ContextVar('breakpoint_facts', default=None)
# The last environment marker parsed in this thread, and what it gave.
# ContextVar: Heat's own calls (events, hook check, timeout) ask too.
_parsed = contextvars.ContextVar('breakpoint_parsed_marker', default=None)


def _kept_for(stack) -> typing.Optional[_Kept]:
    """What this thread keeps for ``stack`` (made empty for a new one)."""
    kept = _kept.get()
    if (kept is not None and kept.ref() is stack and
            kept.traversal == stack.current_traversal):
        return kept
    try:
        kept = _Kept(weakref.ref(stack), stack.current_traversal)
    except TypeError:  # an object that takes no weak references
        return None
    _kept.set(kept)
    return kept


def forget(stack) -> None:
    """Drop the state read for ``stack``: this thread just wrote it."""
    kept = _kept.get()
    if kept is not None and kept.ref() is stack:
        kept.operation = None


def options(stack) -> Options:
    """Our options, read once per Stack object (that is, per check)."""
    return _options(_kept_for(stack))


def _options(kept: typing.Optional[_Kept]) -> Options:
    if kept is not None and kept.options is not None:
        return kept.options
    found = _read_options()
    if kept is not None:
        kept.options = found
    return found


# (oslo.config's object for our group, the options read through it).
_known_options = (None, None)


def _read_options() -> Options:
    """Our options (``[breakpoint]``) as they are now.

    oslo.config keeps one object per group until a value may have
    changed: every change (an override, a default, a reload, a mutation,
    a new parse of the configuration) empties its cache, and the next
    look at the group makes a new object. So while the group's object is
    the one the options were read through, they are read already: one
    lookup (by key: as an attribute, each read first fails the object's
    own attribute lookup) where reading two options cost a check, right
    after Heat's load of its stack, about 40 us.
    """
    global _known_options
    group = cfg.CONF[opts.GROUP]
    known = _known_options
    if known[0] is group:
        return known[1]
    found = Options(group['enabled'], group['pause_counts_against_timeout'])
    _known_options = (group, found)
    return found


def place(stack) -> Place:
    """Where ``stack`` sits: walked up once per Stack object and traversal.

    One recursive query (:mod:`heat_breakpoint.db.ancestry`), or where the
    database cannot, a query per level.
    """
    return _place(stack, _kept_for(stack) if stack.owner_id else None)


def _place(stack, kept: typing.Optional[_Kept]) -> Place:
    if not stack.owner_id:
        return Place((), stack.id, stack.current_traversal, stack.action)
    if kept is not None and kept.place is not None:
        return kept.place
    found = ancestry.walk(stack)
    if found is not None:
        where = Place(*found)
    else:
        names = []
        parent_name, owner_id = stack.parent_resource_name, stack.owner_id
        while owner_id:
            names.append(parent_name or '')
            parent = stack_objects.Stack.get_by_id(
                stack.context, owner_id, show_deleted=True)
            parent_name, owner_id = (parent.parent_resource_name,
                                     parent.owner_id)
        where = Place(tuple(reversed(names)), parent.id,
                      parent.current_traversal, parent.action)
    if kept is not None:
        kept.place = where
    return where


def operation(stack) -> Operation:
    """``stack``'s running operation: its place and what was said in it.

    Read once per Stack object, that is, per check (Heat asks the pause
    clock twice before the check reaches the seam, which asks what
    holds): at most :data:`FRESH_SECONDS` old.
    """
    return _operation(stack, _kept_for(stack))


def _operation(stack, kept: typing.Optional[_Kept], where=None):
    now = time.monotonic()
    if kept is not None and kept.operation is not None and \
            now - kept.operation.read_at < FRESH_SECONDS:
        return kept.operation
    if where is None:
        where = _place(stack, kept)
    found = Operation(where, operation_state.read(where.key), now)
    if kept is not None:
        kept.operation = found
    return found


def resource_path(rsrc) -> tuple:
    """The resource's names from the root stack down, e.g. (outer, inner)."""
    return place(rsrc.stack).path + (rsrc.name,)


def stack_path(stack) -> tuple:
    """The names of the resources leading to ``stack`` from its root."""
    return place(stack).path


@functools.lru_cache(maxsize=512)
def _parse_marker(marker_json: str) -> tuple:
    env = {'parameter_defaults': {registry.MARKER:
                                  json.loads(marker_json)}}
    return tuple(registry.from_environment(env))


def parse_marker(marker, stack_id) -> tuple:
    """The breakpoints of an environment's marker (``[]``: commands only)."""
    if marker == []:
        return decision.COMMANDS_ONLY
    try:
        return _parse_marker(json.dumps(marker, sort_keys=True))
    except (breakpoints.BreakpointError, TypeError, ValueError) as exc:
        LOG.error('Ignoring malformed breakpoints of stack %s: %s',
                  stack_id, exc)
        return ()


# The markers parsed last, by the stored template they were read from:
# {template id: (the marker, its breakpoints)}. Every check loads its
# stack's environment afresh; comparing what it reads with what was
# parsed costs less than working out a key to look the parse up by.
_by_template = {}
_BY_TEMPLATE_MAX = 256


def stack_breakpoints(stack) -> tuple:
    """The breakpoints in a stack's own environment (fast if none)."""
    marker = stack.env.param_defaults.get(registry.MARKER)
    if not marker and marker != []:
        return ()
    return _parsed_marker(stack, marker)


def own_breakpoints(stack) -> tuple:
    """The breakpoints of a stack's own environment; none when disabled.

    What a resource event (hidden values) and Heat's own hook check ask.
    """
    marker = stack.env.param_defaults.get(registry.MARKER)
    if not marker and marker != []:
        return ()
    if not _options(_kept_for(stack)).enabled:
        return ()
    return _parsed_marker(stack, marker)


def time_held(stack) -> float:
    """How long the stack's operation has been held (seconds), or 0.0.

    0.0 unless time held is not to count against the stack's timeout
    (``[breakpoint] pause_counts_against_timeout``, false by default).
    """
    marker = stack.env.param_defaults.get(registry.MARKER)
    if not marker and marker != []:
        return 0.0
    kept = _kept_for(stack)
    found = _options(kept)
    if not found.enabled or found.pause_counts_against_timeout or \
            not _parsed_marker(stack, marker):
        return 0.0
    return _operation(stack, kept).state.paused(timeutils.utcnow)


def _parsed_marker(stack, marker) -> tuple:
    known = _parsed.get()
    if known is not None and known[0] is marker:
        return known[1]
    template_id = stack.t.id
    known = _by_template.get(template_id)
    if known is not None and known[0] == marker:
        found = known[1]
    else:
        found = parse_marker(marker, stack.id)
        if template_id is not None:
            if len(_by_template) >= _BY_TEMPLATE_MAX:
                _by_template.clear()
            _by_template[template_id] = (marker, found)
    _parsed.set((marker, found))
    return found


def _root_breakpoints(stack) -> tuple:
    """The breakpoints in the root stack's environment."""
    root = stack_objects.Stack.get_by_id(stack.context, place(stack).root_id,
                                         show_deleted=True)
    env = root.raw_template.environment or {}
    marker = (env.get('parameter_defaults') or {}).get(registry.MARKER)
    return parse_marker(marker, root.id) if marker or marker == [] else ()


def breakpoints_in_force(stack) -> tuple:
    """The breakpoints in force for ``stack``: its root stack's.

    A nested stack being created or updated has a fresh copy of them
    (made when its own operation started); one being deleted asks its
    root, whose environment the last update changed even if it never
    reached this stack.
    """
    if not stack.owner_id or stack.action != stack.DELETE:
        return stack_breakpoints(stack)
    return _root_breakpoints(stack)


def is_first(rsrc) -> bool:
    """Whether ``rsrc`` requires nothing in its stack (a step into it).

    False while its stack is deleted, and for a resource its stack's
    template no longer has (an update removes it): a step goes into no
    nested stack then, and a definition outside its stack's template
    cannot resolve what it refers to.
    """
    if rsrc.stack.action == rsrc.stack.DELETE or rsrc.name not in rsrc.stack:
        return False
    return not rsrc.t.required_resource_names()


def check(rsrc, action: str, template_id=None) -> decision.Check:
    """The facts of a convergence check of ``rsrc`` for ``action``.

    ``template_id``: the template the check is for (a delete holds only
    a resource whose template is another).
    """
    stack = rsrc.stack
    eligibility = (action, stack.action, bool(stack.adopt_stack_data),
                   rsrc.replaces is not None,
                   (rsrc.action != rsrc.INIT and
                    rsrc.state != (rsrc.DELETE, rsrc.COMPLETE)),
                   template_id is None or
                   rsrc.current_template_id != template_id)
    if stack.owner_id and stack.action == stack.DELETE:
        kept = _kept_for(stack)
        if not _options(kept).enabled:
            return decision.Check(*eligibility)
        in_force = _root_breakpoints(stack)
    else:
        marker = stack.env.param_defaults.get(registry.MARKER)
        if not marker and marker != []:
            return decision.Check(*eligibility)
        kept = _kept_for(stack)
        if not _options(kept).enabled:
            return decision.Check(*eligibility)
        in_force = _parsed_marker(stack, marker)
    if not in_force:
        return decision.Check(*eligibility)
    where = _place(stack, kept)
    path = where.path + (rsrc.name,)
    if where.root_action == decision.ROLLBACK:
        # Nothing holds (:func:`decision.hold`): nothing more to read.
        return decision.Check(*eligibility, in_force, path, where.root_action)
    now = _operation(stack, kept, where)
    rules = decision.rules(in_force, now.state)
    return decision.Check(*eligibility, in_force, path, where.root_action,
                          rules, _first(rsrc, rules), now)


def _first(rsrc, rules, known=None):
    if known is None:
        for rule in rules:
            if rule.first_only:
                # Heat works it out from the whole definition: only when
                # asked.
                return is_first(rsrc)
    return known


def _decided_by(found: decision.Check, rsrc,
                now: Operation) -> decision.Check:
    rules = decision.rules(found.breakpoints, now.state)
    return found._replace(path=now.place.path + (rsrc.name,),
                          root_action=now.place.root_action, rules=rules,
                          first=_first(rsrc, rules, found.first),
                          operation=now)


def fresh(rsrc, found: decision.Check) -> decision.Check:
    """``found``, with the operation read again if what it read is old.

    For the decisions a check takes after Heat's action, which may have
    run for longer than :data:`FRESH_SECONDS`: a ``continue`` said
    meanwhile is seen.
    """
    if found.operation is None:
        return found
    now = operation(rsrc.stack)
    if now is found.operation:
        return found
    return _decided_by(found, rsrc, now)


def find_breakpoint(rsrc, action: str, when: str = breakpoints.BEFORE):
    """The breakpoint of its stack's environment holding ``rsrc``.

    For the legacy engine and Heat's own hook check
    (:func:`decision.find_breakpoint`).
    """
    found = own_breakpoints(rsrc.stack)
    if not len(found):
        return None
    return decision.find_breakpoint(found, resource_path(rsrc), action,
                                    when)
