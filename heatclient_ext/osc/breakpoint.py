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
"""``openstack stack breakpoint list|show|step|continue|clear|retry|retain``.

Each exit of :func:`kinds.own_exits` (retry, retain) is one command made
from its declaration (:func:`exit_command`).
"""

import argparse
import textwrap

from osc_lib.command import command
from osc_lib import exceptions as osc_exc

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.osc import clients
from heatclient_ext import output
from heatclient_ext import printable
from heatclient_ext.v1 import changes as bp_changes
from heatclient_ext.v1 import editing
from heatclient_ext.v1 import manager as bp_v1

LIST_COLUMNS = ('Resource', 'Action', 'When', 'State', 'Why', 'Source',
                'Held Since', 'Timeout Remaining')
RELEASE_COLUMNS = ('Resource', 'Action', 'Result')
SET_COLUMNS = ('Resource', 'Action', 'When', 'Result')
SHOW_FIELDS = bp_v1.SHOW_KEYS
STOCK_NOTE = _('Note: this Heat has no breakpoint plugin: the remaining '
               'breakpoints of this operation still hold')


def _manager(client):
    return bp_v1.BreakpointManager(client)


def _user_errors(func):
    """Report the model's and the manager's errors as one-line failures."""
    def wrapper(client, args, *extra):
        try:
            return func(client, args, *extra)
        except exceptions.USER_ERRORS as exc:
            raise osc_exc.CommandError(printable.printable(str(exc)))
    wrapper.__doc__ = func.__doc__
    wrapper.__name__ = func.__name__
    return wrapper


def _add_stack(parser) -> None:
    parser.add_argument(
        'stack', metavar='<stack>',
        help=_('Name or ID of the stack'))


def _add_resource(parser, required=True) -> None:
    parser.add_argument(
        'resource', metavar='<resource>', nargs=None if required else '?',
        help=_('Resource path of the breakpoint; nested resources are '
               'named nested_stack/resource'))


# ``set``'s options of each kind but before (its default), from the model.
_WHEN_FLAGS = tuple((kind.flag, kind.when, _(kind.flag_help or ''))
                    for kind in kinds.KINDS if kind.flag)


def _add_when(parser) -> None:
    group = parser.add_mutually_exclusive_group()
    for flag, when, text in _WHEN_FLAGS:
        group.add_argument(flag, dest='when', action='store_const',
                           const=when, help=text)
    parser.set_defaults(when=breakpoints.BEFORE)


def _add_edit(parser) -> None:
    """The options of a fix applied before the command (fix and go on)."""
    parser.add_argument(
        '-t', '--template', metavar='<template>',
        help=_('Apply this template to the running operation first '
               '(a stack update of it, completed resources kept); '
               'the held resources go on with the new definition'))
    parser.add_argument(
        '-e', '--environment', metavar='<environment>', action='append',
        help=_('Apply this environment to the running operation first, '
               'merged into the stack\'s. Can be specified multiple times'))
    parser.add_argument(
        '--parameter', metavar='<key=value>', action='append',
        help=_('Set this parameter in the running operation first; the '
               'others keep their values. Can be specified multiple times'))


def _apply_edit(manager, args, say) -> None:
    """Apply the fix the command line gives, if any, before the command."""
    edit = editing.edit_of(args)
    if edit:
        manager.edit(args.stack, edit, say)


def _say_lines(stream, text) -> None:
    for line in text.splitlines():
        stream.write(printable.printable(line) + '\n')


def _release_rows(rows, how) -> list:
    return [(row['resource'], row['action'], how) for row in rows]


@_user_errors
def list_breakpoints(client, args) -> tuple:
    rows = _manager(client).list(args.stack, args.nested_depth)
    return LIST_COLUMNS, output.rows(
        args, [tuple(bp_v1.row_value(row, key) for key in bp_v1.COLUMNS)
               for row in rows])


@_user_errors
def show_breakpoint(client, args) -> tuple:
    shown = _manager(client).show(args.stack, args.resource,
                                  nested_depth=args.nested_depth)
    shown['inputs'] = shown['inputs'] or {}
    shown['attributes'] = shown.get('attributes') or {}
    for key in ('requires', 'required_by', 'next'):
        shown[key] = shown[key] or []
    if output.formatter_of(args) not in output.EXACT_FORMATS:
        shown['change'] = output.Lines(bp_changes.text(shown['change']))
    return SHOW_FIELDS, output.values(
        args, tuple(shown[key] for key in SHOW_FIELDS))


