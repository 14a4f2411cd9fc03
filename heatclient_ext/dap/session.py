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
"""One debug session: the DAP requests, and the operation's life.

The requests are answered here; what they mean lives beside it: the
editor's breakpoints (:mod:`.editor_breakpoints`), held resources as
threads (:mod:`.holds`), the buttons and the Debug Console
(:mod:`.control`), what the editor looks at while stopped
(:mod:`.looking`, the Variables pane's contents in :mod:`.variables`).
The operation it follows is polled every 0.2 s (:mod:`.following`): its
held rows, its latest events, and its end, ``exited`` then
``terminated``.
"""

import logging
import os
import threading
import typing


from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heatclient_ext._i18n import _
from heatclient_ext.dap import arguments
from heatclient_ext.dap import control as dap_control
from heatclient_ext.dap import editor_breakpoints
from heatclient_ext.dap import edits as dap_edits
from heatclient_ext.dap import ending
from heatclient_ext.dap import following
from heatclient_ext.dap import heat
from heatclient_ext.dap import holds as dap_holds
from heatclient_ext.dap import lines
from heatclient_ext.dap import looking
from heatclient_ext import exceptions
from heatclient_ext.printable import printable
from heatclient_ext.v1 import answers
from heatclient_ext.v1 import fault_rules as faults
from heatclient_ext.v1 import manager as bp_v1

LOG = logging.getLogger(__name__)

#: Seconds between refreshes: a hold reaches the editor well within 0.5 s.
POLL = 0.2
CONFIGURE_TIMEOUT = 10
#: How long ``terminate`` waits for the operation's end before it answers.
TERMINATE_WAIT = 10

RequestError = arguments.RequestError


def capabilities() -> dict:
    return {
        'supportsConfigurationDoneRequest': True,
        'supportsFunctionBreakpoints': True,
        'supportsConditionalBreakpoints': True,
        'supportsEvaluateForHovers': True,
        'supportsRestartFrame': True,
        'supportsTerminateRequest': True,
        'supportTerminateDebuggee': True,
        'supportSuspendDebuggee': True,
        'supportsExceptionInfoRequest': True,
        # Only inputs set straight from a parameter: the others are
        # marked read-only and say why not.
        'supportsSetVariable': True,
        'supportsSingleThreadExecutionRequests': True,
        'exceptionBreakpointFilters': [{
            'filter': editor_breakpoints.FAILURES,
            'label': _('Resource failures'),
            'description': _('Hold a resource whose action fails, with '
                             'its error'), 'default': False}],
    }


