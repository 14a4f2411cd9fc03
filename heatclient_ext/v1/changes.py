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
"""The planned change of an on-change or on-replace hold, as text.

The engine gives ``show`` (and the hit event) the change an update will
make at a held resource as data: ``kind`` (in-place, replace, add,
remove), ``properties`` ``{name: {old, new}}`` with secrets masked, and
for a replacement ``forced_by`` (or ``why``). JSON and YAML output keep
that data; the text formats print it as lines from here, which the
command then escapes like any text from a template.
"""

import json

from heatclient_ext._i18n import _


def _value(value) -> str:
    if value is None:
        return '-'
    return json.dumps(value, ensure_ascii=False, sort_keys=True,
                      default=str)


def text(change) -> str:
    """``replace (forced by: value)`` then one ``name: old -> new`` a line."""
    if not isinstance(change, dict):
        return ''
    head = str(change.get('kind', ''))
    forced = change.get('forced_by') or []
    if forced:
        head = '%s %s' % (head, _('(forced by: %s)')
                          % ', '.join(map(str, forced)))
    elif change.get('why'):
        head += ' (%s)' % change['why']
    lines = [head]
    props = change.get('properties') or {}
    for name in sorted(props, key=str):
        diff = props[name] if isinstance(props[name], dict) else {}
        if diff.get('old') is None and diff.get('new') is None:
            continue  # unset before and after (an added resource's)
        lines.append('%s: %s -> %s' % (name, _value(diff.get('old')),
                                       _value(diff.get('new'))))
    return '\n'.join(lines)
