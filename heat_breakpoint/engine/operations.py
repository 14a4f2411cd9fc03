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
"""What a user decided about a whole running operation, in Heat's database.

``continue`` releases what is held and ignores every breakpoint left in the
same operation, nested stacks included. Nested stacks run traversals of
their own, so the decision is keyed by the root stack and the root stack's
traversal, which stays the same for the whole operation. It lives in a
small table of ours beside Heat's (created on first use), so any
heat-engine sees it.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from heat.db import api as db_api
from heat.objects import stack as stack_objects

CONTINUE = 'continue'

_metadata = sa.MetaData()
operations = sa.Table(
    'breakpoint_operation', _metadata,
    sa.Column('root_stack_id', sa.String(36), primary_key=True),
    sa.Column('traversal', sa.String(36), primary_key=True),
    sa.Column('mode', sa.String(16), nullable=False),
    sa.Column('created_at', sa.DateTime, nullable=False),
)

_ready_engines = set()


def _engine():
    engine = db_api.get_engine()
    if id(engine) not in _ready_engines:
        _metadata.create_all(engine, checkfirst=True)
        _ready_engines.add(id(engine))
    return engine


def root_operation(stack) -> tuple:
    """(root stack id, root traversal) of the operation running ``stack``."""
    if not stack.owner_id:
        return stack.id, stack.current_traversal
    root_id = stack.root_stack_id()
    root = stack_objects.Stack.get_by_id(stack.context, root_id,
                                         show_deleted=True)
    return root_id, root.current_traversal


def mark(stack, mode: str = CONTINUE) -> None:
    root_id, traversal = root_operation(stack)
    with _engine().begin() as conn:
        found = conn.execute(sa.select(operations.c.mode).where(
            operations.c.root_stack_id == root_id,
            operations.c.traversal == traversal)).first()
        if found is None:
            conn.execute(operations.insert().values(
                root_stack_id=root_id, traversal=traversal, mode=mode,
                created_at=timeutils.utcnow()))


def mode_of(stack):
    """The recorded decision for the running operation, or None."""
    root_id, traversal = root_operation(stack)
    with _engine().connect() as conn:
        return conn.execute(sa.select(operations.c.mode).where(
            operations.c.root_stack_id == root_id,
            operations.c.traversal == traversal)).scalar()
