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
"""Template lines to resource paths, and back, from the local files.

Heat keeps no line numbers (it parses a template to plain dicts, and
heatclient sends nested files keyed by URL), so an editor's line is
mapped here, from YAML node marks of the files on disk. A resource spans
its key line through the last line of its body. A nested template file
(``type: web.yaml``, a type the environment maps to a file, or a group's
``resource_def``) is walked with the path that uses it, so a line there
maps to every path through which the launched template reaches it
(``app_tier/web_1``, ``group/*/member``); a file used twice maps to both.
"""

import dataclasses
import fnmatch
import os

import yaml

from heatclient_ext._i18n import _

#: Types whose members are nested stacks of a definition in their
#: properties, and the property that holds it.
GROUP_TYPES = {'OS::Heat::ResourceGroup': 'resource_def',
               'OS::Heat::AutoScalingGroup': 'resource'}
TEMPLATE_SUFFIXES = ('.yaml', '.yml', '.template', '.json')
MAX_DEPTH = 10
MEMBER = '*'


class TemplateError(ValueError):
    """A template file that cannot be read or is not a Heat template."""


@dataclasses.dataclass(frozen=True)
class Definition:
    """One resource definition in one file."""

    file: str
    name: str
    line: int  # its key line, from 1
    end: int  # the last line of its body
    type: str = ''
    requires: tuple = ()


def _last_line(node) -> int:
    """The last line (from 0) holding a character of ``node``."""
    flow = getattr(node, 'flow_style', False)
    if isinstance(node, yaml.ScalarNode) or flow:
        end = node.end_mark
        if end.column == 0 and end.line > node.start_mark.line:
            return end.line - 1
        return end.line
    if isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    else:
        children = list(node.value)
    if not children:
        return node.start_mark.line
    return max(_last_line(child) for child in children)


def _get(node, key):
    if isinstance(node, yaml.MappingNode):
        for knode, vnode in node.value:
            if isinstance(knode, yaml.ScalarNode) and knode.value == key:
                return vnode
    return None


def _scalar(node):
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _references(node, found):
    """Resource names a definition refers to, in order.

    Through ``depends_on``, ``get_resource`` and ``get_attr``.
    """
    if isinstance(node, yaml.MappingNode):
        for knode, vnode in node.value:
            key = _scalar(knode)
            if key == 'depends_on':
                items = vnode.value if isinstance(
                    vnode, yaml.SequenceNode) else [vnode]
                found.extend(_scalar(item) for item in items
                             if _scalar(item))
            elif key == 'get_resource' and _scalar(vnode):
                found.append(vnode.value)
            elif key == 'get_attr' and isinstance(
                    vnode, yaml.SequenceNode) and vnode.value and \
                    _scalar(vnode.value[0]):
                found.append(vnode.value[0].value)
            _references(vnode, found)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _references(item, found)
    return found


def parse(path, text=None) -> tuple:
    """``(definitions by name, resources node)`` of one template file."""
    if text is None:
        try:
            with open(path, encoding='utf-8') as stream:
                text = stream.read()
        except OSError as exc:
            raise TemplateError(_('Cannot read template %(path)s: '
                                  '%(reason)s') % {
                                      'path': path, 'reason': exc.strerror})
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise TemplateError(_('Template %(path)s is not valid YAML: '
                              '%(reason)s') % {
                                  'path': path,
                                  'reason': ' '.join(str(exc).split())})
    resources = _get(root, 'resources')
    found: dict = {}
    if not isinstance(resources, yaml.MappingNode):
        return found, None
    names = {_scalar(k) for k, _v in resources.value}
    for knode, vnode in resources.value:
        name = _scalar(knode)
        if not name:
            continue
        requires = []
        for ref in _references(vnode, []):
            if ref in names and ref != name and ref not in requires:
                requires.append(ref)
        found[name] = Definition(
            file=path, name=name, line=knode.start_mark.line + 1,
            end=max(_last_line(vnode), knode.start_mark.line) + 1,
            type=_scalar(_get(vnode, 'type')) or '',
            requires=tuple(requires))
    return found, resources


def registry_files(environment_files) -> dict:
    """Types an environment maps to template files, as absolute paths."""
    found = {}
    for env_path in environment_files or ():
        try:
            with open(env_path, encoding='utf-8') as stream:
                env = yaml.safe_load(stream) or {}
        except (OSError, yaml.YAMLError):
            continue  # Heat says what is wrong with it when it is sent
        registry = (env.get('resource_registry') or {}) if isinstance(
            env, dict) else {}
        base = os.path.dirname(os.path.abspath(env_path))
        for key, value in registry.items():
            if isinstance(value, str) and value.endswith(TEMPLATE_SUFFIXES):
                found[key] = _local(base, value)
    return found


def _local(base, ref) -> str:
    if ref.startswith('file://'):
        ref = ref[len('file://'):]
    return os.path.normpath(os.path.join(base, ref))


def _is_pattern(text) -> bool:
    return any(c in text for c in '*?[')


