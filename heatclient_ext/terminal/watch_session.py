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
"""A running operation, watched live and driven from one answers.

``openstack stack breakpoint watch`` (and ``--interactive``) lives here,
apart from the cliff command so that each piece tests alone: what one
refresh reads and how an outage is ridden out (:mod:`.reading`), how it
is drawn (:mod:`.screen`), the prompt's words (:mod:`.prompt`), a line
typed without stopping the screen (:mod:`.keyboard`) and the loop
(:class:`Session`). Releases go through :class:`.BreakpointManager`.
"""

import contextlib
import time
import typing

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heat_breakpoint.model import protocol
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.printable import printable
from heatclient_ext.terminal import keyboard
from heatclient_ext.terminal import screen
from heatclient_ext.v1 import answers
from heatclient_ext.v1 import live
from heatclient_ext.v1 import manager as bp_v1

STATES = live.STATES
EVENTS = live.EVENTS
#: The exit codes of ``watch`` (README "Exit codes"): the operation
#: completed, or the session was left with q or at the end of its input;
#: the operation failed; Heat could not be reached for the reconnect
#: timeout; Ctrl-C. A command refused (an unknown stack) exits 1 too.
EXIT_COMPLETE, EXIT_FAILED, EXIT_UNREACHABLE, EXIT_INTERRUPTED = 0, 1, 3, 130

PROMPT_HELP = answers.PROMPT_HELP
FALLBACK_NOTE = live.FALLBACK_NOTE
RESUME = 'openstack stack breakpoint watch -i %s'

# What other modules and older callers take from here.
Snapshot = live.Snapshot
fetch = live.fetch
fetch_without_view = live.fetch_without_view
AnswerError = answers.AnswerError
parse_answer = answers.parse_answer
prompt_text = answers.prompt_text
_names = answers.names_text
Screen = screen.Screen
held_rows = live.held_rows
frame = screen.frame
change_line = screen.change_line
event_line = live.event_line
bar = screen.bar
terminal_size = screen.terminal_size
(STEP, RELEASE, CONTINUE, TO, SET, CLEAR, RETRY, CANCEL, HELP,
 QUIT) = (answers.STEP, answers.RELEASE, answers.CONTINUE, answers.TO,
          answers.SET, answers.CLEAR, answers.RETRY, answers.CANCEL,
          answers.HELP, answers.QUIT)


# -- why a hold went -----------------------------------------------------

def gone_reason(snap, name) -> str:
    """Why ``name`` is no longer held, from the latest events."""
    events = [event for event in (snap.progress or {}).get('events') or []
              if event.get('resource') == name and event.get('reason')]
    for event in reversed(events):
        if event['reason'].startswith('Breakpoint ') and \
                ' released' in event['reason']:
            return printable(event['reason'])
    return _('released from elsewhere, or its operation was replaced by a '
             'newer one')


# -- the loop -----------------------------------------------------------------