@_user_errors
def step_breakpoint(client, args, say=lambda text: None) -> tuple:
    manager = _manager(client)
    _apply_edit(manager, args, say)
    rows = manager.step(args.stack, args.resource)
    return RELEASE_COLUMNS, output.rows(args, _release_rows(rows, 'stepped'))


@_user_errors
def continue_breakpoints(client, args, say=lambda text: None) -> tuple:
    manager = _manager(client)
    _apply_edit(manager, args, say)
    rows = manager.continue_(args.stack, args.nested_depth, to=args.to)
    return RELEASE_COLUMNS, output.rows(args, [
        (row['resource'], row['action'],
         'disarmed' if row['state'] == bp_v1.ARMED else 'released')
        for row in rows]), any(row.get('form') == 'hook' for row in rows)


def _running_action(manager, stack) -> str:
    """The action of the stack's operation (``UPDATE``), or ''."""
    try:
        status = manager.get_stack(stack).stack_status or ''
    except exceptions.USER_ERRORS:
        return ''
    return status.split('_', 1)[0] if status.endswith('_IN_PROGRESS') \
        else ''


@_user_errors
def set_breakpoint(client, args) -> tuple:
    manager = _manager(client)
    result = manager.set(args.stack, args.resource, args.when,
                         next_operation=bp_v1.NEXT_OPERATION)
    # It holds in the running operation: its action, and when.
    return SET_COLUMNS, output.rows(args, [(
        args.resource, _running_action(manager, args.stack), args.when,
        result)])


@_user_errors
def clear_breakpoint(client, args, announce=None) -> tuple:
    rows, result = _manager(client).clear(args.stack, args.resource,
                                          announce=announce)
    if result == 'released':
        return RELEASE_COLUMNS, output.rows(
            args, _release_rows(rows, 'released'))
    return RELEASE_COLUMNS, output.rows(args, [(args.resource, '', result)])


def _add_depth(parser, words) -> None:
    parser.add_argument('--nested-depth', metavar='<nested-depth>',
                        type=bp_v1.depth_argument, help=words)


class _Breakpoint(command.Command):
    """What every breakpoint command does: its parser, a log line, its run.

    ``takes``: the positional arguments every command of its kind takes
    first; :meth:`add_options` adds its own; :meth:`carry_out` does it
    (``run`` is cliff's).
    """

    takes: tuple[str, ...] = ('stack',)

    def get_parser(self, prog_name: str):
        parser = super().get_parser(prog_name)
        for argument in self.takes:
            _ARGUMENTS[argument](parser)
        self.add_options(parser)
        return parser

    def add_options(self, parser) -> None:
        pass

    def carry_out(self, client, parsed_args):
        raise NotImplementedError

    def take_action(self, parsed_args: argparse.Namespace):
        self.log.debug('take_action(%s)', parsed_args)
        return self.carry_out(clients.orchestration(self.app),
                              parsed_args)

    def _say(self, text) -> None:
        _say_lines(self.app.stderr, text)


_ARGUMENTS = {'stack': _add_stack, 'resource': _add_resource,
              'when': _add_when, 'edit': _add_edit}


class ListBreakpoint(_Breakpoint, command.Lister):
    """List the armed and held breakpoints of a stack."""

    def add_options(self, parser) -> None:
        _add_depth(parser, _('Depth of nested stacks in which to look for '
                             'held resources (default: every level)'))

    def carry_out(self, client, parsed_args):
        return list_breakpoints(client, parsed_args)


class ShowBreakpoint(_Breakpoint, command.ShowOne):
    """Show a breakpoint, the resource's inputs and its neighbours."""

    takes = ('stack', 'resource')

    def add_options(self, parser) -> None:
        _add_depth(parser, _('Depth of nested stacks in which to look for '
                             'the resource (default: the depth its path '
                             'names)'))

    def carry_out(self, client, parsed_args):
        return show_breakpoint(client, parsed_args)


