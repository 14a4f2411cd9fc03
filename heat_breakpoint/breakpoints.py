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
"""The stack-breakpoint model, shared by every half of the project.

Users write breakpoints in three places: ``--breakpoint`` on the command
line, the ``breakpoints`` section of an environment file, and (through stock
clients) the API request body. Heat itself only knows native resource hooks
(``resource_registry: resources: NAME: hooks: pre-create``), which a stock
engine already holds and releases. This module is the one place that parses
and validates every spelling and translates it to and from those hooks, plus
a marker in ``parameter_defaults`` that tells a breakpoint from a hook a user
set by hand.

It imports nothing from Heat, heatclient or oslo so that the client, the API
filter and the engine plugin can all use it; its messages are plain English
for the same reason.
"""

import collections.abc
import copy
import dataclasses
import difflib
import fnmatch
import typing

import yaml

SECTION = 'breakpoints'
MARKER = 'heat_breakpoints'
ACTIONS = ('create', 'update', 'delete')
DEFAULT_ACTIONS = ('create', 'update')

#: When a breakpoint holds its resource, relative to the resource's action:
#: before it starts (the spec's breakpoint), after it completed, when it
#: failed, or before an update that changes (in place or by replacement)
#: or replaces it.
BEFORE, AFTER, FAILED, CHANGED, REPLACED = (
    'before', 'after', 'failed', 'changed', 'replaced')
WHENS = (BEFORE, AFTER, FAILED, CHANGED, REPLACED)
#: The actions each kind of hold can apply to, and its default actions.
WHEN_ACTIONS = {BEFORE: ACTIONS, AFTER: ACTIONS, FAILED: ACTIONS,
                CHANGED: ('update',), REPLACED: ('update',)}
WHEN_DEFAULT_ACTIONS = {BEFORE: DEFAULT_ACTIONS, AFTER: DEFAULT_ACTIONS,
                        FAILED: DEFAULT_ACTIONS, CHANGED: ('update',),
                        REPLACED: ('update',)}
#: Stock Heat hook prefixes for the kinds it has (pre-*, post-*); the
#: other kinds exist only with the engine plugin.
_HOOK_PREFIX = {BEFORE: 'pre-', AFTER: 'post-'}
MAX_BREAKPOINTS = 200
MAX_NAME_LENGTH = 255
MAX_DEPTH = 10

#: Environment files larger than this are refused before parsing.
MAX_ENVIRONMENT_SIZE = 1024 * 1024
#: How many nodes YAML aliases may add when expanded (billion-laughs guard).
MAX_ALIAS_EXPANSION = 100000
#: How deeply an environment may nest; deeper input would exhaust the
#: interpreter stack in copy/json long before it could mean anything.
MAX_NESTING = 200

SEPARATOR = '/'

_KEY_RESOURCE, _KEY_ACTION, _KEY_ACTIONS = 'resource', 'action', 'actions'
_KEY_WHEN, _KEY_HOOK = 'when', 'hook'
_ENTRY_KEYS = (_KEY_RESOURCE, _KEY_ACTION, _KEY_ACTIONS, _KEY_WHEN,
               _KEY_HOOK)
# Marker entries only: the hooks a user had already set on the same registry
# entry, so removing the breakpoint gives them back exactly as written.
_KEY_NATIVE = 'native_hooks'

_REGISTRY = 'resource_registry'
_RESOURCES = 'resources'
_HOOKS = 'hooks'
_PARAMETER_DEFAULTS = 'parameter_defaults'
# Heat's registry reads these keys as settings at every nesting level, so a
# resource path segment of that name could never be reached.
_RESERVED_SEGMENTS = (_HOOKS, 'restricted_actions')

_MAX_SHOWN_CHARS = 60
_MAX_LISTED_NAMES = 30

_Native = typing.Union[str, list, None]


class BreakpointError(ValueError):
    """A breakpoint, its spelling, or the environment holding it is wrong.

    ``str()`` is one line naming the offending entry and the problem, fit to
    show a user as is (the API filter returns it in an HTTP 400).
    """

    def __init__(self, message: str):
        self.message = ' '.join(str(message).splitlines())
        super().__init__(self.message)


