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
"""One debug session: the DAP requests, over the one breakpoint manager.

Breakpoints of the editor become the model's breakpoints (a line: the
resource whose definition spans it, at every path that uses its file; a
condition: the kind; the ``failures`` filter: ``'*'`` on failure; a
function breakpoint: a name or glob). Before the operation starts they
travel in its environment; while it runs they are armed and disarmed as
``breakpoint set`` / ``clear`` do. A poller reads the watch's one-request
refresh (:func:`heatclient_ext.v1.watch.fetch`) a few times a second:
each held resource is a thread, a new one is a ``stopped`` event, the
refresh's latest events go to the Debug Console, and the end of the
operation is ``exited`` then ``terminated``.
"""

import fnmatch
import logging
import os
import threading
import time

from heat_breakpoint import breakpoints
from heat_breakpoint import reasons
from heatclient_ext._i18n import _
from heatclient_ext.dap import heat
from heatclient_ext.dap import lines
from heatclient_ext.dap import variables
from heatclient_ext import exceptions
from heatclient_ext.printable import printable
from heatclient_ext.v1 import breakpoints as bp_v1
from heatclient_ext.v1 import watch

LOG = logging.getLogger(__name__)

#: Seconds between refreshes: a hold reaches the editor well within 0.5 s.
POLL = 0.2
CONFIGURE_TIMEOUT = 10
EXPECT_TIMEOUT = 60
OPERATION_THREAD = 1
FAILURES = 'failures'
#: Breakpoint conditions the editor may write, and the kind each means.
CONDITIONS = {'': breakpoints.BEFORE, 'before': breakpoints.BEFORE,
              'after': breakpoints.AFTER, 'failed': breakpoints.FAILED,
              'changed': breakpoints.CHANGED,
              'replaced': breakpoints.REPLACED}
FRAMES_PER_THREAD = 100


class RequestError(Exception):
    """A request that cannot be done: its message goes back to the editor."""


def capabilities():
    return {
        'supportsConfigurationDoneRequest': True,
        'supportsFunctionBreakpoints': True,
        'supportsConditionalBreakpoints': True,
        'supportsEvaluateForHovers': True,
        'supportsRestartFrame': True,
        'supportsTerminateRequest': True,
        'supportsExceptionInfoRequest': True,
        'supportsSingleThreadExecutionRequests': True,
        'exceptionBreakpointFilters': [{
            'filter': FAILURES, 'label': _('Resource failures'),
            'description': _('Hold a resource whose action fails, with '
                             'its error'), 'default': False}],
    }


class Breakpoint:
    """One breakpoint of the editor and the model names it stands for."""

    def __init__(self, bp_id, names, when, line=None, source=None,
                 message=None):
        self.id = bp_id
        self.names = list(names)
        self.when = when
        self.line = line
        self.source = source
        self.message = message

    @property
    def verified(self):
        return bool(self.names) and self.message is None

    def matches(self, row):
        if bp_v1.row_value(row, 'when') != self.when:
            return False
        return any(row.get('breakpoint') == name or
                   fnmatch.fnmatchcase(row['resource'], name)
                   for name in self.names)

    def body(self):
        found = {'id': self.id, 'verified': self.verified}
        if self.line is not None:
            found['line'] = self.line
        if self.source is not None:
            found['source'] = {'path': self.source,
                               'name': os.path.basename(self.source)}
        if self.message:
            found['message'] = self.message
        return found


