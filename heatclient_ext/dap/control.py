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
"""What the editor's buttons and the Debug Console do to the operation.

Every action is one of the manager's calls, as the CLI makes them:
continue releases (as ``clear`` does: the other breakpoints stay armed;
its stack event says ``continue, breakpoints kept``), step
over and into are ``breakpoint step``, step out arms the parent stack's
next resources then releases, restart frame is ``breakpoint retry``,
pause arms what has not started. The Debug Console takes the watch
prompt's words
(:func:`heatclient_ext.v1.answers.parse_answer`), with the
watch's meanings.
"""

import dataclasses
import typing

from heat_breakpoint.model import kinds
from heat_breakpoint.model import protocol
from heatclient_ext._i18n import _
from heatclient_ext.dap import editor_breakpoints
from heatclient_ext.dap import holds as dap_holds
from heatclient_ext.dap import lines
from heatclient_ext import exceptions
from heatclient_ext.v1 import answers
from heatclient_ext.v1 import manager as bp_v1


class ControlError(exceptions.BreakpointCommandError):
    """A control request that cannot apply (said to the editor)."""


def _names(rows):
    return ', '.join(r['resource'] for r in rows) or _('nothing')


def _nothing() -> None:
    return None


@dataclasses.dataclass(eq=False)
class Control:
    """The running operation of ``stack``, driven from the editor.

    ``resumed(reason, rows)`` is told before every release (the threads
    of ``rows`` go); ``cancel()`` cancels the operation. ``edits``: what
    was saved or set while stopped (:mod:`.edits`), applied before the
    next resume; ``remap()`` reads the files again. ``ours``: what the
    buttons armed (pause, step out), disarmed when the editor leaves.
    """

    manager: bp_v1.BreakpointManager
    stack: str
    holds: dap_holds.Holds
    tmap: typing.Optional[lines.TemplateMap]
    say: typing.Callable
    resumed: typing.Callable
    cancel: typing.Callable
    edits: typing.Any = None
    remap: typing.Callable[[], typing.Any] = _nothing
    ours: set = dataclasses.field(default_factory=set, init=False)

    def apply_saved(self) -> bool:
        """Apply what was saved or set while stopped; whether any was.

        Refused (Heat's words, nothing applied): the request fails and
        the session stays stopped where it was.
        """
        edit = self.edits.pending() if self.edits is not None else None
        if not edit:
            return False
        with self.holds.lock:
            # No refresh may take the edit's in-between states for stops
            # of their own (the held resource released as superseded,
            # then held again by the new operation): one under way now
            # or started during it is read again after it.
            self.holds.generation += 1
            try:
                held = self.manager.edit(self.stack, edit, self.say)
            except exceptions.USER_ERRORS as exc:
                raise ControlError(exceptions.one_line(exc))
            # The new operation's holds: their hooks, their times.
            for row in held:
                if row['resource'] in self.holds.held:
                    self.holds.held[row['resource']] = row
            # And a refresh that read the stack meanwhile reads it again.
            self.holds.generation += 1
        self.tmap = self.remap() or self.tmap
        self.edits.applied(self.tmap)
        return True

    def release(self, rows, how=protocol.RELEASE_CLEAR) -> None:
        for row in rows:
            try:
                self.manager.release(self.stack, row['resource'], how, [row])
            except exceptions.USER_ERRORS as exc:
                self.say(exceptions.one_line(exc), 'stderr')

    def continue_(self, tid, single) -> None:
        self.apply_saved()
        rows = self.holds.rows(tid, single)
        self.resumed(None, rows)
        self.release(rows, protocol.RELEASE_RESUME)

    def step(self, tid) -> None:
        self.apply_saved()
        rows = self.holds.rows(tid)
        if not rows:
            raise ControlError(_('nothing is held'))
        self.resumed('step', rows)
        for row in rows:
            self.manager.step(self.stack, row['resource'])

    def step_out(self, tid) -> None:
        self.apply_saved()
        rows = self.holds.rows(tid)
        self.resumed('step', rows)
        for row in rows:
            parent = row['resource'].rpartition('/')[0]
            if parent and self.tmap is not None:
                for name in self.tmap.successors(parent):
                    if not editor_breakpoints.is_pattern(name):
                        self._try_set(name)
        self.release(rows)

    def _try_set(self, name):
        try:
            result = self.manager.set(self.stack, name)
            if result == bp_v1.ARMED:
                self.ours.add(name)
            return result
        except exceptions.USER_ERRORS as exc:
            self.say(exceptions.one_line(exc), 'stderr')
            return None

    def take_exit(self, way, path) -> None:
        """Take exit ``way`` (a :class:`kinds.Exit`) out of ``path``'s hold.

        Refused before the thread goes (the exit's words); with an edit
        saved and an exit that takes a fix first, the fix's update does
        it itself.
        """
        rows = [row for row in self.holds.rows(None, single=False)
                if row['resource'] == path]
        self.manager.exit_holds(self.stack, path, way)
        # A resource that may hold again there is a step's next stop.
        reason = 'step' if way.holds_again else None
        if way.fix_first and self.edits is not None and \
                self.edits.pending():
            self.apply_saved()
            self.resumed(reason, rows)
            self.say(_('%s with the saved edit') % (_(way.doing) % path))
            return
        self.resumed(reason, rows)
        self.manager.take_exit(self.stack, path, way)
        self.say(_(way.said) % path)

    def retry(self, path) -> None:
        """Restart frame: ``breakpoint retry``."""
        self.take_exit(kinds.RETRY, path)

    def pause(self) -> None:
        if self.tmap is None:
            raise ControlError(_('pause needs the launched template'))
        armed = []
        for name in sorted(self.tmap.paths):
            if editor_breakpoints.is_pattern(name) or \
                    name in self.holds.held:
                continue
            try:
                if self.manager.set(self.stack, name) == bp_v1.ARMED:
                    armed.append(name)
                    self.ours.add(name)
                    self.holds.reason_at[name] = 'pause'
            except exceptions.USER_ERRORS:
                pass  # done or running already: nothing to hold there
        self.say(_('pause: holding %s before they start') % (
            ', '.join(armed) or _('nothing (every resource has started)')))

    # -- the Debug Console

    def evaluate(self, text):
        """Do what the watch prompt would do; say what was done."""
        held = self.holds.sorted_rows()
        try:
            verb, arg = answers.parse_answer(text, held)
        except answers.AnswerError as exc:
            raise ControlError(exceptions.one_line(exc))
        if verb == answers.STEP:
            rows = [r for r in held if r['resource'] == arg]
            self.resumed('step', rows)
            return _('stepped from %s') % _names(
                self.manager.step(self.stack, arg))
        if verb == answers.RELEASE:
            rows = [r for r in held if r['resource'] in arg]
            self.resumed(None, rows)
            self.release(rows)
            return _('released %s') % _names(rows)
        if verb == answers.CONTINUE:
            self.resumed(None, held)
            return _('released %s (continue); no breakpoint holds for the '
                     'rest of this operation') % _names(
                         self.manager.continue_(self.stack))
        if verb == answers.TO:
            self.resumed(None, [r for r in held if r['resource'] != arg])
            return _('running to %(to)s: released %(names)s') % {
                'to': arg,
                'names': _names(self.manager.continue_(self.stack, to=arg))}
        if verb == answers.SET:
            return _('%(name)s: %(result)s') % {
                'name': arg, 'result': self.manager.set(self.stack, arg)}
        if verb == answers.CLEAR:
            _rows, result = self.manager.clear(self.stack, arg)
            return _('cleared %(name)s (%(result)s)') % {
                'name': arg, 'result': result}
        way = kinds.own_exit(verb)
        if way is not None:
            self.take_exit(way, arg)
            return _(way.doing) % arg
        if verb == answers.HELP:
            return '\n'.join(answers.HELP_LINES)
        if verb == answers.CANCEL:
            self.cancel()
            return _('cancelled')
        return _('use the editor\'s Stop or Disconnect to leave')

    def hover(self, word) -> str:
        """The state of the resources a word of the template names."""
        paths = [path for path in (self.tmap.paths if self.tmap else {})
                 if path.rsplit('/', 1)[-1] == word and
                 not editor_breakpoints.is_pattern(path)] or [word]
        found = []
        for path in paths[:5]:
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
            raise ControlError(_('%s is no resource of this stack') % word)
        return '; '.join(found)