@dataclasses.dataclass(frozen=True)
class Breakpoint:
    """One breakpoint: where and when it holds.

    Where: a resource path, on some actions; when: before the action,
    after it, on its failure, ...
    ``path`` holds the names of the nested-stack resources leading to the
    resource, ``pattern`` its own name; every segment may use the fnmatch
    wildcards Heat's registry accepts (``*``, ``?``, ``[...]``).
    """

    path: tuple[str, ...]
    pattern: str
    actions: tuple[str, ...] = None
    when: str = BEFORE

    def __post_init__(self) -> None:
        # Frozen, so normalise through object.__setattr__: callers may pass
        # lists or mixed-case actions and still compare equal.
        path = self.path
        if isinstance(path, str) or not isinstance(
                path, collections.abc.Sequence):
            raise BreakpointError(
                'breakpoint path must be a sequence of names, got %s'
                % _kind(path))
        object.__setattr__(self, 'path', tuple(path))
        segments = self.path + (self.pattern,)
        for segment in segments:
            if not isinstance(segment, str):
                raise BreakpointError(
                    'breakpoint names must be strings, got %s'
                    % _kind(segment))
        name = SEPARATOR.join(segments)
        _check_segments(name, segments)
        when = _normalise_when(self.when)
        object.__setattr__(self, 'when', when)
        object.__setattr__(self, 'actions',
                           _normalise_actions(self.actions, when))

    @property
    def name(self) -> str:
        """The user-facing name: ``'app_tier/web_*'``."""
        return SEPARATOR.join(self.segments)

    @property
    def segments(self) -> tuple[str, ...]:
        return self.path + (self.pattern,)

    @property
    def key(self) -> tuple[str, str]:
        """What tells breakpoints apart: one of each kind per name."""
        return (self.name, self.when)

    @property
    def label(self) -> str:
        """``'db'``, or ``'db (after)'`` for a hold other than before."""
        return self.name if self.when == BEFORE else '%s (%s)' % (
            self.name, self.when)

    @property
    def hooks(self) -> tuple[str, ...]:
        """The native Heat hooks that implement this breakpoint.

        Stock Heat has hooks only before and after an action; the other
        kinds are known to the engine plugin alone (the marker).
        """
        prefix = _HOOK_PREFIX.get(self.when)
        if prefix is None:
            return ()
        return tuple(prefix + action for action in self.actions)

    def matches(self, resource_path: typing.Union[str, typing.Sequence[str]],
                action: typing.Optional[str] = None,
                when: typing.Optional[str] = None) -> bool:
        """Whether this breakpoint holds the resource at ``resource_path``.

        Matching is per segment with ``fnmatch.fnmatchcase``, as Heat's
        registry matches hooks, and only at the same nesting depth. A string
        path is split on ``/``. ``action`` is compared case-insensitively so
        Heat's ``'CREATE'`` works as well as ``'create'``.
        """
        if isinstance(resource_path, str):
            resource_path = resource_path.split(SEPARATOR)
        segments = self.segments
        if len(resource_path) != len(segments):
            return False
        if action is not None and str(action).lower() not in self.actions:
            return False
        if when is not None and when != self.when:
            return False
        return all(fnmatch.fnmatchcase(str(name), pattern)
                   for name, pattern in zip(resource_path, segments))

    def to_dict(self) -> dict:
        found = {_KEY_RESOURCE: self.name, _KEY_ACTIONS: list(self.actions)}
        if self.when != BEFORE:
            found[_KEY_WHEN] = self.when
        return found


# ---------------------------------------------------------------------------
# Message helpers

def _show(text: str) -> str:
    """Quote a user-given name for a one-line message, escaped and short."""
    if len(text) > _MAX_SHOWN_CHARS:
        text = text[:_MAX_SHOWN_CHARS] + '...'
    return repr(text)


def _kind(value: object) -> str:
    """Name a value's type the way a YAML author thinks of it."""
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, (int, float)):
        return 'a number'
    if isinstance(value, str):
        return 'a string'
    if isinstance(value, collections.abc.Mapping):
        return 'a mapping'
    if isinstance(value, collections.abc.Sequence):
        return 'a list'
    return 'a %s' % type(value).__name__


