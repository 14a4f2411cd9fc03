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

Pure, like :mod:`heat_breakpoint.breakpoints`: no Heat import.
"""

import fnmatch
import typing

from heat_breakpoint import breakpoints

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


def _mapped_types(env: object, name: str) -> list:
    """Registry keys of an environment that may remap ``name``'s type."""
    registry = env.get(_REGISTRY) if isinstance(env, dict) else None
    if not isinstance(registry, dict):
        return []
    keys = [key for key in registry if key != _RESOURCES]
    per_resource = registry.get(_RESOURCES)
    if isinstance(per_resource, dict):
        for pattern, entry in per_resource.items():
            if isinstance(entry, dict) and fnmatch.fnmatchcase(
                    name, str(pattern)):
                keys.extend(entry)
    return [str(key) for key in keys]


def certainly_not_nested(name: str, kind: typing.Optional[str],
                         environments: typing.Iterable = ()) -> bool:
    """Whether resource ``name`` of type ``kind`` is surely no stack."""
    if not isinstance(kind, str) or kind in STACK_TYPES:
        return False
    if not kind.startswith(PLAIN_NAMESPACES):
        return False  # a template file or URL, or a type of an unknown kind
    for env in environments:
        for key in _mapped_types(env, name):
            if key == kind or (key.endswith('*') and
                               kind.startswith(key[:-1])):
                return False
    return True


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
    environments = list(environments)
    for breakpoint in found:
        if len(breakpoint.segments) < 2:
            continue
        head = breakpoint.segments[0]
        matched = [name for name in types
                   if fnmatch.fnmatchcase(name, head)]
        if not matched or not all(
                certainly_not_nested(name, types[name], environments)
                for name in matched):
            continue
        stacks = sorted(name for name in types
                        if not certainly_not_nested(name, types[name],
                                                    environments))
        message = ('breakpoint %r: %r is not a nested stack (%s)'
                   % (breakpoint.name, matched[0], types[matched[0]]))
        if stacks:
            message += '; nested stack resources: %s' % ', '.join(stacks)
        else:
            message += '; the template has no nested stack resources'
        raise breakpoints.BreakpointError(message)
