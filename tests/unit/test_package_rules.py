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
"""Rules of both packages that hold for every module, read from source.

* Nothing of ours is kept on Heat's objects: ``setattr`` only on a class
  (the seam's wrappers, the local server's), no ``_breakpoint_*``
  attribute, no method put into an object's ``__dict__``, and on a Heat
  stack or resource only the attributes Heat has, written where the
  plugin wrote the same value to Heat's database.
* No module (of the server package or of the client's) imports another's
  private names (``_name``), by ``from ... import _name`` or as
  ``module._name``; a name others need is public.
* The model both halves share (``heat_breakpoint/model``) imports neither
  Heat nor the rest of the server package.
* The client's front ends (OSC commands, the legacy shell, the terminal's
  ``watch``, the DAP adapter) make no heatclient call of their own and
  call no private method of the manager: everything they need is a
  public call of the Python API (:mod:`heatclient_ext.v1`).
* The Python API is composed, not inherited: no class of ``v1/`` derives
  from another class of ``v1/``, so that what each part (the reader, the
  commands, the operations) uses is what its constructor is given.
* Per-check state goes in arguments; each ``ContextVar`` the server
  package still has says in the comment line right above it why an
  argument cannot carry it (``# ContextVar: ...``: it crosses Heat's
  calls).
* Every folder of Python files in both packages is a regular package
  (``__init__.py``): pbr lists the packages it finds, and setuptools warns
  on install about a folder of modules it did not list (and would leave
  it out of a wheel).
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / 'heat_breakpoint'
CLIENT = ROOT / 'heatclient_ext'
OURS = ('heat_breakpoint', 'heatclient_ext')
# The client's front ends: nothing here talks to Heat but through the API.
FRONT_ENDS = ('osc/', 'terminal/', 'dap/', 'dashboard/', 'shell.py',
              'v1/shell_commands.py')
# heatclient's managers on a Client (``client.stacks.get(...)``), and its
# raw HTTP client.
HEAT_CLIENT_MANAGERS = {
    'stacks', 'resources', 'events', 'actions', 'http_client',
    'software_configs', 'software_deployments', 'build_info',
    'resource_types', 'services', 'template_versions'}
# Public methods of a namedtuple, private by spelling only.
NAMEDTUPLE_METHODS = {'_replace', '_asdict', '_fields', '_make'}

# What a class is called where setattr sets a method on it.
CLASS_NAMES = {'cls', 'klass'}
# Names our code gives Heat's Stack and Resource objects.
HEAT_OBJECTS = {'stack', 'rsrc', 'resource', 'root', 'parent', 'nested',
                'new_stack', 'db_stack', 'held', 'rsrc_stack', 'outer'}
# Heat's own attributes of a resource the plugin may write: the state a
# hold or a release wrote to the resource's row (hold_records.set_state),
# and Heat's own cache of its data (hold_records.data, releases.release).
HEAT_ATTRIBUTES = {'action', 'status', 'status_reason', 'updated_time',
                   '_data'}
# The gettext function, private by OpenStack convention only.
ALLOWED_PRIVATE = {'_'}


def modules(package=PACKAGE):
    for path in sorted(package.rglob('*.py')):
        yield path.relative_to(package).as_posix(), ast.parse(
            path.read_text(), str(path))


def _name_of(node):
    return node.id if isinstance(node, ast.Name) else None


def _is_class(node) -> bool:
    """``cls``, or ``module.ClassName``."""
    if isinstance(node, ast.Attribute):
        return node.attr[:1].isupper()
    return _name_of(node) in CLASS_NAMES


def _modules_imported(tree) -> set:
    """The names a module gives the modules it imports (``stack``...)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.asname or alias.name.split('.')[0]
                         for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split('.')[0] in ('heat', 'heat_breakpoint'):
            found.update(alias.asname or alias.name for alias in node.names
                         if alias.name[:1].islower())
    return found


