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
nested templates Heat loads. A create has no stack yet, so the client
follows the same path through the local files Heat will be sent: a
resource whose type is a template file beside its parent, or a type the
``-e`` files' ``resource_registry`` maps to a local template (as
heatclient resolves it: relative to the environment file). Whatever only
Heat can resolve (a URL, a group's members, a type its global
environment maps) is given the benefit of the doubt.
"""

import fnmatch
import logging
import os
import typing

from heatclient.common import template_utils

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import nesting
from heatclient_ext._i18n import _
from heatclient_ext import exceptions

LOG = logging.getLogger(__name__)

_REGISTRY = 'resource_registry'
_RESOURCES = 'resources'
_HOOKS = 'hooks'
_TEMPLATE_SUFFIXES = ('.yaml', '.yml', '.template', '.json')
# Heat follows a chain of type aliases; a loop is the user's to find.
_MAX_ALIASES = 10


class TemplateNames(dict):
    """``{name: type}`` of a template's top-level resources, and its path.

    The path lets a nested breakpoint be checked against the nested
    templates beside it (:func:`check`).
    """

    path: typing.Optional[str] = None


def template_resource_names(path) -> typing.Optional[dict]:
    """``{name: type}`` of a local template's top-level resources.

    None if unreadable. Iterating it gives the names.
    """
    if not path:
        return None
    try:
        template = template_utils.get_template_contents(
            template_file=path, fetch_child=False)[1]
    except Exception:  # heatclient reports a bad template itself, later
        LOG.debug('Cannot read template %s for name checks', path)
        return None
    types = nesting.resource_types(template)
    if types is None:
        return None
    found = TemplateNames(types)
    found.path = path
    return found


def _local_file(base: str, target) -> typing.Optional[str]:
    """The local template ``target`` names, relative to ``base``'s folder.

    None when it is no template file, or one only Heat can fetch.
    """
    if not isinstance(target, str) or not target.endswith(
            _TEMPLATE_SUFFIXES):
        return None
    if '://' in target:
        return target[len('file://'):] if target.startswith('file://') \
            else None
    return os.path.join(os.path.dirname(base), target)


def _maps_types(spec: dict) -> bool:
    """Whether a registry ``resources`` entry maps a type, at any depth."""
    return any(key != _HOOKS and (isinstance(value, str) or (
        isinstance(value, dict) and _maps_types(value)))
        for key, value in spec.items())


class Registry(object):
    """What the ``-e`` files' ``resource_registry`` maps types to.

    ``files`` are ``{'path', 'env'}`` in the order given: a later file's
    type mapping wins, and its ``resources`` section replaces an earlier
    one's (as Heat merges them).
    """

    def __init__(self, files: typing.Iterable[dict] = ()) -> None:
        self.types = {}
        self.per_resource = {}
        for entry in files:
            registry = entry['env'].get(_REGISTRY)
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

    def template_of(self, parent: str, name: str, kind,
                    top: bool) -> typing.Optional[str]:
        """The local template of resource ``name`` of type ``kind``.

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
                return _local_file(base, kind)
            base, kind = mapped
        return None


def check(found, types, files: typing.Iterable[dict] = ()) -> None:
    """Refuse ``outer/inner`` where ``outer``'s template has no ``inner``.

    ``types`` is :func:`template_resource_names` of the root template;
    ``files`` the ``-e`` files (``{'path', 'env'}``). Followed as deep as
    the path names; a pattern, a group or anything only Heat can resolve
    stops the check.
    """
    path = getattr(types, 'path', None)
    if path is None:
        return
    registry = Registry(files)
    for bp in found:
        parent, level = path, types
        for depth, head in enumerate(bp.segments[:-1]):
            if _is_pattern(head):
                break
            child = registry.template_of(
                parent, head, (level or {}).get(head), top=depth == 0)
            if child is None:
                break
            below = template_resource_names(child)
            if below is None:
                break
            inner = bp.segments[depth + 1]
            if not breakpoints.matching_names(inner, sorted(below),
                                              first=True):
                _refuse(bp, head, inner, child, sorted(below))
            parent, level = child, below


def _is_pattern(name: str) -> bool:
    return any(c in name for c in '*?[')


def _refuse(bp, outer, inner, child, names) -> None:
    # str(): under lazy translation _() gives Messages, which do not add.
    parts = [_('breakpoint %(name)s: %(inner)s matches no resource of '
               '%(outer)s (%(file)s)') % {
                   'name': breakpoints.quoted(bp.name),
                   'inner': breakpoints.quoted(inner),
                   'outer': breakpoints.quoted(outer),
                   'file': os.path.basename(child)}]
    closest = breakpoints.closest_names(inner, names, n=3, cutoff=0.4)
    if closest:
        parts.append(_('; closest: %s') % ', '.join(closest))
    parts.append(_(' (resources: %s)') % (', '.join(names) or _('none')))
    raise exceptions.BreakpointCommandError(
        ''.join(str(part) for part in parts))
