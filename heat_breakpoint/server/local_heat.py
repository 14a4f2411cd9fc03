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
"""The embedded Heat's life: its engine and API app, started and stopped.

What ``heat-breakpoint-server`` runs (:mod:`.cli` parses the command
line, serves and prints): Heat configured for one process and a state
directory, the simulated cloud or the absent services' stand-ins, Heat's
database and ours migrated, Heat's own ``EngineService`` and heat-api
(with CloudFormation's API and the simulated cloud's under path
prefixes), and a stop that does not hang on threads waiting at a stock
hook.
"""

import dataclasses
import fcntl
import os
import threading
import typing

from heat_breakpoint.server import absent
from heat_breakpoint.server import ast_guard
from heat_breakpoint.server import config as local_config
from heat_breakpoint.server import green_heat
from heat_breakpoint.server import pacing
from heat_breakpoint.server import prompt_delivery
from heat_breakpoint.server import stock_hooks


@dataclasses.dataclass(eq=False)
class LocalHeat:
    """Heat's engine service and API app, started and stopped together.

    ``keystone``: a real Keystone (:class:`.config.KeystoneAuth`) Heat
    authenticates against, or None: noauth. ``cloud``, ``engine`` and
    ``app`` are there once it has started.
    """

    state_dir: str
    extra_config_files: typing.Sequence[str] = ()
    port: int = 0
    simulate: bool = False
    cloud_file: typing.Optional[str] = None
    leaf_sleep: bool = True
    faults_file: typing.Optional[str] = None
    realistic_times: bool = False
    keystone: typing.Optional[local_config.KeystoneAuth] = None
    cloud: typing.Any = dataclasses.field(default=None, init=False,
                                          repr=False)
    engine: typing.Any = dataclasses.field(default=None, init=False,
                                           repr=False)
    app: typing.Any = dataclasses.field(default=None, init=False,
                                        repr=False)
    _lock: typing.Any = dataclasses.field(default=None, init=False,
                                          repr=False)

    def __post_init__(self) -> None:
        self.extra_config_files = list(self.extra_config_files)

    def start(self) -> None:
        # Heat must see the threading backend before it is imported.
        from oslo_service import backend
        try:
            backend.init_backend(backend.BackendType.THREADING)
            backend.get_backend()
        except (ValueError, ImportError):
            # oslo.service before 4.2 (2025.1's), or without cotyledon.
            raise local_config.SetupError(
                "oslo.service's threading backend is missing: install "
                "'oslo.service[threading]>=4.2.2' (the server extra: "
                "pip install 'heat-breakpoint[server]')")
        ast_guard.install()
        prompt_delivery.install()
        self._configure()
        green_heat.install()
        if not self.leaf_sleep:
            pacing.install()
        if self.simulate:
            from heat_breakpoint.server import cloud
            self.cloud = cloud.install(cloud.Cloud(
                self.state_dir, self.cloud_file, self.faults_file,
                self.realistic_times),
                real_keystone=self.keystone is not None)
            self.cloud.agents.base_url = local_config.base_url(self.port)
        else:
            absent.install()
        self._hold_state_dir()
        self._prepare_database()
        self._start_engine()
        from heat.common import config as heat_config
        mounts = {local_config.CFN_PREFIX:
                  heat_config.load_paste_app('heat-api-cfn')}
        if self.cloud is not None:
            from heat_breakpoint.server.cloud import fault_api
            from heat_breakpoint.server.cloud import identity
            mounts[fault_api.PREFIX] = fault_api.FaultAPI(self.cloud.faults)
            if self.keystone is None:
                mounts[identity.PREFIX] = identity.Identity(
                    local_config.base_url(self.port),
                    os.path.join(self.state_dir, 'token_response.json'))
        self.app = mount(heat_config.load_paste_app('heat-api'), mounts)

    def _configure(self) -> None:
        from heat.common import config as heat_config
        from heat.common import messaging
        from oslo_config import cfg
        from oslo_log import log as logging

        auth_url = None
        if self.simulate and self.port and self.keystone is None:
            from heat_breakpoint.server.cloud import identity
            auth_url = '%s%s/v3' % (local_config.base_url(self.port),
                                    identity.PREFIX)
        paste_file = local_config.write_paste_file(self.state_dir, auth_url)
        conf_file = local_config.write_heat_conf(self.state_dir, paste_file,
                                                 self.port, self.keystone)
        args = ['--config-file', conf_file]
        for extra in self.extra_config_files:
            args += ['--config-file', os.path.abspath(extra)]
        logging.register_options(cfg.CONF)
        cfg.CONF(args, project='heat', prog='heat-api',
                 default_config_files=[], default_config_dirs=[])
        logging.setup(cfg.CONF, 'heat')
        heat_config.set_config_defaults()
        messaging.setup()

    def _hold_state_dir(self) -> None:
        """Be the only server of the state directory while running.

        Its database then has one writer, this process: what the checks
        read of a running operation serves them until this process writes
        it again (:func:`heat_breakpoint.db.tables.only_writer`).
        """
        from heat_breakpoint.db import tables
        path = os.path.join(self.state_dir, 'server.lock')
        lock = open(path, 'a+')
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise local_config.SetupError(
                'State directory %s is in use by another local Heat: stop '
                'it, or give this one another --state-dir' % self.state_dir)
        self._lock = lock
        tables.only_writer()

    def _prepare_database(self) -> None:
        from heat.db import api as db_api
        from heat.db import migration

        from heat_breakpoint.db import migration as our_migration
        from oslo_config import cfg

        from heat_breakpoint.server import empty_database
        from heat_breakpoint.server import sqlite
        from heat_breakpoint.server import sqlite_ids
        database = os.path.join(self.state_dir, 'heat.sqlite')
        # A new state directory's own database (not one a config file
        # names instead) starts from the cached migrated one.
        new = (cfg.CONF.database.connection == 'sqlite:///%s' % database
               and not os.path.exists(database))
        copied = new and empty_database.copy_into(database)
        engine = db_api.get_engine()
        # Migrations nest connections in one thread: harden afterwards.
        migration.db_sync(engine=engine)
        # The local server's tables are made on first use, as Heat's are.
        our_migration.db_sync(engine)
        sqlite_ids.never_reuse_ids(engine)
        if new and not copied:
            empty_database.keep(database)
        sqlite.harden(engine)

    def _start_engine(self) -> None:
        from heat.engine import service
        from heat.rpc import api as rpc_api
        from oslo_config import cfg

        self.engine = service.EngineService(cfg.CONF.host,
                                            rpc_api.ENGINE_TOPIC)
        self.engine.start()

    def stop(self) -> None:
        if self.engine is not None:
            self.engine.stop()
            self.engine = None
        if self._lock is not None:
            from heat_breakpoint.db import tables
            tables.only_writer(False)
            self._lock.close()
            self._lock = None


