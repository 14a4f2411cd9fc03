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
"""What was said during a running operation, as stored.

* ``continue``: the user released what was held and wants every breakpoint
  left in the same operation ignored, nested stacks included (or, with
  ``--to R``, all but R);
* targets: resources to hold in this operation although no breakpoint of
  the environment names them (``step`` arms the next resources, ``set``
  arms one), or not to hold although one does (``clear``);
* ``cancel``: a cancel was asked for the operation. From then on nothing
  holds and no release resumes its forward work (:func:`forward_ended`),
  whoever sends it and however soon after the cancel: Heat starts the
  rollback in a thread of its own, after the cancel request returned.

Every function takes the operation's key, ``(root stack id, root
traversal)`` (:data:`heat_breakpoint.db.tables.Key`): where a stack sits
in its tree is the engine's to work out (:mod:`heat_breakpoint.engine.
check.facts`), once per check. :func:`read` returns the mode, the targets
and the pause clock (:mod:`heat_breakpoint.db.pause_clock` writes it) in
one query, as a value the decision reads without the database
(:class:`heat_breakpoint.model.operation_state.State`): every
convergence check of a stack with breakpoints makes it.
"""

import datetime
import hashlib

from oslo_utils import timeutils
import sqlalchemy as sa

from heat_breakpoint.db import reader
from heat_breakpoint.db import tables
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import operation_state as model_state
from heat_breakpoint.model import target_kinds

_operations, _targets, _pauses = tables.operations, tables.targets, \
    tables.pauses


def _digest(path: str, when: str = target_kinds.BEFORE) -> str:
    """The key of a path's target for one ``when`` (before, after, ...).

    A path has a target per ``when``: ``set R --after`` and a step that
    arms R before are two rules, and both hold.
    """
    key = path if when == target_kinds.BEFORE else '%s\0%s' % (path, when)
    return hashlib.sha256(key.encode('utf-8')).hexdigest()


def _kept(previous, kind: str) -> bool:
    """Whether a stored target stays as it is when ``kind`` is added.

    A step arms the next resources; one that is armed already (``set``,
    or the target of a ``continue --to``) keeps its own kind, so the
    list still says why it holds (``run to R``). A step into a nested
    stack resource is another rule (its first resources hold), so it
    replaces what was there.
    """
    if previous is None or \
            target_kinds.split_kind(kind)[0] != target_kinds.STEP:
        return False
    return target_kinds.split_kind(previous)[0] in (target_kinds.SET,
                                                    target_kinds.RUN_TO)


_TRAVERSAL_QUERY = sa.text(
    'SELECT current_traversal FROM stack WHERE id = :stack_id')


def stored_traversal(stack_id: str):
    """The traversal the database has for a stack now (None: no stack).

    One column through the plain read pool: a ``Stack.load`` reads the
    stack, its template, environment and credentials to answer it.
    """
    rows = reader.read(tables.engine(), _TRAVERSAL_QUERY,
                       {'stack_id': stack_id})
    return rows[0][0] if rows else None


@tables.retry_races
def mark(key: tables.Key, mode: str = target_kinds.CONTINUE) -> None:
    """Record how the user wants the running operation to go on.

    ``continue`` and ``continue --to`` end what was said before them:
    the targets go (``--to`` then adds its own). A cancel stays: nothing
    said after it changes it.
    """
    with tables.begin() as conn:
        conn.execute(_targets.delete().where(tables.where(_targets, key)))
        found = conn.execute(sa.select(_operations.c.mode).where(
            tables.where(_operations, key)).with_for_update()).first()
        if found is None:
            conn.execute(_operations.insert().values(
                root_stack_id=key[0], traversal=key[1], mode=mode,
                created_at=timeutils.utcnow()))
        elif found.mode not in (mode, target_kinds.CANCEL) and \
                target_kinds.wider(found.mode, mode) != found.mode:
            conn.execute(_operations.update().where(
                tables.where(_operations, key)).values(mode=mode))


def cancel_asked(key: tables.Key) -> None:
    """A cancel was asked for the operation ``key``.

    Written before Heat starts the rollback (or stops the traversal), so
    a release sent right after the cancel finds it.
    """
    mark(key, target_kinds.CANCEL)


