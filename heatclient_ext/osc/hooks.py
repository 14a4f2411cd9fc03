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
"""``--breakpoint`` / ``--no-breakpoint`` on heatclient's own commands.

cliff runs these hooks around ``openstack stack create`` and ``openstack
stack update``. heatclient builds its request from the ``-e`` file paths in
``parsed_args.environment``, so ``before()`` swaps in the paths of rewritten
copies (see :mod:`heatclient_ext.v1.environment`) and ``after()`` removes
them.

``--wait`` is taken over only when the operation can hold: it has
breakpoints, given here, in the ``-e`` files, or kept from the stored
environment by ``stack update --existing``. heatclient's own wait would
sit out a held stack's whole timeout; ours (:mod:`.waiting`) prints the
same events, ends where heatclient's ends with the same exit code, and
also returns once the stack is held. Without a breakpoint ``--wait`` is
heatclient's own, untouched: scripts see stock's output and exit codes.
``--interactive`` starts the watch session (:mod:`heatclient_ext.osc.watch`)
once the operation has started.
"""

import argparse
import atexit
import io
import typing

from cliff import display
from cliff import hooks
from osc_lib import exceptions as osc_exc

from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.osc import clients
from heatclient_ext.osc import waiting
from heatclient_ext.osc import watch
from heatclient_ext import output
from heatclient_ext import printable
from heatclient_ext.v1 import environment
from heatclient_ext.v1 import kinds
from heatclient_ext.v1 import manager as bp_v1

HELD_COLUMN = 'held_breakpoints'


def add_breakpoint_option(parser, action) -> None:
    parser.add_argument(
        '--breakpoint',
        metavar='<resource>',
        action='append',
        dest='breakpoints',
        help=_('Hold the stack %(action)s before this resource and all that '
               'depends on it. Resources in nested stacks are named '
               'nested_stack/resource; wildcards as in --pre-%(action)s. '
               'Can be specified multiple times') % {'action': action})


def add_no_breakpoint_option(parser) -> None:
    parser.add_argument(
        '--no-breakpoint', '--nobreakpoint',
        metavar='<resource>',
        action='append',
        dest='no_breakpoints',
        help=_('Remove the breakpoint on this resource from the stack, '
               'also with --existing. Can be specified multiple times'))