def _list_names(names: typing.Sequence[str]) -> str:
    shown = ', '.join(names[:_MAX_LISTED_NAMES])
    if len(names) > _MAX_LISTED_NAMES:
        shown += ', ... (%d more)' % (len(names) - _MAX_LISTED_NAMES)
    return shown


def _prefixed(where: str, error: BreakpointError) -> BreakpointError:
    return BreakpointError('%s: %s' % (where, error.message))


# ---------------------------------------------------------------------------
# Names and actions

def _has_control_characters(text: str) -> bool:
    return any(ord(char) < 32 or 127 <= ord(char) < 160 for char in text)


def _check_segments(name: str, segments: typing.Sequence[str]) -> None:
    """Refuse names Heat's registry could not hold or would misread."""
    where = 'breakpoint %s' % _show(name)
    if name == '':
        raise BreakpointError('breakpoint name is empty')
    if _has_control_characters(name):
        raise BreakpointError(
            '%s: control characters are not allowed' % where)
    if len(segments) > MAX_DEPTH:
        raise BreakpointError(
            '%s: nested %d levels deep (limit: %d)'
            % (where, len(segments), MAX_DEPTH))
    for segment in segments:
        _check_segment(where, segment)


def _check_segment(where: str, segment: str) -> None:
    if segment == '':
        raise BreakpointError(
            "%s: empty path segment (nested names look like "
            "'outer/inner')" % where)
    if SEPARATOR in segment:
        raise BreakpointError(
            "%s: segment %s contains '/'" % (where, _show(segment)))
    if segment in ('.', '..'):
        raise BreakpointError(
            '%s: %s is not a resource name' % (where, _show(segment)))
    if segment in _RESERVED_SEGMENTS:
        raise BreakpointError(
            "%s: %s is reserved by Heat's resource registry"
            % (where, _show(segment)))
    if len(segment) > MAX_NAME_LENGTH:
        raise BreakpointError(
            '%s: a name is %d characters long (limit: %d)'
            % (where, len(segment), MAX_NAME_LENGTH))


def _normalise_when(when: object) -> str:
    if when is None:
        return BEFORE
    if not isinstance(when, str) or when.lower() not in WHENS:
        shown = _show(when) if isinstance(when, str) else _kind(when)
        raise BreakpointError('unknown when %s (allowed: %s)'
                              % (shown, ', '.join(WHENS)))
    return when.lower()


def _normalise_actions(actions: typing.Union[str, typing.Iterable[str],
                                             None],
                       when: str = BEFORE) -> tuple[str, ...]:
    """Actions in ``ACTIONS`` order; the kind's defaults when none given."""
    allowed = ', '.join(ACTIONS)
    if actions is None:
        return WHEN_DEFAULT_ACTIONS[when]
    if isinstance(actions, str):
        actions = [actions]
    elif not isinstance(actions, (collections.abc.Sequence,
                                  collections.abc.Set)):
        raise BreakpointError(
            'actions must be an action name or a list of them (allowed: '
            '%s), got %s' % (allowed, _kind(actions)))
    given = set()
    for action in actions:
        if not isinstance(action, str):
            raise BreakpointError(
                'an action must be a string (allowed: %s), got %s'
                % (allowed, _kind(action)))
        if action.lower() not in ACTIONS:
            raise BreakpointError(
                'unknown action %s (allowed: %s)' % (_show(action), allowed))
        given.add(action.lower())
    if not given:
        raise BreakpointError('no action given (allowed: %s)' % allowed)
    wrong = sorted(given - set(WHEN_ACTIONS[when]))
    if wrong:
        raise BreakpointError(
            'when %s applies to %s only, not %s'
            % (when, ', '.join(WHEN_ACTIONS[when]), ', '.join(wrong)))
    return tuple(action for action in ACTIONS if action in given)