def mount(api, mounts: dict):
    """Heat's native API, with other apps under path prefixes.

    Heat's CloudFormation API is under /cfn; the simulated cloud's
    Keystone under /identity.
    """
    def app(environ, start_response):
        path = environ.get('PATH_INFO', '')
        for prefix, other in mounts.items():
            if path == prefix or path.startswith(prefix + '/'):
                environ['SCRIPT_NAME'] = (environ.get('SCRIPT_NAME', '') +
                                          prefix)
                environ['PATH_INFO'] = path[len(prefix):] or '/'
                return other(environ, start_response)
        return api(environ, start_response)
    return app


#: How long a stop waits for the engine when threads wait at stock hooks.
HOOK_GRACE = 2.0


def stop_engine(heat: LocalHeat, grace: float = 20.0) -> None:
    """Stop the engine; do not hang on threads that never return.

    Heat waits for every stack thread to finish, and a native hook (with
    the plugin disabled, or Heat's own ``--pre-create``) waits in its
    thread until released: those are named and not waited for. Parked
    breakpoints hold no thread and survive the restart in the database.
    """
    try:
        count, names = stock_hooks.held()
    except stock_hooks.DB_ERRORS:  # out of reach already: just stop
        count, names = 0, []
    if count:
        more = ', ...' if count > len(names) else ''
        print('heat-breakpoint-server: %d resource(s) wait at a stock hook '
              '(%s%s), each on an engine thread that only a hook clear '
              'ends: not waiting for them; Heat marks their operations '
              'failed at the next start' % (count, ', '.join(names), more),
              flush=True)
        grace = min(grace, HOOK_GRACE)
    stopper = threading.Thread(target=heat.stop, daemon=True)
    stopper.start()
    stopper.join(grace)
    if stopper.is_alive():
        if not count:
            print('heat-breakpoint-server: engine threads still busy after '
                  '%ds; exiting anyway' % grace, flush=True)
        os._exit(0)
