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
"""The legacy ``heat`` shell's commands, with breakpoints.

``stack-create`` and ``stack-update`` are heatclient's own commands with
the spec's options added; the ``breakpoint-*`` commands print what the
manager returns. Every other stock command passes through unchanged.
"""

import json
import sys
import textwrap

from heatclient.common import utils
from heatclient.v1 import shell as stock

from heat_breakpoint.model import kinds as model_kinds
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext import output
from heatclient_ext import printable
from heatclient_ext.v1 import changes as bp_changes
from heatclient_ext.v1 import dependency_graph as graph
from heatclient_ext.v1 import editing
from heatclient_ext.v1 import environment
from heatclient_ext.v1 import kinds
from heatclient_ext.v1 import manager as bp_v1

#: What ``breakpoint-set`` suggests for a stack with no operation running.
NEXT_OPERATION = ('heat-breakpoint stack-update %(stack)s --existing '
                  '--breakpoint %(name)s')

_BREAKPOINT_ARG = (
    ('--breakpoint',),
    {'metavar': '<RESOURCE>', 'action': 'append', 'dest': 'breakpoints',
     'help': _('Hold the operation before this resource and all that '
               'depends on it; nested resources are named '
               'nested_stack/resource. Can be specified multiple times.')})
_NOBREAKPOINT_ARG = (
    ('--nobreakpoint', '--no-breakpoint'),
    {'metavar': '<RESOURCE>', 'action': 'append', 'dest': 'no_breakpoints',
     'help': _('Remove the breakpoint on this resource, also with '
               '--existing. Can be specified multiple times.')})
# A fix applied before step, continue or retry, in the legacy spellings.
_EDIT_ARGS = (
    (('-f', '--template-file'),
     {'metavar': '<FILE>', 'dest': 'template',
      'help': _('Apply this template to the running operation first (a '
                'stack update of it, completed resources kept).')}),
    (('-e', '--environment-file'),
     {'metavar': '<FILE>', 'action': 'append', 'dest': 'environment',
      'help': _('Apply this environment to the running operation first. '
                'Can be specified multiple times.')}),
    (('-P', '--parameters'),
     {'metavar': '<KEY1=VALUE1;KEY2=VALUE2...>', 'action': 'append',
      'dest': 'parameter',
      'help': _('Set these parameters in the running operation first; '
                'the others keep their values. Can be specified multiple '
                'times.')}),
)


def _edit_options(func):
    """The edit options on a command (the fix is applied in it)."""
    for names, kwargs in reversed(_EDIT_ARGS):
        utils.add_arg(func, *names, **kwargs)
    return func


def _apply_edit(manager, args) -> None:
    edit = editing.edit_of(args)
    if edit:
        manager.edit(args.stack, edit, _say)


def _say(text) -> None:
    for line in text.splitlines():
        print(printable.printable(line), file=sys.stderr)


_STACK_ARG = (('stack',), {'metavar': '<NAME or ID>',
                           'help': _('Name or ID of the stack.')})
_FORMAT_ARG = (('--format',), {'metavar': '<table|json>',
                               'choices': ('table', 'json'),
                               'default': 'table',
                               'help': _('Output format.')})


def _with_breakpoints(stock_command, stack_attr, extra_args, action):
    """Wrap a stock command: rewrite its ``-e`` files, then wait if asked."""
    hook_option = 'pre_' + action

    def command(hc, args) -> None:
        manager = bp_v1.BreakpointManager(hc)
        prepared = manager.prepare_environment(
            args.environment_file,
            list(args.breakpoints or []) + kinds.requested(args, action),
            getattr(args, 'no_breakpoints', None) or [],
            stack=getattr(args, stack_attr),
            existing=bool(getattr(args, 'existing', False)),
            template_names=environment.template_resource_names(
                args.template_file),
            extra_hooks=environment.hook_pairs(
                getattr(args, hook_option, None), 'pre-' + action))
        poll = getattr(args, 'poll', None)
        if poll:
            args.poll = None
        try:
            if prepared is not None:
                args.environment_file = prepared.paths
                setattr(args, hook_option, None)
            stock_command(hc, args)
        finally:
            if prepared is not None:
                prepared.cleanup()
        if poll and not getattr(args, 'dry_run', False):
            _wait(manager, getattr(args, stack_attr), poll)

    command.__doc__ = stock_command.__doc__
    command.arguments = list(stock_command.arguments) + list(extra_args)
    return command