class StepBreakpoint(_Breakpoint, command.Lister):
    """Release held resources and hold again at the next ones.

    Without a resource every held resource is stepped; with one, only that
    resource is released and the others stay held. The operation then
    holds at the resources that wait for the released ones (for a delete,
    at the resources they require).
    """

    def add_options(self, parser) -> None:
        parser.add_argument(
            'resource', metavar='<resource>', nargs='?',
            help=_('Held resource to step from, nested ones named '
                   'nested_stack/resource (default: every held resource)'))
        _add_edit(parser)

    def carry_out(self, client, parsed_args):
        return step_breakpoint(client, parsed_args, self._say)


class SetBreakpoint(_Breakpoint, command.Lister):
    """Arm a breakpoint in the operation that is running now."""

    takes = ('stack', 'resource', 'when')

    def carry_out(self, client, parsed_args):
        return set_breakpoint(client, parsed_args)


class ContinueBreakpoint(_Breakpoint, command.Lister):
    """Release every held resource and run the operation to completion."""

    def add_options(self, parser) -> None:
        _add_depth(parser, _('Depth of nested stacks in which to release '
                             'held resources (default: every level)'))
        parser.add_argument(
            '--to', metavar='<resource>',
            help=_('Run to this resource: release everything, hold only '
                   'there'))
        _add_edit(parser)

    def carry_out(self, client, parsed_args):
        columns, rows, stock = continue_breakpoints(client, parsed_args,
                                                    self._say)
        if stock:
            self.app.stderr.write('%s\n' % STOCK_NOTE)
        return columns, rows


class ClearBreakpoint(_Breakpoint, command.Lister):
    """Release the resource held at a breakpoint, or disarm the breakpoint.

    A held resource is released; the other breakpoints stay. While an
    operation runs, every breakpoint on a resource that holds nothing
    (before, after, on failure, on change) is disarmed for the rest of
    that operation; they stay in the stack's stored environment for later
    operations. On a stack with no operation running, the
    breakpoint is removed from the stored environment: that runs a stack
    update (as "openstack stack update --existing --no-breakpoint" does),
    which holds at the stack's other update breakpoints; the command names
    them first.
    """

    takes = ('stack', 'resource')

    def carry_out(self, client, parsed_args):
        return clear_breakpoint(client, parsed_args, self._announce)

    def _announce(self, text) -> None:
        self.app.stderr.write(printable.printable(text) + '\n')


@_user_errors
def take_exit(client, args, way, say=lambda text: None) -> tuple:
    """``breakpoint <exit>`` (retry, retain...) of a :class:`kinds.Exit`."""
    manager = _manager(client)
    if way.fix_first and editing.edit_of(args):
        # The new traversal does it itself (retry: runs the failed
        # action again, with the fix; on failure it holds again).
        taken = manager.exit_holds(args.stack, args.resource, way)
        held = manager.edit(args.stack, editing.edit_of(args), say)
        return RELEASE_COLUMNS, output.rows(args, [
            (row['resource'], row['action'], '%s with the edit' % way.done)
            for row in taken] + [
            (row['resource'], row['action'], 'held')
            for row in held if row['resource'] != args.resource])
    rows = manager.take_exit(args.stack, args.resource, way)
    return RELEASE_COLUMNS, output.rows(args, _release_rows(rows, way.done))


def retry_breakpoint(client, args, say=lambda text: None) -> tuple:
    return take_exit(client, args, kinds.RETRY, say)


def retain_breakpoint(client, args) -> tuple:
    return take_exit(client, args, kinds.RETAIN)


def _doc(way) -> str:
    """Its help: the summary, then OSC's details, wrapped as a docstring."""
    return '%s\n\n%s\n' % (way.summary, textwrap.fill(way.details, 70))


def exit_command(way) -> type:
    """The command class of ``openstack stack breakpoint <exit>``.

    setup.cfg names it ``<Exit>Breakpoint`` (``RetainBreakpoint``).
    """
    class ExitBreakpoint(_Breakpoint, command.Lister):
        takes = ('stack', 'resource') + (('edit',) if way.fix_first else ())

        def carry_out(self, client, parsed_args):
            return take_exit(client, parsed_args, way, self._say)

    ExitBreakpoint.__name__ = ExitBreakpoint.__qualname__ = ''.join(
        word.capitalize() for word in way.name.split('-')) + 'Breakpoint'
    ExitBreakpoint.__doc__ = _(_doc(way))
    return ExitBreakpoint


# One command each (RetryBreakpoint, RetainBreakpoint), as setup.cfg says.
globals().update(
    {cls.__name__: cls for cls in map(exit_command, kinds.own_exits())})
