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
"""Launching and cancelling an operation.

A launch sends a create, update or delete as ``openstack stack
create/update/delete`` sends it, its breakpoints in the environment
files :meth:`.StoredEnvironment.prepare` writes; a cancel means the
same from every front end.
"""

import time

from heatclient.common import template_utils
from heatclient import exc as heat_exc

from heat_breakpoint.model import protocol
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import commanding
from heatclient_ext.v1 import environment
from heatclient_ext.v1 import stored_environment
from heatclient_ext.v1 import terms
from heatclient_ext.v1 import viewing

#: Seconds the update that stores a delete's breakpoints may take.
STORE_TIMEOUT = 180


class Operations:
    """Launch, cancel: reads through ``reader``, releases by ``commands``.

    ``stored`` prepares the environment files a launch sends and stores
    a delete's breakpoints.
    """

    def __init__(self, client, reader: viewing.Reader,
                 commands: commanding.Commands,
                 stored: stored_environment.StoredEnvironment) -> None:
        self.client = client
        self.reader = reader
        self.commands = commands
        self.stored = stored

    def launch(self, action, stack, template=None, environment_files=(),
               parameters=None, existing=False, breakpoints_=(),
               say=lambda text: None) -> str:
        """Send a create, update or delete; the stack's ident.

        As ``openstack stack create/update/delete`` sends it;
        ``breakpoints_`` (model breakpoints) travel in the environment
        files :meth:`.StoredEnvironment.prepare` writes, as ``--breakpoint``
        would. A delete sends no environment: its breakpoints are stored
        first (:meth:`store_breakpoints`). A create never rolls back.
        """
        client = self.client
        if action == 'delete':
            st = self.reader.get_stack(stack)
            ident = '%s/%s' % (st.stack_name, st.id)
            if breakpoints_:
                self.store_breakpoints(ident, breakpoints_, say)
            client.stacks.delete(st.id)
            return ident
        st = self.reader.get_stack(stack) if action == 'update' else None
        updated = '%s/%s' % (st.stack_name, st.id) if st else None
        prepared = self.stored.prepare(
            list(environment_files), breakpoints_, stack=updated,
            existing=existing,
            template_names=environment.template_resource_names(template))
        paths = prepared.paths if prepared else list(environment_files)
        try:
            tpl_files, tpl = template_utils.get_template_contents(
                template_file=template)
            tracker: list = []
            env_files, env = (
                template_utils.process_multiple_environments_and_files(
                    env_paths=paths, env_list_tracker=tracker))
            fields = {'template': tpl,
                      'files': dict(tpl_files, **env_files),
                      'parameters': dict(parameters or {}),
                      'environment': env, 'environment_files': tracker}
            if action == 'create':
                fields.update(stack_name=stack, disable_rollback=True)
                created = client.stacks.create(**fields)
                return '%s/%s' % (stack, created['stack']['id'])
            fields.update(stack_id=updated, existing=existing)
            client.stacks.update(**fields)
            assert updated is not None  # an update: its stack was read
            return updated
        except (heat_exc.HTTPException, heat_exc.CommandError) as exc:
            raise exceptions.BreakpointCommandError(
                _('Cannot %(action)s stack %(stack)s: %(reason)s') % {
                    'action': action, 'stack': stack,
                    'reason': exceptions.one_line(exc)})
        finally:
            if prepared is not None:
                prepared.cleanup()

    def store_breakpoints(self, ident, breakpoints_, say=lambda text: None,
                          timeout: float = STORE_TIMEOUT) -> None:
        """Put a delete's breakpoints in the stored environment first.

        A delete sends no environment, and its first resources go at once:
        as on the command line, its breakpoints are stored by a stack
        update (``--existing``, the template kept) before it starts.
        """
        say(_('Storing the breakpoints of the delete in the environment of '
              '%s (stack update --existing)') % ident)
        before = self.reader.get_stack(ident).updated_time
        self.stored.update(ident, add=breakpoints_)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = self.reader.get_stack(ident)
            status = st.stack_status or ''
            if st.updated_time != before and not status.endswith(
                    '_IN_PROGRESS'):
                if status != 'UPDATE_COMPLETE':
                    raise exceptions.BreakpointCommandError(
                        _('Cannot store the breakpoints of %(stack)s: '
                          '%(status)s') % {'stack': ident, 'status': status})
                return
            time.sleep(0.2)
        raise exceptions.BreakpointCommandError(
            _('The update storing the breakpoints of %s did not end') % ident)

    def cancel(self, stack, held=(), wait=terms.CANCEL_STOP_WAIT,
               sleep=time.sleep) -> tuple:
        """Cancel the stack's running operation; what it became.

        An update is cancelled as ``openstack stack cancel`` cancels it:
        Heat rolls it back (:data:`terms.CANCEL_ROLLBACK`). Heat refuses that
        for a create, and has no API to roll a create back: the create
        is stopped (``openstack stack cancel --no-rollback``) and the
        stack deleted, which is what Heat's own rollback of a failed
        create leaves (:data:`terms.CANCEL_DELETE`). Either way the ``held``
        rows are then released, so that nothing stays parked (the
        engine ends them as cancelled: no forward work resumes).

        Returns ``(what, released rows)``. Every front end cancels
        through here, so that a cancel means the same everywhere.
        """
        st = self.reader.get_stack(stack)
        ident = terms.ident(st)
        status = st.stack_status or ''
        if not terms.running(st):
            raise terms.error(_('Nothing is running in stack %(stack)s '
                                '(%(status)s): nothing to cancel'),
                              stack=st.stack_name, status=status)
        creating = status.startswith('CREATE')
        try:
            if creating:
                self.client.actions.cancel_without_rollback(ident)
            else:
                self.client.actions.cancel_update(ident)
        except heat_exc.HTTPException as exc:
            raise terms.error(_('Cannot cancel: %(reason)s'),
                              reason=terms.server_words(exc))
        released = []
        for row in held:
            try:
                self.commands.release(ident, row['resource'],
                                      protocol.RELEASE_CLEAR, [row])
                released.append(row)
            except exceptions.USER_ERRORS:
                pass  # the cancel already let it go
        if not creating:
            return terms.CANCEL_ROLLBACK, released
        # The stopped create: its traversal ends at once; delete after.
        deadline = time.monotonic() + wait
        while terms.running(self.reader.get_stack(ident)) and \
                time.monotonic() < deadline:
            sleep(0.2)
        try:
            self.client.stacks.delete(ident)
        except heat_exc.HTTPException as exc:
            raise terms.error(
                _('Cancelled the create of %(stack)s, but cannot '
                  'delete it: %(reason)s'), stack=st.stack_name,
                reason=terms.server_words(exc))
        return terms.CANCEL_DELETE, released