def _wait(manager, stack, poll) -> None:
    stack, held = manager.wait(stack, poll=poll)
    if held:
        print(_('Stack %(name)s is held at: %(held)s') %
              {'name': printable.printable(stack.stack_name),
               'held': printable.printable(bp_v1.held_text(held))})
        return
    status = stack.stack_status or ''
    if status.endswith('_FAILED'):
        raise exceptions.BreakpointCommandError(
            _('Stack %(name)s %(status)s: %(reason)s') %
            {'name': stack.stack_name, 'status': status,
             'reason': stack.stack_status_reason})
    print(_('Stack %(name)s %(status)s') %
          {'name': printable.printable(stack.stack_name), 'status': status})


do_stack_create = _with_breakpoints(
    stock.do_stack_create, 'name',
    [_BREAKPOINT_ARG] + kinds.arguments('create'), 'create')
do_stack_update = _with_breakpoints(
    stock.do_stack_update, 'id',
    [_BREAKPOINT_ARG] + kinds.arguments('update') + [_NOBREAKPOINT_ARG],
    'update')


def _print_rows(rows, fields, fmt) -> None:
    if fmt == 'json':
        print(json.dumps([{f: row[f] for f in fields} for row in rows],
                         indent=2))
        return
    utils.print_list(rows, list(fields),
                     formatters={f: (lambda row, f=f: output.text(row[f]))
                                 for f in fields},
                     sortby_index=None)


@utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])
@utils.arg(*_FORMAT_ARG[0], **_FORMAT_ARG[1])
@utils.arg('--nested-depth', metavar='<DEPTH>', type=bp_v1.depth_argument,
           help=_('Depth of nested stacks in which to look for held '
                  'resources (default: every level).'))
def do_breakpoint_list(hc, args) -> None:
    """List the armed and held breakpoints of a stack."""
    rows = bp_v1.BreakpointManager(hc).list(args.stack, args.nested_depth)
    rows = [{key: bp_v1.row_value(row, key) for key in bp_v1.COLUMNS}
            for row in rows]
    _print_rows(rows, bp_v1.COLUMNS, args.format)


@utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])
@utils.arg(*_FORMAT_ARG[0], **_FORMAT_ARG[1])
@utils.arg('resource', metavar='<RESOURCE>',
           help=_('Resource path of the breakpoint.'))
@utils.arg('--nested-depth', metavar='<DEPTH>', type=bp_v1.depth_argument,
           help=_('Depth of nested stacks in which to look for the '
                  'resource (default: the depth its path names).'))
def do_breakpoint_show(hc, args) -> None:
    """Show a breakpoint, the resource's inputs and its neighbours."""
    shown = bp_v1.BreakpointManager(hc).show(args.stack, args.resource,
                                             nested_depth=args.nested_depth)
    if args.format == 'json':
        print(json.dumps(shown, indent=2))
        return
    formatters = {key: (lambda value: output.text(value, multiline=True))
                  for key in shown}
    formatters['inputs'] = formatters['attributes'] = lambda value: \
        '\n'.join(printable.printable(line)
                  for line in utils.json_formatter(value).splitlines())
    formatters['change'] = lambda value: output.text(
        bp_changes.text(value), multiline=True)
    utils.print_dict(shown, formatters=formatters)


@_edit_options
@utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])
@utils.arg('resource', metavar='<RESOURCE>', nargs='?',
           help=_('Resource path of the held resource to step from '
                  '(default: every held resource).'))
def do_breakpoint_step(hc, args) -> None:
    """Release held resources and hold again at the next ones.

    Without a resource every held resource is stepped; the operation then
    holds at the resources that wait for the released ones.
    """
    manager = bp_v1.BreakpointManager(hc)
    _apply_edit(manager, args)
    rows = manager.step(args.stack, args.resource)
    for row in rows:
        print(_('Stepped from %(resource)s (%(action)s)') % _safe_row(row))


@utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])
@utils.arg('resource', metavar='<RESOURCE>',
           help=_('Resource path where to arm a breakpoint.'))
