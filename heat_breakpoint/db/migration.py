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
"""Our tables' schema, versioned with alembic as Heat's own is.

Heat's ``heat-manage db_sync`` knows nothing of our tables, so
``heat-breakpoint-manage db_sync`` runs our migrations
(``heat_breakpoint/db/migrations/versions``) in Heat's database, with a
version table of our own beside Heat's ``alembic_version``. A later
change of the tables is a new revision there, never hand-written SQL.

A database whose tables were created on first use by an earlier release
(no version table) is stamped as the first revision, then upgraded.

A heat-engine checks the version when it starts (:func:`ready`): if the
migration has not run, it logs one line and runs as stock Heat.
"""

import os

from oslo_log import log as logging
import sqlalchemy as sa

LOG = logging.getLogger(__name__)

VERSION_TABLE = 'breakpoint_alembic_version'
#: The revision whose tables earlier releases created on first use.
FIRST_REVISION = '0001'
_LOCATION = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'migrations')


def _config(connection=None):
    from alembic import config
    conf = config.Config()
    conf.set_main_option('script_location', _LOCATION)
    conf.attributes['connection'] = connection
    return conf


def head() -> str:
    """The newest revision this release knows."""
    from alembic import script
    return script.ScriptDirectory.from_config(_config()).get_current_head()


def current(engine):
    """The revision the database is at, or None (never migrated)."""
    from alembic.runtime import migration as alembic_migration
    with engine.connect() as conn:
        context = alembic_migration.MigrationContext.configure(
            conn, opts={'version_table': VERSION_TABLE})
        return context.get_current_revision()


def db_sync(engine, revision: str = 'head') -> str:
    """Upgrade our tables to revision; the revision reached."""
    from alembic import command
    with engine.begin() as conn:
        names = sa.inspect(conn).get_table_names()
        if VERSION_TABLE not in names and 'breakpoint_operation' in names:
            # Created on first use by an earlier release: revision 0001.
            command.stamp(_config(conn), FIRST_REVISION)
        command.upgrade(_config(conn), revision)
    return current(engine)


def ready(engine=None) -> bool:
    """Whether our tables are at :func:; says why not, in one line."""
    try:
        if engine is None:
            from heat.db import api as db_api
            engine = db_api.get_engine()
        found, wanted = current(engine), head()
    except Exception as exc:
        LOG.error('heat-breakpoint is DISABLED: cannot read the version of '
                  'its tables (%s); stacks run as in stock Heat.', exc)
        return False
    if found != wanted:
        LOG.error('heat-breakpoint is DISABLED: its tables are at version '
                  '%s, this release needs %s; run "heat-breakpoint-manage '
                  'db_sync" and restart heat-engine. Stacks run as in stock '
                  'Heat.', found or 'none (never migrated)', wanted)
        return False
    return True
