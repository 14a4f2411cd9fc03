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
"""Fix and go on from the editor: what was saved or set while stopped.

The launched template's files (the root, the nested templates it uses,
its environment files) are fingerprinted when the operation starts and
each time an edit is applied; a file saved since, or a parameter set in
the Variables pane, is a pending :class:`~heatclient_ext.v1.editing.Edit`
that the next Continue, Step or Restart Frame applies first (the client
API's fix and go on: Heat's preview, then an update of the running
operation).
"""

import hashlib
import typing

import yaml

from heatclient_ext.dap import lines
from heatclient_ext.v1 import editing


def _digest(path: str) -> typing.Optional[str]:
    try:
        with open(path, 'rb') as stream:
            return hashlib.sha256(stream.read()).hexdigest()
    except OSError:
        return None


class SavedEdits:
    """The launch's files as last applied, and parameters set since."""

    def __init__(self, template: str, environment_files=(),
                 tmap: typing.Optional[lines.TemplateMap] = None) -> None:
        self.template = template
        self.environment_files = tuple(environment_files)
        self.parameters: dict = {}
        self.seen = self._fingerprints(tmap)

    def _files(self, tmap) -> list:
        found = [self.template] + list(self.environment_files)
        if tmap is not None:
            found.extend(tmap.files())
        return sorted(set(found))

    def _fingerprints(self, tmap) -> dict:
        return {path: _digest(path) for path in self._files(tmap)}

    def saved(self) -> bool:
        """Whether a file of the launch changed since it was applied."""
        return any(_digest(path) != digest
                   for path, digest in self.seen.items())

    def pending(self) -> typing.Optional[editing.Edit]:
        """The edit the next resume applies first, or None."""
        saved = self.saved()
        if not saved and not self.parameters:
            return None
        return editing.Edit(
            template=self.template if saved else None,
            environment_files=self.environment_files if saved else (),
            parameters=tuple('%s=%s' % item
                             for item in sorted(self.parameters.items())))

    def applied(self, tmap=None) -> None:
        self.parameters.clear()
        self.seen = self._fingerprints(tmap)


def parameter_inputs(definition) -> dict:
    """``{property: parameter}`` of a definition's plain ``get_param``s.

    Only a property whose whole value is ``{get_param: NAME}`` (NAME a
    name, not a path into a value) can be set from the Variables pane by
    setting the parameter.
    """
    try:
        with open(definition.file, encoding='utf-8') as stream:
            template = yaml.safe_load(stream)
        properties = template['resources'][definition.name].get(
            'properties') or {}
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError):
        return {}
    found = {}
    for name, value in properties.items():
        if isinstance(value, dict) and list(value) == ['get_param'] and \
                isinstance(value['get_param'], str):
            found[name] = value['get_param']
    return found
