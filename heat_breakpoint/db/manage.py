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
"""``heat-breakpoint-manage``: the operator's commands for our tables.

Run where ``heat-manage`` runs, with the same configuration (Heat's
``[database] connection``)::

    heat-breakpoint-manage db_sync    # next to heat-manage db_sync
    heat-breakpoint-manage db_version
    heat-breakpoint-manage purge      # next to heat-manage purge_deleted
    heat-breakpoint-manage rows       # how many rows of ours there are

``db_sync`` creates or upgrades our tables (see
:mod:`heat_breakpoint.db.migration`); run it before starting heat-engines
of a new release of the plugin: an engine started before it runs as stock
Heat and says so in its log.

``purge`` deletes what no running operation needs any more (see
:mod:`heat_breakpoint.db.purge`); heat-engines also do it after each
operation and sweep now and then, so this is for what a stopped engine
left behind.
"""

import sys
import warnings

from oslo_config import cfg
from oslo_log import log

CONF = cfg.CONF


def _engine():
    from heat.db import api as db_api
    return db_api.get_engine()


def do_db_sync():
    from heat_breakpoint.db import migration
    print('heat-breakpoint tables at version %s'
          % migration.db_sync(_engine(), CONF.command.version))


def do_db_version():
    from heat_breakpoint.db import migration
    print(migration.current(_engine()) or 'none')


class NotMigrated(Exception):
    pass


def _migrated(engine):
    """Refuse to read our tables before ``db_sync`` made them."""
    from heat_breakpoint.db import migration
    try:
        found = migration.current(engine)
    except Exception as exc:
        raise NotMigrated('cannot read the database (%s)' % exc)
    if found is None:
        raise NotMigrated('the heat-breakpoint tables are not there yet: '
                          'run "heat-breakpoint-manage db_sync" first')
    return engine


def do_purge():
    from heat_breakpoint.db import purge
    _migrated(_engine())
    total = {}
    while True:
        counts = purge.purge_stale(_engine(), CONF.command.batch)
        for name, count in counts.items():
            total[name] = total.get(name, 0) + count
        if not any(counts.values()):
            break
    for name in sorted(total):
        print('%s: %d rows purged' % (name, total[name]))


def do_rows():
    from heat_breakpoint.db import purge
    for name, count in sorted(purge.count_rows(
            _migrated(_engine())).items()):
        print('%s: %d' % (name, count))


def add_command_parsers(subparsers):
    parser = subparsers.add_parser(
        'db_sync', help="Create or upgrade heat-breakpoint's tables.")
    parser.add_argument('version', nargs='?', default='head',
                        help='revision to upgrade to (default: the newest)')
    parser.set_defaults(func=do_db_sync)
    parser = subparsers.add_parser(
        'db_version', help="The revision heat-breakpoint's tables are at.")
    parser.set_defaults(func=do_db_version)
    parser = subparsers.add_parser(
        'purge', help='Delete the breakpoint state of operations that no '
        'longer run (ended, replaced, or of deleted stacks).')
    parser.add_argument('--batch', type=int, default=1000,
                        help='operations per transaction (default 1000)')
    parser.set_defaults(func=do_purge)
    parser = subparsers.add_parser(
        'rows', help='How many rows of heat-breakpoint there are.')
    parser.set_defaults(func=do_rows)


command_opt = cfg.SubCommandOpt('command', title='Commands',
                                help='Available commands',
                                handler=add_command_parsers)


def main(argv=None) -> int:
    log.register_options(CONF)
    CONF.register_cli_opt(command_opt)
    try:
        default_config_files = cfg.find_config_files('heat', 'heat-engine')
        CONF(sys.argv[1:] if argv is None else argv, project='heat',
             prog='heat-breakpoint-manage',
             default_config_files=default_config_files)
    except (RuntimeError, cfg.Error) as exc:
        # A --config-file that is not there, a value that does not parse.
        sys.exit('ERROR: %s' % exc)
    log.setup(CONF, 'heat-breakpoint-manage')
    # Heat's engine imports eventlet, which warns at every run; an
    # operator's command has nothing to do about it.
    warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
    # Heat's [database] options are registered by its db api.
    from heat.db import api  # noqa: F401
    try:
        CONF.command.func()
    except Exception as exc:
        sys.exit('ERROR: %s' % exc)
    return 0


if __name__ == '__main__':
    sys.exit(main())