class _BreakpointHook(hooks.CommandHook):
    """Shared by the create and update hooks."""

    #: create or update: each hook's own.
    action: str

    def __init__(self, command) -> None:
        super().__init__(command)
        self._prepared = None
        self._wait = False
        self._marker = None

    def get_epilog(self) -> str:
        return ''

    def _stack(self, parsed_args: argparse.Namespace):
        raise NotImplementedError

    def _existing(self, parsed_args: argparse.Namespace) -> bool:
        return False

    def _manager(self):
        return bp_v1.BreakpointManager(
            clients.orchestration(self.cmd.app))

    def before(self, parsed_args: argparse.Namespace):
        add = getattr(parsed_args, 'breakpoints', None) or []
        remove = getattr(parsed_args, 'no_breakpoints', None) or []
        try:
            add = list(add) + kinds.requested(parsed_args, self.action)
        except exceptions.USER_ERRORS as exc:
            raise osc_exc.CommandError(str(exc))
        if getattr(parsed_args, 'files_container', None):
            if add or remove:
                raise osc_exc.CommandError(_(
                    '--breakpoint and --no-breakpoint cannot be used with '
                    '--files-container'))
        else:
            self._prepare(parsed_args, add, remove)
        if self._can_hold(parsed_args):
            if getattr(parsed_args, 'wait', False) and \
                    self.action == 'update':
                # taken where stock takes it: before the update is sent
                self._marker = waiting.last_event_id(
                    clients.orchestration(self.cmd.app),
                    self._stack(parsed_args))
            parsed_args.wait = False
            self._wait = True
        return parsed_args

    def _prepare(self, parsed_args, add, remove) -> None:
        hook_option = 'pre_' + self.action
        try:
            prepared = self._manager().prepare_environment(
                parsed_args.environment, add, remove,
                stack=self._stack(parsed_args),
                existing=self._existing(parsed_args),
                template_names=environment.template_resource_names(
                    getattr(parsed_args, 'template', None)),
                extra_hooks=environment.hook_pairs(
                    getattr(parsed_args, hook_option, None),
                    'pre-' + self.action))
        except exceptions.USER_ERRORS as exc:
            raise osc_exc.CommandError(printable.printable(str(exc)))
        if prepared is not None:
            self._prepared = prepared
            atexit.register(prepared.cleanup)
            parsed_args.environment = prepared.paths
            # now in the files: heatclient's copy would go where Heat
            # does not look
            setattr(parsed_args, hook_option, None)

    def _can_hold(self, parsed_args: argparse.Namespace) -> bool:
        """Whether the wait asked for is ours: the operation can hold.

        ``--interactive`` is always ours. ``--wait`` is when the stack
        will have breakpoints: those sent (a PATCH's include the stored
        ones), or, when nothing about them is sent, those an update with
        ``--existing`` keeps. Hooks set by hand (``--pre-create``) are
        heatclient's business, as they are without this extension.
        """
        if getattr(parsed_args, 'dry_run', False):
            return False
        if getattr(parsed_args, 'interactive', False):
            return True
        if not getattr(parsed_args, 'wait', False):
            return False
        if self._prepared is not None:
            return bool(self._prepared.breakpoints)
        return self._existing(parsed_args) and bool(
            self._manager().stored_breakpoints(self._stack(parsed_args)))

    def after(self, parsed_args: argparse.Namespace, return_code):
        if self._prepared is not None:
            self._prepared.cleanup()
        if not self._wait:
            return return_code
        columns, data = return_code
        shown = dict(zip(columns, data))
        name = shown['stack_name']
        ident = '%s/%s' % (name, shown['id'])
        manager = self._manager()
        try:
            if getattr(parsed_args, 'interactive', False):
                stack, held = self._session(parsed_args, manager, ident)
            else:
                stack, held = self._follow(parsed_args, manager, name,
                                           ident)
        except exceptions.USER_ERRORS as exc:
            raise osc_exc.CommandError(printable.printable(str(exc)))
        columns = list(columns)
        data = [getattr(stack, column, value)
                for column, value in zip(columns, data)]
        if held:
            if getattr(parsed_args, 'formatter', 'table') == 'table':
                self._say_after_output(
                    _('Stack %(name)s is held at: %(held)s\n') %
                    {'name': printable.printable(stack.stack_name),
                     'held': printable.printable(bp_v1.held_text(held))})
            columns.append(HELD_COLUMN)
            data.append(bp_v1.held_text(held))
        return columns, list(output.values(parsed_args, data))

    def _follow(self, parsed_args, manager, name, ident) -> tuple:
        """heatclient's wait, which also returns at a hold."""
        client = clients.orchestration(self.cmd.app)
        # the events as heatclient prints them, in the table format only:
        # a machine format (-f json...) stays parseable, as it was
        out = self.cmd.app.stdout if getattr(
            parsed_args, 'formatter', 'table') == 'table' else io.StringIO()
        try:
            status, message, held = waiting.follow(
                client, name, self.action.upper(),
                lambda: manager.held_now(ident)[1],
                lambda: manager.get_stack(ident).stack_status,
                out, poll=getattr(parsed_args, 'poll', None) or 5,
                marker=self._marker)
        except KeyboardInterrupt:
            self.cmd.app.stderr.write('\n' + _(
                'Interrupted: the %(action)s of stack %(name)s goes on in '
                'Heat and holds at its breakpoints; follow it with '
                '"openstack stack breakpoint watch -i %(name)s" (go on from '
                'a hold there), or list what holds with "openstack stack '
                'breakpoint list %(name)s"\n') % {
                    'action': self.action,
                    'name': printable.printable(name)})
            raise
        if status is not None and status not in waiting.BUILT:
            # failed, cancelled, rolled back or deleted meanwhile
            raise osc_exc.CommandError(message)
        return manager.get_stack(ident), held

    def _session(self, parsed_args, manager, ident) -> tuple:
        """The watch session, then the end it left, as ``--wait`` ends."""
        client = clients.orchestration(self.cmd.app)
        code = watch.session(self.cmd.app, client, ident,
                             interactive=True).run()
        if code:
            raise SystemExit(code)
        stack, held = manager.wait(ident,
                                   poll=getattr(parsed_args, 'poll', 5))
        status = stack.stack_status or ''
        # stock --wait exits 1 for every end but a completed operation;
        # a fix that took the create over completes it as an update
        if not held and status not in ('CREATE_COMPLETE',
                                       'UPDATE_COMPLETE'):
            raise osc_exc.CommandError(
                _('Stack %(name)s %(status)s: %(reason)s') %
                {'name': printable.printable(stack.stack_name),
                 'status': status,
                 'reason': printable.printable(stack.stack_status_reason)})
        return stack, held

    def _say_after_output(self, text) -> None:
        """Print ``text`` on stdout right after the command's table.

        It is the command's answer, not a diagnostic, so it goes to stdout;
        cliff runs after-hooks before it prints, hence the wrapper. Machine
        formats (``-f json``...) carry it in the ``held_breakpoints``
        field only, so that their output stays parseable.
        """
        # A hook of stack create and update, which are display commands.
        cmd = typing.cast(display.DisplayCommandBase, self.cmd)
        produce_output = cmd.produce_output

        def produce_then_say(parsed_args, column_names, data):
            result = produce_output(parsed_args, column_names, data)
            cmd.app.stdout.write(text)
            return result

        # This command's only: cliff prints after the after-hooks ran.
        cmd.produce_output = produce_then_say  # type: ignore[method-assign]


class CreateBreakpointHook(_BreakpointHook):
    """``openstack stack create --breakpoint``."""

    action = 'create'

    def get_parser(self, parser):
        add_breakpoint_option(parser, self.action)
        kinds.add_options(parser, self.action)
        watch.add_interactive_option(parser)
        return parser

    def _stack(self, parsed_args: argparse.Namespace):
        return parsed_args.name


class UpdateBreakpointHook(_BreakpointHook):
    """``openstack stack update --breakpoint / --no-breakpoint``."""

    action = 'update'

    def get_parser(self, parser):
        add_breakpoint_option(parser, self.action)
        kinds.add_options(parser, self.action)
        add_no_breakpoint_option(parser)
        watch.add_interactive_option(parser)
        return parser

    def _stack(self, parsed_args: argparse.Namespace):
        return parsed_args.stack

    def _existing(self, parsed_args: argparse.Namespace) -> bool:
        return bool(getattr(parsed_args, 'existing', False))
