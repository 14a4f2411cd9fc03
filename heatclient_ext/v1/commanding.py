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
"""Changing what a running operation does: release, step, set, clear.

A release is a signal to the held resource (``unset_hook`` plus our
words); a command (set, clear, to, continue) a signal to the stack the
user named, carried to the engine in the protocol's keys.
"""

import typing

from heatclient import exc as heat_exc

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heat_breakpoint.model import protocol
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import stored_environment
from heatclient_ext.v1 import terms
from heatclient_ext.v1 import viewing


def armed_whens(rows, name: str, described: dict, action: str) -> list:
    """When the breakpoints armed on resource ``name`` hold, in order.

    From the view's rows (one per resource and ``when``) and what the
    view says of ``name`` itself (a pattern's rule names no resource);
    only the kinds that can hold in a running ``action`` (an update's
    ``changed`` is no kind of a create), or ``before`` where none can.
    """
    whens = {terms.row_value(row, 'when') for row in rows
             if row['state'] == terms.ARMED and row['resource'] == name}
    if described.get('state') == terms.ARMED:
        whens.add(terms.row_value(described, 'when'))
    found = [when for when in breakpoints.WHENS if when in whens and
             action.lower() in breakpoints.WHEN_ACTIONS[when]]
    return found or ([breakpoints.BEFORE] if whens else [])


def _exit(way) -> kinds.Exit:
    """An exit, from itself or its name (one the table declares)."""
    if isinstance(way, kinds.Exit):
        return way
    found = next((each for each in kinds.EXITS if each.name == way), None)
    if found is None:
        raise terms.error(_('No way out of a hold is called %(name)s'),
                          name=way)
    return found


def _refused(words, way, row, when) -> Exception:
    """The error of exit ``way`` refused by the hold of ``row``."""
    return terms.error(_(words), name=row['resource'], when=when,
                       action=row['action'], what=way.name)


def _engine_lost(exc) -> bool:
    """heat-api's answer when the heat-engine it asked never answered."""
    error = getattr(exc, 'error', None) or {}
    kind = (error.get('error') or {}).get('type') if isinstance(
        error, dict) else None
    return kind in ('MessagingTimeout', 'MessageDeliveryFailure')


