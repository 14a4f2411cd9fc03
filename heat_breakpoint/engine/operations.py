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
  default time spent at a breakpoint does not count against the timeout.

Nested stacks run traversals of their own, so rows are keyed by the root
stack and the root stack's traversal, which stays the same for the whole
operation. They live in small tables of ours beside Heat's (created on
first use), so any heat-engine sees them.
"""

import functools
import hashlib

from oslo_db import exception as db_exception
from oslo_utils import timeutils
import sqlalchemy as sa

from heat.db import api as db_api
from heat.objects import stack as stack_objects

CONTINUE = 'continue'
RUN_TO = 'to'
STEP = 'step'
STEP_INTO = 'into'  # the first resources of the nested stack at this path
SET = 'set'
CLEAR = 'clear'

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


def _digest(path: str) -> str:
    return hashlib.sha256(path.encode('utf-8')).hexdigest()


def root_operation(stack) -> tuple:
    """(root stack id, root traversal) of the operation running ``stack``."""
    if not stack.owner_id:
        return stack.id, stack.current_traversal
    root_id = stack.root_stack_id()
    root = stack_objects.Stack.get_by_id(stack.context, root_id,
                                         show_deleted=True)
    return root_id, root.current_traversal


def _where(table, key):
    return sa.and_(table.c.root_stack_id == key[0],
                   table.c.traversal == key[1])


@_retry_races
def mark(stack, mode: str = CONTINUE) -> None:
    """Record how the user wants the running operation to go on."""
    key = root_operation(stack)
    with _engine().begin() as conn:
        found = conn.execute(sa.select(operations.c.mode).where(
            _where(operations, key)).with_for_update()).first()
        if found is None:
            conn.execute(operations.insert().values(
                root_stack_id=key[0], traversal=key[1], mode=mode,
                created_at=timeutils.utcnow()))
        elif found.mode != mode:
            conn.execute(operations.update().where(
                _where(operations, key)).values(mode=mode))


@_retry_races
def add_targets(stack, paths, kind: str) -> None:
    """Hold (or, for CLEAR, do not hold) these resource paths."""
    key = root_operation(stack)
    with _engine().begin() as conn:
        for path in paths:
            where = sa.and_(_where(targets, key),
                            targets.c.path_digest == _digest(path))
            if conn.execute(sa.select(targets.c.kind).where(
                    where).with_for_update()).first() is None:
                conn.execute(targets.insert().values(
                    root_stack_id=key[0], traversal=key[1],
                    path_digest=_digest(path), path=path, kind=kind))
            else:
                conn.execute(targets.update().where(where).values(
                    kind=kind))


def plan(stack) -> tuple:
    """(mode or None, {path: kind}) recorded for the running operation."""
    key = root_operation(stack)
    with _engine().connect() as conn:
        mode = conn.execute(sa.select(operations.c.mode).where(
            _where(operations, key))).scalar()
        found = conn.execute(sa.select(targets.c.path, targets.c.kind).where(
            _where(targets, key))).all()
    return mode, {row.path: row.kind for row in found}


def _pause_row(conn, key, lock=False):
    query = sa.select(pauses).where(_where(pauses, key))
    return conn.execute(query.with_for_update() if lock else query).first()


@_retry_races
def hold_started(stack) -> None:
    """One more resource of the operation is held (the clock stops)."""
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
    key = root_operation(stack)
    with _engine().connect() as conn:
        row = _pause_row(conn, key)
    if row is None:
        return 0.0
    total = row.paused_seconds
    if row.held > 0 and row.since is not None:
        total += (timeutils.utcnow() - row.since).total_seconds()
    return total
