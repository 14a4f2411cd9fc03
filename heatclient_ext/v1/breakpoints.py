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
"""The breakpoint API both CLIs call: one manager over a heatclient Client.

Listing is cheap on purpose. A Heat with heat-breakpoint answers
``GET /stacks/{stack}/breakpoints`` (what is held and armed, at any depth,
and with ``?resource=`` one resource in full) in one request; that is what
list, show, step, continue, set, clear and wait read, and the engine
decides with the same rules. Against a Heat without that view (stock
Heat, or an older plugin) the manager works it out from the stock API
(:mod:`heatclient_ext.v1.stock`).
"""

import argparse
import collections
import time
import urllib.parse

from heatclient.common import template_utils
from heatclient import exc as heat_exc

from heat_breakpoint import breakpoints
from heat_breakpoint import reasons
from heat_breakpoint import registry
from heat_breakpoint import secrets
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import environment
from heatclient_ext.v1 import stock

ARMED = 'armed'
HELD = 'held'
MASK = secrets.MASK


COLUMNS = ('resource', 'action', 'when', 'state', 'why', 'source',
           'held_since', 'timeout_remaining')
SHOW_KEYS = ('resource', 'stack', 'breakpoint', 'actions', 'when', 'state',
             'why', 'source', 'action', 'held_since', 'timeout_remaining',
             'resource_status', 'resource_status_reason', 'simulated',
             'inputs',
             'attributes', 'error', 'requires', 'required_by', 'next', 'event',
             'change')
# What the view's rows and resources may say besides held and armed.
DISARMED = 'disarmed'
DONE = 'done'
WAITING = 'waiting'
# What set and clear report when there was nothing to change.
ALREADY_HELD = 'already held'
#: What a cancel made of the operation (:meth:`BreakpointManager.cancel`).
CANCEL_ROLLBACK = 'rollback'
CANCEL_DELETE = 'delete'
#: Seconds a cancelled create may take to stop before it is deleted.
CANCEL_STOP_WAIT = 20
ALREADY_ARMED = 'already armed'
ALREADY_DISARMED = 'already disarmed'


def row_value(row, key):
    """A row's value; rows of an older server lack the newer keys."""
    if key == 'when':
        return row.get(key) or breakpoints.BEFORE
    return row.get(key) or ''


#: What ``set`` suggests for a stack with no operation running.
NEXT_OPERATION = ('openstack stack update --existing --breakpoint %(name)s '
                  '%(stack)s')


def depth_argument(text):
    """argparse type of ``--nested-depth``: a whole number from 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            _('must be a whole number from 0, got %r') % text)
    return value


def held_text(rows):
    """``'a (CREATE), outer/b (CREATE)'``: what a wait stopped at."""
    return ', '.join('%s (%s)' % (row['resource'], row['action'])
                     for row in rows)


# The stack as the breakpoints view describes it: enough for the commands.
StackSummary = collections.namedtuple('StackSummary',
                                      ('id', 'stack_name', 'stack_status'))


def _error(message, **values):
    return exceptions.BreakpointCommandError(message % values)


def _server_words(exc):
    """What the server said, without heatclient's ``ERROR:`` prefix."""
    text = exceptions.one_line(exc)
    return text[len('ERROR: '):] if text.startswith('ERROR: ') else text


def _is_pattern(name):
    return any(c in name for c in '*?[')


def _running(stack):
    return (stack.stack_status or '').endswith('_IN_PROGRESS')


def _ident(stack):
    return '%s/%s' % (stack.stack_name, stack.id)


def update_note(stack_name, name, rows):
    """What removing ``name`` from an idle stack's environment will do.

    Heat stores an environment only with a stack update, and that update
    walks the stack's resources: the other breakpoints armed for updates
    hold it.
    """
    meets = sorted({row['breakpoint'] for row in rows
                    if row['state'] == ARMED and row['breakpoint'] != name
                    and 'UPDATE' in (row['action'] or '').split(',')})
    text = _('Stack %(stack)s has no operation running: removing breakpoint '
             '%(name)s from its stored environment runs a stack update '
             '(--existing) now') % {'stack': stack_name, 'name': name}
    if meets:
        return '%s; %s' % (text, _('it will hold at: %s') % ', '.join(meets))
    return '%s; %s' % (text, _('no other breakpoint will hold it'))


