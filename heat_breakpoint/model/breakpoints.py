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
clients) the API request body. This module is the one place that parses and
validates every name and action into :class:`Breakpoint` (where, on which
actions, and when it holds), with one-line errors; the section's entries
around the names are :mod:`heat_breakpoint.model.section`'s. How
breakpoints are kept in a Heat environment is
:mod:`heat_breakpoint.model.registry`'s job; reading environment files
safely, :mod:`heat_breakpoint.model.envfile`'s.

It imports nothing from Heat, heatclient or oslo so that the client, the API
filter and the engine plugin can all use it; its messages are plain English
for the same reason.
"""

import collections.abc
import dataclasses
import fnmatch
import typing

from heat_breakpoint.model import kinds
from heat_breakpoint.model import resource_names

SECTION = 'breakpoints'
ACTIONS = kinds.ACTIONS
DEFAULT_ACTIONS = kinds.DEFAULT_ACTIONS

#: When a breakpoint holds its resource, relative to the resource's action
#: (:mod:`.kinds` says what each means).
BEFORE, AFTER, FAILED, CHANGED, REPLACED = (
    kinds.BEFORE.when, kinds.AFTER.when, kinds.FAILED.when,
    kinds.CHANGED.when, kinds.REPLACED.when)
WHENS = kinds.whens()
#: The actions each kind of hold can apply to, and its default actions.
WHEN_ACTIONS = {kind.when: kind.actions for kind in kinds.KINDS}
WHEN_DEFAULT_ACTIONS = {kind.when: kind.default_actions
                        for kind in kinds.KINDS}
#: Stock Heat hook prefixes for the kinds it has (pre-*, post-*); the
#: other kinds exist only with the engine plugin.
_HOOK_PREFIX = {kind.when: kind.hook_prefix for kind in kinds.KINDS
                if kind.hook_prefix}
MAX_BREAKPOINTS = 200
MAX_NAME_LENGTH = 255
# Heat's API reads a resource's URL as Latin-1 (PEP 3333's PATH_INFO,
# never decoded again): a resource whose name is not ASCII cannot be shown
# or signalled, so a hold there could never be released, by stock hook
# clear either. Such names are refused, and no pattern holds them
# (:func:`addressable`).
NOT_ASCII = ("%s: Heat's API cannot address a resource whose name is not "
             "ASCII (resource show, signal and hook clear fail), so a hold "
             "there could never be released; give the resource an ASCII "
             "name")
MAX_DEPTH = 10


SEPARATOR = '/'
#: The breakpoint name that holds every resource, at any depth.
EVERY = '*'

# The keys of a breakpoint written as a mapping (to_dict, and the
# environment section's entries: heat_breakpoint.model.section).
KEY_RESOURCE, KEY_ACTION, KEY_ACTIONS = 'resource', 'action', 'actions'
KEY_WHEN, KEY_HOOK = 'when', 'hook'
ENTRY_KEYS = (KEY_RESOURCE, KEY_ACTION, KEY_ACTIONS, KEY_WHEN, KEY_HOOK)

REGISTRY = 'resource_registry'
RESOURCES = 'resources'
HOOKS = 'hooks'
PARAMETER_DEFAULTS = 'parameter_defaults'
# Heat's registry reads these keys as settings at every nesting level, so a
# resource path segment of that name could never be reached.
RESERVED_SEGMENTS = (HOOKS, 'restricted_actions')

_MAX_SHOWN_CHARS = 60
_MAX_LISTED_NAMES = 30


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
    # None (every action) or any iterable: __post_init__ makes a tuple.
    actions: tuple[str, ...] = None  # type: ignore[assignment]
    when: str = BEFORE

    def __post_init__(self) -> None:
        # Frozen, so normalise through object.__setattr__: callers may pass
        # lists or mixed-case actions and still compare equal.
        path = self.path
        if isinstance(path, str) or not isinstance(
                path, collections.abc.Sequence):
            raise BreakpointError(
                'breakpoint path must be a sequence of names, got %s'
                % yaml_kind(path))
        object.__setattr__(self, 'path', tuple(path))
        segments = self.path + (self.pattern,)
        for segment in segments:
            if not isinstance(segment, str):
                raise BreakpointError(
                    'breakpoint names must be strings, got %s'
                    % yaml_kind(segment))
        name = SEPARATOR.join(segments)
        _check_segments(name, segments)
        when = normalise_when(self.when)
        object.__setattr__(self, 'when', when)
        object.__setattr__(self, 'actions',
                           normalise_actions(self.actions, when))

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
        registry matches hooks, and only at the same nesting depth; a lone
        ``*`` matches every resource, nested ones included. A string
        path is split on ``/``. ``action`` is compared case-insensitively so
        Heat's ``'CREATE'`` works as well as ``'create'``.
        """
        if isinstance(resource_path, str):
            resource_path = resource_path.split(SEPARATOR)
        segments = self.segments
        if action is not None and str(action).lower() not in self.actions:
            return False
        if when is not None and when != self.when:
            return False
        if segments == (EVERY,):
            return True
        if len(resource_path) != len(segments):
            return False
        return all(fnmatch.fnmatchcase(str(name), pattern)
                   for name, pattern in zip(resource_path, segments))

    def to_dict(self) -> dict:
        found = {KEY_RESOURCE: self.name, KEY_ACTIONS: list(self.actions)}
        if self.when != BEFORE:
            found[KEY_WHEN] = self.when
        return found