def _targets(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, (ast.Tuple, ast.List)):
                    yield from target.elts
                else:
                    yield target
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            yield node.target


def attributes_set_on_heat_objects(relative, tree) -> list:
    found = []
    heat_objects = HEAT_OBJECTS - _modules_imported(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name_of(node.func) == 'setattr':
            if not node.args or not _is_class(node.args[0]):
                found.append('%s:%d setattr(%s, ...)' % (
                    relative, node.lineno,
                    ast.unparse(node.args[0]) if node.args else ''))
        if (isinstance(node, ast.Call) and
                isinstance(node.func, ast.Attribute) and
                node.func.attr in ('pop', 'update', 'setdefault',
                                   '__setitem__') and
                isinstance(node.func.value, ast.Attribute) and
                node.func.value.attr == '__dict__'):
            found.append('%s:%d __dict__.%s' % (relative, node.lineno,
                                                node.func.attr))
    for target in _targets(tree):
        if isinstance(target, ast.Subscript) and isinstance(
                target.value, ast.Attribute) and \
                target.value.attr == '__dict__':
            found.append('%s:%d __dict__[...] =' % (
                relative, target.lineno))
        if not isinstance(target, ast.Attribute):
            continue
        if target.attr.startswith('_breakpoint'):
            found.append('%s:%d .%s =' % (relative, target.lineno,
                                          target.attr))
        elif _name_of(target.value) in heat_objects and \
                target.attr not in HEAT_ATTRIBUTES:
            found.append('%s:%d %s.%s =' % (
                relative, target.lineno, target.value.id, target.attr))
    return found


def _module_of(dotted: str):
    """Our module ``dotted`` names, or None (a name in one)."""
    path = ROOT.joinpath(*dotted.split('.'))
    if path.is_dir() or path.with_suffix('.py').is_file():
        return dotted
    return None


def _own_name(relative: str, package: str = 'heat_breakpoint') -> str:
    parts = [package] + relative[:-len('.py')].split('/')
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def private_names_imported(relative, tree, package='heat_breakpoint'
                           ) -> list:
    me = _own_name(relative, package)
    aliases = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
                node.module or '').startswith(OURS):
            for alias in node.names:
                module = _module_of('%s.%s' % (node.module, alias.name))
                if module is not None:
                    aliases[alias.asname or alias.name] = module
                elif (alias.name.startswith('_') and
                        alias.name not in ALLOWED_PRIVATE and
                        node.module != me):
                    found.append('%s:%d from %s import %s' % (
                        relative, node.lineno, node.module, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(tuple(p + '.' for p in OURS)):
                    aliases[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and
                _name_of(node.value) in aliases and
                aliases[node.value.id] != me and
                node.attr.startswith('_') and
                not node.attr.startswith('__')):
            found.append('%s:%d %s.%s' % (relative, node.lineno,
                                          aliases[node.value.id],
                                          node.attr))
    return found


def _is_front_end(relative: str) -> bool:
    return any(relative == front or (front.endswith('/') and
                                     relative.startswith(front))
               for front in FRONT_ENDS)


def raw_heat_calls(relative, tree) -> list:
    """``x.stacks.get(...)`` and the like: heatclient called directly."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and
                isinstance(node.func, ast.Attribute) and
                isinstance(node.func.value, ast.Attribute) and
                node.func.value.attr in HEAT_CLIENT_MANAGERS):
            found.append('%s:%d %s' % (relative, node.lineno,
                                       ast.unparse(node.func)))
    return found


def private_calls(relative, tree) -> list:
    """``manager._find(...)``: another object's private name used."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and
                node.attr.startswith('_') and
                not node.attr.startswith('__') and
                node.attr not in NAMEDTUPLE_METHODS and
                _name_of(node.value) not in ('self', 'cls')):
            found.append('%s:%d %s' % (relative, node.lineno,
                                       ast.unparse(node)))
    return found


def test_nothing_is_set_on_heats_objects():
    found = []
    for relative, tree in modules():
        found += attributes_set_on_heat_objects(relative, tree)
    assert found == []


def test_no_private_name_is_imported_across_modules():
    found = []
    for relative, tree in modules():
        found += private_names_imported(relative, tree)
    for relative, tree in modules(CLIENT):
        found += private_names_imported(relative, tree, 'heatclient_ext')
    assert found == []


def test_the_shared_model_imports_no_heat():
    found = []
    for relative, tree in modules(PACKAGE / 'model'):
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or '']
            for name in names:
                top = name.split('.')[0]
                if top in ('heat', 'heatclient', 'oslo_config', 'oslo_db',
                           'sqlalchemy') or (
                        top == 'heat_breakpoint' and
                        not name.startswith('heat_breakpoint.model')):
                    found.append('%s:%d %s' % (relative, node.lineno, name))
    assert found == []