_FORWARD_QUERY = sa.select(
    sa.column('action'), sa.column('status'), sa.column('status_reason'),
    sa.column('current_traversal'),
    sa.select(_operations.c.mode).where(
        _operations.c.root_stack_id == sa.bindparam('root_stack_id'),
        _operations.c.traversal == sa.bindparam('traversal'))
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
    Read from the database now, not from any Stack object: the cancel may
    have been served by another engine a moment ago.
    """
    rows = reader.read(tables.engine(), _FORWARD_QUERY,
                       {'root_stack_id': root_id,
                        'traversal': root_traversal})
    if not rows:
        return SUPERSEDED  # the stack is gone
    row = rows[0]
    if (row.mode == target_kinds.CANCEL or row.action == 'ROLLBACK' or
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


def count_targets(key: tables.Key) -> int:
    """How many targets the running operation has."""
    with tables.engine().connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(
            _targets).where(tables.where(_targets, key))).scalar()


@tables.retry_races
def add_targets(key: tables.Key, paths, kind: str, limit=None) -> None:
    """Hold (or, for CLEAR, do not hold) these resource paths.

    One transaction and a statement per step (read, insert the new,
    update the known), however many paths: a step from a resource many
    others wait on arms them all at once. ``limit``: refuse
    (:class:`TooManyTargets`, nothing written) when the operation would
    then have more targets.
    """
    base, when = target_kinds.split_kind(kind)
    clearing = base == target_kinds.CLEAR
    by_digest = {_digest(path, when): path for path in paths}
    if not by_digest:
        return
    looked = dict(by_digest)
    if clearing:
        # ``clear R`` disarms R's targets of every ``when``.
        looked.update({_digest(path, other): path for path in paths
                       for other in breakpoints.WHENS})
    with tables.begin() as conn:
        found = dict(conn.execute(
            sa.select(_targets.c.path_digest, _targets.c.kind).where(
                tables.where(_targets, key),
                _targets.c.path_digest.in_(sorted(looked)))
            .with_for_update()).all())
        adding = len(set(by_digest) - set(found))
        if limit is not None and adding:
            stored = conn.execute(sa.select(sa.func.count()).select_from(
                _targets).where(tables.where(_targets, key))).scalar()
            if stored + adding > limit:
                raise TooManyTargets(stored, adding, limit)

        def stored(digest):
            if clearing:
                return target_kinds.cleared(found.get(digest), when)
            if base == target_kinds.STEP_INTO:
                return target_kinds.into(found.get(digest))
            return kind

        new = [dict(root_stack_id=key[0], traversal=key[1],
                    path_digest=digest, path=path, kind=stored(digest))
               for digest, path in sorted(by_digest.items())
               if digest not in found]
        if new:
            conn.execute(_targets.insert(), new)
        changed = {}
        for digest in sorted(found):
            if _kept(found[digest], kind):
                continue
            changed.setdefault(stored(digest), []).append(digest)
        for value, digests in changed.items():
            conn.execute(_targets.update().where(
                tables.where(_targets, key),
                _targets.c.path_digest.in_(digests)).values(kind=value))


_KEY = (sa.bindparam('root_stack_id'), sa.bindparam('traversal'))


def _by_key(table):
    return sa.and_(table.c.root_stack_id == _KEY[0],
                   table.c.traversal == _KEY[1])


# The three tables' rows for one operation, in one round trip. The pause
# row comes first: a compound select takes its column types (and so the
# conversion of ``since`` back to a datetime) from its first select. What
# row is which shows in its columns (the pause row's ``held``, never
# NULL; the mode's ``path``, NULL): a column less for the driver to read
# the description of.
_STATE_QUERY = sa.union_all(
    sa.select(sa.null().label('path'), sa.null().label('kind'),
              _pauses.c.held, _pauses.c.paused_seconds,
              _pauses.c.since).where(_by_key(_pauses)),
    sa.select(sa.null(), _operations.c.mode,
              sa.null(), sa.null(), sa.null()).where(_by_key(_operations)),
    sa.select(_targets.c.path, _targets.c.kind,
              sa.null(), sa.null(), sa.null()).where(_by_key(_targets)),
)


# {key: (write count, State)}: what was read in a process that is its
# database's only writer, while none of our writes has ended since.
_read = {}
_READ_MAX = 1024


def read(key: tables.Key, conn=None) -> model_state.State:
    """The running operation's mode, targets and pause clock, now.

    ``conn``: a connection of the caller's to read through (on SQLite a
    second one would wait for the caller's lock). In a process that is
    its database's only writer (the local server), the rows as read last
    serve until a write transaction of ours ends (:func:`tables.writes`):
    nothing else changes them.
    """
    params = {'root_stack_id': key[0], 'traversal': key[1]}
    writes = None
    if conn is not None:
        rows = conn.execute(_STATE_QUERY, params).all()
    else:
        writes = tables.writes()
        if writes is not None:
            known = _read.get(key)
            if known is not None and known[0] == writes:
                return known[1]
        rows = reader.read(tables.engine(), _STATE_QUERY, params)
    found = _state(rows)
    if writes is not None:
        if len(_read) >= _READ_MAX:
            _read.clear()
        _read[key] = (writes, found)
    return found


def _state(rows) -> model_state.State:
    found = {'targets': {}}
    for row in rows:
        if row.held is not None:  # the pause row
            found.update(held=row.held, paused_seconds=row.paused_seconds,
                         since=_datetime(row.since))
        elif row.path is None:  # the mode
            found['mode'] = row.kind
        else:
            known = found['targets'].get(row.path)
            if known is None:
                found['targets'][row.path] = row.kind
            else:  # a target for another ``when`` of the same path
                found['targets'][row.path] = tuple(sorted(
                    ((known,) if isinstance(known, str) else known) +
                    (row.kind,)))
    return model_state.State(**found)


def _datetime(value):
    """A datetime as stored (SQLite's driver gives its text)."""
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value
