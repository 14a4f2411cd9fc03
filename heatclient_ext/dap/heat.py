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
"""Where Heat is for a debug session, and the operation it launches.

A session names a cloud (``clouds.yaml``), a no-auth endpoint, the port
of a running local Heat (``localHeat``), or none: then it starts the
embedded Heat (``heat-breakpoint-server``) on a free port of 127.0.0.1,
in a state directory of its own, and stops it (and removes the
directory) when the session ends. That server also stops by itself,
removing its directory, when the adapter ends without stopping it
(killed): it holds a pipe from the adapter (``--exit-with-fd``). The
operation is sent
by :meth:`.BreakpointManager.launch`, as ``openstack stack create/update``
sends it.
"""

import logging
import threading
import typing

from heatclient import client as heat_client
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session
import requests

from heat_breakpoint.server import fixture

from heatclient_ext._i18n import _
from heatclient_ext.dap import local_process
from heatclient_ext import exceptions

LOG = logging.getLogger(__name__)
START_TIMEOUT = 180
ACTIONS = ('create', 'update', 'delete')


def client_for(endpoint=None, cloud=None):
    """A heatclient v1 client for a no-auth endpoint or a named cloud."""
    if endpoint:
        sess = ks_session.Session(auth=noauth.NoAuth())
        return heat_client.Client('1', session=sess,
                                  endpoint_override=endpoint)
    import openstack.config
    try:
        region = openstack.config.OpenStackConfig().get_one(cloud=cloud)
    except Exception as exc:  # the SDK's own words for a bad cloud
        raise exceptions.BreakpointCommandError(
            _('Cannot use cloud %(cloud)s: %(reason)s') % {
                'cloud': cloud, 'reason': exceptions.one_line(exc)})
    return heat_client.Client(
        '1', session=region.get_session(), service_type='orchestration',
        region_name=region.region_name,
        interface=region.get_interface('orchestration'))


class LocalHeat:
    """The embedded Heat this session started, and how to stop it.

    The server's own fixture (:mod:`heat_breakpoint.server.fixture`)
    starts it; this adds the session's words, its state directory (the
    server's output inside it, so that one directory is all there is to
    remove) and a stop that wins over a start from another thread.
    """

    def __init__(self, launched=None) -> None:
        # launched: a process already launched (local_process.take_early);
        # its port, endpoint and state directory are the session's
        self.process = launched or local_process.new_process()
        self.lock = threading.Lock()
        self.stopped = False
        self.launched = launched is not None

    def launch(self) -> None:
        """Start the process (once); :meth:`start` waits for it."""
        with self.lock:
            if self.stopped:
                raise exceptions.BreakpointCommandError(
                    _('The local Heat was stopped before it answered'))
            if not self.launched:
                self.launched = True
                # A new, empty directory: nothing to --reset.
                self.process.launch()

    def start(self, say=lambda text: None):
        say(_('Starting a local Heat on 127.0.0.1:%d') % self.process.port)
        try:
            self.launch()
            return self.process.wait_ready(START_TIMEOUT)
        except fixture.ServerStartError as exc:
            if exc.why == 'stopped':  # the session ended meanwhile
                raise exceptions.BreakpointCommandError(
                    _('The local Heat was stopped before it answered'))
            if exc.why == 'exited':
                raise exceptions.BreakpointCommandError(
                    _('The local Heat exited with %(code)s: %(tail)s') % {
                        'code': exc.returncode,
                        'tail': exceptions.one_line(exc.output[-500:])})
            self.stop()
            raise exceptions.BreakpointCommandError(
                _('The local Heat did not answer in %d s') % START_TIMEOUT)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
        self.process.remove(timeout=30)


class OwnHeat:
    """The local Heat a session started or took over, stopped once.

    A launch and the session's end run on different threads: a server
    that comes after the end is stopped at once, and one being started
    when the end comes is stopped even half started.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._local: typing.Optional[LocalHeat] = None
        self._closed = False

    @property
    def local(self) -> typing.Optional[LocalHeat]:
        return self._local

    def _keep(self, local: LocalHeat) -> bool:
        with self._lock:
            if self._closed or self._local is not None:
                return False
            self._local = local
            return True

    def prestart(self) -> None:
        """Launch (or take over the adapter's early) local Heat, no wait."""
        local = LocalHeat(local_process.take_early())
        if not self._keep(local):
            local.stop()
            return
        try:
            local.launch()
        except Exception as exc:  # said again, if needed, by the launch
            LOG.info('local Heat not started early: %s', exc)

    def drop(self) -> None:
        """The launch names another Heat: the one started early goes."""
        with self._lock:
            early, self._local = self._local, None
        if early is not None:
            early.stop()

    def start(self, say) -> LocalHeat:
        """The local Heat, started if it was not, once it answers."""
        with self._lock:
            if self._closed:
                raise exceptions.BreakpointCommandError(
                    _('the editor has left'))
            if self._local is None:
                self._local = LocalHeat()
            local = self._local
        local.start(say)
        return local

    def close(self) -> None:
        with self._lock:
            self._closed = True
            local, self._local = self._local, None
        if local is not None:
            local.stop()


def running_local(port) -> str:
    """The endpoint of the local Heat running on ``port``, if it answers.

    ``localHeat`` in a launch: F5 on a server already started
    (``heat-breakpoint-server --port <port>``) waits for no server.
    """
    if not 0 < port < 65536:
        raise exceptions.BreakpointCommandError(
            _('localHeat must be a port (1 to 65535), not %d') % port)
    endpoint = 'http://127.0.0.1:%d/v1/admin' % port
    try:
        requests.get(endpoint + '/stacks', timeout=5)
    except requests.RequestException:
        raise exceptions.BreakpointCommandError(
            _('No local Heat answers on 127.0.0.1:%d: start one '
              '(heat-breakpoint-server --port %d), or leave out '
              'localHeat to have one started') % (port, port))
    return endpoint


def check_launch(args) -> None:
    """Refuse, before anything starts, a launch that cannot be sent."""
    action = args.get('action') or 'create'
    if action not in ACTIONS:
        raise exceptions.BreakpointCommandError(
            _('action must be one of %(actions)s, not %(action)r') % {
                'actions': ', '.join(ACTIONS), 'action': action})
    if not args.get('stack'):
        raise exceptions.BreakpointCommandError(
            _('launch needs "stack": the name of the stack'))
    if args.get('localHeat') is not None and (
            args.get('endpoint') or args.get('cloud')):
        raise exceptions.BreakpointCommandError(
            _('launch takes one of localHeat, endpoint and cloud'))
    if action != 'delete' and not args.get('template'):
        raise exceptions.BreakpointCommandError(
            _('launch needs "template": the path of the template file'))


def start(manager, args, breakpoints_, say=lambda text: None):
    """Send the launch's create, update or delete; the stack's ident.

    ``breakpoints_`` (model breakpoints) travel in the environment, as
    ``--breakpoint`` and its kinds would (for a delete, stored first):
    :meth:`.BreakpointManager.launch`.
    """
    check_launch(args)
    return manager.launch(
        args.get('action') or 'create', args['stack'],
        template=args.get('template'),
        environment_files=list(args.get('environment') or []),
        parameters=dict(args.get('parameters') or {}),
        existing=bool(args.get('existing')), breakpoints_=breakpoints_,
        say=say)