class Session:
    """Answers one editor's requests; ``send`` writes a message."""

    def __init__(self, send, interval=POLL, prestart=False) -> None:
        self.send = send
        # Start a local Heat at initialize, while the editor configures:
        # most of F5's wait is that server starting.
        self.prestart = prestart
        self.map: typing.Optional[lines.TemplateMap] = None
        # what is saved or set while stopped
        self.edits: typing.Optional[dap_edits.SavedEdits] = None
        self.launched_environment: tuple = ()
        self.client = None
        self.manager: typing.Optional[bp_v1.BreakpointManager] = None
        # The local Heat it started, if it started one.
        self.own_heat = heat.OwnHeat()
        self.endpoint: typing.Optional[str] = None
        self.faults: list = []
        self.stack: typing.Optional[str] = None
        self.control: typing.Optional[dap_control.Control] = None
        self.attached = False
        self.breakpoints = editor_breakpoints.EditorBreakpoints()
        self.arming = editor_breakpoints.Arming(self.say)
        self.holds = dap_holds.Holds(self.event)
        self.configured = threading.Event()
        # What the editor looks at while stopped (threads, frames, scopes).
        self.looking = looking.Looking(self)
        # The operation it follows: a poller, and the end it tells.
        self.following = following.Following(self, interval)
        self.finished = self.following.finished
        self.told_end = self.following.told_end  # exited, terminated sent
        self.ended = threading.Event()  # disconnect: stop reading
        # Whether the editor left (disconnect, or the connection lost),
        # decided once, against a launch that may still be starting.
        self.life = threading.Lock()
        self.left = False
        # disconnect's terminateDebuggee and suspendDebuggee.
        self.parting = (None, False)
        self.closed = threading.Event()  # close() has stopped everything
        self.end = ending.OperationEnd(
            lambda stack: self._heat().get_stack(stack))

    # -- wire

    def event(self, name, body=None) -> None:
        message = {'type': 'event', 'event': name}
        if body is not None:
            message['body'] = body
        self.send(message)

    def say(self, text, category='console') -> None:
        self.event('output', {'category': category, 'output': ''.join(
            '%s\n' % printable(line) for line in text.splitlines() or [''])})

    def handle(self, request) -> None:
        """Answer one request (launch and attach answer from a thread)."""
        command = request.get('command')
        handler = (getattr(self, 'on_' + command, None) or
                   getattr(self.looking, 'on_' + command, None) or
                   self._exit_request(command)) \
            if isinstance(command, str) else None
        if command in ('launch', 'attach'):
            threading.Thread(target=self._answer,
                             args=(request, handler), daemon=True).start()
            return
        self._answer(request, handler)

    def _exit_request(self, command):
        """The handler of a custom request named after an exit, or None."""
        way = kinds.own_exit(command)
        return None if way is None else (
            lambda args: self.take_exit(way, args))

    def _answer(self, request, handler) -> None:
        command = request.get('command')
        response = {'type': 'response', 'request_seq': request.get('seq'),
                    'command': command, 'success': True}
        try:
            if not isinstance(command, str):
                raise RequestError(_('a request needs "command", a string'))
            if handler is None:
                raise RequestError(_('%s is not supported') % command)
            args = request.get('arguments')
            body = handler(arguments.check(
                command, {} if args is None else args, {}))
            if body is not None:
                response['body'] = body
        except (RequestError, exceptions.BreakpointCommandError,
                lines.TemplateError) as exc:
            response.update(success=False, message=exceptions.one_line(exc))
        except Exception as exc:  # the editor shows it; the session lives
            LOG.exception('%s failed', request.get('command'))
            response.update(success=False, message=exceptions.one_line(
                '%s: %s' % (type(exc).__name__, exc)))
        self.send(response)
        if command == 'disconnect' and response['success']:
            # Answered first: stopping a local Heat takes a second or two,
            # and VS Code stops waiting for the answer after two.
            self.leave(*self.parting)

    # -- starting

    def on_initialize(self, args):
        if self.prestart:
            threading.Thread(target=self.own_heat.prestart,
                             daemon=True).start()
        return capabilities()

    def _connect(self, args) -> None:
        if args.get('localHeat') is not None:
            args = dict(args, endpoint=heat.running_local(args['localHeat']))
        self.endpoint = args.get('endpoint')
        if args.get('endpoint') or args.get('cloud'):
            self.own_heat.drop()  # started at initialize, for nothing
            self.client = heat.client_for(args.get('endpoint'),
                                          args.get('cloud'))
        else:
            with self.life:
                if self.left:
                    raise RequestError(_('the editor has left'))
            local = self.own_heat.start(self.say).process
            self.say(_('Local Heat ready at %(url)s (state in %(dir)s)') % {
                'url': local.endpoint, 'dir': local.state_dir})
            self.endpoint = local.endpoint
            self.client = heat.client_for(local.endpoint)
        self.manager = bp_v1.BreakpointManager(self.client)

    def _template_map(self, args) -> None:
        template = args.get('template')
        self.launched_environment = tuple(args.get('environment') or ())
        if template:
            self.map = lines.TemplateMap(template,
                                         self.launched_environment)
            self.edits = dap_edits.SavedEdits(
                template, self.launched_environment, self.map)

    def _started(self, stack) -> None:
        self.stack = stack
        self.control = dap_control.Control(
            self._heat(), stack, self.holds, self.map, self.say,
            self._resumed, self.cancel, edits=self.edits,
            remap=self._remap)

    def _remap(self):
        """The launched files read again, after an edit was applied.

        The editor's line breakpoints follow their resources to their
        new lines (a ``breakpoint`` event each).
        """
        if self.map is None:
            return None
        try:
            self.map = lines.TemplateMap(self.map.root,
                                         self.launched_environment)
        except lines.TemplateError as exc:
            self.say(str(exc), 'stderr')
            return self.map
        with self.holds.lock:
            moved = self.breakpoints.remap(self.map)
            for bp in moved:
                self.event('breakpoint', {'reason': 'changed',
                                          'breakpoint': bp.body()})
            if moved:
                self._arm()
        return self.map

    def _add_faults(self, rules) -> None:
        """The launch's fault rules, on the local server, for this session."""
        if not self.endpoint:
            raise RequestError(_('faults need heat-breakpoint-server (an '
                                 'endpoint, or no cloud named)'))
        self.faults = faults.add(self.endpoint, rules)
        self.say(_('Fault rules added: %s') % ', '.join(
            str(n) for n in self.faults))

    def on_launch(self, args) -> None:
        arguments.check('launch', args, arguments.LAUNCH)
        heat.check_launch(args)
        self._template_map(args)
        self.end.action = args.get('action') or 'create'
        # The editor configures while the local Heat starts.
        self.event('initialized')
        self._connect(args)
        if not self.configured.wait(CONFIGURE_TIMEOUT):
            LOG.info('no configurationDone: launching anyway')
        with self.holds.lock:
            wanted = self.breakpoints.wanted()
            entry = set()
            if args.get('stopOnEntry') and self.map is not None:
                entry = {(name, breakpoints.BEFORE)
                         for name in self.map.first_resources()} - wanted
                self.holds.reason_at.update(
                    (name, 'entry') for name, _w in entry)
            if args.get('faults'):
                self._add_faults(args['faults'])
            actions = ['delete'] if self.end.action == 'delete' else None
            bps = [bp for name, when in sorted(wanted | entry)
                   for bp in breakpoints.parse_names([name], actions, when)]
            self.end.started()
            ident = heat.start(self.manager, args, bps, self.say)
            with self.life:
                self._started(ident)
                gone = self.left
            self.arming.armed = wanted
            self.arming.ours.update(name for name, _w in wanted | entry)
        if gone:
            # The editor left while the operation was being sent: nobody
            # would ever release it. As its disconnect would have done.
            LOG.info('launch of %s ended: the editor left', ident)
            self.cancel()
            self.close()
            return
        self.say(_('%(action)s of stack %(stack)s started') % {
            'action': self.end.action, 'stack': self.stack})
        self.following.start()

    def on_attach(self, args) -> None:
        arguments.check('attach', args, arguments.ATTACH)
        if not args.get('stack'):
            raise RequestError(_('attach needs "stack": the name or ID of '
                                 'the stack'))
        self._template_map(args)
        self.attached = True
        self._connect(args)
        st = self._heat().get_stack(args['stack'])
        self._started('%s/%s' % (st.stack_name, st.id))
        self.end.seen_running = True
        self.event('initialized')
        self.configured.wait(CONFIGURE_TIMEOUT)
        if (st.stack_status or '').endswith('_IN_PROGRESS'):
            self._arm()
        self.say(_('Attached to stack %(stack)s (%(status)s)') % {
            'stack': self.stack, 'status': st.stack_status})
        self.following.start()

    def on_configurationDone(self, args) -> None:
        self.configured.set()

    # -- breakpoints

    def on_setBreakpoints(self, args) -> dict:
        arguments.check('setBreakpoints', args, arguments.BREAKPOINTS)
        path = (args.get('source') or {}).get('path')
        if not isinstance(path, str) or not path:
            raise RequestError(_('setBreakpoints: "source" needs "path", '
                                 'the path of the template file'))
        source = os.path.abspath(path)
        specs = args.get('breakpoints')
        if specs is None:
            specs = [{'line': line} for line in args.get('lines') or []]
        for spec in specs:
            arguments.check('setBreakpoints', spec, arguments.LINE,
                            _('each breakpoint'))
            if spec.get('line') is None:
                raise RequestError(_('setBreakpoints: each breakpoint '
                                     'needs "line"'))
        with self.holds.lock:
            found = self.breakpoints.set_lines(self.map, source, specs)
            self._arm()
        return {'breakpoints': [bp.body() for bp in found]}

    def on_setFunctionBreakpoints(self, args) -> dict:
        arguments.check('setFunctionBreakpoints', args,
                        arguments.FUNCTION_BREAKPOINTS)
        for spec in args.get('breakpoints') or []:
            arguments.check('setFunctionBreakpoints', spec,
                            arguments.FUNCTION, _('each breakpoint'))
        with self.holds.lock:
            found = self.breakpoints.set_functions(
                args.get('breakpoints') or [])
            self._arm()
        return {'breakpoints': [bp.body() for bp in found]}

    def on_setExceptionBreakpoints(self, args) -> dict:
        arguments.check('setExceptionBreakpoints', args,
                        arguments.EXCEPTION_BREAKPOINTS)
        filters = list(args.get('filters') or [])
        for option in args.get('filterOptions') or []:
            arguments.check('setExceptionBreakpoints', option,
                            arguments.FILTER_OPTION, _('each filter option'))
            filters.append(option.get('filterId'))
        unknown = sorted(set(filters) - {editor_breakpoints.FAILURES},
                         key=str)
        if unknown:
            raise RequestError(_('setExceptionBreakpoints: unknown filter '
                                 '%(filter)r: the one filter is %(known)r') %
                               {'filter': unknown[0],
                                'known': editor_breakpoints.FAILURES})
        with self.holds.lock:
            self.breakpoints.set_filters(filters)
            self._arm()
        return {}

    def _arm(self) -> None:
        """Arm and disarm in the running operation what changed."""
        if self.stack is None or self.finished.is_set():
            return
        self.arming.sync(self.manager, self.stack, self.breakpoints.wanted())

    # -- control

    def _control(self) -> dap_control.Control:
        if self.control is None:
            raise RequestError(_('nothing launched yet'))
        return self.control

    def _heat(self) -> bp_v1.BreakpointManager:
        """The manager, from the launch's or the attach's connect on."""
        if self.manager is None:
            raise RequestError(_('not connected to Heat yet'))
        return self.manager

    def _resumed(self, reason=None, rows=()) -> None:
        self.holds.resumed(reason, rows)
        self.looking.forget()
        self.following.hurry()

    def on_continue(self, args) -> dict:
        single = bool(args.get('singleThread'))
        self._control().continue_(args.get('threadId'), single)
        return {'allThreadsContinued': not single}

    def on_next(self, args) -> None:
        self._control().step(args.get('threadId'))

    def on_stepIn(self, args) -> None:
        # The engine steps into a nested stack resource held before its
        # action: its first resources hold next.
        self._control().step(args.get('threadId'))

    def on_stepOut(self, args) -> None:
        self._control().step_out(args.get('threadId'))

    def on_restartFrame(self, args) -> None:
        self._control().retry(self.looking.frame(args)[0])

    def take_exit(self, way, args) -> None:
        """Custom request named after an exit (``retain``, ``retry``).

        As ``breakpoint <exit>`` of the thread's resource: retain leaves
        a failed delete's resource in the cloud, the delete goes on.
        """
        path = self.holds.path(args.get('threadId'))
        if path is None:
            raise RequestError(_('thread %s holds nothing') %
                               args.get('threadId'))
        self._control().take_exit(way, path)

    def on_pause(self, args) -> None:
        self._control().pause()

    def on_terminate(self, args) -> None:
        """Cancel; answer once the operation ended (or after a while).

        nvim-dap closes the session on the answer: ``exited`` and
        ``terminated`` must come before it to be seen at all.
        """
        self.cancel()
        if self.following.started:
            self.told_end.wait(TERMINATE_WAIT)

    def on_evaluate(self, args) -> dict:
        expression = (args.get('expression') or '').strip()
        if args.get('context') in ('hover', 'watch'):
            result = self._control().hover(expression)
        else:
            result = self._control().evaluate(expression)
        return {'result': result, 'variablesReference': 0}

    def cancel(self) -> None:
        """Stop: cancel the operation as every front end cancels it.

        An update rolls back; a create is stopped and the stack deleted
        (:meth:`.BreakpointManager.cancel`, as ``cancel`` in ``watch
        -i``); what is held is released, so that nothing stays parked. A
        delete cannot be cancelled: what it holds is released and it
        goes on.
        """
        if self.stack is None or self.finished.is_set() or self.end.expect:
            return
        st = self._heat().get_stack(self.stack)
        status = st.stack_status or ''
        if not status.endswith('_IN_PROGRESS'):
            return
        rows = self.holds.rows(None, single=False)
        self.end.cancelled(status)
        self._resumed(None, rows)
        if status.startswith('DELETE'):
            self._control().release(rows)
            return
        try:
            what, _rows = self._heat().cancel(self.stack, rows)
        except exceptions.USER_ERRORS as exc:
            self.end.expect = None
            raise RequestError(exceptions.one_line(exc))
        if what == bp_v1.CANCEL_DELETE:
            self.end.action = 'delete'
        self.say(answers.CANCELLED[what])

    def on_disconnect(self, args) -> None:
        """Checked here; left once answered (:meth:`_answer`)."""
        arguments.check('disconnect', args, arguments.DISCONNECT)
        self.parting = (args.get('terminateDebuggee'),
                        bool(args.get('suspendDebuggee')))
        self.ended.set()  # read no more requests

    def leave(self, terminate=None, suspend=False) -> None:
        """The editor leaves (``disconnect``, or its connection is lost).

        ``terminate`` (default: for a launch, not for an attach) cancels
        the operation as Stop does. Otherwise what this session armed
        (its line, function and failure breakpoints, what Pause and Step
        out armed) is disarmed, a hold at one of them released, unless
        ``suspend`` (DAP's ``suspendDebuggee``) asks to keep it all. The
        Debug Console's commands are the watch prompt's and stay done.
        """
        with self.life:
            if self.left:
                return
            self.left = True
            stack = self.stack
        try:
            if stack is not None and not self.finished.is_set():
                if terminate is None:
                    terminate = not self.attached
                try:
                    if terminate:
                        self.cancel()
                    elif not suspend:
                        self._disarm_ours()
                except (RequestError,) + exceptions.USER_ERRORS as exc:
                    LOG.info('on leaving: %s', exc)
        finally:
            self.close()
            self.ended.set()

    def _disarm_ours(self) -> None:
        ours = set(self.arming.ours)
        if self.control is not None:
            ours |= self.control.ours
        for name in sorted(ours):
            try:
                _rows, result = self._heat().clear(self.stack, name)
                LOG.info('on leaving: %s %s', name, result)
            except exceptions.USER_ERRORS as exc:
                # Done meanwhile, or disarmed from elsewhere: nothing to do.
                LOG.info('on leaving: %s: %s', name, exc)

    def close(self) -> None:
        """End polling; stop the local Heat this session started.

        Fault rules this session added to a server it did not start go.
        """
        try:
            if self.faults and self.own_heat.local is None and \
                    self.endpoint:
                faults.remove(self.endpoint, self.faults)
            self.faults = []
            self.following.stop()
        finally:
            try:
                self.own_heat.close()
            finally:
                self.closed.set()