class BreakpointManager(stock.StockListing):
    """Breakpoints of stacks, over a heatclient v1 ``Client``.

    Through the breakpoints view where the server has it; the rest
    (:class:`stock.StockListing`) works them out from the stock API.
    """

    def __init__(self, client):
        self.client = client

    # -- look-ups -----------------------------------------------------------

    def get_stack(self, stack):
        try:
            return self.client.stacks.get(stack, resolve_outputs=False)
        except heat_exc.HTTPNotFound:
            raise _error(_('Stack not found: %(stack)s'), stack=stack)

    def armed(self, stack_ident):
        """Breakpoints of the stored environment, hand-set pre-hooks too."""
        return registry.armed(self.client.stacks.environment(stack_ident))

    def view(self, stack, nested_depth=None, resource=None, full=False):
        """``(stack, rows)`` from the server's breakpoints view, or None.

        None when the server has no such view (stock Heat, or heat-api
        without our filter): the caller then works the rows out itself.
        With ``resource`` (a path), ``full`` gives ``(stack, rows,
        described resource)``; the server refuses a path that cannot
        name a resource of the stack's tree, with the closest names.
        """
        path = '/stacks/%s/breakpoints' % urllib.parse.quote(stack, safe='/')
        query = {}
        if nested_depth is not None:
            query['nested_depth'] = str(nested_depth)
        if resource is not None:
            query['resource'] = resource
        if query:
            path += '?' + urllib.parse.urlencode(query)
        try:
            body = self.client.http_client.get(path).json()
        except heat_exc.HTTPNotFound:
            # A missing stack, or no view here: the fallback tells which.
            return None
        except heat_exc.HTTPBadRequest as exc:
            if resource is None:
                raise _error(_('Cannot list breakpoints of %(stack)s: '
                               '%(reason)s'), stack=stack,
                             reason=_server_words(exc))
            raise _error('%(reason)s', reason=_server_words(exc))
        except heat_exc.HTTPException as exc:
            raise _error(_('Cannot list breakpoints of %(stack)s: '
                           '%(reason)s'), stack=stack,
                         reason=exceptions.one_line(exc))
        except ValueError:
            return None
        if not isinstance(body, dict) or 'breakpoints' not in body:
            return None
        found = body.get('stack') or {}
        summary = StackSummary(found.get('id'), found.get('stack_name'),
                               found.get('stack_status'))
        if full:
            return summary, list(body['breakpoints']), body.get('resource')
        return summary, list(body['breakpoints'])

    def describe(self, stack, name):
        """``(stack, rows, resource)`` from the view, or None without it.

        ``resource`` says what the running operation does at ``name``:
        its ``state`` (held, armed, disarmed, done, waiting), the rule
        that decides it, its inputs if held, its neighbours.
        """
        breakpoints.parse_name(name)  # the model's words for a bad name
        if _is_pattern(name):
            raise _error(_('%(name)s is a pattern: give one resource path'),
                         name=name)
        found = self.view(stack, resource=name, full=True)
        if found is None or found[2] is None:
            return None
        return found

    def current(self, stack, nested_depth=None):
        """``(stack, rows)``: held rows first, then armed ones."""
        found = self.view(stack, nested_depth)
        if found is not None:
            return found
        st = self.get_stack(stack)
        armed = self.armed(_ident(st))
        rows = self.held(st, armed, nested_depth)
        return st, rows + self._armed_rows(st, armed, rows)

    def list(self, stack, nested_depth=None):
        """Armed and held breakpoints of a stack, as rows (dicts).

        A held row names the resource; an armed row names the breakpoint
        (possibly a pattern) and its actions.
        """
        return self.current(stack, nested_depth)[1]

    def held_now(self, stack, nested_depth=None):
        """``(stack, held rows)``."""
        st, rows = self.current(stack, nested_depth)
        return st, [row for row in rows if row['state'] == HELD]

    def show(self, stack, name, nested_depth=None):
        """One resource: what the operation does there, inputs, neighbours.

        The view describes it (held, armed, disarmed, done; the rule that
        decides it; the hit's inputs as the engine masked them). Without
        the view it is worked out from the resource and event lists;
        there ``nested_depth`` limits how deep the resource is looked for
        (default: the depth its path names).
        """
        described = self.describe(stack, name)
        if described is not None:
            st, _rows, found = described
            if found['state'] == WAITING:
                raise _error(_('No breakpoint on %(name)s in stack '
                               '%(stack)s'), name=name,
                             stack=st.stack_name)
            return {key: found.get(key) for key in SHOW_KEYS}
        return self._stock_show(stack, name, nested_depth)

    def release(self, stack, name=None, how=reasons.RELEASE_CONTINUE,
                rows=None, extra=None):
        """Release held resources (all, or the one at ``name``).

        ``extra``: more of what the release says (a continue's depth).
        """
        if rows is None:
            rows = self.held_now(stack)[1]
        held = [row['resource'] for row in rows]
        if name is not None:
            rows = [row for row in rows if row['resource'] == name]
        if not rows:
            if name is None:
                raise _error(_('Nothing is held in stack %(stack)s'),
                             stack=stack)
            self.describe(stack, name)  # a name that cannot exist: say so
            raise _error(_('Nothing is held at %(name)s in stack %(stack)s'
                           ' (held: %(held)s)'), name=name, stack=stack,
                         held=', '.join(held) or _('nothing'))
        for row in rows:
            self._signal(row, how, extra)
        return rows

    def _signal(self, row, how, extra=None):
        data = dict(extra or {})
        data.update({'unset_hook': row['hook'], reasons.SIGNAL_KEY: how})
        try:
            self.client.resources.signal(
                stack_id=row['stack'], resource_name=row['resource_name'],
                data=data)
        except heat_exc.HTTPException as exc:
            raise _error(_('Cannot release %(name)s: %(reason)s'),
                         name=row['resource'],
                         reason=exceptions.one_line(exc))

    def continue_(self, stack, nested_depth=None, to=None):
        """Release every held resource, nested ones too.

        With the engine plugin the rest of the operation ignores its
        breakpoints (all but ``to``, when given); stock Heat still holds
        at them (rows say ``form``).
        """
        st, found = self.current(stack, nested_depth)
        rows = [row for row in found if row['state'] == HELD]
        # The engine disarms the breakpoints this many levels down only.
        extra = {} if nested_depth is None else {
            reasons.SIGNAL_DEPTH_KEY: nested_depth}
        if to is None and not rows and _running(st) and \
                self.view(_ident(st)) is not None:
            # Nothing held yet: the engine disarms every breakpoint for
            # the rest of the operation; the armed rows say which.
            self._continue_command(st, extra)
            armed = [row for row in found if row['state'] == ARMED]
            # A hold parked while the command was on its way is released
            # too; none parks after it.
            late = [row for row in self.current(stack, nested_depth)[1]
                    if row['state'] == HELD]
            if late:
                late = self.release(stack, how=reasons.RELEASE_CONTINUE,
                                    rows=late, extra=extra)
            return armed + late
        if to is None:
            return self.release(stack, how=reasons.RELEASE_CONTINUE,
                                rows=rows, extra=extra)
        self._require_plugin(rows, 'continue --to')
        found = self._runtime_state(stack, to, 'continue --to')
        if found is not None and found['state'] == DONE:
            raise _error(_('%(name)s is already done in this operation: '
                           'nothing released'), name=to)
        self.command(st, to, 'to')
        rows = [row for row in rows if row['resource'] != to]
        for row in rows:
            self._signal(row, reasons.RELEASE_RUN_TO)
        return rows

    def _continue_command(self, st, extra=None):
        data = dict(extra or {})
        data[reasons.COMMAND_KEY] = 'continue'
        try:
            self.client.resources.signal(
                stack_id=_ident(st), resource_name=st.stack_name,
                data=data)
        except heat_exc.HTTPException as exc:
            raise _error('%(reason)s', reason=_server_words(exc))

    def _runtime_state(self, stack, name, what):
        """What the running operation does at ``name`` (the view's word).

        Refuses when nothing is running, or when ``name`` cannot name a
        resource of the stack's tree. None without the view.
        """
        described = self.describe(stack, name)
        if described is None:
            # No view: the resource must exist now, as stock Heat needs.
            self._find(_ident(self.get_stack(stack)), name, None)
            return None
        st, _rows, found = described
        if not _running(st):
            raise _error(_('Nothing is running in stack %(stack)s '
                           '(%(status)s): %(what)s applies to a running '
                           'operation'), stack=st.stack_name,
                         status=st.stack_status, what=what)
        return found

    def command(self, stack, name, kind, when=breakpoints.BEFORE):
        """Change the running operation at ``name``: set, clear or to.

        Sent to the stack the user named with the resource's path, which
        may reach into nested stacks the operation has not reached yet.
        """
        st = stack if hasattr(stack, 'stack_status') else \
            self.get_stack(stack)
        bp = breakpoints.parse_name(name)
        if _is_pattern(name) and kind != 'clear':
            raise _error(_('%(name)s is a pattern: give one resource path'),
                         name=name)
        data = {reasons.COMMAND_KEY: kind, reasons.COMMAND_PATH_KEY: name}
        if when != breakpoints.BEFORE:
            data[reasons.COMMAND_WHEN_KEY] = when
        try:
            self.client.resources.signal(
                stack_id=_ident(st), resource_name=bp.segments[0],
                data=data)
        except heat_exc.HTTPException as exc:
            raise _error('%(reason)s', reason=_server_words(exc))

    def set(self, stack, name, when=breakpoints.BEFORE,
            next_operation=NEXT_OPERATION):
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
        found = self.view(stack)
        st = found[0] if found is not None else self.get_stack(stack)
        if not _running(st):
            raise _error(_('Stack %(stack)s has no operation in progress: '
                           'use "%(command)s" for the next one'),
                         stack=st.stack_name, command=next_operation % {
                             'name': name, 'stack': st.stack_name})
        found = self._runtime_state(_ident(st), name, 'set')
        if found is not None:
            if found['state'] == DONE:
                raise _error(_('%(name)s is already done in this '
                               'operation: a breakpoint there would never '
                               'hold'), name=name)
            if found['state'] in (HELD, ARMED) and \
                    found.get('when', breakpoints.BEFORE) == when:
                return 'already ' + found['state']
        self.command(st, name, 'set', when)
        return ARMED

    def clear(self, stack, name, announce=None):
        """Release the resource held at ``name``, or disarm ``name``.

        Returns ``(rows, result)`` with result ``'released'``,
        ``'disarmed'`` (for the rest of the running operation) or
        ``'removed'`` (from the stored environment, by a stack update,
        which ``announce(text)`` is told of before it starts).
        """
        st, found = self.current(stack)
        ident = _ident(st)
        rows = [row for row in found
                if row['state'] == HELD and row['resource'] == name]
        if rows:
            return self.release(stack, name, reasons.RELEASE_CLEAR,
                                rows), 'released'
        if _running(st) and not _is_pattern(name):
            described = self.describe(ident, name)
            if described is not None:
                state = described[2]['state']
                if state == DISARMED:
                    return [], ALREADY_DISARMED
                if state == DONE:
                    raise _error(_('%(name)s is already done in this '
                                   'operation: nothing to clear'),
                                 name=name)
                if state != ARMED:
                    raise _error(_('No breakpoint on %(name)s in stack '
                                   '%(stack)s'), name=name,
                                 stack=st.stack_name)
                self.command(st, name, 'clear')
                return [], 'disarmed'
        if name not in {row['breakpoint'] for row in found
                        if row['state'] == ARMED}:
            raise _error(_('No breakpoint %(name)s in stack %(stack)s'),
                         name=name, stack=st.stack_name)
        if _running(st):
            self.command(st, name, 'clear')
            return [], 'disarmed'
        if announce is not None:
            announce(update_note(st.stack_name, name, found))
        self.update_environment(ident, remove=[name])
        return [], 'removed'

    def step(self, stack, name=None):
        """Release held resources and hold at the next ones.

        The next ones are the resources that wait for them in the same
        operation (for a delete, the resources they require).
        """
        rows = self.held_now(stack)[1]
        self._require_plugin(rows, 'step')
        if name is None:
            # A held failure is not stepped from (retry, continue, clear).
            rows = [row for row in rows if row_value(row, 'when') !=
                    breakpoints.FAILED] or rows
        return self.release(stack, name, reasons.RELEASE_STEP, rows)

    def retry(self, stack, name):
        """Run the failed action of the resource held at ``name`` again.

        In the same operation; if it fails again, it holds again.
        """
        rows = [row for row in self.held_now(stack)[1]
                if row['resource'] == name]
        for row in rows:
            when = row_value(row, 'when') or breakpoints.BEFORE
            if when != breakpoints.FAILED:
                raise _error(_('%(name)s is held %(when)s %(action)s, not '
                               'on its failure: retry applies to a '
                               'resource held on failure'), name=name,
                             when=when, action=row['action'])
        return self.release(stack, name, reasons.RELEASE_RETRY, rows or None)

    def cancel(self, stack, held=(), wait=CANCEL_STOP_WAIT,
               sleep=time.sleep):
        """Cancel the stack's running operation; what it became.

        An update is cancelled as ``openstack stack cancel`` cancels it:
        Heat rolls it back (:data:`CANCEL_ROLLBACK`). Heat refuses that
        for a create, and has no API to roll a create back: the create
        is stopped (``openstack stack cancel --no-rollback``) and the
        stack deleted, which is what Heat's own rollback of a failed
        create leaves (:data:`CANCEL_DELETE`). Either way the ``held``
        rows are then released, so that nothing stays parked (the
        engine ends them as cancelled: no forward work resumes).

        Returns ``(what, released rows)``. Every front end cancels
        through here, so that a cancel means the same everywhere.
        """
        st = self.get_stack(stack)
        ident = _ident(st)
        status = st.stack_status or ''
        if not _running(st):
            raise _error(_('Nothing is running in stack %(stack)s '
                           '(%(status)s): nothing to cancel'),
                         stack=st.stack_name, status=status)
        creating = status.startswith('CREATE')
        try:
            if creating:
                self.client.actions.cancel_without_rollback(ident)
            else:
                self.client.actions.cancel_update(ident)
        except heat_exc.HTTPException as exc:
            raise _error(_('Cannot cancel: %(reason)s'),
                         reason=_server_words(exc))
        released = []
        for row in held:
            try:
                self.release(ident, row['resource'], reasons.RELEASE_CLEAR,
                             [row])
                released.append(row)
            except exceptions.USER_ERRORS:
                pass  # the cancel already let it go
        if not creating:
            return CANCEL_ROLLBACK, released
        # The stopped create: its traversal ends at once; delete after.
        deadline = time.monotonic() + wait
        while _running(self.get_stack(ident)) and \
                time.monotonic() < deadline:
            sleep(0.2)
        try:
            self.client.stacks.delete(ident)
        except heat_exc.HTTPException as exc:
            raise _error(_('Cancelled the create of %(stack)s, but cannot '
                           'delete it: %(reason)s'), stack=st.stack_name,
                         reason=_server_words(exc))
        return CANCEL_DELETE, released

    @staticmethod
    def _require_plugin(rows, what):
        if any(row['form'] == 'hook' for row in rows):
            raise _error(_('%(what)s needs the heat-breakpoint engine plugin'
                           '; this Heat holds at native hooks only: use '
                           '"continue" or "clear"'), what=what)

    # -- environment ----------------------------------------------------------

    def prepare_environment(self, env_paths, add=(), remove=(), stack=None,
                            existing=False, template_names=None,
                            extra_hooks=()):
        """The environment files to send; see :mod:`.environment`."""
        return environment.prepare(self.client, env_paths, add, remove,
                                   stack, existing, template_names,
                                   extra_hooks)

    def update_environment(self, stack_ident, add=(), remove=()):
        """PATCH the stored environment: the stack's template is kept."""
        prepared = self.prepare_environment([], add, remove, stack_ident,
                                            existing=True)
        try:
            tracker = []
            files, env = (
                template_utils.process_multiple_environments_and_files(
                    env_paths=prepared.paths, env_list_tracker=tracker))
            self.client.stacks.update(
                stack_id=stack_ident, existing=True, template=None,
                parameters={}, files=files, environment=env,
                environment_files=tracker)
        finally:
            prepared.cleanup()

    # -- waiting --------------------------------------------------------------

    def wait(self, stack, poll=5, sleep=time.sleep):
        """Wait until the stack is held at a breakpoint or finished.

        Returns ``(stack, held_rows)``; ``held_rows`` is empty when the
        operation finished.
        """
        st = self.get_stack(stack)
        while True:
            if not (st.stack_status or '').endswith('_IN_PROGRESS'):
                return st, []
            rows = self.held_now(_ident(st))[1]
            if rows:
                return st, rows
            sleep(poll)
            st = self.get_stack(_ident(st))
