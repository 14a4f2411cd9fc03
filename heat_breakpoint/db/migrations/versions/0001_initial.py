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
"""The three tables of a running operation (what 0.1 created on first use).

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def _key_columns() -> list:
    """(root stack id, root traversal): what every row is keyed by.

    Spelled here, not taken from ``tables``: a migration stays as it ran.
    """
    return [sa.Column('root_stack_id', sa.String(36), primary_key=True),
            sa.Column('traversal', sa.String(36), primary_key=True)]


def upgrade() -> None:
    op.create_table(
        'breakpoint_operation',
        *_key_columns(),
        sa.Column('mode', sa.String(16), nullable=False),
        sa.Column('created_at', sa.DateTime, nullable=False),
    )
    op.create_table(
        'breakpoint_hold_target',
        *_key_columns(),
        sa.Column('path_digest', sa.String(64), primary_key=True),
        sa.Column('path', sa.Text, nullable=False),
        sa.Column('kind', sa.String(16), nullable=False),
    )
    op.create_table(
        'breakpoint_pause',
        *_key_columns(),
        sa.Column('held', sa.Integer, nullable=False),
        sa.Column('paused_seconds', sa.Float, nullable=False),
        sa.Column('since', sa.DateTime, nullable=True),
    )
