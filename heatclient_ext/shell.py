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
"""``heat-breakpoint``: the spec's spelling, on heatclient's legacy shell.

python-heatclient still ships the ``heat`` shell (deprecated in favour of
``openstack stack``); this subclass keeps its global options and commands,
replaces ``stack-create`` / ``stack-update`` with versions taking
``--breakpoint`` / ``--nobreakpoint``, adds the ``breakpoint-*`` commands,
and also accepts the OSC-style ``--os-endpoint`` / ``--os-auth-type none``
(``OS_ENDPOINT`` / ``OS_AUTH_TYPE``) that a no-auth Heat needs.
"""

import logging
import sys
import types

from heatclient import client as heat_client
from heatclient.common import utils
from heatclient import shell as heat_shell
from heatclient.v1 import shell as stock_commands
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session

from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext import printable
from heatclient_ext.v1 import shell_commands as commands

NO_AUTH = ('none', 'noauth')


def _stock_actions():
    """The stock ``do_*`` commands that ours do not replace."""
    ours = {name for name in dir(commands) if name.startswith('do_')}
    return types.SimpleNamespace(**{
        name: getattr(stock_commands, name)
        for name in dir(stock_commands)
        if name.startswith('do_') and name not in ours})


class BreakpointShell(heat_shell.HeatShell):
    """heatclient's ``HeatShell`` with the breakpoint commands."""

    def get_base_parser(self):
        parser = super().get_base_parser()
        parser.prog = 'heat-breakpoint'
        parser.add_argument(
            '--os-endpoint', metavar='<url>',
            default=utils.env('OS_ENDPOINT'),
            help=_('Heat API URL, project included; with --os-auth-type '
                   'none no Keystone is asked. Defaults to env[OS_ENDPOINT].'))
        parser.add_argument(
            '--os-auth-type', metavar='<auth-type>',
            default=utils.env('OS_AUTH_TYPE'),
            help=_('"none" talks to --os-endpoint without a token; anything '
                   'else uses the Keystone options. Defaults to '
                   'env[OS_AUTH_TYPE].'))
        return parser

    def get_subcommand_parser(self, version):
        parser = self.get_base_parser()
        self.subcommands = {}
        subparsers = parser.add_subparsers(metavar='<subcommand>')
        self._find_actions(subparsers, _stock_actions())
        self._find_actions(subparsers, commands)
        self._find_actions(subparsers, self)
        self._add_bash_completion_subparser(subparsers)
        return parser

    def main(self, argv):
        options, _rest = self.get_base_parser().parse_known_args(argv)
        if (options.os_auth_type or '').lower() not in NO_AUTH:
            if options.os_endpoint and not options.heat_url:
                argv = ['--heat-url', options.os_endpoint] + list(argv)
            return super().main(argv)
        if not options.os_endpoint:
            raise exceptions.BreakpointCommandError(
                _('--os-auth-type none needs --os-endpoint or '
                  'env[OS_ENDPOINT]'))
        self._setup_logging(options.debug)
        self._setup_verbose(options.verbose)
        self.parser = self.get_subcommand_parser(options.heat_api_version)
        if not argv or (options.help and not _rest):
            self.do_help(options)
            return 0
        args = self.parser.parse_args(argv)
        if args.func == self.do_help:
            self.do_help(args)
            return 0
        if args.func == self.do_bash_completion:
            self.do_bash_completion(args)
            return 0
        session = ks_session.Session(auth=noauth.NoAuth(),
                                     timeout=args.api_timeout)
        client = heat_client.Client(options.heat_api_version,
                                    session=session,
                                    endpoint_override=options.os_endpoint)
        args.func(client, args)
        return 0


def main(argv=None):
    """Console script ``heat-breakpoint``: one-line errors, exit code 1."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # The stock commands log that the legacy shell is deprecated; the spec
    # asks for this spelling, so that warning is noise here.
    logging.getLogger(stock_commands.__name__).setLevel(logging.ERROR)
    try:
        BreakpointShell().main(argv)
    except KeyboardInterrupt:
        print(_('... terminating heat-breakpoint'), file=sys.stderr)
        return 130
    except Exception as exc:  # like heatclient's shell: no traceback
        if '--debug' in argv or '-d' in argv:
            raise
        print(printable.printable(exceptions.one_line(exc)),
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
