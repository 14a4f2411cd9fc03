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
"""What belongs to a whole running operation, in Heat's database.

* ``continue``: the user released what was held and wants every breakpoint
  left in the same operation ignored, nested stacks included (or, with
  ``--to R``, all but R);
* targets: resources to hold in this operation although no breakpoint of
  the environment names them (``step`` arms the next resources, ``set``
  arms one), or not to hold although one does (``clear``);
* the pause clock: how long the operation had something held, so that by
  default time spent at a breakpoint does not count against the timeout;
* ``cancel``: a cancel was asked for the operation. From then on nothing
  holds and no release resumes its forward work (:func:`forward_ended`),
  whoever sends it and however soon after the cancel: Heat starts the
  rollback in a thread of its own, after the cancel request returned.

Nested stacks run traversals of their own, so rows are keyed by the root
stack and the root stack's traversal, which stays the same for the whole
operation. They live in small tables of ours beside Heat's (created on
first use), so any heat-engine sees them.

Every convergence check of a stack with breakpoints needs all three (may
this resource go on? how much time is left?), so :func:`current` reads
them in one query and keeps them on the check's own Stack object, which
lives for that one check. Nothing is kept across checks: another engine
may have changed the rows since.
"""

import dataclasses
import datetime
import functools
import hashlib
import time
import typing

from oslo_db import exception as db_exception
from oslo_utils import timeutils
import sqlalchemy as sa

from heat.db import api as db_api
from heat.objects import stack as stack_objects

from heat_breakpoint import breakpoints
from heat_breakpoint.db import reader
from heat_breakpoint.engine import ancestry
from heat_breakpoint.engine import target_kinds

CONTINUE = target_kinds.CONTINUE
RUN_TO = target_kinds.RUN_TO
STEP = target_kinds.STEP
STEP_INTO = target_kinds.STEP_INTO
SET = target_kinds.SET
CLEAR = target_kinds.CLEAR
CANCEL = target_kinds.CANCEL
_BEFORE = target_kinds.BEFORE


_metadata = sa.MetaData()
operations = sa.Table(
    'breakpoint_operation', _metadata,
    sa.Column('root_stack_id', sa.String(36), primary_key=True),
    sa.Column('traversal', sa.String(36), primary_key=True),
    sa.Column('mode', sa.String(16), nullable=False),
    sa.Column('created_at', sa.DateTime, nullable=False),
)

# Keyed by a digest of the path: a path may be long, and a utf8mb4 MySQL
# key may not (3072 bytes).
targets = sa.Table(
    'breakpoint_hold_target', _metadata,
    sa.Column('root_stack_id', sa.String(36), primary_key=True),
    sa.Column('traversal', sa.String(36), primary_key=True),
    sa.Column('path_digest', sa.String(64), primary_key=True),
    sa.Column('path', sa.Text, nullable=False),
    sa.Column('kind', sa.String(16), nullable=False),
)

pauses = sa.Table(
    'breakpoint_pause', _metadata,
    sa.Column('root_stack_id', sa.String(36), primary_key=True),
    sa.Column('traversal', sa.String(36), primary_key=True),
    sa.Column('held', sa.Integer, nullable=False),
    sa.Column('paused_seconds', sa.Float, nullable=False),
    sa.Column('since', sa.DateTime, nullable=True),
)

_ready_engines = set()
_RACE_RETRIES = 10

# Where a Stack object keeps what this module read for it.
_STATE_ATTR = '_breakpoint_operation_state'
_ROOT_ATTR = '_breakpoint_root_operation'
#: How long a Stack object's copy of the operation state serves. A check
#: uses it for milliseconds; this only bounds an object kept for longer.
FRESH_SECONDS = 1.0


def _engine():
    engine = db_api.get_engine()
    if id(engine) not in _ready_engines:
        try:
            _metadata.create_all(engine, checkfirst=True)
        except sa.exc.OperationalError:
            # Another engine created them between our check and create.
            _metadata.create_all(engine, checkfirst=True)
        _ready_engines.add(id(engine))
    return engine


def ready() -> None:
    """Make sure our tables exist (before a caller opens a connection)."""
    _engine()


