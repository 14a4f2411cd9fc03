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
"""No import cycle in the shipped packages, a lazy import's included.

A lazy import (inside a function) hides a cycle from Python, not from the
next reader: it is counted. An import for type hints only (under
``typing.TYPE_CHECKING``) is not. The cycles still to break are listed
in :data:`KNOWN`; a new one fails, and so does a listed one once broken
(remove it then).

The engine's folders import downwards only (:data:`ENGINE_LAYERS`):
what is masked, the check, the commands, the view; the seam and the
plugin above them all, imported by none.
"""

import ast
import os

ROOT = os.path.join(os.path.dirname(__file__), '..', '..')
PACKAGES = ('heat_breakpoint', 'heatclient_ext')

#: Lazy-import cycles still to break: none (a new one fails).
KNOWN = set()


def _modules():
    found = {}
    for package in PACKAGES:
        for folder, _dirs, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if not name.endswith('.py'):
                    continue
                path = os.path.join(folder, name)
                module = os.path.relpath(path, ROOT)[:-3].replace(os.sep, '.')
                if module.endswith('.__init__'):
                    module = module[:-len('.__init__')]
                found[module] = path
    return found


def _type_checking_only(node) -> bool:
    test = getattr(node, 'test', None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Attribute) and test.attr == 'TYPE_CHECKING')
        or (isinstance(test, ast.Name) and test.id == 'TYPE_CHECKING'))


def _imports(tree):
    """Every import statement, at any depth, but type-checking ones."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph(modules):
    graph = {module: set() for module in modules}
    for module, path in modules.items():
        with open(path, encoding='utf-8') as source:
            tree = ast.parse(source.read())
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif node.module and not node.level:
                targets = [node.module + '.' + alias.name
                           if node.module + '.' + alias.name in modules
                           else node.module for alias in node.names]
            else:
                targets = []
            graph[module].update(t for t in targets
                                 if t in modules and t != module)
    return graph


def cycles(graph):
    """The strongly connected parts of more than one module (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            part = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.add(member)
                if member == module:
                    break
            if len(part) > 1:
                found.append(frozenset(part))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return set(found)


def test_no_import_cycle_but_the_known_ones():
    found = cycles(import_graph(_modules()))
    assert found - KNOWN == set(), 'new import cycle(s): %s' % [
        sorted(part) for part in found - KNOWN]
    assert KNOWN - found == set(), 'broken since, remove from KNOWN: %s' % [
        sorted(part) for part in KNOWN - found]


def test_the_scan_sees_a_lazy_cycle_and_skips_type_hints(tmp_path):
    package = tmp_path / 'pkg'
    package.mkdir()
    (package / '__init__.py').write_text('')
    (package / 'a.py').write_text('from pkg import b\n')
    (package / 'b.py').write_text('def f():\n    from pkg import a\n')
    (package / 'c.py').write_text(
        'import typing\nif typing.TYPE_CHECKING:\n    from pkg import d\n')
    (package / 'd.py').write_text('from pkg import c\n')
    modules = {'pkg.%s' % name: str(package / ('%s.py' % name))
               for name in 'abcd'}
    assert cycles(import_graph(modules)) == {frozenset({'pkg.a', 'pkg.b'})}


ENGINE = 'heat_breakpoint.engine'
#: The engine's folders, lowest first: each imports only from its own
#: folder, the ones before it, and the engine's helpers at the top
#: (Heat's private names, the RPC policy).
ENGINE_LAYERS = ('masking', 'check', 'commands', 'view')
ENGINE_ROOF = (ENGINE + '.seam', ENGINE + '.plugin')


def _layer(module):
    """The index in ENGINE_LAYERS of ``module``'s engine folder, or None."""
    parts = module.split('.')
    if module.startswith(ENGINE + '.') and len(parts) >= 4 and \
            parts[2] in ENGINE_LAYERS:
        return ENGINE_LAYERS.index(parts[2])
    return None


def upward_imports(graph):
    """``(module, target)`` where an engine folder imports above itself."""
    found = []
    for module, targets in sorted(graph.items()):
        level = _layer(module)
        if level is None:
            continue
        for target in sorted(targets):
            above = _layer(target)
            if target in ENGINE_ROOF or (above is not None and
                                         above > level):
                found.append((module, target))
    return found


def test_the_engine_folders_import_downwards_only():
    assert upward_imports(import_graph(_modules())) == []


def test_the_scan_sees_an_engine_folder_import_upwards():
    graph = {
        ENGINE + '.check.parking': {ENGINE + '.commands.lost_releases',
                                    ENGINE + '.masking.inputs',
                                    ENGINE + '.heat_internals'},
        ENGINE + '.view.listing': {ENGINE + '.commands.commands',
                                   ENGINE + '.check.facts'},
        ENGINE + '.commands.signals': {ENGINE + '.seam'},
        ENGINE + '.seam': {ENGINE + '.view.listing'},
    }
    assert upward_imports(graph) == [
        (ENGINE + '.check.parking', ENGINE + '.commands.lost_releases'),
        (ENGINE + '.commands.signals', ENGINE + '.seam')]