def from_hooks(hooks: typing.Union[str, typing.Sequence[str]]
               ) -> tuple[str, tuple[str, ...]]:
    """``(when, actions)`` of stock hook names (``'post-create'``)."""
    names = [hooks] if isinstance(hooks, str) else hooks
    found = {}
    for hook in names:
        for when, prefix in _HOOK_PREFIX.items():
            action = hook[len(prefix):] if isinstance(hook, str) and \
                hook.startswith(prefix) else None
            if action in ACTIONS:
                found.setdefault(when, []).append(action)
                break
        else:
            allowed = ', '.join(prefix + action
                                for prefix in _HOOK_PREFIX.values()
                                for action in ACTIONS)
            shown = _show(hook) if isinstance(hook, str) else _kind(hook)
            raise BreakpointError('unknown hook %s (allowed: %s)'
                                  % (shown, allowed))
    if len(found) != 1:
        raise BreakpointError('hooks of one breakpoint must all be pre-* '
                              'or all post-*')
    when, actions = found.popitem()
    return when, tuple(actions)


def parse_name(text: str, actions: typing.Union[str, typing.Iterable[str],
                                                None] = None,
               when: str = BEFORE) -> Breakpoint:
    """Parse one CLI name: ``'R'`` or ``'outer/inner/R'``."""
    if not isinstance(text, str):
        raise BreakpointError(
            'a breakpoint must be a resource name, got %s' % _kind(text))
    segments = text.split(SEPARATOR)
    return Breakpoint(tuple(segments[:-1]), segments[-1], actions, when)


def _check_count(count: int, where: str = '') -> None:
    if count > MAX_BREAKPOINTS:
        raise BreakpointError(
            '%stoo many breakpoints (%d; limit: %d)'
            % (where + ': ' if where else '', count, MAX_BREAKPOINTS))


def parse_names(names: typing.Iterable[str],
                actions: typing.Union[str, typing.Iterable[str],
                                      None] = None,
                when: str = BEFORE) -> list[Breakpoint]:
    """Parse the values of a repeated ``--breakpoint`` option."""
    if isinstance(names, str):
        names = [names]
    names = list(names)
    _check_count(len(names))
    result = []
    seen = set()
    for name in names:
        breakpoint = parse_name(name, actions, when)
        if breakpoint.name in seen:
            raise BreakpointError(
                'breakpoint %s is given twice' % _show(breakpoint.name))
        seen.add(breakpoint.name)
        result.append(breakpoint)
    return result


# ---------------------------------------------------------------------------
# The environment-file section (and the marker, which reuses its grammar)

def _parse_entry(value: object, where: str,
                 marker: bool) -> tuple[Breakpoint, _Native]:
    """One section entry: a name, or a mapping with ``resource``."""
    if isinstance(value, str):
        try:
            return parse_name(value), None
        except BreakpointError as error:
            raise _prefixed(where, error) from None
    if not isinstance(value, collections.abc.Mapping):
        raise BreakpointError(
            "%s: must be a resource name or a mapping with 'resource', "
            "got %s" % (where, _kind(value)))
    allowed = _ENTRY_KEYS + ((_KEY_NATIVE,) if marker else ())
    for key in value:
        if key not in allowed:
            shown = _show(key) if isinstance(key, str) else _kind(key)
            raise BreakpointError(
                '%s: unknown key %s (allowed: %s)'
                % (where, shown, ', '.join(allowed)))
    if _KEY_RESOURCE not in value:
        raise BreakpointError("%s: missing key 'resource'" % where)
    if _KEY_ACTION in value and _KEY_ACTIONS in value:
        raise BreakpointError(
            "%s: give either 'action' or 'actions', not both" % where)
    if _KEY_HOOK in value and any(key in value for key in (
            _KEY_ACTION, _KEY_ACTIONS, _KEY_WHEN)):
        raise BreakpointError(
            "%s: give either 'hook' or 'when' and 'actions', not both"
            % where)
    resource = value[_KEY_RESOURCE]
    if not isinstance(resource, str):
        raise BreakpointError(
            '%s.resource: must be a resource name, got %s (to set several '
            'breakpoints, list them)' % (where, _kind(resource)))
    action_key = _KEY_ACTION if _KEY_ACTION in value else _KEY_ACTIONS
    try:
        if _KEY_HOOK in value:
            action_key = _KEY_HOOK
            when, actions = from_hooks(value[_KEY_HOOK])
        else:
            action_key = _KEY_WHEN
            when = _normalise_when(value.get(_KEY_WHEN))
            action_key = _KEY_ACTION if _KEY_ACTION in value else \
                _KEY_ACTIONS
            actions = _normalise_actions(value.get(action_key), when)
    except BreakpointError as error:
        raise _prefixed('%s.%s' % (where, action_key), error) from None
    try:
        breakpoint = parse_name(resource, actions, when)
    except BreakpointError as error:
        raise _prefixed(where, error) from None
    return breakpoint, _parse_native(value.get(_KEY_NATIVE), where)