class Session:
    """Watch one stack's operation until it ends; prompt when held.

    The terminal and the clock are passed in, so the loop runs the same
    under a test as on a real terminal. The screen refreshes every
    ``interval`` seconds, also while the prompt waits for an answer.
    """

    def __init__(self, client, stack, out, stdin=None, nested_depth=None,
                 interval=2.0, interactive=False, redraw=False,
                 sleep=time.sleep,
                 reconnect_timeout=live.RECONNECT_TIMEOUT,
                 clock=time.monotonic, size=None) -> None:
        self.client = client
        self.manager = bp_v1.BreakpointManager(client)
        self.out = out
        self.stdin = stdin
        self.interval = interval
        self.interactive = interactive
        self.redraw = redraw
        self.sleep = sleep
        self.reconnect = live.Reconnect(reconnect_timeout, clock)
        self.screen = Screen(out, redraw, size or (lambda: terminal_size(out)))
        self.keys = self.screen.keys = keyboard.LineReader(
            stdin, echo=self.screen.echo)
        self.say = self.screen.say
        self.view = live.Follower(client, stack, nested_depth, self.say)
        self.cancelled = False
        self._named = None
        self._seen_running = False
        # the status of the operation followed
        self._running: typing.Optional[tuple] = None
        self.rollback = live.RollbackAhead(
            lambda stack: self.manager.get_stack(stack), clock)

    def show(self, snap, held=()) -> None:
        self.screen.show(snap, held if self.interactive else ())

    # -- reading

    @property
    def stack(self):
        return self.view.stack

    @property
    def snap(self):
        return self.view.snap

    def refresh(self):
        return self.view.refresh()

    def _refresh(self):
        """A snapshot, or None after waiting for Heat to answer again."""
        try:
            snap = self.refresh()
        except live.UNREACHABLE as exc:
            wait = self.reconnect.failed(exc)
            self._show_reconnecting()
            self.sleep(wait)
            return None
        if self.reconnect.answered():
            self.say(_('reconnected to Heat'))
        return snap

    def _show_reconnecting(self) -> None:
        self.screen.aside(self.reconnect.text(), self.snap)

    # -- the loop

    def run(self) -> int:
        """Watch until the operation ends; the exit code (see EXIT_*)."""
        try:
            with (self.keys.keys() if self.interactive
                  else contextlib.nullcontext()):
                return self._run()
        except KeyboardInterrupt:
            # Ctrl-C leaves at once: what was seen last, no request that
            # could keep the user waiting on a busy or gone heat-api.
            self.out.write('\n')
            self.say(self._left_text(_('interrupted'), fresh=False))
            return EXIT_INTERRUPTED
        except live.GaveUp as exc:
            if self.redraw or self.interactive:
                self.out.write('\n')
            self.say(_('%(why)s; %(left)s') % {
                'why': exc, 'left': self._left_text(_('gave up'),
                                                    fresh=False)})
            return EXIT_UNREACHABLE

    def _run(self) -> int:
        while True:
            snap = self._refresh()
            if snap is None:
                continue
            held = held_rows(snap)
            self._follow(snap, held)
            if snap.status.endswith('_IN_PROGRESS'):
                self._seen_running = True
                self._superseded(snap)
            elif self._seen_running and self.rollback.pending(
                    self.stack, snap.status):
                self.show(snap)  # its rollback is about to begin
                self.sleep(self.interval)
                continue
            else:
                self.show(snap)
                return self._finished(snap)
            if held and self.cancelled:
                # A rollback after cancel: nothing is to stay parked.
                self._release([row['resource'] for row in held],
                              protocol.RELEASE_CONTINUE, held,
                              _('during the rollback'))
                continue
            self.show(snap, held)
            # On a terminal the keyboard is read whether or not something
            # is held: an answer typed while a redraw took the prompt
            # away is acted on (or refused in a line), never left unread.
            if self.interactive and (held or self.keys.terminal):
                if self._wait_answer() == QUIT:
                    self.say(self._left_text(_('left')))
                    return EXIT_COMPLETE
                continue
            self.sleep(self.interval)

    def _follow(self, snap, held) -> None:
        """Say so when what the prompt names is no longer held."""
        named = self._named
        self._named = held[0]['resource'] if held and self.interactive \
            else None
        if named is None or named in {row['resource'] for row in held}:
            return
        self.screen.notes = []
        if not snap.status.endswith('_IN_PROGRESS'):
            self.say(_('%(name)s is no longer held: the operation ended '
                       '(%(status)s)') % {'name': printable(named),
                                          'status': snap.status})
        else:
            self.say(_('%(name)s is no longer held: %(why)s') % {
                'name': printable(named), 'why': gone_reason(snap, named)})
        self.screen.prompted = None

    def _superseded(self, snap) -> None:
        """Say so when a newer operation took over the one followed.

        A stack update of a running operation (a fix, from here or from
        another client) supersedes it: the session follows the new one.
        """
        now = (snap.status, (snap.progress or {}).get('started'))
        before, self._running = self._running, now
        if before is None or before == now or \
                snap.status.startswith('ROLLBACK') or not now[1]:
            return
        self.say(_('a newer operation (%(status)s) superseded the one '
                   'followed (%(before)s): following it') % {
                       'status': snap.status, 'before': before[0]})

    def _left_text(self, how, fresh=True) -> str:
        if fresh:
            try:
                self.refresh()
            except Exception:  # leaving anyway: say what was seen last
                pass
        snap = self.snap
        held = held_rows(snap) if snap else []
        if snap is not None and not snap.status.endswith('_IN_PROGRESS'):
            return _('%(how)s: the operation ended (%(status)s)') % {
                'how': how, 'status': snap.status}
        if held:
            return _('%(how)s: the operation stays held at %(held)s; run '
                     '"%(resume)s" to resume') % {
                         'how': how, 'held': answers.names_text(
                             [row['resource'] for row in held]),
                         'resume': RESUME % printable(snap.stack_name)}
        return _('%s: the operation is untouched') % how

    def _finished(self, snap) -> int:
        status = snap.status
        if status.endswith('_COMPLETE'):
            self.say(_('Stack %(name)s %(status)s') % {
                'name': printable(snap.stack_name), 'status': status})
            return EXIT_COMPLETE
        reason = ''
        try:
            reason = self.manager.get_stack(self.stack).stack_status_reason
        except exceptions.USER_ERRORS + live.UNREACHABLE:
            pass
        self.say(_('Stack %(name)s %(status)s: %(reason)s') % {
            'name': printable(snap.stack_name), 'status': status,
            'reason': printable(reason or _('no reason given'))})
        return EXIT_FAILED

    def _wait_answer(self):
        """Wait one interval for an answer; act on it. QUIT to leave."""
        try:
            line = self.keys.read(self.interval)
        except EOFError:  # end of input: leave as with q
            self.out.write('\n')
            return QUIT
        if line is None:
            return None
        self.screen.notes = []
        self.screen.prompted = None
        try:
            return self._answer(line)
        except exceptions.USER_ERRORS as exc:
            self.screen.note(_('error: %s') % printable(
                exceptions.one_line(exc)))
        except live.UNREACHABLE as exc:
            self.screen.note(_('error: cannot reach Heat (%s): the answer '
                               'may not have been sent')
                             % exceptions.one_line(exc))
        return None

    def _answer(self, line):
        """Act on one line typed at the prompt, on the latest state."""
        named = self._named
        snap = self.refresh()
        held = held_rows(snap)
        if not snap.status.endswith('_IN_PROGRESS'):
            # Said, not dropped: the loop then says how it ended.
            raise answers.AnswerError(
                _('the operation ended (%(status)s) before %(answer)s was '
                  'sent') % {'status': snap.status,
                             'answer': '"%s"' % printable(line.strip())
                             if line.strip() else _('Enter')})
        # Nothing held is no reason to drop an answer: cancel, c, to R,
        # set R and clear R act on the operation; the others say why not.
        if not line.strip() and named is not None:
            # Enter means what the prompt named, if it is still held.
            rows = [row for row in held if row['resource'] == named]
            if not rows:
                self._follow(snap, held)
                return None
            held = rows + [row for row in held if row is not rows[0]]
        answer = answers.parse_answer(line, held)
        if answer.verb == QUIT:
            return QUIT
        if answer.verb == HELP:
            for text in answers.HELP_LINES:
                self.screen.note(text)
            return HELP
        self._do(answer, held)
        self._named = None
        return answer.verb

    def _do(self, answer, held) -> None:
        verb, arg = answer
        way = kinds.own_exit(verb)
        if way is not None:
            # retry, retain...: the exit's own words once it is sent.
            self.manager.take_exit(self.stack, arg, way)
            self.say(_(way.said) % printable(arg))
        elif verb == STEP:
            self._release([arg], protocol.RELEASE_STEP, held)
        elif verb == RELEASE:
            self._release(arg, protocol.RELEASE_CLEAR, held)
        elif verb == CONTINUE:
            rows = self.manager.continue_(self.stack)
            self.say(_('released %(names)s (continue); no breakpoint '
                       'holds for the rest of this operation') % {
                           'names': answers.names_text(
                               [r['resource'] for r in rows])})
        elif verb == TO:
            rows = self.manager.continue_(self.stack, to=arg)
            self.say(_('running to %(to)s: released %(names)s') % {
                'to': printable(arg),
                'names': answers.names_text([r['resource'] for r in rows])})
        elif verb == SET:
            self.manager.set(self.stack, arg)
            self.say(_('armed %s for the rest of this operation')
                     % printable(arg))
        elif verb == CLEAR:
            rows, result = self.manager.clear(self.stack, arg)
            self.say(_('cleared %(name)s (%(result)s)') % {
                'name': printable(arg), 'result': result})
        elif verb == CANCEL:
            self.cancel(held)

    def _release(self, names, how, held, note='') -> None:
        rows = [row for row in held if row['resource'] in names]
        released = []
        for row in rows:
            self.manager.release(self.stack, row['resource'], how, [row])
            released.append(row['resource'])
        self.say(_('released %(names)s (%(how)s)%(note)s') % {
            'names': _names(released), 'how': how,
            'note': ' %s' % note if note else ''})

    def cancel(self, held) -> None:
        """Cancel as the DAP's Stop does, then free what is held.

        An update rolls back; a create is stopped and the stack deleted
        (:meth:`.BreakpointManager.cancel`).
        """
        what, released = self.manager.cancel(self.stack, held)
        self.cancelled = True
        self.say(answers.CANCELLED[what])
        # Every hold seen at the cancel ended with it: released here, or
        # let go by the cancel before this release came (the manager
        # then leaves it out of ``released``). The engine's events say
        # "released (operation cancelled)" for each; so does this line.
        ended = {row['resource'] for row in list(held) + list(released)}
        if ended:
            self.say(_('released %(names)s (%(how)s) so nothing stays '
                       'parked') % {
                           'names': _names(sorted(
                               ended, key=breakpoints.natural_key)),
                           'how': protocol.RELEASE_CANCEL})
