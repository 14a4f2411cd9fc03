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
"""Fix and go on: an edit applied to the operation that holds.

Heat lets a stack update supersede a running convergence operation: a new
traversal starts, every completed resource is kept (updated or replaced
only where Heat decides so), and the engine plugin's parked holds end
with the old traversal while the new one holds again where the
breakpoints say. An edit is such an update, sent as ``openstack stack
update --existing`` sends it (PATCH: what is not given is kept; a
template given replaces the template). Heat's own update preview says
what it will do before anything is sent, and a preview Heat refuses
(a template that does not parse or validate, an unknown parameter, a
value of the wrong type) refuses the edit with nothing changed.

Front ends call :meth:`Editor.apply` and then the command the user gave
(step, continue, retry) on the holds the new traversal reached.
"""

import time
import typing

from heatclient.common import template_utils
from heatclient.common import utils as heat_utils
from heatclient import exc as heat_exc

from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import terms

# The type Heat's events give a stack itself.
STACK_TYPE = 'OS::Heat::Stack'


def _hold_of(row) -> tuple:
    """What tells one hold of a resource from the next one there."""
    return row.get('held_since'), row.get('action'), row.get('hook')


#: Seconds the new traversal may take to hold again where the old held.
REHOLD_TIMEOUT = 60
#: The kinds of change of Heat's preview, in the order they are told.
PLAN_KINDS = ('added', 'updated', 'replaced', 'deleted')


class Edit(typing.NamedTuple):
    """What the user changes: any of a template, environments, values."""

    template: typing.Optional[str] = None
    environment_files: tuple = ()
    parameters: tuple = ()  # 'KEY=VALUE' texts, as --parameter takes them

    def __bool__(self) -> bool:
        return bool(self.template or self.environment_files or
                    self.parameters)


def edit_of(args) -> Edit:
    """The edit a command line asked for (absent options: no edit)."""
    return Edit(getattr(args, 'template', None),
                tuple(getattr(args, 'environment', None) or ()),
                tuple(getattr(args, 'parameter', None) or ()))


def plan_text(plan: dict) -> str:
    """``updated: vol`` a line per kind of change, as Heat's preview says.

    Nested stacks' resources are named by their path.
    """
    lines = []
    for kind in PLAN_KINDS:
        names = plan.get(kind) or []
        if names:
            lines.append('%s: %s' % (kind, ', '.join(names)))
    return '\n'.join(lines) or _('no resource changes')


def input_changes(old: dict, new: dict) -> str:
    """``size: 1 -> 5; name: "a" -> "b"``: inputs a held resource changed.

    Values as the view gives them (secrets already masked by the engine).
    """
    return '; '.join('%s: %s -> %s' % (key, old.get(key, '-'),
                                       new.get(key, '-'))
                     for key in sorted(set(old) | set(new))
                     if old.get(key) != new.get(key))


def _names(resources) -> list:
    """Resource paths from the preview's entries (nested: lists of them)."""
    found = []
    for entry in resources or ():
        if isinstance(entry, list):
            found.extend(_names(entry))
        elif isinstance(entry, dict) and entry.get('resource_name'):
            found.append(entry['resource_name'])
    return sorted(found)