def _parse_native(value: object, where: str) -> _Native:
    if value is None:
        return None
    _hook_list(value, '%s.%s' % (where, _KEY_NATIVE))
    return copy.deepcopy(value)


def _parse_entries(value: object, where: str,
                   marker: bool = False) -> list[tuple[Breakpoint, _Native]]:
    if value is None:
        return []
    if isinstance(value, (str, collections.abc.Mapping)):
        return [_parse_entry(value, where, marker)]
    if not isinstance(value, collections.abc.Sequence):
        raise BreakpointError(
            "%s: must be a resource name, a mapping with 'resource', or a "
            "list of those; got %s" % (where, _kind(value)))
    _check_count(len(value), where)
    entries = []
    first_seen = {}
    for index, item in enumerate(value):
        item_where = '%s[%d]' % (where, index)
        breakpoint, native = _parse_entry(item, item_where, marker)
        if breakpoint.key in first_seen:
            raise BreakpointError(
                '%s: breakpoint %s is already given at %s'
                % (item_where, _show(breakpoint.label),
                   first_seen[breakpoint.key]))
        first_seen[breakpoint.key] = item_where
        entries.append((breakpoint, native))
    return entries


def parse_section(value: object) -> list[Breakpoint]:
    """Parse the ``breakpoints`` section of an environment, as loaded.

    Accepted: a name (``'db'``), the spec's mapping (``{'resource': 'db'}``
    with an optional ``action`` or ``actions``), or a list mixing both. An
    empty section (``None`` or ``[]``) means no breakpoints.
    """
    return [breakpoint
            for breakpoint, _native in _parse_entries(value, SECTION)]


# ---------------------------------------------------------------------------
# Translation to and from Heat's resource registry

def _copy_env(env: object) -> dict:
    if env is None:
        return {}
    if not isinstance(env, dict):
        raise BreakpointError(
            'environment must be a mapping of sections, got %s' % _kind(env))
    try:
        return copy.deepcopy(env)
    except RecursionError:
        raise BreakpointError(
            'environment is nested too deeply (limit: %d levels)'
            % MAX_NESTING) from None


def _hook_list(value: object, where: str) -> list[str]:
    """Heat accepts hooks as one string or a list; read both as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(h, str) for h in value):
        return list(value)
    raise BreakpointError(
        '%s: must be a hook name or a list of hook names, got %s'
        % (where, _kind(value)))


def _registry_path(segments: typing.Sequence[str]) -> list[str]:
    return [_REGISTRY, _RESOURCES] + list(segments)


def _registry_entry(env: dict, segments: typing.Sequence[str],
                    create: bool) -> typing.Optional[dict]:
    """The registry mapping of one resource path, made on demand.

    Without ``create`` a missing or odd path reads as "nothing there"; with
    it, anything in the way that is not a mapping is the user's and is
    reported rather than overwritten.
    """
    node = env
    walked = []
    for key in _registry_path(segments):
        walked.append(key)
        if key not in node:
            if not create:
                return None
            node[key] = {}
        child = node[key]
        if not isinstance(child, dict):
            if not create:
                return None
            raise BreakpointError(
                'cannot add breakpoint %s: %s is %s, not a mapping'
                % (_show(SEPARATOR.join(segments)), '.'.join(walked),
                   _kind(child)))
        node = child
    return node


def _prune(env: dict, segments: typing.Sequence[str]) -> None:
    """Drop the mappings a removal left empty, deepest first.

    An empty registry mapping means the same to Heat as a missing one.
    """
    chain = [env]
    for key in _registry_path(segments):
        child = chain[-1].get(key)
        if not isinstance(child, dict):
            break
        chain.append(child)
    keys = _registry_path(segments)[:len(chain) - 1]
    for depth in range(len(keys), 0, -1):
        if chain[depth]:
            break
        del chain[depth - 1][keys[depth - 1]]


def _add_hooks(env: dict, breakpoint: Breakpoint) -> _Native:
    """Add the breakpoint's hooks; return what the user had set there."""
    if not breakpoint.hooks:
        return None
    entry = _registry_entry(env, breakpoint.segments, create=True)
    where = '.'.join(_registry_path(breakpoint.segments) + [_HOOKS])
    had_hooks = _HOOKS in entry
    current = entry.get(_HOOKS)
    existing = _hook_list(current, where)
    added = [hook for hook in breakpoint.hooks if hook not in existing]
    if added:
        entry[_HOOKS] = existing + added
    return copy.deepcopy(current) if had_hooks else None