def test_every_folder_of_modules_is_a_package():
    found = sorted(
        str(folder.relative_to(ROOT))
        for top in (PACKAGE, CLIENT)
        for folder in [top, *top.rglob('*')]
        if folder.is_dir() and folder.name != '__pycache__' and
        any(folder.glob('*.py')) and not (folder / '__init__.py').exists())
    assert found == []


def test_front_ends_talk_to_heat_through_the_api_only():
    found = []
    front_ends = [(relative, tree) for relative, tree in modules(CLIENT)
                  if _is_front_end(relative)]
    assert {relative.split('/')[0] for relative, _tree in front_ends} >= {
        'osc', 'terminal', 'dap', 'shell.py', 'v1'}
    for relative, tree in front_ends:
        found += raw_heat_calls(relative, tree)
        found += private_calls(relative, tree)
    assert found == []


def v1_classes() -> set:
    """``(module, class)`` of every class the Python API defines."""
    return {(relative[:-3], node.name)
            for relative, tree in modules(CLIENT / 'v1')
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def derived_from_v1(relative, tree, classes) -> list:
    """``class A(viewing.Reader)``: a v1 class that derives from another.

    ``relative``: the module's file in ``v1/``; ``classes``: what
    :func:`v1_classes` gives.
    """
    me = relative[:-3]
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and \
                node.module == 'heatclient_ext.v1':
            aliases.update((alias.asname or alias.name, alias.name)
                           for alias in node.names)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            if isinstance(base, ast.Name):
                named = (me, base.id)
            elif isinstance(base, ast.Attribute) and \
                    _name_of(base.value) in aliases:
                named = (aliases[base.value.id], base.attr)
            else:
                continue
            if named in classes:
                found.append('%s:%d %s(%s)' % (relative, node.lineno,
                                               node.name, ast.unparse(base)))
    return found


def test_the_python_api_is_composed_not_inherited():
    classes = v1_classes()
    assert {('manager', 'BreakpointManager'), ('viewing', 'Reader'),
            ('commanding', 'Commands'), ('operating', 'Operations'),
            ('stock', 'StockListing')} <= classes
    found = []
    for relative, tree in modules(CLIENT / 'v1'):
        found += derived_from_v1(relative, tree, classes)
    assert found == []


@pytest.mark.parametrize('source, found', [
    ('from heatclient_ext.v1 import viewing\n'
     'class BreakpointManager(viewing.Reader):\n    pass', True),
    ('from heatclient_ext.v1 import stock as s\n'
     'class Reader(s.StockListing):\n    pass', True),
    ('class Reader:\n    pass\nclass Commands(Reader):\n    pass', True),
    ('from heatclient_ext.v1 import viewing\n'
     'class Other(viewing.view_path):\n    pass', False),
    ('import typing\nclass Edit(typing.NamedTuple):\n    pass', False),
])
def test_the_scan_sees_a_v1_class_derived_from_another(source, found):
    classes = {('viewing', 'Reader'), ('stock', 'StockListing'),
               ('manager', 'Reader')}
    assert bool(derived_from_v1('manager.py', ast.parse(source),
                                classes)) is found


def imported(tree):
    """Every module name an import statement of ``tree`` names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield node.lineno, [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, [node.module] + [
                '%s.%s' % (node.module, alias.name) for alias in node.names]


def cross_imports(relative, tree, other):
    """Where ``tree`` imports a module of the front end ``other``."""
    prefix = 'heatclient_ext.%s' % other
    return ['%s:%d %s' % (relative, line, name)
            for line, names in imported(tree) for name in names
            if name == prefix or name.startswith(prefix + '.')]


def test_the_terminal_and_the_editor_import_nothing_of_each_other():
    """What both need to follow an operation is the client API's (v1)."""
    found = []
    for mine, other in (('terminal', 'dap'), ('dap', 'terminal')):
        for relative, tree in modules(CLIENT / mine):
            found += cross_imports(relative, tree, other)
    assert found == []


#: Where the plugin may name Heat's private attributes: the seam, and the
#: adapter it checks at install. The local server's own modules (server/)
#: are not the plugin.
HEAT_PRIVATE_ALLOWED = ('engine/seam.py', 'engine/heat_internals.py')


def heat_private_names(relative, tree) -> list:
    """``rsrc._data``: a private name of Heat's objects, by their names."""
    heat_objects = HEAT_OBJECTS - _modules_imported(tree)
    return ['%s:%d %s.%s' % (relative, node.lineno, node.value.id, node.attr)
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and
            isinstance(node.value, ast.Name) and
            node.value.id in heat_objects and node.attr.startswith('_') and
            not node.attr.startswith('__')]


def test_heats_private_names_only_in_the_seam():
    found = []
    for relative, tree in modules():
        if relative in HEAT_PRIVATE_ALLOWED or relative.startswith(
                'server/'):
            continue
        found += heat_private_names(relative, tree)
    assert found == []


@pytest.mark.parametrize('source, found', [
    ('rsrc._data = None', True),
    ('x = stack._resource_from_db_resource(row)', True),
    ('parent._stack()', True),
    ('rsrc.data()', False),
    ('rsrc.__class__', False),
    ('import stack\nstack._private()', False),
])
def test_the_scan_sees_a_heat_private_name(source, found):
    assert bool(heat_private_names('x.py', ast.parse(source))) is found


# -- the scans themselves ----------------------------------------------------

@pytest.mark.parametrize('source', [
    'setattr(stack, "_breakpoint_walk", 1)',
    'setattr(rsrc, "kept", 1)',
    'stack._breakpoint_parsed = 1',
    'rsrc.__dict__["_needs_update"] = wrapped',
    'rsrc.__dict__.pop("_needs_update", None)',
    'stack.kept, x = 1, 2',
    'rsrc.plan = {}',
])
def test_the_scan_sees_what_is_stashed(source):
    assert attributes_set_on_heat_objects('engine/x.py', ast.parse(source))


@pytest.mark.parametrize('source', [
    'setattr(cls, name, original)',
    'setattr(service.EngineService, name, wrapped)',
    'from heat.engine import stack\nstack.time = None',
    'rsrc.action, rsrc.status = "CREATE", "COMPLETE"',
    'self.kept = 1',
    'found = cls.__dict__.get(name)',
    'stock = resource.Resource.__dict__[name]',
])
def test_the_scan_lets_the_seam_and_heats_state_be(source):
    assert not attributes_set_on_heat_objects('engine/seam.py',
                                              ast.parse(source))


@pytest.mark.parametrize('source', [
    'from heat_breakpoint.model.breakpoints import _kind',
    'from heat_breakpoint.db import tables\ntables._ready_engines',
    'from heat_breakpoint.db import tables as t\nt._ready_engines',
])
def test_the_scan_sees_a_private_name(source):
    assert private_names_imported('engine/x.py', ast.parse(source))


@pytest.mark.parametrize('source', [
    'from heatclient_ext.v1 import stock\nstock._error',
    'from heatclient_ext.v1.manager import _ident',
    'from heatclient_ext.v1 import manager as bp_v1\nbp_v1._ident(st)',
])
def test_the_scan_sees_a_private_name_of_the_client(source):
    assert private_names_imported('terminal/x.py', ast.parse(source),
                                  'heatclient_ext')


@pytest.mark.parametrize('source', [
    'self.client.stacks.create(**fields)',
    'client.resources.get(stack, name)',
    'client.http_client.get(path).json()',
    'self.client.actions.cancel_update(ident)',
    'manager.client.events.list(ident)',
])
def test_the_scan_sees_a_raw_heat_call(source):
    assert raw_heat_calls('dap/x.py', ast.parse(source))


@pytest.mark.parametrize('source', [
    'manager._resources(ident, 5)',
    'self.manager._timeout_remaining(st)',
    'mgr._find(ident, name, armed)',
])
def test_the_scan_sees_a_private_method_called(source):
    assert private_calls('terminal/x.py', ast.parse(source))


def test_the_scan_lets_public_calls_be():
    source = ('manager.resource_tree(ident, 5)\n'
              'self.manager.launch("create", "s")\n'
              'snap._replace(rows=[])\nself._poll()\n')
    assert not raw_heat_calls('dap/x.py', ast.parse(source))
    assert not private_calls('dap/x.py', ast.parse(source))


def test_the_scan_lets_a_module_use_its_own_and_gettext():
    assert not private_names_imported('opts.py', ast.parse(
        'from heat_breakpoint._i18n import _'))
    assert not private_names_imported('db/tables.py', ast.parse(
        'from heat_breakpoint.db import tables\ntables._ready_engines'))


@pytest.mark.parametrize('source, found', [
    ('from heatclient_ext.terminal import screen', True),
    ('from heatclient_ext import terminal', True),
    ('from heatclient_ext import terminals', False),
    ('import heatclient_ext.terminal.screen as s', True),
    ('def f():\n    from heatclient_ext.terminal import keyboard', True),
    ('from heatclient_ext.v1 import live', False),
])
def test_the_scan_sees_a_front_end_import_another(source, found):
    assert bool(cross_imports('dap/x.py', ast.parse(source),
                              'terminal')) is found


#: The comment a ContextVar needs on the line above it: why an argument
#: cannot carry what it holds.
CONTEXTVAR_WHY = '# ContextVar: '


def unjustified_context_vars(relative, source) -> list:
    """``ContextVar(...)`` statements without their one-line reason above."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        call = node.value
        if not (isinstance(call, ast.Call) and (
                getattr(call.func, 'attr', None) == 'ContextVar' or
                getattr(call.func, 'id', None) == 'ContextVar')):
            continue
        above = lines[node.lineno - 2].strip() if node.lineno > 1 else ''
        if not (above.startswith(CONTEXTVAR_WHY) and
                len(above) > len(CONTEXTVAR_WHY) + 10):
            found.append('%s:%d' % (relative, node.lineno))
    return found


def test_each_context_var_says_why_it_is_not_an_argument():
    found = []
    for path in sorted(PACKAGE.rglob('*.py')):
        found += unjustified_context_vars(
            path.relative_to(PACKAGE).as_posix(), path.read_text())
    assert found == []


@pytest.mark.parametrize('source, found', [
    ('import contextvars\nx = contextvars.ContextVar("x")\n', True),
    ('# kept per thread\nx = contextvars.ContextVar("x")\n', True),
    ('# ContextVar: Heat calls it, with its arguments.\n'
     'x = contextvars.ContextVar("x", default=None)\n', False),
    ('# ContextVar: Heat calls it, with its arguments.\n'
     'x: object = ContextVar("x")\n', False),
])
def test_the_scan_sees_a_context_var_without_its_reason(source, found):
    assert bool(unjustified_context_vars('engine/x.py', source)) is found
