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
"""What the editor looks at while stopped: threads, frames, scopes.

The requests that read a hold (``threads``, ``stackTrace``, ``scopes``,
``variables``, ``exceptionInfo``, ``source``) and the one that changes
what the next release applies (``setVariable``). Their references live
until the operation resumes (:meth:`Looking.forget`).
"""

import json
import os

from heatclient_ext._i18n import _
from heatclient_ext.dap import arguments
from heatclient_ext.dap import edits as dap_edits
from heatclient_ext.dap import holds as dap_holds
from heatclient_ext.dap import variables

FRAMES_PER_THREAD = 100
RequestError = arguments.RequestError


class Looking:
    """The looking requests of one :class:`~.session.Session`."""

    def __init__(self, session):
        self._session = session
        self._refs = variables.References()
        self._frames = {}  # frame id -> (path, Definition or None, index)
        self._inputs_of = {}  # the Inputs scope's reference -> its path

    def forget(self) -> None:
        """The operation resumed: every reference handed out is stale."""
        self._refs.clear()
        self._inputs_of.clear()
        self._frames.clear()

    def on_threads(self, args):
        return self._session.holds.threads_body(self._session.stack)

    def on_stackTrace(self, args) -> dict:
        tid = args.get('threadId')
        with self._session.holds.lock:
            path = self._session.holds.path(tid)
            row = self._session.holds.held.get(path)
        if path is None:
            return {'stackFrames': [], 'totalFrames': 0}
        tree = self._session.map
        chain = tree.frames(path) if tree else [(path, None)]
        frames = []
        for index, (frame_path, definition) in enumerate(chain):
            fid = tid * FRAMES_PER_THREAD + index
            self._frames[fid] = (frame_path, definition, index)
            name = frame_path if index else '%s (%s)' % (
                frame_path, dap_holds.hold_text(row))
            frame = {'id': fid, 'name': name, 'line': 0, 'column': 0}
            if definition is not None:
                frame.update(line=definition.line, column=1, source={
                    'path': definition.file,
                    'name': os.path.basename(definition.file)})
            frames.append(frame)
        return {'stackFrames': frames, 'totalFrames': len(frames)}

    def frame(self, args):
        found = self._frames.get(args.get('frameId'))
        if found is None:
            raise RequestError(_('unknown frame %s') % args.get('frameId'))
        return found

    def on_scopes(self, args) -> dict:
        path, definition, index = self.frame(args)
        if index:
            return {'scopes': variables.template_scope(self._refs, path,
                                                       definition)}
        shown = dict(self._session.manager.show(self._session.stack, path))
        shown.update(self._stock_resource(path))
        found = variables.scopes(self._refs, shown, definition)
        for scope in found:
            if scope['name'] == variables.INPUTS:
                self._inputs_of[scope['variablesReference']] = path
        return {'scopes': found}

    def _settable(self, path) -> dict:
        """``{input: parameter}`` the Variables pane may set at ``path``.

        Inputs of the launched root template set straight from one of
        its parameters: setting the parameter sets them.
        """
        tree = self._session.map
        definition = tree.location(path) if tree else None
        if definition is None or self._session.edits is None or \
                definition.file != tree.root:
            return {}
        return dap_edits.parameter_inputs(definition)

    def _stock_resource(self, path):
        """Type and physical id, which the view does not say: one GET."""
        row = self._session.holds.held.get(path)
        if row is None:
            return {}
        return self._session.manager.resource_summary(
            row['stack'], row['resource_name'])

    def on_variables(self, args) -> dict:
        ref = args.get('variablesReference')
        found = variables.variables(self._refs, self._refs.get(ref))
        if ref in self._inputs_of:
            settable = self._settable(self._inputs_of[ref])
            for var in found:
                if var['name'] not in settable:
                    var['presentationHint'] = {'attributes': ['readOnly']}
        return {'variables': found}

    def on_setVariable(self, args) -> dict:
        """Set the parameter an input comes from; Continue applies it."""
        path = self._inputs_of.get(args.get('variablesReference'))
        name = args.get('name')
        if path is None:
            raise RequestError(_('only a held resource\'s inputs can be '
                                 'set'))
        settable = self._settable(path)
        if name not in settable:
            raise RequestError(_(
                '%(name)s of %(path)s does not come straight from a '
                'parameter: edit the template and save it, Continue applies '
                'it') % {'name': name, 'path': path})
        value = str(args.get('value', ''))
        try:
            loaded = json.loads(value)
            if isinstance(loaded, str):
                value = loaded  # "text" typed with its quotes
        except ValueError:
            pass
        self._session.edits.parameters[settable[name]] = value
        self._session.say(_(
            'parameter %(param)s = %(value)s: the next Continue, Step or '
            'Restart Frame applies it') % {'param': settable[name],
                                           'value': value})
        return {'value': value}

    def on_exceptionInfo(self, args) -> dict:
        path = self._session.holds.path(args.get('threadId'))
        if path is None:
            raise RequestError(_('thread %s holds nothing') %
                               args.get('threadId'))
        shown = self._session.manager.show(self._session.stack, path)
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
