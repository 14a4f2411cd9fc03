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
"""A nested stack's path and root operation, in one recursive query."""

import types
from unittest import mock

import pytest
import sqlalchemy as sa

from heat_breakpoint.db import ancestry


@pytest.fixture
def engine(tmp_path):
    engine = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    with engine.begin() as conn:
        conn.exec_driver_sql(
            'CREATE TABLE stack (id VARCHAR(36) PRIMARY KEY, owner_id '
            'VARCHAR(36), parent_resource_name VARCHAR(255), '
            'current_traversal VARCHAR(36), action VARCHAR(255))')
        for row in (('root', None, None, 'root-t', 'ROLLBACK'),
                    ('mid', 'root', 'outer', 'mid-t', 'UPDATE'),
                    ('inner', 'mid', 'middle', 'inner-t', 'UPDATE')):
            conn.exec_driver_sql(
                'INSERT INTO stack VALUES (?, ?, ?, ?, ?)', row)
    with mock.patch('heat.db.api.get_engine', return_value=engine):
        yield engine


def nested(owner_id, name):
    return types.SimpleNamespace(id='x', owner_id=owner_id,
                                 parent_resource_name=name,
                                 current_traversal='x-t')


def test_the_path_and_root_operation_of_a_deep_stack(engine):
    # The root's action too: nothing holds while the root rolls back.
    assert ancestry.walk(nested('inner', 'leaf')) == (
        ('outer', 'middle', 'leaf'), 'root', 'root-t', 'ROLLBACK')
    assert ancestry.walk(nested('root', 'outer')) == (
        ('outer',), 'root', 'root-t', 'ROLLBACK')


def test_an_unknown_owner_leaves_the_walk_to_the_caller(engine):
    assert ancestry.walk(nested('nowhere', 'x')) is None
