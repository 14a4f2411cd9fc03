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
"""``openstack stack breakpoint list|show|step|continue|clear``."""

import logging

from osc_lib.cli import format_columns
from osc_lib.command import command
from osc_lib import exceptions as osc_exc

from heat_breakpoint import breakpoints
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import breakpoints as bp_v1

LIST_COLUMNS = ('Resource', 'Action', 'When', 'State', 'Why', 'Source',
                'Held Since', 'Timeout Remaining')
RELEASE_COLUMNS = ('Resource', 'Action', 'Result')
SHOW_FIELDS = bp_v1.SHOW_KEYS
STOCK_NOTE = _('Note: this Heat has no breakpoint plugin: the remaining '
               'breakpoints of this operation still hold')


def _manager(client):
    return bp_v1.BreakpointManager(client)


def _user_errors(func):
    """Report the model's and the manager's errors as one-line failures."""
    def wrapper(client, args):
        try:
            return func(client, args)
        except exceptions.USER_ERRORS as exc:
            raise osc_exc.CommandError(str(exc))
    wrapper.__doc__ = func.__doc__
    wrapper.__name__ = func.__name__
    return wrapper


def _add_stack(parser):
    parser.add_argument(
        'stack', metavar='<stack>',
        help=_('Name or ID of the stack'))


def _add_resource(parser, required=True):
    parser.add_argument(
        'resource', metavar='<resource>', nargs=None if required else '?',
        help=_('Resource path of the breakpoint; nested resources are '
               'named nested_stack/resource'))


_WHEN_FLAGS = (
    ('--after', breakpoints.AFTER,
     _('Hold right after the resource\'s action completed')),
    ('--on-failure', breakpoints.FAILED,
     _('Hold the resource if its action fails')),
    ('--on-change', breakpoints.CHANGED,
     _('Hold before its update only if the update changes it')),
    ('--on-replace', breakpoints.REPLACED,
     _('Hold before its update only if the update replaces it')),
)


def _add_when(parser):
    group = parser.add_mutually_exclusive_group()
    for flag, when, text in _WHEN_FLAGS:
        group.add_argument(flag, dest='when', action='store_const',
                           const=when, help=text)
    parser.set_defaults(when=breakpoints.BEFORE)


def _release_rows(rows, how):
    return [(row['resource'], row['action'], how) for row in rows]


@_user_errors
def list_breakpoints(client, args):
    rows = _manager(client).list(args.stack, args.nested_depth)
    return LIST_COLUMNS, [tuple(bp_v1.row_value(row, key)
                                for key in bp_v1.COLUMNS)
                          for row in rows]


@_user_errors
def show_breakpoint(client, args):
    shown = _manager(client).show(args.stack, args.resource)
    shown['inputs'] = format_columns.DictColumn(shown['inputs'] or {})
    for key in ('requires', 'required_by', 'next'):
        shown[key] = format_columns.ListColumn(shown[key] or [])
    return SHOW_FIELDS, tuple(shown[key] for key in SHOW_FIELDS)


@_user_errors
def step_breakpoint(client, args):
    rows = _manager(client).step(args.stack, args.resource)
    return RELEASE_COLUMNS, _release_rows(rows, 'stepped')


@_user_errors
def continue_breakpoints(client, args):
    rows = _manager(client).continue_(args.stack, args.nested_depth,
                                      to=args.to)
    return RELEASE_COLUMNS, _release_rows(rows, 'released'), any(
        row['form'] == 'hook' for row in rows)


@_user_errors
def set_breakpoint(client, args):
    result = _manager(client).set(args.stack, args.resource, args.when)
    return RELEASE_COLUMNS, [(args.resource, '', result)]


@_user_errors
def clear_breakpoint(client, args):
    rows, result = _manager(client).clear(args.stack, args.resource)
    if result == 'released':
        return RELEASE_COLUMNS, _release_rows(rows, 'released')
    return RELEASE_COLUMNS, [(args.resource, '', result)]


class ListBreakpoint(command.Lister):
    """List the armed and held breakpoints of a stack."""

    log = logging.getLogger(__name__ + '.ListBreakpoint')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_stack(parser)
        parser.add_argument(
            '--nested-depth', metavar='<nested-depth>',
            type=bp_v1.depth_argument,
            help=_('Depth of nested stacks in which to look for held '
                   'resources (default: every level)'))
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return list_breakpoints(self.app.client_manager.orchestration,
                                parsed_args)


class ShowBreakpoint(command.ShowOne):
    """Show a breakpoint, the resource's inputs and its neighbours."""

    log = logging.getLogger(__name__ + '.ShowBreakpoint')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_stack(parser)
        _add_resource(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return show_breakpoint(self.app.client_manager.orchestration,
                               parsed_args)


class StepBreakpoint(command.Lister):
    """Release held resources and hold again at the next ones."""

    log = logging.getLogger(__name__ + '.StepBreakpoint')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_stack(parser)
        _add_resource(parser, required=False)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return step_breakpoint(self.app.client_manager.orchestration,
                               parsed_args)


class SetBreakpoint(command.Lister):
    """Arm a breakpoint in the operation that is running now."""

    log = logging.getLogger(__name__ + '.SetBreakpoint')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_stack(parser)
        _add_resource(parser)
        _add_when(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return set_breakpoint(self.app.client_manager.orchestration,
                              parsed_args)


class ContinueBreakpoint(command.Lister):
    """Release every held resource and run the operation to completion."""

    log = logging.getLogger(__name__ + '.ContinueBreakpoint')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_stack(parser)
        parser.add_argument(
            '--nested-depth', metavar='<nested-depth>',
            type=bp_v1.depth_argument,
            help=_('Depth of nested stacks in which to release held '
                   'resources (default: every level)'))
        parser.add_argument(
            '--to', metavar='<resource>',
            help=_('Run to this resource: release everything, hold only '
                   'there'))
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        columns, rows, stock = continue_breakpoints(
            self.app.client_manager.orchestration, parsed_args)
        if stock:
            self.app.stderr.write('%s\n' % STOCK_NOTE)
        return columns, rows


class ClearBreakpoint(command.Lister):
    """Release the resource held at a breakpoint, or remove the breakpoint.

    A held resource is released and the other breakpoints stay. A
    breakpoint that holds nothing is removed from the stack's stored
    environment with ``openstack stack update --existing``, which runs an
    update; while an operation is in progress that is refused, since the
    removal would only take effect at the next operation.
    """

    log = logging.getLogger(__name__ + '.ClearBreakpoint')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_stack(parser)
        _add_resource(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return clear_breakpoint(self.app.client_manager.orchestration,
                                parsed_args)