class TemplateMap:
    """Every resource path the launched template reaches, and its lines."""

    def __init__(self, template, environment_files=()) -> None:
        self.root = os.path.abspath(template)
        self.registry = registry_files(environment_files)
        self._files: dict = {}  # path -> definitions by name
        #: file -> the path prefixes (tuples) through which it is used.
        self.uses: dict = {}
        #: resource path (maybe with '*' for a group member) -> Definition
        self.paths: dict = {}
        self._walk(self.root, (), (self.root,))

    # -- building

    def definitions(self, path):
        path = os.path.abspath(path)
        if path not in self._files:
            self._files[path] = parse(path)[0]
        return self._files[path]

    def _nested_file(self, base_file, type_name):
        if type_name in self.registry:
            return self.registry[type_name]
        if type_name.endswith(TEMPLATE_SUFFIXES) and '://' not in \
                type_name.replace('file://', ''):
            return _local(os.path.dirname(base_file), type_name)
        return None

    def _walk(self, file, prefix, chain) -> None:
        defs = self.definitions(file)
        self.uses.setdefault(file, []).append(prefix)
        if len(prefix) >= MAX_DEPTH:
            return
        member_defs = self._group_members(file)
        for name, definition in defs.items():
            path = prefix + (name,)
            self.paths['/'.join(path)] = definition
            nested = self._nested_file(file, definition.type)
            if definition.type in GROUP_TYPES and name in member_defs:
                member, member_type = member_defs[name]
                self.paths['/'.join(path + (MEMBER,))] = member
                nested = self._nested_file(file, member_type)
                path = path + (MEMBER,)
            if nested and nested not in chain and os.path.exists(nested):
                try:
                    self._walk(nested, path, chain + (nested,))
                except TemplateError:
                    pass  # said when the editor sets a breakpoint there

    def _group_members(self, file):
        """Group name -> (the member's Definition, the member's type)."""
        _defs, resources = parse(file)
        found = {}
        if resources is None:
            return found
        for knode, vnode in resources.value:
            kind = _scalar(_get(vnode, 'type'))
            if kind not in GROUP_TYPES:
                continue
            props = _get(vnode, 'properties')
            key = next((k for k, _v in getattr(props, 'value', ())
                        if _scalar(k) == GROUP_TYPES[kind]), None)
            member = _get(props, GROUP_TYPES[kind])
            member_type = _scalar(_get(member, 'type'))
            if key is None or not member_type:
                continue
            found[knode.value] = (Definition(
                file=file, name=knode.value + '/' + MEMBER,
                line=key.start_mark.line + 1, end=_last_line(member) + 1,
                type=member_type),
                member_type)
        return found

    # -- look-ups

    def resource_at(self, file, line) -> tuple:
        """``(Definition, paths, None)`` for a line, or ``(None, [], why)``.

        ``paths`` are the resource paths (``/``-joined, maybe with
        ``*`` for group members) through which the launched template
        uses this definition.
        """
        file = os.path.abspath(file)
        try:
            defs = self.definitions(file)
        except TemplateError as exc:
            return None, [], str(exc)
        for definition in defs.values():
            if definition.line <= line <= definition.end:
                break
        else:
            return None, [], _('line %(line)d is outside any resource of '
                               '%(file)s (resources: %(names)s)') % {
                                   'line': line,
                                   'file': os.path.basename(file),
                                   'names': ', '.join(defs) or _('none')}
        prefixes = self.uses.get(file)
        if not prefixes:
            return None, [], _('%(file)s is not used by %(root)s') % {
                'file': os.path.basename(file),
                'root': os.path.basename(self.root)}
        return definition, ['/'.join(prefix + (definition.name,))
                            for prefix in prefixes], None

    def location(self, path):
        """The Definition of a concrete path (``group/0/inner``), or None."""
        segments = path.split('/')
        if path in self.paths:
            return self.paths[path]
        for pattern, definition in self.paths.items():
            parts = pattern.split('/')
            if len(parts) == len(segments) and all(
                    fnmatch.fnmatchcase(seg, part)
                    for seg, part in zip(segments, parts)):
                return definition
        return None

    def frames(self, path) -> list:
        """``(path, Definition or None)`` from ``path`` up to the root."""
        segments = path.split('/')
        return [('/'.join(segments[:i]), self.location(
            '/'.join(segments[:i]))) for i in range(len(segments), 0, -1)]

    def first_resources(self, prefix='') -> list:
        """Resources of the stack at ``prefix`` that require none there."""
        file = self.root if not prefix else getattr(
            self._nested_of(prefix), 'file', None)
        if file is None:
            return []
        defs = self.definitions(file)
        return ['/'.join(filter(None, (prefix, name)))
                for name, d in defs.items() if not d.requires]

    def _nested_of(self, prefix):
        """A Definition inside the stack at ``prefix``, for its file."""
        depth = len(prefix.split('/')) + 1
        for pattern, definition in self.paths.items():
            parts = pattern.split('/')
            if len(parts) == depth and fnmatch.fnmatchcase(
                    prefix, '/'.join(parts[:-1])):
                return definition
        return None

    def successors(self, path) -> list:
        """Paths that require the resource at ``path`` in its own stack."""
        definition = self.location(path)
        if definition is None:
            return []
        prefix, _sep, _name = path.rpartition('/')
        return ['/'.join(filter(None, (prefix, name)))
                for name, d in self.definitions(definition.file).items()
                if definition.name in d.requires]

    def concrete(self, name) -> bool:
        return not _is_pattern(name)

    def files(self) -> list:
        """The template files the launch reads: the root and nested."""
        return sorted(self.uses)