class Editor:
    """Applies an :class:`Edit` to a running operation.

    ``reader`` (a :class:`.viewing.Reader`, or the manager) reads the
    stack, its rows and a resource's inputs; its ``client`` sends.
    """

    def __init__(self, reader, sleep=time.sleep,
                 clock=time.monotonic) -> None:
        self.reader = reader
        self.client = reader.client
        self.sleep = sleep
        self.clock = clock

    def fields(self, edit: Edit) -> dict:
        """The PATCH update's body, as ``stack update --existing`` sends."""
        try:
            parameters = heat_utils.format_all_parameters(
                list(edit.parameters), None)
        except heat_exc.CommandError as exc:
            raise terms.error(_('Cannot apply the edit: %(reason)s'),
                              reason=exceptions.one_line(exc))
        fields = {'existing': True, 'parameters': parameters}
        try:
            if edit.template:
                files, template = template_utils.get_template_contents(
                    template_file=edit.template)
                fields.update(template=template, files=dict(files))
            if edit.environment_files:
                tracker: list = []
                env_files, env = (
                    template_utils.process_multiple_environments_and_files(
                        env_paths=list(edit.environment_files),
                        env_list_tracker=tracker))
                fields.setdefault('files', {}).update(env_files)
                fields.update(environment=env, environment_files=tracker)
        except (heat_exc.CommandError, heat_exc.HTTPException, OSError,
                ValueError) as exc:
            raise terms.error(_('Cannot apply the edit: %(reason)s'),
                              reason=exceptions.one_line(exc))
        return fields

    def check_parameters(self, ident: str, fields: dict) -> None:
        """Refuse a parameter the template does not declare.

        Heat's preview of a PATCH update passes over one silently; its
        update would too, and the user's fix would never arrive.
        """
        if not fields['parameters']:
            return
        template = fields.get('template')
        if template is None:
            try:
                template = self.client.stacks.template(stack_id=ident)
            except heat_exc.HTTPException as exc:
                raise terms.error(_('Cannot apply the edit: %(reason)s'),
                                  reason=terms.server_words(exc))
        declared = (template or {}).get('parameters') or {}
        unknown = sorted(set(fields['parameters']) - set(declared))
        if unknown:
            raise terms.error(
                _('Cannot apply the edit: the template has no parameter '
                  '%(unknown)s (it has: %(known)s); nothing changed'),
                unknown=', '.join(unknown),
                known=', '.join(sorted(declared)) or _('none'))

    def plan(self, ident: str, fields: dict) -> dict:
        """Heat's update preview of the edit: names by kind of change."""
        try:
            preview = self.client.stacks.preview_update(
                stack_id=ident, show_nested=True, **fields)
        except heat_exc.HTTPException as exc:
            raise terms.error(_('Cannot apply the edit: %(reason)s; '
                                'nothing changed'),
                              reason=terms.server_words(exc).rstrip('.'))
        changes = preview.get('resource_changes', preview) \
            if isinstance(preview, dict) else {}
        return {kind: _names(changes.get(kind)) for kind in PLAN_KINDS}

    def apply(self, stack, edit: Edit, say=lambda text: None,
              timeout: float = REHOLD_TIMEOUT) -> list:
        """Apply ``edit`` to the running operation; the rows held after.

        ``say(text)`` is told the planned change before it is applied.
        Waits until the new traversal holds again at every resource held
        now that the edit keeps (or the operation ends, or ``timeout``).
        """
        st, rows = self.reader.current(stack)
        if not terms.running(st):
            raise terms.error(
                _('Nothing is running in stack %(stack)s (%(status)s): '
                  'an edit applies to a running operation; use "openstack '
                  'stack update --existing"'), stack=st.stack_name,
                status=st.stack_status)
        if (st.stack_status or '').startswith('ROLLBACK'):
            raise terms.error(
                _('Stack %(stack)s is rolling back (%(status)s): the '
                  'operation was cancelled or failed, nothing applied'),
                stack=st.stack_name, status=st.stack_status)
        ident = terms.ident(st)
        # The holds now: the new traversal's are others (another time,
        # action or hook), though the view may list these a moment more.
        held = {row['resource']: _hold_of(row) for row in rows
                if row['state'] == terms.HELD}
        fields = self.fields(edit)
        self.check_parameters(ident, fields)
        plan = self.plan(ident, fields)
        say(_('Planned change of stack %(stack)s:\n%(plan)s') % {
            'stack': st.stack_name, 'plan': plan_text(plan)})
        gone = sorted(name for name in held
                      if name.split('/')[0] in plan['deleted'] or
                      name in plan['deleted'])
        for name in gone:
            say(_('The hold at %s ends: the edit removes the resource')
                % name)
        inputs = {name: self._inputs(ident, name) for name in held}
        started = self._update_mark(ident)
        try:
            self.client.stacks.update(stack_id=ident, **fields)
        except heat_exc.HTTPException as exc:
            raise terms.error(_('Cannot apply the edit: %(reason)s'),
                              reason=terms.server_words(exc))
        again = self._held_again(
            ident, started, {name: since for name, since in held.items()
                             if name not in gone}, timeout)
        for row in again:
            name = row['resource']
            if inputs.get(name):
                diff = input_changes(inputs[name],
                                     self._inputs(ident, name))
                say(_('%(name)s goes on with: %(diff)s') % {
                    'name': name, 'diff': diff or _('the same inputs')})
        return again

    def _inputs(self, ident: str, name: str) -> dict:
        try:
            return self.reader.show(ident, name).get('inputs') or {}
        except exceptions.USER_ERRORS:
            return {}

    def _update_mark(self, ident: str) -> tuple:
        """What tells the stack's latest update from the next one.

        Its update time, and the id of its latest "UPDATE started" event:
        Heat keeps the time to the second, and two edits applied within
        one second (the second while the first one's traversal holds)
        have the same.
        """
        name = ident.split('/')[0]
        events = self.client.events.list(
            ident, sort_dir='desc', limit=1, filters={
                'resource_name': name, 'resource_type': STACK_TYPE,
                'resource_action': 'UPDATE',
                'resource_status': 'IN_PROGRESS'})
        return (self.reader.get_stack(ident).updated_time,
                tuple(getattr(event, 'id', None) for event in events))

    def _held_again(self, ident: str, started, before: dict,
                    timeout: float) -> list:
        """The held rows once the new traversal holds where the old did.

        The new traversal is the stack's once its update time moved on;
        from then on the view shows its holds only.
        """
        deadline = self.clock() + timeout
        while self._update_mark(ident) == started:
            if self.clock() >= deadline:
                raise terms.error(_('The edit of %(stack)s was sent but its '
                                    'update has not started'), stack=ident)
            self.sleep(0.2)
        while True:
            st, rows = self.reader.current(ident)
            held = [row for row in rows if row['state'] == terms.HELD]
            if not terms.running(st) or self.clock() >= deadline or \
                    set(before) <= {row['resource'] for row in held
                                    if _hold_of(row) !=
                                    before.get(row['resource'])}:
                return held
            self.sleep(0.3)
