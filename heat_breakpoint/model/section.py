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
"""The ``breakpoints`` section of an environment file, and the marker.

An entry is a breakpoint's name, or a mapping with ``resource`` and
``action``/``actions``, ``when`` or a stock ``hook``; the marker
(:mod:`heat_breakpoint.model.registry`) writes the same entries, with the
hooks a user had set before (``native_hooks``). The names themselves and
the values they make are :mod:`heat_breakpoint.model.breakpoints`'.
Like it, this module imports nothing from Heat, heatclient or oslo.
"""

import collections.abc
import copy
import typing

from heat_breakpoint.model import breakpoints as bp

# Marker entries only: the hooks a user had already set on the same registry
# entry, so removing the breakpoint gives them back exactly as written.
KEY_NATIVE = 'native_hooks'

Native = typing.Union[str, list, None]


def _parse_entry(value: object, where: str,
                 marker: bool) -> tuple[bp.Breakpoint, Native]:
    """One section entry: a name, or a mapping with ``resource``."""
    if isinstance(value, str):
        try:
            return bp.parse_name(value), None
        except bp.BreakpointError as error:
            raise bp.prefixed(where, error) from None
    if not isinstance(value, collections.abc.Mapping):
        raise bp.BreakpointError(
            "%s: must be a resource name or a mapping with 'resource', "
            "got %s" % (where, bp.yaml_kind(value)))
    allowed = bp.ENTRY_KEYS + ((KEY_NATIVE,) if marker else ())
    for key in value:
        if key not in allowed:
            shown = (bp.quoted(key) if isinstance(key, str)
                     else bp.yaml_kind(key))
            raise bp.BreakpointError(
                '%s: unknown key %s (allowed: %s)'
                % (where, shown, ', '.join(allowed)))
    if bp.KEY_RESOURCE not in value:
        raise bp.BreakpointError("%s: missing key 'resource'" % where)
    if bp.KEY_ACTION in value and bp.KEY_ACTIONS in value:
        raise bp.BreakpointError(
            "%s: give either 'action' or 'actions', not both" % where)
    if bp.KEY_HOOK in value and any(key in value for key in (
            bp.KEY_ACTION, bp.KEY_ACTIONS, bp.KEY_WHEN)):
        raise bp.BreakpointError(
            "%s: give either 'hook' or 'when' and 'actions', not both"
            % where)
    resource = value[bp.KEY_RESOURCE]
    if not isinstance(resource, str):
        raise bp.BreakpointError(
            '%s.resource: must be a resource name, got %s (to set several '
            'breakpoints, list them)' % (where, bp.yaml_kind(resource)))
    action_key = bp.KEY_ACTION if bp.KEY_ACTION in value else bp.KEY_ACTIONS
    try:
        if bp.KEY_HOOK in value:
            action_key = bp.KEY_HOOK
            when, actions = bp.from_hooks(value[bp.KEY_HOOK])
        else:
            action_key = bp.KEY_WHEN
            when = bp.normalise_when(value.get(bp.KEY_WHEN))
            action_key = bp.KEY_ACTION if bp.KEY_ACTION in value else \
                bp.KEY_ACTIONS
            actions = bp.normalise_actions(value.get(action_key), when)
    except bp.BreakpointError as error:
        raise bp.prefixed('%s.%s' % (where, action_key), error) from None
    try:
        breakpoint = bp.parse_name(resource, actions, when)
    except bp.BreakpointError as error:
        raise bp.prefixed(where, error) from None
    return breakpoint, _parse_native(value.get(KEY_NATIVE), where)


def hook_list(value: object, where: str) -> list[str]:
    """Heat accepts hooks as one string or a list; read both as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(h, str) for h in value):
        return list(value)
    raise bp.BreakpointError(
        '%s: must be a hook name or a list of hook names, got %s'
        % (where, bp.yaml_kind(value)))


def _parse_native(value: object, where: str) -> Native:
    if value is None:
        return None
    hook_list(value, '%s.%s' % (where, KEY_NATIVE))
    # hook_list refused anything but a hook name or a list of them.
    return copy.deepcopy(typing.cast(Native, value))


def parse_entries(value: object, where: str,
                  marker: bool = False) -> list[tuple[bp.Breakpoint, Native]]:
    if value is None:
        return []
    if isinstance(value, (str, collections.abc.Mapping)):
        return [_parse_entry(value, where, marker)]
    if not isinstance(value, collections.abc.Sequence):
        raise bp.BreakpointError(
            "%s: must be a resource name, a mapping with 'resource', or a "
            "list of those; got %s" % (where, bp.yaml_kind(value)))
    bp.check_count(len(value), where)
    entries = []
    first_seen: dict[tuple, str] = {}
    for index, item in enumerate(value):
        item_where = '%s[%d]' % (where, index)
        breakpoint, native = _parse_entry(item, item_where, marker)
        if breakpoint.key in first_seen:
            raise bp.BreakpointError(
                '%s: breakpoint %s is already given at %s'
                % (item_where, bp.quoted(breakpoint.label),
                   first_seen[breakpoint.key]))
        first_seen[breakpoint.key] = item_where
        entries.append((breakpoint, native))
    return entries


def parse_section(value: object) -> list[bp.Breakpoint]:
    """Parse the ``breakpoints`` section of an environment, as loaded.

    Accepted: a name (``'db'``), the spec's mapping (``{'resource': 'db'}``
    with an optional ``action`` or ``actions``), or a list mixing both. An
    empty section (``None`` or ``[]``) means no breakpoints.
    """
    return [breakpoint
            for breakpoint, _native in parse_entries(value, bp.SECTION)]
