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
"""Our versioned schema, and a heat-engine started before the migration."""

import logging
from unittest import mock

import pytest
import sqlalchemy as sa

from heat_breakpoint.db import migration
from heat_breakpoint.db import tables
from heat_breakpoint.engine import seam


@pytest.fixture
def engine(tmp_path):
    return sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))


def columns(engine):
    inspector = sa.inspect(engine)
    return {name: {c['name'] for c in inspector.get_columns(name)}
            for name in inspector.get_table_names()}


def test_db_sync_makes_the_tables_the_engine_uses(engine):
    assert migration.current(engine) is None
    assert migration.db_sync(engine) == migration.head()
    found = columns(engine)
    for table in tables.TABLES:
        assert found[table.name] == {c.name for c in table.columns}
    assert migration.VERSION_TABLE in found
    assert 'alembic_version' not in found  # Heat's own stays Heat's
    assert migration.ready(engine)


def test_db_sync_twice_changes_nothing(engine):
    migration.db_sync(engine)
    before = columns(engine)
    assert migration.db_sync(engine) == migration.head()
    assert columns(engine) == before


def test_tables_made_on_first_use_are_adopted(engine):
    # What an earlier release left: our tables, with rows, no version.
    tables.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(tables.operations.insert().values(
            root_stack_id='s', traversal='t', mode='continue',
            created_at=sa.func.now()))
    assert migration.current(engine) is None
    assert migration.db_sync(engine) == migration.head()
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            tables.operations)).scalar() == 1


def test_not_migrated_is_not_ready_and_says_so_in_one_line(engine, caplog):
    with caplog.at_level(logging.ERROR):
        assert not migration.ready(engine)
    lines = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(lines) == 1
    assert 'heat-breakpoint-manage db_sync' in lines[0].getMessage()
    assert 'stock Heat' in lines[0].getMessage()


def test_an_engine_started_before_the_migration_runs_stock_heat(
        engine, caplog):
    from heat.engine import resource
    from heat.engine import service
    from heat.engine import stack
    from heat_breakpoint.engine import plugin  # noqa: F401  (installs)
    assert seam.installed()
    wrapped = resource.Resource.create_convergence
    try:
        with mock.patch('heat.db.api.get_engine', return_value=engine), \
                caplog.at_level(logging.ERROR):
            assert seam.schema_ready() is False
        assert not seam.installed()
        for cls, names in ((resource.Resource, seam.EXPECTED),
                           (stack.Stack, seam.EXPECTED_STACK),
                           (service.EngineService, seam.EXPECTED_SERVICE)):
            for name in names:
                method = getattr(cls, name)
                assert 'heat_breakpoint' not in method.__code__.co_filename
        assert not hasattr(service.EngineService, seam.LIST_METHOD)
        assert len([r for r in caplog.records
                    if r.levelno >= logging.ERROR]) == 1
    finally:
        assert seam.install()
    assert resource.Resource.create_convergence is not wrapped  # rewrapped
    migration.db_sync(engine)
    with mock.patch('heat.db.api.get_engine', return_value=engine):
        assert seam.schema_ready() is True
    assert seam.installed()