class Commands:
    """The commands; what they read, through ``reader``.

    ``stored`` is the stack's stored environment, which a clear changes
    when nothing is running.
    """

    def __init__(self, client, reader: viewing.Reader,
                 stored: stored_environment.StoredEnvironment) -> None:
        self.client = client
        self.reader = reader
        self.stored = stored

    def release(self, stack, name=None, how=protocol.RELEASE_CONTINUE,
                rows=None, extra=None) -> list:
        """Release held resources (all, or the one at ``name``).

        ``extra``: more of what the release says (a continue's depth).
        """
        if rows is None:
            rows = self.reader.held_now(stack)[1]
        held = [row['resource'] for row in rows]
        if name is not None:
            rows = [row for row in rows if row['resource'] == name]
        if not rows:
            if name is None:
                raise terms.error(_('Nothing is held in stack %(stack)s'),
                                  stack=stack)
            # A name that cannot exist: the reader says so.
            self.reader.describe(stack, name)
            raise terms.error(
                _('Nothing is held at %(name)s in stack %(stack)s'
                  ' (held: %(held)s)'), name=name, stack=stack,
                held=', '.join(held) or _('nothing'))
        for row in rows:
            self._signal(row, how, extra, stack)
        return rows

    def _signal(self, row, how, extra=None, stack=None) -> None:
        data = dict(extra or {})
        data.update({'unset_hook': row['hook'], protocol.SIGNAL_KEY: how})
        if row.get('form') == 'plugin' and row.get('held_since'):
            # Only this hold: sent again, it releases no hold made since.
            data[protocol.SIGNAL_HELD_SINCE_KEY] = row['held_since']
        try:
            self.client.resources.signal(
                stack_id=row['stack'], resource_name=row['resource_name'],
                data=data)
        except heat_exc.HTTPException as exc:
            if _engine_lost(exc):
                raise terms.error(
                    _('Cannot tell whether %(name)s was released: the '
                      'heat-engine that took the command stopped answering '
                      '(%(type)s); %(now)s'), name=row['resource'],
                    type=exc.error['error'].get('type'),
                    now=self._still_held(stack or row['stack'], row))
            raise terms.error(_('Cannot release %(name)s: %(reason)s'),
                              name=row['resource'],
                              reason=exceptions.one_line(exc))

    def _still_held(self, stack, row) -> str:
        """After a lost answer: whether the hold is still there."""
        try:
            rows = self.reader.held_now(stack)[1]
        except (exceptions.BreakpointCommandError,
                heat_exc.HTTPException) as exc:
            return _('its state cannot be read either (%s)') % \
                exceptions.one_line(exc)
        same = [found for found in rows
                if found['resource'] == row['resource'] and
                found.get('held_since') == row.get('held_since')]
        if same:
            return _('it is still held: the release did not take effect; '
                     'send it again')
        return _('it is no longer held: the release took effect (sent '
                 'again, it would release nothing)')

    def continue_(self, stack, nested_depth=None, to=None) -> list:
        """Release every held resource, nested ones too.

        With the engine plugin the rest of the operation ignores its
        breakpoints (all but ``to``, when given); stock Heat still holds
        at them (rows say ``form``).
        """
        st, found = self.reader.current(stack, nested_depth)
        rows = [row for row in found if row['state'] == terms.HELD]
        # The engine disarms the breakpoints this many levels down only.
        extra = {} if nested_depth is None else {
            protocol.SIGNAL_DEPTH_KEY: nested_depth}
        if to is None and not rows and terms.running(st) and \
                self.reader.view(terms.ident(st)) is not None:
            # Nothing held yet: the engine disarms every breakpoint for
            # the rest of the operation; the armed rows say which.
            self._continue_command(st, extra)
            armed = [row for row in found if row['state'] == terms.ARMED]
            # A hold parked while the command was on its way is released
            # too; none parks after it.
            late = [row for row in self.reader.current(stack, nested_depth)[1]
                    if row['state'] == terms.HELD]
            if late:
                late = self.release(stack, how=protocol.RELEASE_CONTINUE,
                                    rows=late, extra=extra)
            return armed + late
        if to is None:
            return self.release(stack, how=protocol.RELEASE_CONTINUE,
                                rows=rows, extra=extra)
        self._require_plugin(rows, 'continue --to')
        found = self._runtime_state(stack, to, 'continue --to')
        if found is not None and found['state'] == terms.DONE:
            raise terms.error(_('%(name)s is already done in this operation: '
                                'nothing released'), name=to)
        self.command(st, to, 'to')
        rows = [row for row in rows if row['resource'] != to]
        for row in rows:
            self._signal(row, protocol.RELEASE_RUN_TO, stack=stack)
        return rows

    def _continue_command(self, st, extra=None) -> None:
        data = dict(extra or {})
        data[protocol.COMMAND_KEY] = 'continue'
        try:
            self.client.resources.signal(
                stack_id=terms.ident(st), resource_name=st.stack_name,
                data=data)
        except heat_exc.HTTPException as exc:
            raise terms.error('%(reason)s', reason=terms.server_words(exc))

    def _runtime_state(self, stack, name, what) -> typing.Optional[dict]:
        """What the running operation does at ``name`` (the view's word).

        Refuses when nothing is running, or when ``name`` cannot name a
        resource of the stack's tree. None without the view.
        """
        described = self.reader.describe(stack, name)
        if described is None:
            # No view: the resource must exist now, as stock Heat needs.
            st = self.reader.get_stack(stack)
            self.reader.stock.find_resource(terms.ident(st), name, None)
            return None
        st, _rows, found = described
        if not terms.running(st):
            raise terms.error(_('Nothing is running in stack %(stack)s '
                                '(%(status)s): %(what)s applies to a running '
                                'operation'), stack=st.stack_name,
                              status=st.stack_status, what=what)
        return found

    def command(self, stack, name, kind, when=breakpoints.BEFORE) -> None:
        """Change the running operation at ``name``: set, clear or to.

        Sent to the stack the user named with the resource's path, which
        may reach into nested stacks the operation has not reached yet.
        """
        st = stack if hasattr(stack, 'stack_status') else \
            self.reader.get_stack(stack)
        bp = breakpoints.parse_name(name)
        if terms.is_pattern(name) and kind != 'clear':
            raise terms.error(
                _('%(name)s is a pattern: give one resource path'),
                name=name)
        data = {protocol.COMMAND_KEY: kind, protocol.COMMAND_PATH_KEY: name}
        if when != breakpoints.BEFORE:
            data[protocol.COMMAND_WHEN_KEY] = when
        try:
            self.client.resources.signal(
                stack_id=terms.ident(st), resource_name=bp.segments[0],
                data=data)
        except heat_exc.HTTPException as exc:
            raise terms.error('%(reason)s', reason=terms.server_words(exc))

    def set(self, stack, name, when=breakpoints.BEFORE,
            next_operation=terms.NEXT_OPERATION) -> str:
        """Arm a breakpoint at ``name`` in the running operation.

        ``when``: hold before the resource's action (default), after it,
        on its failure, or before an update that changes or replaces it.
        ``next_operation`` is the command (with ``%(name)s`` and
        ``%(stack)s``) suggested for a stack with no operation running, in
        the calling shell's spelling.

        Returns ``'armed'``, or ``'already held'`` / ``'already armed'``
        when there was nothing to do; refuses a resource already done.
        """
        # The stack as the view describes it, where there is one: its
        # errors say why it cannot answer (heat-engine without its
        # database), where Heat's stack look-up says "Internal Error".
        found = self.reader.view(stack)
        st = found[0] if found is not None else self.reader.get_stack(stack)
        if not terms.running(st):
            raise terms.error(
                _('Stack %(stack)s has no operation in progress: '
                  'use "%(command)s" for the next one'),
                stack=st.stack_name, command=next_operation % {
                    'name': name, 'stack': st.stack_name})
        found = self._runtime_state(terms.ident(st), name, 'set')
        if found is not None:
            if found['state'] == terms.DONE:
                raise terms.error(_('%(name)s is already done in this '
                                    'operation: a breakpoint there would '
                                    'never hold'), name=name)
            if found['state'] in (terms.HELD, terms.ARMED) and \
                    found.get('when', breakpoints.BEFORE) == when:
                return 'already ' + found['state']
        self.command(st, name, 'set', when)
        return terms.ARMED

    def clear(self, stack, name, announce=None) -> tuple:
        """Release the resource held at ``name``, or disarm ``name``.

        Returns ``(rows, result)`` with result ``'released'``,
        ``'disarmed'`` (for the rest of the running operation) or
        ``'removed'`` (from the stored environment, by a stack update,
        which ``announce(text)`` is told of before it starts).
        """
        st, found = self.reader.current(stack)
        ident = terms.ident(st)
        rows = [row for row in found
                if row['state'] == terms.HELD and row['resource'] == name]
        if rows:
            return self.release(stack, name, protocol.RELEASE_CLEAR,
                                rows), 'released'
        if terms.running(st) and not terms.is_pattern(name):
            described = self.reader.describe(ident, name)
            if described is not None:
                whens = armed_whens(found, name, described[2],
                                    (st.stack_status or '').split('_')[0])
                state = described[2]['state']
                if state == terms.DONE:
                    raise terms.error(_('%(name)s is already done in this '
                                        'operation: nothing to clear'),
                                      name=name)
                if not whens and state == terms.DISARMED:
                    return [], terms.ALREADY_DISARMED
                if not whens:
                    raise terms.error(_('No breakpoint on %(name)s in stack '
                                        '%(stack)s'), name=name,
                                      stack=st.stack_name)
                # Every breakpoint on it: before, after, on failure...
                for when in whens:
                    self.command(st, name, 'clear', when)
                return [], 'disarmed'
        if name not in {row['breakpoint'] for row in found
                        if row['state'] == terms.ARMED}:
            raise terms.error(_('No breakpoint %(name)s in stack %(stack)s'),
                              name=name, stack=st.stack_name)
        if terms.running(st):
            self.command(st, name, 'clear')
            return [], 'disarmed'
        if announce is not None:
            announce(terms.update_note(st.stack_name, name, found))
        self.stored.update(ident, remove=[name])
        return [], 'removed'

    def step(self, stack, name=None) -> list:
        """Release held resources and hold at the next ones.

        The next ones are the resources that wait for them in the same
        operation (for a delete, the resources they require).
        """
        rows = self.reader.held_now(stack)[1]
        self._require_plugin(rows, 'step')
        if name is None:
            # A held failure is not stepped from (retry, continue, clear).
            rows = [row for row in rows if terms.row_value(row, 'when') !=
                    breakpoints.FAILED] or rows
        return self.release(stack, name, protocol.RELEASE_STEP, rows)

    def exit_holds(self, stack, name, way) -> list:
        """The rows of ``name`` held where exit ``way`` applies.

        ``way``: a :class:`kinds.Exit` or its name. Any other hold of
        ``name`` is refused in the exit's words, as is nothing held there.
        """
        way = _exit(way)
        held = self.reader.held_now(stack)[1]
        rows = [row for row in held if row['resource'] == name]
        for row in rows:
            when = terms.row_value(row, 'when') or breakpoints.BEFORE
            if way.whens is not None and when not in way.whens:
                raise _refused(way.refused_when, way, row, when)
        if not rows:
            # A name that cannot exist: the reader says so.
            self.reader.describe(stack, name)
            raise terms.error(
                _('Nothing is held at %(name)s in stack %(stack)s'
                  ' (held: %(held)s)'), name=name, stack=stack,
                held=', '.join(row['resource'] for row in held) or
                _('nothing'))
        for row in rows:
            if way.actions is not None and \
                    row['action'].lower() not in way.actions:
                raise _refused(way.refused_action, way, row, terms.row_value(
                    row, 'when') or breakpoints.BEFORE)
        return rows

    def take_exit(self, stack, name, way) -> list:
        """Take exit ``way`` (retry, retain...) out of the hold at ``name``.

        What it does is the engine's (:mod:`heat_breakpoint.model.kinds`
        says which holds it ends); returns the rows released.
        """
        way = _exit(way)
        rows = self.exit_holds(stack, name, way)
        self._require_plugin(rows, way.name)
        return self.release(stack, name, way.name, rows)

    def retry(self, stack, name) -> list:
        """Run the failed action of the resource held at ``name`` again.

        In the same operation; if it fails again, it holds again.
        """
        return self.take_exit(stack, name, kinds.RETRY)

    def retain(self, stack, name) -> list:
        """Forget the resource held on the failure of its delete.

        Heat forgets it as ``DeletionPolicy: Retain`` does (the physical
        resource stays in the cloud) and the delete goes on.
        """
        return self.take_exit(stack, name, kinds.RETAIN)

    @staticmethod
    def _require_plugin(rows, what) -> None:
        if any(row['form'] == 'hook' for row in rows):
            raise terms.error(
                _('%(what)s needs the heat-breakpoint engine plugin'
                  '; this Heat holds at native hooks only: use '
                  '"continue" or "clear"'), what=what)
