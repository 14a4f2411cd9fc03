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
"""Which template resources are nested stacks, for ``outer/inner`` names.

A breakpoint ``db/x`` only means something if ``db`` is a nested stack:
otherwise Heat stores a registry entry that never fires. The client (with
the local template and environment files) and the API filter (with the
request body) refuse such a breakpoint with the same check, here.

The check is conservative: a resource counts as *not* a nested stack only
when that is certain from what is at hand. Its type must be a plain
``OS::``/``AWS::`` type that is not one of Heat's stack-making types, and
no environment given maps it (Heat's global environment on the server is
not seen; whatever it might remap is a type no environment here names).
Template files (``*.yaml``...), other namespaces and anything mapped are
given the benefit of the doubt.

Pure, like :mod:`heat_breakpoint.model.breakpoints`: no Heat import.
"""

import fnmatch
import typing

from heat_breakpoint.model import breakpoints

#: Heat's resource types that create a nested stack.
STACK_TYPES = frozenset((
    'OS::Heat::Stack', 'AWS::CloudFormation::Stack',
    'OS::Heat::ResourceGroup', 'OS::Heat::ResourceChain',
    'OS::Heat::AutoScalingGroup', 'AWS::AutoScaling::AutoScalingGroup',
    'OS::Heat::InstanceGroup',
    'OS::Heat::SoftwareDeploymentGroup', 'OS::Heat::SoftwareDeployments',
    'OS::Heat::StructuredDeploymentGroup',
    'OS::Heat::StructuredDeployments',
))
#: Namespaces of Heat's own (plugin) resource types.
PLAIN_NAMESPACES = ('OS::', 'AWS::')

_REGISTRY = 'resource_registry'
_RESOURCES = 'resources'


def resource_types(template: object) -> typing.Optional[dict]:
    """``{name: type}`` of a loaded template's top-level resources.

    None when the template is not readable as such.
    """
    if not isinstance(template, dict):
        return None
    resources = template.get('resources', template.get('Resources'))
    if resources is None:
        return {}
    if not isinstance(resources, dict):
        return None
    types = {}
    for name, definition in resources.items():
        kind = None
        if isinstance(definition, dict):
            kind = definition.get('type', definition.get('Type'))
        types[str(name)] = kind if isinstance(kind, str) else None
    return types


def _remaps(key: str, kind: str) -> bool:
    """Whether a registry key maps resources of type ``kind``."""
    return key == kind or (key.endswith('*') and kind.startswith(key[:-1]))


def _could_be_stack(kind: typing.Optional[str]) -> bool:
    return (not isinstance(kind, str) or kind in STACK_TYPES or
            not kind.startswith(PLAIN_NAMESPACES))


class _Remapped(object):
    """Which types the environments' registries remap, and for whom.

    Read once per check, for the template's types only: a registry of
    thousands of entries then costs one pass, not one pass per resource.
    """

    def __init__(self, environments: typing.Iterable, kinds: typing.Iterable):
        kinds = {kind for kind in kinds if not _could_be_stack(kind)}
        self.everywhere: set[str] = set()
        self.by_name: dict[str, set[str]] = {}
        self.by_pattern: list[tuple[str, set[str]]] = []

        def remapped(keys):
            keys = [str(key) for key in keys]
            return {kind for kind in kinds
                    if any(_remaps(key, kind) for key in keys)}
        for env in environments:
            registry = env.get(_REGISTRY) if isinstance(env, dict) else None
            if not isinstance(registry, dict):
                continue
            self.everywhere |= remapped(
                key for key in registry if key != _RESOURCES)
            per_resource = registry.get(_RESOURCES)
            if not isinstance(per_resource, dict):
                continue
            for pattern, entry in per_resource.items():
                found = remapped(entry) if isinstance(entry, dict) else ()
                if not found:
                    continue
                pattern = str(pattern)
                if not any(c in pattern for c in '*?['):
                    self.by_name.setdefault(pattern, set()).update(found)
                else:
                    self.by_pattern.append((pattern, found))

    def remaps(self, name: str, kind: typing.Optional[str]) -> bool:
        if kind in self.everywhere or kind in self.by_name.get(name, ()):
            return True
        return any(kind in kinds and fnmatch.fnmatchcase(name, pattern)
                   for pattern, kinds in self.by_pattern)


def _not_nested(name: str, kind: typing.Optional[str],
                remapped: _Remapped) -> bool:
    return not _could_be_stack(kind) and not remapped.remaps(name, kind)


def check_nested(found: typing.Iterable[breakpoints.Breakpoint],
                 types: typing.Optional[dict],
                 environments: typing.Iterable = ()) -> None:
    """Refuse ``outer/inner`` breakpoints whose ``outer`` is surely no stack.

    ``types`` is :func:`resource_types` of the template (None: unknown,
    nothing is checked); ``environments`` are the loaded environments
    sent with it. Raises BreakpointError naming the nested-stack resources
    the template has.
    """
    if not types:
        return
    nested = [bp for bp in found if len(bp.segments) >= 2]
    if not nested:
        return
    remapped = _Remapped(environments, set(types.values()))
    names = sorted(types)
    for breakpoint in nested:
        head = breakpoint.segments[0]
        matched = breakpoints.matching_names(head, names)
        if not matched or not all(
                _not_nested(name, types[name], remapped)
                for name in matched):
            continue
        chosen = set(matched)
        first = next(name for name in types if name in chosen)
        stacks = sorted(name for name in types
                        if not _not_nested(name, types[name], remapped))
        message = ('breakpoint %r: %r is not a nested stack (%s)'
                   % (breakpoint.name, first, types[first]))
        if stacks:
            message += '; nested stack resources: %s' % ', '.join(stacks)
        else:
            message += '; the template has no nested stack resources'
        raise breakpoints.BreakpointError(message)
