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
"""Breakpoints as Heat keeps them: native hooks plus a marker.

Heat itself only knows native resource hooks (``resource_registry:
resources: NAME: hooks: pre-create``), which a stock engine already holds
and releases. A breakpoint is kept as its hooks plus an entry in the
environment's ``parameter_defaults`` under :data:`MARKER`, which tells a
breakpoint from a hook a user set by hand and records the user's own hooks
on the same entry, so that removing the breakpoint gives them back. This
module translates :mod:`heat_breakpoint.model.breakpoints` to and from that
form; like the model it imports nothing from Heat, heatclient or oslo.
"""

import copy
import typing

from heat_breakpoint.model.breakpoints import ACTIONS
from heat_breakpoint.model.breakpoints import Breakpoint
from heat_breakpoint.model.breakpoints import BreakpointError
from heat_breakpoint.model.breakpoints import check_count
from heat_breakpoint.model.breakpoints import HOOKS
from heat_breakpoint.model.breakpoints import PARAMETER_DEFAULTS
from heat_breakpoint.model.breakpoints import parse_name
from heat_breakpoint.model.breakpoints import quoted
from heat_breakpoint.model.breakpoints import REGISTRY
from heat_breakpoint.model.breakpoints import RESERVED_SEGMENTS
from heat_breakpoint.model.breakpoints import RESOURCES
from heat_breakpoint.model.breakpoints import SECTION
from heat_breakpoint.model.breakpoints import SEPARATOR
from heat_breakpoint.model.breakpoints import yaml_kind
from heat_breakpoint.model.envfile import MAX_NESTING
from heat_breakpoint.model.section import hook_list
from heat_breakpoint.model.section import KEY_NATIVE
from heat_breakpoint.model.section import Native
from heat_breakpoint.model.section import parse_entries
from heat_breakpoint.model.section import parse_section

#: Where in ``parameter_defaults`` the breakpoints are recorded.
MARKER = 'heat_breakpoints'


def _copy_env(env: object) -> dict:
    if env is None:
        return {}
    if not isinstance(env, dict):
        raise BreakpointError('environment must be a mapping of sections, '
                              'got %s' % yaml_kind(env))
    try:
        return copy.deepcopy(env)
    except RecursionError:
        raise BreakpointError(
            'environment is nested too deeply (limit: %d levels)'
            % MAX_NESTING) from None


def _registry_path(segments: typing.Sequence[str]) -> list[str]:
    return [REGISTRY, RESOURCES] + list(segments)


@typing.overload
def _registry_entry(env: dict, segments: typing.Sequence[str],
                    create: typing.Literal[True]) -> dict:
    ...


@typing.overload
def _registry_entry(env: dict, segments: typing.Sequence[str],
                    create: bool) -> typing.Optional[dict]:
    ...


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
                % (quoted(SEPARATOR.join(segments)), '.'.join(walked),
                   yaml_kind(child)))
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


def _add_hooks(env: dict, breakpoint: Breakpoint) -> Native:
    """Add the breakpoint's hooks; return what the user had set there."""
    if not breakpoint.hooks:
        return None
    entry = _registry_entry(env, breakpoint.segments, create=True)
    where = '.'.join(_registry_path(breakpoint.segments) + [HOOKS])
    had_hooks = HOOKS in entry
    current = entry.get(HOOKS)
    existing = hook_list(current, where)
    added = [hook for hook in breakpoint.hooks if hook not in existing]
    if added:
        entry[HOOKS] = existing + added
    return copy.deepcopy(current) if had_hooks else None


def _remove_hooks(env: dict, breakpoint: Breakpoint,
                  native: Native) -> None:
    """Take back the hooks a breakpoint added, keeping the user's own."""
    if not breakpoint.hooks:
        return
    entry = _registry_entry(env, breakpoint.segments, create=False)
    if entry is None:
        return
    where = '.'.join(_registry_path(breakpoint.segments) + [HOOKS])
    native_hooks_ = hook_list(native, where)
    remaining = [hook for hook in hook_list(entry.get(HOOKS), where)
                 if hook not in breakpoint.hooks or hook in native_hooks_]
    if native is not None and set(remaining) == set(native_hooks_):
        entry[HOOKS] = copy.deepcopy(native)
    elif remaining:
        entry[HOOKS] = remaining
    else:
        entry.pop(HOOKS, None)
    _prune(env, breakpoint.segments)


@typing.overload
def _parameter_defaults(env: dict, create: typing.Literal[True]) -> dict:
    ...


@typing.overload
def _parameter_defaults(env: dict, create: bool) -> typing.Optional[dict]:
    ...


def _parameter_defaults(env: dict, create: bool) -> typing.Optional[dict]:
    defaults = env.get(PARAMETER_DEFAULTS)
    if defaults is None:
        if not create:
            return None
        defaults = env[PARAMETER_DEFAULTS] = {}
    if not isinstance(defaults, dict):
        raise BreakpointError(
            '%s must be a mapping, got %s'
            % (PARAMETER_DEFAULTS, yaml_kind(defaults)))
    return defaults


def _read_marker(env: object) -> list[tuple[Breakpoint, Native]]:
    if not isinstance(env, dict):
        return []
    defaults = env.get(PARAMETER_DEFAULTS)
    if not isinstance(defaults, dict) or MARKER not in defaults:
        return []
    return parse_entries(defaults[MARKER],
                         '%s.%s' % (PARAMETER_DEFAULTS, MARKER),
                         marker=True)


def _write_marker(env: dict,
                  entries: typing.Iterable[tuple[Breakpoint,
                                                 Native]]) -> None:
    records = []
    for breakpoint, native in entries:
        record = breakpoint.to_dict()
        if native is not None:
            record[KEY_NATIVE] = native
        records.append(record)
    if records:
        _parameter_defaults(env, create=True)[MARKER] = records
        return
    defaults = _parameter_defaults(env, create=False)
    if defaults is not None:
        defaults.pop(MARKER, None)
        if not defaults:
            del env[PARAMETER_DEFAULTS]


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
                'breakpoint %s is given twice' % quoted(breakpoint.label))
        given.add(breakpoint.key)
        if breakpoint.key in current:
            _remove_hooks(new_env, *current[breakpoint.key])
        current[breakpoint.key] = (breakpoint,
                                   _add_hooks(new_env, breakpoint))
        check_count(len(current))
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
                % (quoted(given.name), known))
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
    registry = env.get(REGISTRY) if isinstance(env, dict) else None
    resources = (registry.get(RESOURCES)
                 if isinstance(registry, dict) else None)
    if not isinstance(resources, dict):
        return []
    found: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    # Iterative walk: a hostile environment may nest deeper than the stack.
    pending: list[tuple[tuple[str, ...], dict]] = [((), resources)]
    while pending:
        segments, node = pending.pop()
        hooks = node.get(HOOKS)
        if segments and isinstance(hooks, str):
            found.append((segments, (hooks,)))
        elif segments and isinstance(hooks, list):
            found.append((segments, tuple(h for h in hooks
                                          if isinstance(h, str))))
        children = [(segments + (str(key),), value)
                    for key, value in node.items()
                    if key not in RESERVED_SEGMENTS
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