def _remove_hooks(env: dict, breakpoint: Breakpoint,
                  native: _Native) -> None:
    """Take back the hooks a breakpoint added, keeping the user's own."""
    if not breakpoint.hooks:
        return
    entry = _registry_entry(env, breakpoint.segments, create=False)
    if entry is None:
        return
    where = '.'.join(_registry_path(breakpoint.segments) + [_HOOKS])
    native_hooks_ = _hook_list(native, where)
    remaining = [hook for hook in _hook_list(entry.get(_HOOKS), where)
                 if hook not in breakpoint.hooks or hook in native_hooks_]
    if native is not None and set(remaining) == set(native_hooks_):
        entry[_HOOKS] = copy.deepcopy(native)
    elif remaining:
        entry[_HOOKS] = remaining
    else:
        entry.pop(_HOOKS, None)
    _prune(env, breakpoint.segments)


def _parameter_defaults(env: dict, create: bool) -> typing.Optional[dict]:
    defaults = env.get(_PARAMETER_DEFAULTS)
    if defaults is None:
        if not create:
            return None
        defaults = env[_PARAMETER_DEFAULTS] = {}
    if not isinstance(defaults, dict):
        raise BreakpointError(
            '%s must be a mapping, got %s'
            % (_PARAMETER_DEFAULTS, _kind(defaults)))
    return defaults


def _read_marker(env: object) -> list[tuple[Breakpoint, _Native]]:
    if not isinstance(env, dict):
        return []
    defaults = env.get(_PARAMETER_DEFAULTS)
    if not isinstance(defaults, dict) or MARKER not in defaults:
        return []
    return _parse_entries(defaults[MARKER],
                          '%s.%s' % (_PARAMETER_DEFAULTS, MARKER),
                          marker=True)


def _write_marker(env: dict,
                  entries: typing.Iterable[tuple[Breakpoint,
                                                 _Native]]) -> None:
    records = []
    for breakpoint, native in entries:
        record = breakpoint.to_dict()
        if native is not None:
            record[_KEY_NATIVE] = native
        records.append(record)
    if records:
        _parameter_defaults(env, create=True)[MARKER] = records
        return
    defaults = _parameter_defaults(env, create=False)
    if defaults is not None:
        defaults.pop(MARKER, None)
        if not defaults:
            del env[_PARAMETER_DEFAULTS]


def _as_breakpoint(value: typing.Union[Breakpoint, str]) -> Breakpoint:
    return value if isinstance(value, Breakpoint) else parse_name(value)


def apply_to_environment(env: typing.Optional[dict],
                         breakpoints: typing.Iterable[Breakpoint]) -> dict:
    """Return a new environment in which the breakpoints are native hooks.

    Hooks are merged into ``resource_registry: resources:`` in Heat's nested
    form, next to whatever is already there, and each breakpoint is recorded
    in ``parameter_defaults[MARKER]`` (a breakpoint of the same name replaces
    the old one). The input is never modified.
    """
    new_env = _copy_env(env)
    current = dict((bp.key, (bp, native))
                   for bp, native in _read_marker(new_env))
    given = set()
    for breakpoint in map(_as_breakpoint, breakpoints):
        if breakpoint.key in given:
            raise BreakpointError(
                'breakpoint %s is given twice' % _show(breakpoint.label))
        given.add(breakpoint.key)
        if breakpoint.key in current:
            _remove_hooks(new_env, *current[breakpoint.key])
        current[breakpoint.key] = (breakpoint,
                                   _add_hooks(new_env, breakpoint))
        _check_count(len(current))
    _write_marker(new_env, current.values())
    return new_env