def do_breakpoint_set(hc, args) -> None:
    """Arm a breakpoint in the operation that is running now."""
    result = bp_v1.BreakpointManager(hc).set(args.stack, args.resource,
                                             next_operation=NEXT_OPERATION)
    if result == bp_v1.ARMED:
        print(_('Armed %s') % printable.printable(args.resource))
    else:
        print(_('%(resource)s: %(result)s') % {
            'resource': printable.printable(args.resource),
            'result': result})


@_edit_options
@utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])
@utils.arg('--to', metavar='<RESOURCE>',
           help=_('Run to this resource: release everything, hold only '
                  'there.'))
def do_breakpoint_continue(hc, args) -> None:
    """Release every held resource and run the operation to completion."""
    manager = bp_v1.BreakpointManager(hc)
    _apply_edit(manager, args)
    rows = manager.continue_(args.stack, to=args.to)
    for row in rows:
        print(_('Released %(resource)s (%(action)s)') % _safe_row(row))
    if any(row['form'] == 'hook' for row in rows):
        print(_('Note: this Heat has no breakpoint plugin: the remaining '
                'breakpoints of this operation still hold'), file=sys.stderr)


@utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])
@utils.arg('resource', metavar='<RESOURCE>',
           help=_('Resource path of the breakpoint.'))
def do_breakpoint_clear(hc, args) -> None:
    """Release a held resource, or disarm or remove the breakpoint.

    While an operation runs, the breakpoints of a resource that holds
    nothing (whatever their when) are disarmed for the rest of it. On a
    stack with no operation running the breakpoint is removed from the
    stored environment by a stack update, which holds at the stack's
    other update breakpoints: they are named first.
    """
    rows, result = bp_v1.BreakpointManager(hc).clear(
        args.stack, args.resource, announce=lambda text: print(
            printable.printable(text), file=sys.stderr))
    name = printable.printable(args.resource)
    if result == 'released':
        for row in rows:
            print(_('Released %(resource)s (%(action)s)') % _safe_row(row))
    elif result == 'disarmed':
        print(_('Disarmed breakpoint %s for this operation') % name)
    elif result == bp_v1.ALREADY_DISARMED:
        print(_('%s: already disarmed') % name)
    else:
        print(_('Removed breakpoint %s') % name)


def _safe_row(row) -> dict:
    return {key: output.text(value) for key, value in row.items()}


@utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])
@utils.arg('--dot', action='store_true',
           help=_('Write the graph in Graphviz DOT instead of a text tree.'))
@utils.arg('--nested-depth', metavar='<DEPTH>', type=bp_v1.depth_argument,
           help=_('Depth of nested stacks to show.'))
def do_breakpoint_graph(hc, args) -> None:
    """Show the dependency graph with held resources and breakpoints."""
    found = graph.fetch(hc, args.stack, args.nested_depth)
    print(graph.dot(found) if args.dot else graph.text(found), end='')


def _upper_first(text) -> str:
    return text[:1].upper() + text[1:]


def exit_command(way):
    """``heat breakpoint-<exit>`` (retry, retain) of a :class:`.kinds.Exit`.

    The shell finds its commands by name (``do_breakpoint_retry``).
    """
    def command(hc, args) -> None:
        manager = bp_v1.BreakpointManager(hc)
        edit = editing.edit_of(args) if way.fix_first else None
        if edit:
            # The fix's update does it itself (retry: runs it again).
            manager.exit_holds(args.stack, args.resource, way)
            manager.edit(args.stack, edit, _say)
            print(_('%s with the edit') % _upper_first(
                _(way.doing) % printable.printable(args.resource)))
            return
        for row in manager.take_exit(args.stack, args.resource, way):
            print('%s (%s)' % (_upper_first(_(way.doing) % output.text(
                row['resource'])), output.text(row['action'])))

    command.__name__ = 'do_breakpoint_' + way.name.replace('-', '_')
    # As a docstring is written: the shell shows it as it is.
    details = textwrap.wrap(_(way.shell_details), 70)
    command.__doc__ = '%s\n\n    %s\n    ' % (
        _(way.summary), '\n    '.join(details))
    utils.arg('resource', metavar='<RESOURCE>',
              help=_(way.resource_help))(command)
    utils.arg(*_STACK_ARG[0], **_STACK_ARG[1])(command)
    return _edit_options(command) if way.fix_first else command


# One command each (do_breakpoint_retry, do_breakpoint_retain).
globals().update({func.__name__: func
                 for func in map(exit_command, model_kinds.own_exits())})