class Session:
    """Answers one editor's requests; ``send`` writes a message."""

    def __init__(self, send, interval=POLL):
        self.send = send
        self.interval = interval
        self.map = None
        self.client = None
        self.manager = None
        self.local = None
        self.stack = None
        self.attached = False
        self.action = None
        self.source_bps = {}  # file -> [Breakpoint]
        self.function_bps = []
        self.failures = None
        self.armed = set()  # (name, when) armed in the running operation
        self._bp_id = 0
        self.configured = threading.Event()
        self.lock = threading.RLock()
        self.threads = {}  # path -> thread id
        self.held = {}  # path -> row
        self._next_thread = OPERATION_THREAD + 1
        self.refs = variables.References()
        self.frames = {}  # frame id -> (path, Definition or None, index)
        self.seen_events = set()
        self.reason = None  # 'step', for the next holds
        self.reason_at = {}  # path -> 'entry' or 'pause': why it was armed
        self.finished = threading.Event()
        self.ended = threading.Event()  # disconnect: stop reading
        self.poller = None
        self.started_at = None
        self.seen_running = False
        self.cancelled = False
        # Bumped by every release this session sends: a refresh read
        # before it is stale (it would show the released hold again).
        self.generation = 0
        # After a cancel: the status prefix that ends the session
        # (ROLLBACK for an update, DELETE for a create), and since when.
        self.expect = None
        self.expect_since = 0

    # -- wire

    def event(self, name, body=None):
        message = {'type': 'event', 'event': name}
        if body is not None:
            message['body'] = body
        self.send(message)

    def say(self, text, category='console'):
        self.event('output', {'category': category,
                              'output': '%s\n' % printable(text)})

    def handle(self, request):
        """Answer one request (launch and attach answer from a thread)."""
        command = request.get('command', '')
        handler = getattr(self, 'on_' + command, None)
        if command in ('launch', 'attach'):
            threading.Thread(target=self._answer,
                             args=(request, handler), daemon=True).start()
            return
        self._answer(request, handler)

    def _answer(self, request, handler):
        response = {'type': 'response', 'request_seq': request.get('seq'),
                    'command': request.get('command'), 'success': True}
        try:
            if handler is None:
                raise RequestError(_('%s is not supported') %
                                   request.get('command'))
            body = handler(request.get('arguments') or {})
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

    # -- starting

    def on_initialize(self, args):
        return capabilities()

    def _connect(self, args):
        if args.get('endpoint') or args.get('cloud'):
            self.client = heat.client_for(args.get('endpoint'),
                                          args.get('cloud'))
        else:
            self.local = heat.LocalHeat().start(self.say)
            self.say(_('Local Heat ready at %(url)s (state in %(dir)s)') % {
                'url': self.local.endpoint, 'dir': self.local.state_dir})
            self.client = heat.client_for(self.local.endpoint)
        self.manager = bp_v1.BreakpointManager(self.client)

    def _template_map(self, args):
        template = args.get('template')
        if template:
            self.map = lines.TemplateMap(template,
                                         args.get('environment') or ())

    def on_launch(self, args):
        self._template_map(args)
        self.action = args.get('action') or 'create'
        self._connect(args)
        self.event('initialized')
        if not self.configured.wait(CONFIGURE_TIMEOUT):
            LOG.info('no configurationDone: launching anyway')
        with self.lock:
            wanted = self._wanted()
            entry = set()
            if args.get('stopOnEntry') and self.map is not None:
                entry = {(name, breakpoints.BEFORE)
                         for name in self.map.first_resources()} - wanted
                self.reason_at.update((name, 'entry') for name, _w in entry)
            bps = [bp for name, when in sorted(wanted | entry)
                   for bp in breakpoints.parse_names([name], when=when)]
            if self.action == 'delete':
                bps = []
            self.started_at = time.monotonic()
            self.stack = heat.start(self.manager, args, bps)
            if self.action != 'delete':
                self.armed = wanted
        self.say(_('%(action)s of stack %(stack)s started') % {
            'action': self.action, 'stack': self.stack})
        if self.action == 'delete':
            self._arm()
        self._start_polling()

    def on_attach(self, args):
        if not args.get('stack'):
            raise RequestError(_('attach needs "stack": the name or ID of '
                                 'the stack'))
        self._template_map(args)
        self.attached = True
        self._connect(args)
        st = self.manager.get_stack(args['stack'])
        self.stack = '%s/%s' % (st.stack_name, st.id)
        self.seen_running = True
        self.event('initialized')
        self.configured.wait(CONFIGURE_TIMEOUT)
        if (st.stack_status or '').endswith('_IN_PROGRESS'):
            self._arm()
        self.say(_('Attached to stack %(stack)s (%(status)s)') % {
            'stack': self.stack, 'status': st.stack_status})
        self._start_polling()

    def on_configurationDone(self, args):
        self.configured.set()

    # -- breakpoints

    def _new_id(self):
        self._bp_id += 1
        return self._bp_id

    def _all_bps(self):
        found = [bp for bps in self.source_bps.values() for bp in bps]
        found += self.function_bps
        if self.failures is not None:
            found.append(self.failures)
        return found

    def _wanted(self):
        return {(name, bp.when) for bp in self._all_bps() if bp.verified
                for name in bp.names}

    def _kind(self, condition):
        condition = (condition or '').strip()
        if condition not in CONDITIONS:
            return None, _('unknown condition %(cond)r: one of %(kinds)s') % {
                'cond': condition, 'kinds': ', '.join(
                    sorted(c for c in CONDITIONS if c))}
        return CONDITIONS[condition], None

    def on_setBreakpoints(self, args):
        source = os.path.abspath((args.get('source') or {}).get('path', ''))
        wanted = args.get('breakpoints')
        if wanted is None:
            wanted = [{'line': line} for line in args.get('lines') or []]
        found = []
        for spec in wanted:
            when, message = self._kind(spec.get('condition'))
            line = spec.get('line')
            if self.map is None:
                bp = Breakpoint(self._new_id(), [], when, line, source,
                                message or _('no template launched'))
            else:
                definition, paths, why = self.map.resource_at(source, line)
                bp = Breakpoint(self._new_id(), paths, when,
                                definition.line if definition else line,
                                source, message or why)
            found.append(bp)
        with self.lock:
            self.source_bps[source] = found
            self._arm()
        return {'breakpoints': [bp.body() for bp in found]}

    def on_setFunctionBreakpoints(self, args):
        found = []
        for spec in args.get('breakpoints') or []:
            when, message = self._kind(spec.get('condition'))
            name = (spec.get('name') or '').strip()
            if not message:
                try:
                    breakpoints.parse_name(name)
                except breakpoints.BreakpointError as exc:
                    message = exceptions.one_line(exc)
            found.append(Breakpoint(self._new_id(), [name], when,
                                    message=message))
        with self.lock:
            self.function_bps = found
            self._arm()
        return {'breakpoints': [bp.body() for bp in found]}

    def on_setExceptionBreakpoints(self, args):
        filters = list(args.get('filters') or [])
        with self.lock:
            self.failures = Breakpoint(self._new_id(), ['*'],
                                       breakpoints.FAILED) \
                if FAILURES in filters else None
            self._arm()
        return {}

    def _arm(self):
        """Arm and disarm in the running operation what changed."""
        if self.stack is None or self.finished.is_set():
            return
        wanted = self._wanted()
        for name, when in sorted(wanted - self.armed):
            if any(c in name for c in '*?['):
                self.say(_('%s: a pattern can only be armed when the '
                           'operation starts') % name, 'stderr')
                continue
            try:
                result = self.manager.set(self.stack, name, when)
                self.say(_('breakpoint %(name)s (%(when)s): %(result)s') % {
                    'name': name, 'when': when, 'result': result})
            except exceptions.USER_ERRORS as exc:
                self.say(exceptions.one_line(exc), 'stderr')
        for name, when in sorted(self.armed - wanted):
            if any(n == name for n, _w in wanted):
                continue
            try:
                _rows, result = self.manager.clear(self.stack, name)
                self.say(_('breakpoint %(name)s: %(result)s') % {
                    'name': name, 'result': result})
            except exceptions.USER_ERRORS as exc:
                self.say(exceptions.one_line(exc), 'stderr')
        self.armed = wanted

    # -- watching

    def _start_polling(self):
        self.poller = threading.Thread(target=self._poll, daemon=True)
        self.poller.start()

    def _poll(self):
        while not self.finished.is_set():
            try:
                self.refresh()
            except exceptions.USER_ERRORS as exc:
                self.say(exceptions.one_line(exc), 'stderr')
            except Exception:  # a bad refresh must not end the session
                LOG.exception('refresh failed')
            self.finished.wait(self.interval)

    def refresh(self):
        """One request: held resources, latest events, the stack's state."""
        generation = self.generation
        snap = watch.fetch(self.client, self.stack)
        if generation != self.generation:
            return None  # a release went out meanwhile: read again
        if snap is None:
            # Gone (a delete finished) or no view: one stock look says.
            try:
                st = self.manager.get_stack(self.stack)
            except exceptions.USER_ERRORS:
                return self._finish('DELETE_COMPLETE', '')
            snap = watch.Snapshot(st.stack_name, st.id,
                                  st.stack_status or '', [], {})
        with self.lock:
            if generation != self.generation:
                return None
            self._events(snap)
            self._holds(snap)
        status = snap.status
        if status.endswith('_IN_PROGRESS'):
            self.seen_running = True
        elif self.expect and not status.startswith(self.expect) and \
                time.monotonic() - self.expect_since < EXPECT_TIMEOUT:
            pass  # the cancel's rollback has not begun yet
        elif self.seen_running or self._action_done(status):
            self._finish(status, '')
        return snap

    def _action_done(self, status):
        # An update may read the old COMPLETE for a moment after it was
        # sent; its own action's end, or a few seconds, say it is done.
        if self.action is None or self.action == 'delete':
            return False
        return status.startswith(self.action.upper() + '_') and (
            time.monotonic() - (self.started_at or 0) > 5)

    def _events(self, snap):
        for event in (snap.progress or {}).get('events') or []:
            key = tuple(sorted((k, str(v)) for k, v in event.items()))
            if key in self.seen_events:
                continue
            self.seen_events.add(key)
            self.say(watch.event_line(event))

    def _holds(self, snap):
        now = {row['resource']: row for row in watch.held_rows(snap)}
        for path in sorted(set(self.held) - set(now)):
            self.held.pop(path)
            self.event('thread', {'reason': 'exited',
                                  'threadId': self.threads.pop(path)})
        for path in sorted(set(now) - set(self.held)):
            row = self.held[path] = now[path]
            tid = self.threads[path] = self._next_thread
            self._next_thread += 1
            self.event('thread', {'reason': 'started', 'threadId': tid})
            hits = [bp.id for bp in self._all_bps() if bp.matches(row)]
            when = bp_v1.row_value(row, 'when')
            if when == breakpoints.FAILED:
                reason = 'exception'
            elif path in self.reason_at and not hits:
                reason = self.reason_at.pop(path)
            elif self.reason and not hits:
                reason = self.reason
            else:
                reason = 'breakpoint'
            body = {'reason': reason, 'threadId': tid,
                    'allThreadsStopped': False,
                    'description': _('%(path)s held %(hold)s') % {
                        'path': path, 'hold': _hold_text(row)}}
            if hits:
                body['hitBreakpointIds'] = hits
            if when == breakpoints.FAILED:
                body['text'] = row.get('why') or ''
            self.event('stopped', body)

    def _finish(self, status, reason):
        if self.finished.is_set():
            return
        self.finished.set()
        if not reason and status.endswith('_FAILED'):
            try:
                reason = self.manager.get_stack(
                    self.stack).stack_status_reason
            except exceptions.USER_ERRORS:
                pass
        self.say(_('Stack %(stack)s %(status)s%(reason)s') % {
            'stack': self.stack, 'status': status,
            'reason': ': %s' % reason if reason else ''})
        with self.lock:
            for path in list(self.held):
                self.event('thread', {'reason': 'exited',
                                      'threadId': self.threads.pop(path)})
            self.held.clear()
        self.event('exited', {'exitCode': 0 if status.endswith('_COMPLETE')
                              else 1})
        self.event('terminated')

    # -- looking

    def _thread_path(self, tid):
        for path, found in self.threads.items():
            if found == tid:
                return path
        return None

    def on_threads(self, args):
        with self.lock:
            found = [{'id': OPERATION_THREAD, 'name': _('stack %s') % (
                (self.stack or '').split('/')[0] or _('(not started)'))}]
            for path in sorted(self.held, key=lambda p: self.threads[p]):
                found.append({'id': self.threads[path], 'name': '%s (%s)' % (
                    path, _hold_text(self.held[path]))})
        return {'threads': found}

    def on_stackTrace(self, args):
        tid = args.get('threadId')
        with self.lock:
            path = self._thread_path(tid)
            row = self.held.get(path)
        if path is None:
            return {'stackFrames': [], 'totalFrames': 0}
        chain = self.map.frames(path) if self.map else [(path, None)]
        frames = []
        for index, (frame_path, definition) in enumerate(chain):
            fid = tid * FRAMES_PER_THREAD + index
            self.frames[fid] = (frame_path, definition, index)
            name = frame_path if index else '%s (%s)' % (
                frame_path, _hold_text(row))
            frame = {'id': fid, 'name': name, 'line': 0, 'column': 0}
            if definition is not None:
                frame.update(line=definition.line, column=1, source={
                    'path': definition.file,
                    'name': os.path.basename(definition.file)})
            frames.append(frame)
        return {'stackFrames': frames, 'totalFrames': len(frames)}

    def on_scopes(self, args):
        found = self.frames.get(args.get('frameId'))
        if found is None:
            raise RequestError(_('unknown frame %s') % args.get('frameId'))
        path, definition, index = found
        if index:
            return {'scopes': variables.template_scope(self.refs, path,
                                                       definition)}
        shown = self.manager.show(self.stack, path)
        return {'scopes': variables.scopes(self.refs, shown, definition)}

    def on_variables(self, args):
        value = self.refs.get(args.get('variablesReference'))
        return {'variables': variables.variables(self.refs, value)}

    def on_exceptionInfo(self, args):
        path = self._thread_path(args.get('threadId'))
        if path is None:
            raise RequestError(_('thread %s holds nothing') %
                               args.get('threadId'))
        shown = self.manager.show(self.stack, path)
        error = shown.get('error') or shown.get('resource_status_reason') \
            or ''
        return {'exceptionId': shown.get('resource_status') or 'FAILED',
                'description': error, 'breakMode': 'always',
                'details': {'message': error, 'typeName': path}}

    def on_source(self, args):
        path = (args.get('source') or {}).get('path')
        try:
            with open(path, encoding='utf-8') as stream:
                return {'content': stream.read(), 'mimeType': 'text/yaml'}
        except (OSError, TypeError):
            raise RequestError(_('no source %s') % path)

    # -- control

    def _rows(self, tid, single=True):
        """The held rows a control request applies to."""
        with self.lock:
            path = self._thread_path(tid)
            if path is not None and single:
                return [self.held[path]]
            return list(self.held.values())

    def _resumed(self, reason=None, rows=()):
        """Before a release: its threads go, its next holds are new."""
        with self.lock:
            self.generation += 1
            self.reason = reason
            self.refs.clear()
            self.frames.clear()
            for row in rows:
                path = row['resource']
                if self.held.pop(path, None) is not None:
                    self.event('thread', {
                        'reason': 'exited',
                        'threadId': self.threads.pop(path)})

    def _release(self, rows, how):
        for row in rows:
            try:
                self.manager.release(self.stack, row['resource'], how, [row])
            except exceptions.USER_ERRORS as exc:
                self.say(exceptions.one_line(exc), 'stderr')

    def on_continue(self, args):
        tid = args.get('threadId')
        single = bool(args.get('singleThread'))
        rows = self._rows(tid, single)
        self._resumed(rows=rows)
        # Released as "clear": the other breakpoints stay armed.
        self._release(rows, reasons.RELEASE_CLEAR)
        return {'allThreadsContinued': not single}

    def _step(self, args):
        rows = self._rows(args.get('threadId'))
        if not rows:
            raise RequestError(_('nothing is held'))
        self._resumed('step', rows)
        for row in rows:
            self.manager.step(self.stack, row['resource'])

    def on_next(self, args):
        self._step(args)

    def on_stepIn(self, args):
        # The engine steps into a nested stack resource held before its
        # action: its first resources hold next.
        self._step(args)

    def on_stepOut(self, args):
        rows = self._rows(args.get('threadId'))
        self._resumed('step', rows)
        for row in rows:
            parent = row['resource'].rpartition('/')[0]
            if parent and self.map is not None:
                for name in self.map.successors(parent):
                    if self.map.concrete(name):
                        self._try_set(name)
        self._release(rows, reasons.RELEASE_CLEAR)

    def _try_set(self, name):
        try:
            self.manager.set(self.stack, name)
        except exceptions.USER_ERRORS as exc:
            self.say(exceptions.one_line(exc), 'stderr')

    def on_restartFrame(self, args):
        found = self.frames.get(args.get('frameId'))
        if found is None:
            raise RequestError(_('unknown frame %s') % args.get('frameId'))
        rows = [row for row in self._rows(None, single=False)
                if row['resource'] == found[0]]
        self._resumed('step', rows)
        self.manager.retry(self.stack, found[0])

    def on_pause(self, args):
        if self.map is None:
            raise RequestError(_('pause needs the launched template'))
        armed = []
        for name in sorted(self.map.paths):
            if not self.map.concrete(name) or name in self.held:
                continue
            try:
                if self.manager.set(self.stack, name) == bp_v1.ARMED:
                    armed.append(name)
                    self.reason_at[name] = 'pause'
            except exceptions.USER_ERRORS:
                pass  # done or running already: nothing to hold there
        self.say(_('pause: holding %s before they start') % (
            ', '.join(armed) or _('nothing (every resource has started)')))

    def on_terminate(self, args):
        self.cancel()

    def cancel(self):
        """Cancel the operation: an update rolls back, a create is removed.

        Then free what is held, so that nothing stays parked.
        """
        if self.stack is None or self.finished.is_set():
            return
        st = self.manager.get_stack(self.stack)
        status = st.stack_status or ''
        if not status.endswith('_IN_PROGRESS'):
            return
        self.expect_since = time.monotonic()
        self.expect = 'ROLLBACK' if status.startswith('UPDATE') else 'DELETE'
        try:
            if status.startswith('UPDATE'):
                self.client.actions.cancel_update(self.stack)
                self.say(_('cancelled the update: Heat rolls it back'))
            elif status.startswith('CREATE'):
                self.client.actions.cancel_without_rollback(self.stack)
                self.say(_('cancelled the create: the stack is deleted'))
        except Exception as exc:
            self.expect = None
            raise RequestError(_('Cannot cancel: %s') %
                               exceptions.one_line(exc))
        self.cancelled = True
        rows = self._rows(None, single=False)
        self._resumed(rows=rows)
        self._release(rows, reasons.RELEASE_CLEAR)
        if status.startswith('CREATE'):
            # The rollback of a create: the stack goes, once it stopped.
            for _i in range(100):
                st = self.manager.get_stack(self.stack)
                if not (st.stack_status or '').endswith('_IN_PROGRESS'):
                    break
                time.sleep(0.2)
            self.client.stacks.delete(self.stack)
            self.action = 'delete'

    def on_disconnect(self, args):
        try:
            if not self.attached and args.get('terminateDebuggee', True) \
                    and not self.finished.is_set():
                try:
                    self.cancel()
                except (RequestError,) + exceptions.USER_ERRORS as exc:
                    LOG.info('on disconnect: %s', exc)
        finally:
            self.close()
        self.ended.set()

    def close(self):
        """End polling; stop the local Heat this session started."""
        self.finished.set()
        if self.poller is not None and \
                self.poller is not threading.current_thread():
            self.poller.join(5)
        if self.local is not None:
            self.local.stop()
            self.local = None

    # -- the REPL and hovers

    def on_evaluate(self, args):
        expression = (args.get('expression') or '').strip()
        if args.get('context') in ('hover', 'watch'):
            return self._hover(expression)
        if self.stack is None:
            raise RequestError(_('nothing launched yet'))
        with self.lock:
            held = sorted(self.held.values(), key=lambda r: r['resource'])
        try:
            answer = watch.parse_answer(expression, held)
        except watch.AnswerError as exc:
            raise RequestError(exceptions.one_line(exc))
        return {'result': self._do(answer, held), 'variablesReference': 0}

    def _do(self, answer, held):
        verb, arg = answer
        names = lambda rows: ', '.join(r['resource'] for r in rows) or \
            _('nothing')  # noqa: E731
        if verb == watch.STEP:
            self._resumed('step', [r for r in held if r['resource'] == arg])
            return _('stepped from %s') % names(
                self.manager.step(self.stack, arg))
        if verb == watch.RELEASE:
            rows = [r for r in held if r['resource'] in arg]
            self._resumed(rows=rows)
            self._release(rows, reasons.RELEASE_CLEAR)
            return _('released %s') % names(rows)
        if verb == watch.CONTINUE:
            self._resumed(rows=held)
            return _('released %s (continue); no breakpoint holds for the '
                     'rest of this operation') % names(
                         self.manager.continue_(self.stack))
        if verb == watch.TO:
            self._resumed(rows=[r for r in held if r['resource'] != arg])
            return _('running to %(to)s: released %(names)s') % {
                'to': arg, 'names': names(
                    self.manager.continue_(self.stack, to=arg))}
        if verb == watch.SET:
            return _('%(name)s: %(result)s') % {
                'name': arg, 'result': self.manager.set(self.stack, arg)}
        if verb == watch.CLEAR:
            _rows, result = self.manager.clear(self.stack, arg)
            return _('cleared %(name)s (%(result)s)') % {
                'name': arg, 'result': result}
        if verb == watch.CANCEL:
            self.cancel()
            return _('cancelled')
        return _('use the editor\'s Stop or Disconnect to leave')

    def _hover(self, word):
        if self.stack is None or not word:
            raise RequestError(_('no stack'))
        candidates = [path for path in (self.map.paths if self.map else {})
                      if path.rsplit('/', 1)[-1] == word and
                      self.map.concrete(path)] or [word]
        found = []
        for path in candidates[:5]:
            try:
                described = self.manager.describe(self.stack, path)
            except exceptions.USER_ERRORS:
                continue
            if described is None:
                continue
            state = described[2]
            found.append('%s: %s%s' % (path, state.get('state'), (
                ', %s' % state['resource_status']
                if state.get('resource_status') else '')))
        if not found:
            raise RequestError(_('%s is no resource of this stack') % word)
        return {'result': '; '.join(found), 'variablesReference': 0}


def _hold_text(row):
    if row is None:
        return ''
    when = bp_v1.row_value(row, 'when')
    action = row.get('action') or ''
    if when == breakpoints.FAILED:
        return _('on %s failure') % action
    return '%s %s' % (when, action)