def remove_from_environment(env: typing.Optional[dict],
                            names: typing.Iterable[typing.Union[
                                str, Breakpoint]]) -> dict:
    """Return a new environment without the named breakpoints.

    A name removes every kind of breakpoint on it (before, after, ...); a
    :class:`Breakpoint` only its own kind. Only the hooks a breakpoint
    added are removed (the marker records which were the user's own);
    mappings left empty are pruned.
    """
    new_env = _copy_env(env)
    if isinstance(names, (str, Breakpoint)):
        names = [names]
    current = dict((bp.key, (bp, native))
                   for bp, native in _read_marker(new_env))
    for wanted in names:
        given = _as_breakpoint(wanted)
        keys = [key for key in current
                if key == given.key or (not isinstance(wanted, Breakpoint)
                                        and key[0] == given.name)]
        if not keys:
            known = ', '.join(dict.fromkeys(
                key[0] for key in current)) if current else 'none'
            raise BreakpointError(
                'no breakpoint %s to remove (breakpoints set: %s)'
                % (_show(given.name), known))
        for key in keys:
            _remove_hooks(new_env, *current.pop(key))
    _write_marker(new_env, current.values())
    return new_env


def rewrite_environment(env: object) -> object:
    """Turn an environment's ``breakpoints`` section into native hooks.

    Heat refuses unknown sections, so this must run before Heat parses the
    environment. Without the section the same object comes back, untouched.
    """
    if not isinstance(env, dict) or SECTION not in env:
        return env
    rest = dict((key, value) for key, value in env.items()
                if key != SECTION)
    return apply_to_environment(rest, parse_section(env[SECTION]))


def from_environment(env: object) -> list[Breakpoint]:
    """The breakpoints recorded in an environment's marker."""
    return [breakpoint for breakpoint, _native in _read_marker(env)]


def native_hooks(env: object) -> list[tuple[tuple[str, ...],
                                            tuple[str, ...]]]:
    """Every hook in the registry as ``(segments, hooks)``, for display.

    Tolerant by design: entries Heat would reject are skipped, not raised.
    """
    registry = env.get(_REGISTRY) if isinstance(env, dict) else None
    resources = (registry.get(_RESOURCES)
                 if isinstance(registry, dict) else None)
    if not isinstance(resources, dict):
        return []
    found = []
    # Iterative walk: a hostile environment may nest deeper than the stack.
    pending = [((), resources)]
    while pending:
        segments, node = pending.pop()
        hooks = node.get(_HOOKS)
        if segments and isinstance(hooks, str):
            found.append((segments, (hooks,)))
        elif segments and isinstance(hooks, list):
            found.append((segments, tuple(h for h in hooks
                                          if isinstance(h, str))))
        children = [(segments + (str(key),), value)
                    for key, value in node.items()
                    if key not in _RESERVED_SEGMENTS
                    and isinstance(value, dict)]
        pending.extend(reversed(children))
    return found


def armed(env: object) -> list[Breakpoint]:
    """What holds in a stack with this environment, as breakpoints.

    The marker's breakpoints, then pre-* hooks set by hand in the registry
    (stock Heat hooks), each once, in the marker's order then the
    registry's. Tolerant: a hand-set hook Heat would refuse is skipped.
    """
    found = from_environment(env)
    known = {breakpoint.name for breakpoint in found}
    for segments, hooks in native_hooks(env):
        actions = [hook[len('pre-'):] for hook in hooks
                   if hook in {'pre-' + action for action in ACTIONS}]
        name = SEPARATOR.join(segments)
        if actions and name not in known:
            try:
                found.append(parse_name(name, actions))
            except BreakpointError:
                continue
            known.add(name)
    return found


