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
"""What the Variables pane shows of a held resource.

One ``breakpoint show`` (the view's description of one resource, masked
by the engine exactly as the CLI prints it) becomes the scopes Inputs,
Attributes, Planned change, Failure and Resource; nested values expand
through variable references handed out here.
"""

import json

from heatclient_ext._i18n import _
from heatclient_ext.v1 import changes

INPUTS, ATTRIBUTES, CHANGE, FAILURE, RESOURCE = (
    _('Inputs'), _('Attributes'), _('Planned change'), _('Failure'),
    _('Resource'))
SIMULATED_ATTRIBUTES = _('Attributes (simulated)')
RESOURCE_KEYS = ('resource', 'type', 'physical_resource_id',
                 'resource_status',
                 'resource_status_reason', 'simulated', 'action', 'when',
                 'breakpoint',
                 'why', 'held_since', 'timeout_remaining', 'requires',
                 'required_by', 'next', 'file')


class References:
    """Numbers for expandable values, valid until the next resume."""

    def __init__(self) -> None:
        self._values: dict = {}
        self._next = 1000

    def add(self, value) -> int:
        self._next += 1
        self._values[self._next] = value
        return self._next

    def get(self, ref):
        return self._values.get(ref)

    def clear(self) -> None:
        self._values.clear()


def _text(value):
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def variable(refs, name, value):
    """One DAP Variable; a dict or list gets a reference to expand."""
    found = {'name': str(name), 'value': _text(value),
             'variablesReference': 0}
    if isinstance(value, dict) and value:
        found['variablesReference'] = refs.add(value)
        found['namedVariables'] = len(value)
        found['value'] = '{%s}' % ', '.join(sorted(map(str, value)))
    elif isinstance(value, list) and value:
        found['variablesReference'] = refs.add(value)
        found['indexedVariables'] = len(value)
        found['value'] = '[%d]' % len(value)
    return found


def variables(refs, value) -> list:
    """The children of an expandable value."""
    if isinstance(value, dict):
        return [variable(refs, key, value[key]) for key in sorted(value)]
    if isinstance(value, list):
        return [variable(refs, index, item)
                for index, item in enumerate(value)]
    return []


def _change_values(change):
    if not change:
        return None
    found = {'kind': change.get('kind'), 'summary': changes.text(change)}
    for key, value in change.items():
        found.setdefault(key, value)
    return found


def scopes(refs, shown, definition=None) -> list:
    """DAP Scopes of a held resource from ``manager.show``'s dict."""
    resource = {key: shown.get(key) for key in RESOURCE_KEYS
                if shown.get(key) not in (None, '', [])}
    if definition is not None:
        resource.setdefault('type', definition.type)
        resource['file'] = '%s:%d' % (definition.file, definition.line)
    found = []
    if shown.get('inputs') is not None:
        found.append((INPUTS, shown['inputs']))
    if shown.get('attributes') is not None:
        found.append((SIMULATED_ATTRIBUTES if shown.get('simulated') else
                      ATTRIBUTES, shown['attributes']))
    change = _change_values(shown.get('change'))
    if change:
        found.append((CHANGE, change))
    if shown.get('error') or shown.get('when') == 'failed':
        found.append((FAILURE, {
            'error': shown.get('error') or
            shown.get('resource_status_reason') or '',
            'resource_status': shown.get('resource_status') or ''}))
    found.append((RESOURCE, resource))
    return [{'name': name, 'variablesReference': refs.add(value or {}),
             'namedVariables': len(value or {}), 'expensive': False,
             'presentationHint': 'locals' if name == INPUTS else None}
            for name, value in found]


def template_scope(refs, path, definition) -> list:
    """A parent frame's one scope: what its template says of it."""
    value = {'resource': path}
    if definition is not None:
        value.update(type=definition.type, file='%s:%d' % (
            definition.file, definition.line),
            requires=list(definition.requires))
    return [{'name': RESOURCE, 'variablesReference': refs.add(value),
             'namedVariables': len(value), 'expensive': False}]
