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
"""Our three tables in Heat's database, and how writers reach them.

What a running operation was told (its mode and targets) and its pause
clock live in three small tables beside Heat's, so that any heat-engine
sees them. Their schema is versioned by our migrations
(:mod:`heat_breakpoint.db.migration`); these are the same tables as the
code reads and writes them. Every row is keyed by the root stack and the
root stack's traversal, which stays the same for a whole operation, nested
stacks included.

Writers open their transactions with :func:`begin` (on Heat's own
engine, our tables made sure of: :func:`engine`), which counts them once
they end (:func:`writes`), and retry a transaction that lost a race to
another engine (:func:`retry_races`); the read every check makes goes
through :mod:`heat_breakpoint.db.reader` instead.
"""

import contextlib
import functools
import itertools
import typing

from oslo_db import exception as db_exception
import sqlalchemy as sa

from heat.db import api as db_api

#: (root stack id, root traversal): what every row is keyed by.
Key = typing.Tuple[str, str]


def _key_columns() -> typing.List[sa.Column]:
    """The columns of :data:`Key`, the primary key's first part."""
    return [sa.Column('root_stack_id', sa.String(36), primary_key=True),
            sa.Column('traversal', sa.String(36), primary_key=True)]


metadata = sa.MetaData()
operations = sa.Table(
    'breakpoint_operation', metadata,
    *_key_columns(),
    sa.Column('mode', sa.String(16), nullable=False),
    sa.Column('created_at', sa.DateTime, nullable=False),
)

# Keyed by a digest of the path: a path may be long, and a utf8mb4 MySQL
# key may not (3072 bytes).
targets = sa.Table(
    'breakpoint_hold_target', metadata,
    *_key_columns(),
    sa.Column('path_digest', sa.String(64), primary_key=True),
    sa.Column('path', sa.Text, nullable=False),
    sa.Column('kind', sa.String(16), nullable=False),
)

pauses = sa.Table(
    'breakpoint_pause', metadata,
    *_key_columns(),
    sa.Column('held', sa.Integer, nullable=False),
    sa.Column('paused_seconds', sa.Float, nullable=False),
    sa.Column('since', sa.DateTime, nullable=True),
)

#: Every table of ours.
TABLES = (operations, targets, pauses)

_ready_engines = set()
RACE_RETRIES = 10


def engine():
    """Heat's database engine, with our tables there (checked once)."""
    found = db_api.get_engine()
    if id(found) not in _ready_engines:
        try:
            metadata.create_all(found, checkfirst=True)
        except sa.exc.OperationalError:
            # Another engine created them between our check and create.
            metadata.create_all(found, checkfirst=True)
        _ready_engines.add(id(found))
    return found


# Our write transactions this process has ended, committed or not, and
# whether this process is the only one that writes the database.
_ended = itertools.count(1)
_writes = 0
_alone = False


@contextlib.contextmanager
def begin(on=None):
    """A write transaction on our tables, counted once it has ended.

    ``on``: the engine (Heat's, :func:`engine`, unless given). The count
    moves after the commit (or the rollback), never before it: a reader
    that saw the count before it moved read the rows either way, and
    reads again the next time.
    """
    global _writes
    try:
        with (on if on is not None else engine()).begin() as conn:
            yield conn
    finally:
        _writes = next(_ended)


def only_writer(alone: bool = True) -> None:
    """Say that no other process writes this process's database.

    The local server is one process (it holds its state directory); a
    heat-engine of a deployment never says so.
    """
    global _alone
    _alone = alone


def writes() -> typing.Optional[int]:
    """How many write transactions of ours this process has ended.

    None unless this process is its database's only writer
    (:func:`only_writer`): another process's writes are not counted.
    """
    return _writes if _alone else None


def where(table, key: Key):
    """The rows of ``table`` that belong to the operation ``key``."""
    return sa.and_(table.c.root_stack_id == key[0],
                   table.c.traversal == key[1])


def retry_races(func):
    """Run a read-then-write transaction again when another engine won.

    Rows are read ``FOR UPDATE``; what is left is two engines inserting
    the same new row at once, or a deadlock (a purge's deletes among
    them): the loser starts over.
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for attempt in range(RACE_RETRIES):
            try:
                return func(*args, **kwargs)
            except (db_exception.DBDuplicateEntry, db_exception.DBDeadlock,
                    sa.exc.IntegrityError):
                if attempt == RACE_RETRIES - 1:
                    raise
    return wrapper
