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
"""A typo below a nested stack, refused before the stack is created.

``breakpoint set`` checks ``outer/inner`` in the engine, against the
nested templates Heat loads. A create has no stack yet, so the path is
followed through the nested templates that come with the request: a
resource whose type is a template file, or a type the environments'
``resource_registry`` maps to one. The client follows them among local
files (relative to the template or environment that names them, as
heatclient resolves them), the API filter among the request's ``files``
(heatclient and heat-dashboard send each nested template there, under
the absolute URL the template names it by): each passes how to find
and read a template, the walk is the same. Whatever only Heat can
resolve (a URL not sent, a group's members, a type its global
environment maps, a mapping for resources inside a nested stack) is
given the benefit of the doubt.

Pure, like :mod:`heat_breakpoint.model.breakpoints`: no Heat import.
"""

import fnmatch
import typing

from heat_breakpoint.model import breakpoints

_REGISTRY = 'resource_registry'
_RESOURCES = 'resources'
_HOOKS = 'hooks'
# Heat follows a chain of type aliases; a loop is the user's to find.
_MAX_ALIASES = 10

#: ``resolve(base, target)``: the template ``target`` names, seen from
#: ``base`` (the template or environment naming it), or None.
Resolve = typing.Callable[[typing.Optional[str], object],
                          typing.Optional[str]]
#: ``load(ref)``: ``{name: type}`` of that template's resources, or None.
Load = typing.Callable[[str], typing.Optional[dict]]


def _maps_types(spec: dict) -> bool:
    """Whether a registry ``resources`` entry maps a type, at any depth."""
    return any(key != _HOOKS and (isinstance(value, str) or (
        isinstance(value, dict) and _maps_types(value)))
        for key, value in spec.items())


class Registry(object):
    """What the environments' ``resource_registry`` maps types to.

    ``files`` are ``{'path', 'env'}`` in the order given (``path``: where
    relative targets are read from, None when they are absolute): a
    later file's type mapping wins, and its ``resources`` section
    replaces an earlier one's (as Heat merges them).
    """

    def __init__(self, files: typing.Iterable[dict] = ()) -> None:
        self.types = {}
        self.per_resource = {}
        for entry in files:
            registry = entry['env'].get(_REGISTRY) if isinstance(
                entry['env'], dict) else None
            if not isinstance(registry, dict):
                continue
            for key, target in registry.items():
                if key != _RESOURCES:
                    self.types[str(key)] = (entry['path'], target)
            section = registry.get(_RESOURCES)
            if isinstance(section, dict):
                self.per_resource = {
                    str(name): (entry['path'], spec)
                    for name, spec in section.items()
                    if isinstance(spec, dict)}
        # A type mapped for a resource inside a nested stack: only Heat
        # tells which, so nothing below the root is followed then.
        self.deep_mappings = any(
            isinstance(value, dict) and _maps_types(value)
            for _base, spec in self.per_resource.values()
            for value in spec.values())

    def _mapping(self, name: str, kind: str, top: bool):
        """``(base, target)`` Heat would use for ``kind``, or None.

        Heat prefers a mapping for the resource by name (exact) to one
        for its type; where a wildcard could also apply, ``(None, None)``:
        Heat's to resolve.
        """
        unsure = None, None
        if top:
            for pattern, (base, spec) in self.per_resource.items():
                if kind not in spec:
                    continue
                if pattern == name:
                    return base, spec[kind]
                if fnmatch.fnmatchcase(name, pattern):
                    return unsure
        if any(key.endswith('*') and kind.startswith(key[:-1])
               for key in self.types):
            return unsure
        return self.types.get(kind)

    def template_of(self, parent: typing.Optional[str], name: str, kind,
                    top: bool, resolve: Resolve) -> typing.Optional[str]:
        """The template of resource ``name`` of type ``kind``.

        ``parent`` is the template that declares it; ``top``: it is a
        resource of the root template. None when it is no template, or
        one only Heat can resolve.
        """
        if not top and self.deep_mappings:
            return None
        base = parent
        for _step in range(_MAX_ALIASES):
            if not isinstance(kind, str):
                return None
            mapped = self._mapping(name, kind, top)
            if mapped is None:
                return resolve(base, kind)
            base, kind = mapped
        return None


def _is_pattern(name: str) -> bool:
    return any(c in name for c in '*?[')


def _label(ref: str) -> str:
    return ref.rstrip('/').rsplit('/', 1)[-1]


def check(found: typing.Iterable[breakpoints.Breakpoint],
          root: typing.Optional[str], types: typing.Optional[dict],
          files: typing.Iterable[dict], resolve: Resolve,
          load: Load) -> None:
    """Refuse ``outer/inner`` where ``outer``'s template has no ``inner``.

    ``root`` names the root template (for ``resolve``), ``types`` is its
    ``{name: type}``; ``files`` the environments (``{'path', 'env'}``).
    Followed as deep as the path names; a pattern, a group or anything
    only Heat can resolve stops the check. Raises BreakpointError naming
    the resources that template has, and the closest.
    """
    if not types:
        return
    registry = Registry(files)
    for bp in found:
        parent, level = root, types
        for depth, head in enumerate(bp.segments[:-1]):
            if _is_pattern(head):
                break
            child = registry.template_of(
                parent, head, (level or {}).get(head), depth == 0, resolve)
            if child is None:
                break
            below = load(child)
            if below is None:
                break
            inner = bp.segments[depth + 1]
            names = sorted(below)
            if not breakpoints.matching_names(inner, names, first=True):
                _refuse(bp, head, inner, child, names)
            parent, level = child, below


def _refuse(bp, outer, inner, child, names) -> None:
    message = ('breakpoint %s: %s matches no resource of %s (%s)' % (
        breakpoints.quoted(bp.name), breakpoints.quoted(inner),
        breakpoints.quoted(outer), _label(child)))
    closest = breakpoints.closest_names(inner, names, n=3, cutoff=0.4)
    if closest:
        message += '; closest: %s' % ', '.join(closest)
    message += ' (resources: %s)' % (', '.join(names) or 'none')
    raise breakpoints.BreakpointError(message)