# ---------------------------------------------------------------------------
# Message helpers

natural_key = resource_names.natural_key
closest_names = resource_names.closest_names
matching_names = resource_names.matching_names


def quoted(text: str) -> str:
    """Quote a user-given name for a one-line message, escaped and short."""
    if len(text) > _MAX_SHOWN_CHARS:
        text = text[:_MAX_SHOWN_CHARS] + '...'
    return repr(text)


def yaml_kind(value: object) -> str:
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


def prefixed(where: str, error: BreakpointError) -> BreakpointError:
    """The same error, said of ``where`` (a place in a file or a list)."""
    return BreakpointError('%s: %s' % (where, error.message))


# ---------------------------------------------------------------------------
# Names and actions

def _has_control_characters(text: str) -> bool:
    return any(ord(char) < 32 or 127 <= ord(char) < 160 for char in text)


def _check_segments(name: str, segments: typing.Sequence[str]) -> None:
    """Refuse names Heat's registry could not hold or would misread."""
    where = 'breakpoint %s' % quoted(name)
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
            "%s: segment %s contains '/'" % (where, quoted(segment)))
    if segment in ('.', '..'):
        raise BreakpointError(
            '%s: %s is not a resource name' % (where, quoted(segment)))
    if segment in RESERVED_SEGMENTS:
        raise BreakpointError(
            "%s: %s is reserved by Heat's resource registry"
            % (where, quoted(segment)))
    if len(segment) > MAX_NAME_LENGTH:
        raise BreakpointError(
            '%s: a name is %d characters long (limit: %d)'
            % (where, len(segment), MAX_NAME_LENGTH))
    if not segment.isascii():
        raise BreakpointError(NOT_ASCII % where)


def normalise_when(when: object) -> str:
    if when is None:
        return BEFORE
    if not isinstance(when, str) or when.lower() not in WHENS:
        shown = quoted(when) if isinstance(when, str) else yaml_kind(when)
        raise BreakpointError('unknown when %s (allowed: %s)'
                              % (shown, ', '.join(WHENS)))
    return when.lower()