def check_resource_names(breakpoints: typing.Iterable[Breakpoint],
                         resource_names: typing.Iterable[str]) -> None:
    """Refuse breakpoints whose first segment names no template resource.

    Only the top level can be checked: nested stacks' resources are not
    known until Heat loads their templates.
    """
    names = sorted(set(str(name) for name in resource_names))
    unmatched = [bp for bp in breakpoints
                 if not any(fnmatch.fnmatchcase(name, bp.segments[0])
                            for name in names)]
    if not unmatched:
        return
    first = unmatched[0]
    head = first.segments[0]
    message = 'breakpoint %s' % _show(first.name)
    if len(first.segments) > 1:
        message += ': %s' % _show(head)
    message += ' matches no resource in the template'
    closest = difflib.get_close_matches(head, names, n=3, cutoff=0.4)
    if closest:
        message += '; closest: %s' % ', '.join(closest)
    if names:
        message += ' (resources: %s)' % _list_names(names)
    else:
        message += ' (the template has no resources)'
    if len(unmatched) > 1:
        message += '; also unmatched: %s' % ', '.join(
            _show(bp.name) for bp in unmatched[1:6])
        if len(unmatched) > 6:
            message += ', ...'
    raise BreakpointError(message)


# ---------------------------------------------------------------------------
# Reading environment files safely

class _EnvironmentLoader(getattr(yaml, 'CSafeLoader', yaml.SafeLoader)):
    """Safe YAML, reading dates as strings exactly as Heat's loader does."""


_EnvironmentLoader.add_constructor('tag:yaml.org,2002:timestamp',
                                   _EnvironmentLoader.construct_yaml_str)


def _node_children(node: yaml.Node) -> list:
    if isinstance(node, yaml.MappingNode):
        return [child for pair in node.value for child in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_node_graph(root: yaml.Node) -> None:
    """Refuse alias bombs, recursive aliases and absurd nesting.

    Aliases compose to shared nodes, so a billion-laughs document is small
    here; it only explodes when something walks the constructed data (copy,
    JSON). Count what the expansion would be, once per distinct node.
    """
    expanded = {}
    ancestors = set()
    pending = [(root, 1, False)]
    while pending:
        node, depth, finished = pending.pop()
        key = id(node)
        if finished:
            ancestors.discard(key)
            expanded[key] = 1 + sum(expanded[id(child)]
                                    for child in _node_children(node))
            continue
        if key in expanded:
            continue
        if depth > MAX_NESTING:
            raise BreakpointError(
                'environment is nested too deeply (limit: %d levels)'
                % MAX_NESTING)
        ancestors.add(key)
        pending.append((node, depth, True))
        for child in _node_children(node):
            if id(child) in ancestors:
                raise BreakpointError(
                    'environment has a recursive YAML alias')
            if id(child) not in expanded:
                pending.append((child, depth + 1, False))
    if expanded[id(root)] - len(expanded) > MAX_ALIAS_EXPANSION:
        raise BreakpointError(
            'environment YAML aliases expand to more than %d extra nodes'
            % MAX_ALIAS_EXPANSION)


def _yaml_problem(error: Exception) -> str:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem:
        text = error.problem
        mark = error.problem_mark
        if mark is not None:
            text += ' (line %d, column %d)' % (mark.line + 1, mark.column + 1)
        return text
    return str(error) or type(error).__name__


def _load_yaml(text: typing.Union[str, bytes]) -> object:
    loader = _EnvironmentLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_node_graph(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_environment_text(text: typing.Union[str, bytes]) -> dict:
    """Parse an environment file's text into a mapping, refusing abuse.

    The text comes from users, so it is capped in size and checked for alias
    expansion before anything walks it.
    """
    if not isinstance(text, (str, bytes)):
        raise BreakpointError(
            'environment must be YAML text, got %s' % _kind(text))
    if len(text) > MAX_ENVIRONMENT_SIZE or (
            isinstance(text, str) and len(text.encode(
                'utf-8', 'surrogatepass')) > MAX_ENVIRONMENT_SIZE):
        raise BreakpointError(
            'environment is larger than %d bytes' % MAX_ENVIRONMENT_SIZE)
    try:
        env = _load_yaml(text)
    except BreakpointError:
        raise
    except Exception as error:
        # Any parser failure (YAML, encoding, constructor limits such as
        # Python's cap on integer digits) is the input's fault.
        raise BreakpointError(
            'environment is not valid YAML: %s' % _yaml_problem(error)
        ) from None
    if env is None:
        return {}
    if not isinstance(env, dict):
        raise BreakpointError(
            'environment must be a mapping of sections, got %s' % _kind(env))
    return env