def _retry_races(func):
    """Run a read-then-write transaction again when another engine won.

    Rows are read ``FOR UPDATE``; what is left is two engines inserting
    the same new row at once, or a deadlock: the loser starts over.
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for attempt in range(_RACE_RETRIES):
            try:
                return func(*args, **kwargs)
            except (db_exception.DBDuplicateEntry, db_exception.DBDeadlock,
                    sa.exc.IntegrityError):
                if attempt == _RACE_RETRIES - 1:
                    raise
    return wrapper


def _digest(path: str, when: str = _BEFORE) -> str:
    """The key of a path's target for one ``when`` (before, after, ...).

    A path has a target per ``when``: ``set R --after`` and a step that
    arms R before are two rules, and both hold.
    """
    key = path if when == _BEFORE else '%s\0%s' % (path, when)
    return hashlib.sha256(key.encode('utf-8')).hexdigest()


def target_items(targets: dict):
    """``(path, kind)`` of every target, in path order.

    ``targets`` as :class:`State` has them: a path's kind, or a tuple of
    its kinds when it has targets for more than one ``when``.
    """
    for path, kinds in sorted(targets.items()):
        if isinstance(kinds, str):
            yield path, kinds
        else:
            for kind in sorted(kinds):
                yield path, kind


def _kept(previous, kind: str) -> bool:
    """Whether a stored target stays as it is when ``kind`` is added.

    A step arms the next resources; one that is armed already (``set``,
    or the target of a ``continue --to``) keeps its own kind, so the
    list still says why it holds (``run to R``). A step into a nested
    stack resource is another rule (its first resources hold), so it
    replaces what was there.
    """
    if previous is None or target_kinds.split_kind(kind)[0] != STEP:
        return False
    return target_kinds.split_kind(previous)[0] in (SET, RUN_TO)


def root_operation(stack) -> tuple:
    """(root stack id, root traversal) of the operation running ``stack``."""
    if not stack.owner_id:
        return stack.id, stack.current_traversal
    known = getattr(stack, _ROOT_ATTR, None)
    if known is not None and known[0] == stack.current_traversal:
        return known[1]
    walked = ancestry.walk(stack)
    found = walked[1:3] if walked is not None else None
    if found is None:
        root_id = stack.root_stack_id()
        root = stack_objects.Stack.get_by_id(stack.context, root_id,
                                             show_deleted=True)
        found = root_id, root.current_traversal
    remember_root(stack, *found)
    return found


_TRAVERSAL_QUERY = sa.text(
    'SELECT current_traversal FROM stack WHERE id = :stack_id')


def stored_traversal(stack_id: str):
    """The traversal the database has for a stack now (None: no stack).

    One column through the plain read pool: a ``Stack.load`` reads the
    stack, its template, environment and credentials to answer it.
    """
    rows = reader.read(_engine(), _TRAVERSAL_QUERY, {'stack_id': stack_id})
    return rows[0][0] if rows else None


def remember_root(stack, root_id: str, root_traversal: str) -> None:
    """Note ``stack``'s root operation, found by a caller's own walk.

    A nested stack of a given traversal belongs to one root operation, so
    this holds as long as the stack object's traversal does.
    """
    if stack.owner_id:
        setattr(stack, _ROOT_ATTR, (stack.current_traversal,
                                    (root_id, root_traversal)))


def _where(table, key):
    return sa.and_(table.c.root_stack_id == key[0],
                   table.c.traversal == key[1])


@_retry_races
def mark(stack, mode: str = CONTINUE) -> None:
    """Record how the user wants the running operation to go on.

    ``continue`` and ``continue --to`` end what was said before them:
    the targets go (``--to`` then adds its own). A cancel stays: nothing
    said after it changes it.
    """
    forget(stack)
    key = root_operation(stack)
    with _engine().begin() as conn:
        conn.execute(targets.delete().where(_where(targets, key)))
        found = conn.execute(sa.select(operations.c.mode).where(
            _where(operations, key)).with_for_update()).first()
        if found is None:
            conn.execute(operations.insert().values(
                root_stack_id=key[0], traversal=key[1], mode=mode,
                created_at=timeutils.utcnow()))
        elif found.mode not in (mode, CANCEL) and \
                target_kinds.wider(found.mode, mode) != found.mode:
            conn.execute(operations.update().where(
                _where(operations, key)).values(mode=mode))


def cancel_asked(stack) -> None:
    """A cancel was asked for the operation running ``stack``.

    Written before Heat starts the rollback (or stops the traversal), so
    a release sent right after the cancel finds it.
    """
    mark(stack, CANCEL)


_FORWARD_QUERY = sa.select(
    sa.column('action'), sa.column('status'), sa.column('status_reason'),
    sa.column('current_traversal'),
    sa.select(operations.c.mode).where(
        operations.c.root_stack_id == sa.bindparam('root_stack_id'),
        operations.c.traversal == sa.bindparam('traversal'))
    .scalar_subquery().label('mode'),
).select_from(sa.table('stack')).where(
    sa.column('id') == sa.bindparam('root_stack_id'))

#: How :func:`forward_ended` says an operation's forward work ended.
CANCELLED = 'cancelled'
FAILED = 'failed'
SUPERSEDED = 'superseded'
_CANCELLED_SUFFIX = ' cancelled'  # Heat's "Stack UPDATE cancelled"


def forward_ended(root_id: str, root_traversal: str):
    """Whether the root operation's forward work may no longer go on.

    None while it runs forward. :data:`CANCELLED` once a cancel was asked
    (our mark), the root rolls back, or Heat stopped it as cancelled;
    :data:`FAILED` once it failed (Heat empties a failed stack's
    traversal); :data:`SUPERSEDED` once a newer operation replaced it.
    Read from the
    database now, not from any Stack object: the cancel may have been
    served by another engine a moment ago.
    """
    rows = reader.read(_engine(), _FORWARD_QUERY,
                       {'root_stack_id': root_id,
                        'traversal': root_traversal})
    if not rows:
        return SUPERSEDED  # the stack is gone
    row = rows[0]
    if (row.mode == CANCEL or row.action == 'ROLLBACK' or
            (row.status_reason or '').endswith(_CANCELLED_SUFFIX)):
        return CANCELLED
    if row.current_traversal != root_traversal:
        return failed_or_superseded(row.current_traversal)
    return None


def failed_or_superseded(stored_traversal) -> str:
    """Why a stack's traversal is no longer the hold's.

    Heat's ``Stack.purge_db`` empties the traversal of a stack that
    failed, so that its checks bail out; any other change is a newer
    operation (None: the stack is gone).
    """
    return FAILED if stored_traversal == '' else SUPERSEDED


#: How many targets ``set``, ``clear`` and ``step`` may add to one
#: operation: each is read by every check of the operation.
MAX_TARGETS = 1000


class TooManyTargets(ValueError):
    """Adding the targets would take the operation past its limit."""

    def __init__(self, stored: int, adding: int, limit: int):
        super().__init__(
            'this operation has %d breakpoint targets already and %d more '
            'would pass the limit of %d; use continue, or clear a pattern '
            'instead of each resource' % (stored, adding, limit))
        self.stored, self.adding, self.limit = stored, adding, limit


def count_targets(stack) -> int:
    """How many targets the running operation has."""
    key = root_operation(stack)
    with _engine().connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(
            targets).where(_where(targets, key))).scalar()


@_retry_races
def add_targets(stack, paths, kind: str, limit=None) -> None:
    """Hold (or, for CLEAR, do not hold) these resource paths.

    One transaction and a statement per step (read, insert the new,
    update the known), however many paths: a step from a resource many
    others wait on arms them all at once. ``limit``: refuse
    (:class:`TooManyTargets`, nothing written) when the operation would
    then have more targets.
    """
    forget(stack)
    key = root_operation(stack)
    base, when = target_kinds.split_kind(kind)
    clearing = base == CLEAR
    by_digest = {_digest(path, when): path for path in paths}
    if not by_digest:
        return
    looked = dict(by_digest)
    if clearing:
        # ``clear R`` disarms R's targets of every ``when``.
        looked.update({_digest(path, other): path for path in paths
                       for other in breakpoints.WHENS})
    with _engine().begin() as conn:
        found = dict(conn.execute(
            sa.select(targets.c.path_digest, targets.c.kind).where(
                _where(targets, key),
                targets.c.path_digest.in_(sorted(looked)))
            .with_for_update()).all())
        adding = len(set(by_digest) - set(found))
        if limit is not None and adding:
            stored = conn.execute(sa.select(sa.func.count()).select_from(
                targets).where(_where(targets, key))).scalar()
            if stored + adding > limit:
                raise TooManyTargets(stored, adding, limit)

        def stored(digest):
            if clearing:
                return target_kinds.cleared(found.get(digest), when)
            if base == STEP_INTO:
                return target_kinds.into(found.get(digest))
            return kind

        new = [dict(root_stack_id=key[0], traversal=key[1],
                    path_digest=digest, path=path, kind=stored(digest))
               for digest, path in sorted(by_digest.items())
               if digest not in found]
        if new:
            conn.execute(targets.insert(), new)
        changed = {}
        for digest in sorted(found):
            if _kept(found[digest], kind):
                continue
            changed.setdefault(stored(digest), []).append(digest)
        for value, digests in changed.items():
            conn.execute(targets.update().where(
                _where(targets, key),
                targets.c.path_digest.in_(digests)).values(kind=value))


@dataclasses.dataclass(frozen=True)
class State:
    """What is recorded for one running operation.

    ``targets``: each path's kind, or a tuple of its kinds when it has a
    target for more than one ``when`` (:func:`target_items` reads both).
    """

    mode: typing.Optional[str] = None
    targets: dict = dataclasses.field(default_factory=dict)
    held: int = 0
    paused_seconds: float = 0.0
    since: typing.Optional[datetime.datetime] = None

    def paused(self) -> float:
        """How long the operation has had something held, until now."""
        total = self.paused_seconds
        if self.held > 0 and self.since is not None:
            total += (timeutils.utcnow() - self.since).total_seconds()
        return total


_KEY = (sa.bindparam('root_stack_id'), sa.bindparam('traversal'))


def _by_key(table):
    return sa.and_(table.c.root_stack_id == _KEY[0],
                   table.c.traversal == _KEY[1])


# The three tables' rows for one operation, in one round trip. The pause
# row comes first: a compound select takes its column types (and so the
# conversion of ``since`` back to a datetime) from its first select.
_STATE_QUERY = sa.union_all(
    sa.select(sa.literal('pause').label('source'),
              sa.null().label('path'), sa.null().label('kind'),
              pauses.c.held, pauses.c.paused_seconds,
              pauses.c.since).where(_by_key(pauses)),
    sa.select(sa.literal('mode'), sa.null(), operations.c.mode,
              sa.null(), sa.null(), sa.null()).where(_by_key(operations)),
    sa.select(sa.literal('target'), targets.c.path, targets.c.kind,
              sa.null(), sa.null(), sa.null()).where(_by_key(targets)),
)


def read(stack, conn=None) -> State:
    """The running operation's mode, targets and pause clock, now.

    ``conn``: a connection of the caller's to read through (on SQLite a
    second one would wait for the caller's lock).
    """
    key = root_operation(stack)
    params = {'root_stack_id': key[0], 'traversal': key[1]}
    if conn is not None:
        rows = conn.execute(_STATE_QUERY, params).all()
    else:
        rows = reader.read(_engine(), _STATE_QUERY, params)
    found = {'targets': {}}
    for row in rows:
        if row.source == 'pause':
            found.update(held=row.held, paused_seconds=row.paused_seconds,
                         since=_datetime(row.since))
        elif row.source == 'mode':
            found['mode'] = row.kind
        else:
            known = found['targets'].get(row.path)
            if known is None:
                found['targets'][row.path] = row.kind
            else:  # a target for another ``when`` of the same path
                found['targets'][row.path] = tuple(sorted(
                    ((known,) if isinstance(known, str) else known) +
                    (row.kind,)))
    return State(**found)


def _datetime(value):
    """A datetime as stored (SQLite's driver gives its text)."""
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value


def current(stack) -> State:
    """:func:`read`, once per Stack object (that is, per check).

    Heat loads the stack afresh for every convergence check, and a check
    asks three times (timed out? time left? hold here?): one read serves
    them all. What this engine writes through the same object is seen at
    once (:func:`forget`); what another engine writes, from the next check.
    """
    known = getattr(stack, _STATE_ATTR, None)
    now = time.monotonic()
    if known is not None and now - known[0] < FRESH_SECONDS:
        return known[1]
    state = read(stack)
    setattr(stack, _STATE_ATTR, (now, state))
    return state


def forget(stack) -> None:
    """Drop what :func:`current` kept for ``stack``."""
    if getattr(stack, _STATE_ATTR, None) is not None:
        setattr(stack, _STATE_ATTR, None)


def plan(stack) -> tuple:
    """(mode or None, {path: kind}) recorded for the running operation."""
    state = read(stack)
    return state.mode, state.targets


def _pause_row(conn, key, lock=False):
    query = sa.select(pauses).where(_where(pauses, key))
    return conn.execute(query.with_for_update() if lock else query).first()


@_retry_races
def hold_started(stack) -> None:
    """One more resource of the operation is held (the clock stops)."""
    forget(stack)
    key = root_operation(stack)
    now = timeutils.utcnow()
    with _engine().begin() as conn:
        row = _pause_row(conn, key, lock=True)
        if row is None:
            conn.execute(pauses.insert().values(
                root_stack_id=key[0], traversal=key[1], held=1,
                paused_seconds=0.0, since=now))
        else:
            conn.execute(pauses.update().where(
                pauses.c.root_stack_id == key[0],
                pauses.c.traversal == key[1]).values(
                    held=row.held + 1,
                    since=row.since if row.held > 0 else now))


@_retry_races
def hold_ended(stack) -> None:
    """One resource fewer is held; the clock runs again at zero."""
    forget(stack)
    key = root_operation(stack)
    now = timeutils.utcnow()
    with _engine().begin() as conn:
        row = _pause_row(conn, key, lock=True)
        if row is None or row.held <= 0:
            return
        values = {'held': row.held - 1}
        if row.held == 1:
            values['paused_seconds'] = row.paused_seconds + (
                now - row.since).total_seconds()
            values['since'] = None
        conn.execute(pauses.update().where(
            pauses.c.root_stack_id == key[0],
            pauses.c.traversal == key[1]).values(**values))


def paused_seconds(stack) -> float:
    """How long the running operation has had something held."""
    return read(stack).paused()