def normalise_actions(actions: typing.Union[str, typing.Iterable[str],
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
            '%s), got %s' % (allowed, yaml_kind(actions)))
    given = set()
    for action in actions:
        if not isinstance(action, str):
            raise BreakpointError(
                'an action must be a string (allowed: %s), got %s'
                % (allowed, yaml_kind(action)))
        if action.lower() not in ACTIONS:
            raise BreakpointError(
                'unknown action %s (allowed: %s)' % (quoted(action), allowed))
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
    found: dict[str, list[str]] = {}
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
            shown = quoted(hook) if isinstance(hook, str) else yaml_kind(hook)
            raise BreakpointError('unknown hook %s (allowed: %s)'
                                  % (shown, allowed))
    if len(found) != 1:
        raise BreakpointError('hooks of one breakpoint must all be pre-* '
                              'or all post-*')
    when, actions = found.popitem()
    return when, tuple(actions)


def addressable(resource_path: typing.Sequence[str]) -> bool:
    """Whether a hold at ``resource_path`` could be released (ASCII).

    See :data:`NOT_ASCII`: a pattern matching a resource that fails this
    does not hold it.
    """
    return all(str(name).isascii() for name in resource_path)


def parse_name(text: str, actions: typing.Union[str, typing.Iterable[str],
                                                None] = None,
               when: str = BEFORE) -> Breakpoint:
    """Parse one CLI name: ``'R'`` or ``'outer/inner/R'``."""
    if not isinstance(text, str):
        raise BreakpointError(
            'a breakpoint must be a resource name, got %s' % yaml_kind(text))
    segments = text.split(SEPARATOR)
    # A name of actions or any iterable of them: __post_init__ normalises.
    return Breakpoint(tuple(segments[:-1]), segments[-1],
                      actions, when)  # type: ignore[arg-type]


def parse_pattern(text: str, actions: typing.Union[str, typing.Iterable[
        str], None] = None, when: str = BEFORE) -> Breakpoint:
    """Parse one CLI name that may be a pattern (``'web_*'``).

    As :func:`parse_name` (the same limits and characters), and every
    ``[`` of a segment opens a set that closes: fnmatch would otherwise
    read it as a plain character, which is not what was meant.
    """
    bp = parse_name(text, actions, when)
    for segment in bp.segments:
        if _unclosed_set(segment):
            raise BreakpointError(
                "breakpoint %s: '[' opens a set that is not closed in %s"
                % (quoted(text), quoted(segment)))
    return bp


def _unclosed_set(segment: str) -> bool:
    """Whether fnmatch would find a ``[`` without its ``]``."""
    i = 0
    while i < len(segment):
        if segment[i] != '[':
            i += 1
            continue
        j = i + 1
        if j < len(segment) and segment[j] == '!':
            j += 1
        if j < len(segment) and segment[j] == ']':
            j += 1
        close = segment.find(']', j)
        if close < 0:
            return True
        i = close + 1
    return False


def check_count(count: int, where: str = '') -> None:
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
    check_count(len(names))
    result = []
    seen = set()
    for name in names:
        breakpoint = parse_name(name, actions, when)
        if breakpoint.name in seen:
            raise BreakpointError(
                'breakpoint %s is given twice' % quoted(breakpoint.name))
        seen.add(breakpoint.name)
        result.append(breakpoint)
    return result


def check_resource_names(breakpoints: typing.Iterable[Breakpoint],
                         resource_names: typing.Iterable[str]) -> None:
    """Refuse breakpoints whose first segment names no template resource.

    Only the top level can be checked: nested stacks' resources are not
    known until Heat loads their templates.
    """
    names = sorted(set(str(name) for name in resource_names))
    unmatched = [bp for bp in breakpoints
                 if not matching_names(bp.segments[0], names, first=True)]
    if not unmatched:
        return
    first = unmatched[0]
    head = first.segments[0]
    message = 'breakpoint %s' % quoted(first.name)
    if len(first.segments) > 1:
        message += ': %s' % quoted(head)
    message += ' matches no resource in the template'
    closest = closest_names(head, names, n=3, cutoff=0.4)
    if closest:
        message += '; closest: %s' % ', '.join(closest)
    if names:
        message += ' (resources: %s)' % _list_names(names)
    else:
        message += ' (the template has no resources)'
    if len(unmatched) > 1:
        message += '; also unmatched: %s' % ', '.join(
            quoted(bp.name) for bp in unmatched[1:6])
        if len(unmatched) > 6:
            message += ', ...'
    raise BreakpointError(message)
