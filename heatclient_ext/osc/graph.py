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
"""``openstack stack breakpoint graph``: where the operation stands."""

import argparse
import logging

from osc_lib.command import command
from osc_lib import exceptions as osc_exc

from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.osc import clients
from heatclient_ext.v1 import dependency_graph as graph
from heatclient_ext.v1 import manager as bp_v1
from heatclient_ext.v1 import stock


def render_graph(client, args):
    """The graph of ``args.stack`` as text, or DOT with ``args.dot``."""
    try:
        found = graph.fetch(client, args.stack, args.nested_depth)
    except exceptions.USER_ERRORS as exc:
        raise osc_exc.CommandError(str(exc))
    return graph.dot(found) if args.dot else graph.text(found)


class GraphBreakpoint(command.Command):
    """Show a stack's dependency graph with held resources and breakpoints.

    Resources are listed in the order Heat creates them, each with its
    status, what it requires, and whether it is held or has a breakpoint;
    a nested stack's resources appear under the resource that owns it.
    With --dot the graph is written in Graphviz DOT, for example to pipe
    to: dot -Tsvg > graph.svg
    """

    log = logging.getLogger(__name__ + '.GraphBreakpoint')

    def get_parser(self, prog_name: str):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'stack', metavar='<stack>',
            help=_('Name or ID of the stack'))
        parser.add_argument(
            '--dot', action='store_true',
            help=_('Write the graph in Graphviz DOT (nested stacks as '
                   'clusters) instead of a text tree'))
        parser.add_argument(
            '--nested-depth', metavar='<nested-depth>',
            type=bp_v1.depth_argument,
            help=_('Depth of nested stacks to show (default: %d)')
            % stock.HELD_SEARCH_DEPTH)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        self.log.debug('take_action(%s)', parsed_args)
        self.app.stdout.write(render_graph(
            clients.orchestration(self.app), parsed_args))
        return 0
