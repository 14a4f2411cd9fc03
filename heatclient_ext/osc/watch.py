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
"""``openstack stack breakpoint watch [--interactive]``.

A thin cliff command over
:class:`heatclient_ext.terminal.watch_session.Session`; the exit code is
the session's: 0 when the operation completes (or the session is left
with q), 1 when it fails, 3 when Heat stayed unreachable
for ``--reconnect-timeout`` seconds, 130 on Ctrl-C (the operation itself
is left as it is).
"""

import argparse
import logging
import sys
import typing

from osc_lib.command import command
from osc_lib import exceptions as osc_exc

from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.osc import clients
from heatclient_ext.terminal import watch_session as watch_v1
from heatclient_ext.v1 import live
from heatclient_ext.v1 import manager as bp_v1
from heatclient_ext.v1 import terms

DEFAULT_INTERVAL = 2.0


#: argparse type of ``--interval``: seconds, from 0.1.
interval_argument = terms.at_least(
    float, 0.1, _('must be a number of seconds from 0.1, got %r'))
#: argparse type of ``--reconnect-timeout``: seconds, from 0.
seconds_argument = terms.at_least(
    float, 0, _('must be a number of seconds from 0, got %r'))


def add_interactive_option(parser) -> None:
    parser.add_argument(
        '--interactive', '-i', action='store_true',
        help=_('When something is held, prompt: Enter steps the resource '
               'the prompt names (retries it when it failed); a name or '
               'glob releases those; c continues; "to R", "set R", '
               '"clear R", "retry R"; cancel cancels the operation (an '
               'update rolls back, a create is stopped and the stack '
               'deleted); ? shows help; q leaves it held'))


def add_reconnect_option(parser) -> None:
    parser.add_argument(
        '--reconnect-timeout', metavar='<seconds>', type=seconds_argument,
        default=live.RECONNECT_TIMEOUT,
        help=_('While Heat cannot be reached (a restart, a dropped '
               'connection), keep trying for this many seconds, then '
               'exit 3 (default: %d)') % live.RECONNECT_TIMEOUT)


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def session(app, client, stack, nested_depth: typing.Optional[int] = None,
            interval=DEFAULT_INTERVAL, interactive=False,
            reconnect_timeout=live.RECONNECT_TIMEOUT):
    """A :class:`watch_v1.Session` on the app's terminal."""
    out = app.stdout
    return watch_v1.Session(
        client, stack, out, stdin=getattr(app, 'stdin', None) or sys.stdin,
        nested_depth=nested_depth, interval=interval,
        interactive=interactive, redraw=_isatty(out),
        reconnect_timeout=reconnect_timeout)


def watch(app, client, args):
    try:
        return session(app, client, args.stack, args.nested_depth,
                       args.interval, args.interactive,
                       args.reconnect_timeout).run()
    except exceptions.USER_ERRORS as exc:
        raise osc_exc.CommandError(str(exc))


class WatchBreakpoint(command.Command):
    """Watch a stack's operation live until it ends"""

    log = logging.getLogger(__name__ + '.WatchBreakpoint')

    def get_parser(self, prog_name: str):
        parser = super().get_parser(prog_name)
        parser.add_argument('stack', metavar='<stack>',
                            help=_('Name or ID of the stack'))
        parser.add_argument(
            '--nested-depth', metavar='<depth>', type=bp_v1.depth_argument,
            help=_('How deep below the stack to count resources and look '
                   'for held ones (default: all the way down)'))
        parser.add_argument(
            '--interval', metavar='<seconds>', type=interval_argument,
            default=DEFAULT_INTERVAL,
            help=_('Seconds between refreshes (default: %s)')
            % DEFAULT_INTERVAL)
        add_interactive_option(parser)
        add_reconnect_option(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace):
        return watch(self.app, clients.orchestration(self.app),
                     parsed_args)
