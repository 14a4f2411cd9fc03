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
"""A stack's dependency graph with its breakpoints, as text or Graphviz DOT.

``openstack stack breakpoint graph`` shows where an operation stands: each
resource's state, which resources are held and which carry a breakpoint,
and nested stacks inside the resource that owns them. The graph is built
from two reads the other commands make too, the nested resource listing
(its ``required_by`` gives the edges) and the breakpoints view; building
and rendering are pure functions of that data so they test without a
server.
"""

import collections
import dataclasses
import typing

from heat_breakpoint.model import breakpoints
from heatclient_ext.printable import printable
from heatclient_ext.v1 import manager as bp_v1
from heatclient_ext.v1 import stock

# A failed resource's reason is shown, cut to this many characters.
MAX_REASON = 100

# Fill colours by resource status, then the marks' colours.
_COLOURS = (('INIT_', '#eeeeee'), ('_FAILED', '#f8d7da'),
            ('_IN_PROGRESS', '#fff3cd'), ('_COMPLETE', '#d4edda'))
HELD_FILL = '#ffa94d'
HELD_LINE = '#d9480f'
BREAKPOINT_LINE = '#c92a2a'


@dataclasses.dataclass
class Node:
    """One resource, with the resources of its nested stack if listed."""

    name: str
    path: tuple
    status: str = ''
    reason: str = ''
    nested: bool = False
    required_by: tuple = ()
    requires: list = dataclasses.field(default_factory=list)
    children: list = dataclasses.field(default_factory=list)
    held: typing.Optional[str] = None
    marks: list = dataclasses.field(default_factory=list)
    # Whether a mark holds before the resource's action (a stop sign in
    # DOT); the other kinds hold only after it, on its failure or when
    # an update changes or replaces it.
    stops_before: bool = False
    resource_type: str = ''

    @property
    def path_name(self) -> str:
        return breakpoints.SEPARATOR.join(self.path)


@dataclasses.dataclass
class Graph:
    """A stack: its name, status and top-level resources in order."""

    stack_name: str
    stack_status: str
    nodes: list


def _topological(nodes) -> list:
    """Resources in waves, in the order Heat can start them.

    The first wave requires nothing; a resource is in the wave after the
    latest of the ones it requires. Within a wave, by name.
    """
    by_name = {node.name: node for node in nodes}
    requires: dict[str, set[str]] = {node.name: set() for node in nodes}
    for node in nodes:
        for name in node.required_by:
            if name in requires and name != node.name:
                requires[name].add(node.name)
    for node in nodes:
        node.requires = sorted(requires[node.name])
    waiting = {name: len(needs) for name, needs in requires.items()}
    wave = {}
    ready = collections.deque(sorted(
        (name for name, count in waiting.items() if not count),
        key=breakpoints.natural_key))
    for name in ready:
        wave[name] = 0
    while len(wave) < len(nodes):
        if not ready:
            # A cycle cannot come from Heat; show what is left anyway.
            name = min(name for name in waiting if name not in wave)
            wave[name] = 1 + max(wave.values(), default=-1)
            ready.append(name)
        name = ready.popleft()
        for after in set(by_name[name].required_by):
            if after in wave or after not in waiting:
                continue
            waiting[after] -= 1
            if waiting[after] <= 0:
                wave[after] = 1 + max(wave.get(need, 0)
                                      for need in requires[after])
                ready.append(after)
    return sorted(nodes, key=lambda node: (
        wave[node.name], breakpoints.natural_key(node.name)))


def _held_text(row) -> str:
    return 'held: ' + bp_v1.when_text(row.get('when'), row.get('action'))


def _when(row) -> str:
    return row.get('when') or breakpoints.BEFORE


def _breakpoint_text(row) -> str:
    """``breakpoint: before CREATE,UPDATE`` (``on CREATE failure``...)."""
    actions = row.get('action') or ''
    parts = [bp_v1.when_text(_when(row), actions)]
    if row.get('state') and row.get('state') != bp_v1.ARMED:
        parts.append(row['state'])
    return 'breakpoint: %s' % ', '.join(part for part in parts if part)


def _matcher(row):
    """A function telling whether a (non-held) row names a resource path."""
    name = row.get('resource') or row.get('breakpoint') or ''
    try:
        return breakpoints.parse_name(name).matches
    except breakpoints.BreakpointError:
        return lambda path: name == breakpoints.SEPARATOR.join(path)


def _mark(nodes, rows) -> None:
    held = {row.get('resource'): row for row in rows
            if row.get('state') == bp_v1.HELD}
    armed = [(_matcher(row), _breakpoint_text(row), _when(row),
              row.get('state') == bp_v1.ARMED) for row in rows
             if row.get('state') != bp_v1.HELD]
    for node in nodes:
        found = [(text, when, live) for matches, text, when, live in armed
                 if matches(node.path)]
        row = held.get(node.path_name)
        if row is not None:
            # Held says more than the breakpoint that holds it; another
            # kind of hold still ahead (after it, on its failure) is said
            # too, as ``list`` says it.
            node.held = _held_text(row)
            found = [(text, when, live) for text, when, live in found
                     if live and when != _when(row)]
        node.marks = list(dict.fromkeys(text for text, _w, _l in found))
        node.stops_before = row is None and any(
            live and when == breakpoints.BEFORE for _t, when, live in found)


def build(stack_name, stack_status, resources, rows=()) -> 'Graph':
    """The graph of a stack.

    ``resources`` are dicts with ``path`` (names from the root stack to
    the resource), ``status``, ``reason``, ``required_by`` and ``nested``
    (whether the resource owns a nested stack); ``rows`` are rows of the
    breakpoints view.
    """
    nodes = {}
    for res in resources:
        path = tuple(res['path'])
        nodes[path] = Node(name=path[-1], path=path,
                           status=res.get('status') or '',
                           reason=res.get('reason') or '',
                           nested=bool(res.get('nested')),
                           required_by=tuple(res.get('required_by') or ()),
                           resource_type=res.get('type') or '')
    _mark(nodes.values(), rows)
    top = []
    for path, node in nodes.items():
        parent = nodes.get(path[:-1])
        if len(path) == 1:
            top.append(node)
        elif parent is not None:
            parent.children.append(node)
    for node in nodes.values():
        node.children = _topological(node.children)
    return Graph(stack_name or '', stack_status or '', _topological(top))


def resources_of(tree) -> list:
    """The resource dicts :func:`build` takes, from a nested listing.

    ``tree`` is what ``stock.tree`` makes of
    ``client.resources.list(stack, nested_depth=N)``.
    """
    return [{'path': res.path, 'status': res.status, 'reason': res.reason,
             'required_by': getattr(res.raw, 'required_by', None) or (),
             'type': getattr(res.raw, 'resource_type', None) or '',
             'nested': stock.link_ident(res.raw, 'nested') is not None}
            for res in tree]


def fetch(client, stack, nested_depth: typing.Optional[int] = None):
    """Read the stack's graph from Heat: two requests, three without view.

    Without ``nested_depth`` nested stacks are listed as deep as Heat
    nests them by default.
    """
    manager = bp_v1.BreakpointManager(client)
    st, rows = manager.current(stack, nested_depth)
    depth = stock.HELD_SEARCH_DEPTH if nested_depth is None \
        else nested_depth
    tree = manager.resource_tree(bp_v1.ident(st), depth)
    return build(st.stack_name, st.stack_status, resources_of(tree), rows)


# -- text ----------------------------------------------------------------

def _reason(node) -> str:
    if not node.status.endswith('_FAILED') or not node.reason:
        return ''
    reason = node.reason
    if len(reason) > MAX_REASON:
        reason = reason[:MAX_REASON - 3] + '...'
    return reason


def _text_lines(nodes, prefix) -> list:
    width = max((len(printable(node.name)) for node in nodes), default=0)
    status_width = max((len(node.status) for node in nodes), default=0)
    lines = []
    for i, node in enumerate(nodes):
        last = i == len(nodes) - 1
        parts = [printable(node.name).ljust(width),
                 (node.status or '?').ljust(status_width)]
        parts += ['[%s]' % mark for mark in
                  ([node.held] if node.held else []) + node.marks]
        if node.requires:
            parts.append('requires: %s' % ', '.join(
                printable(name) for name in node.requires))
        reason = _reason(node)
        if reason:
            parts.append('(%s)' % printable(reason))
        lines.append(('%s%s%s' % (prefix, '`-- ' if last else '|-- ',
                                  '  '.join(parts))).rstrip())
        lines += _text_lines(node.children,
                             prefix + ('    ' if last else '|   '))
    return lines


def text(graph) -> str:
    """A tree for terminals: resources in the order Heat creates them.

    Each resource shows its status, ``[held: before CREATE]`` or
    ``[breakpoint: CREATE,UPDATE]`` and the resources it requires; a
    nested stack's resources are indented under the resource owning it.
    """
    lines = ['%s  %s' % (printable(graph.stack_name), graph.stack_status)]
    lines += _text_lines(graph.nodes, '')
    return '\n'.join(lines) + '\n'


# -- DOT -----------------------------------------------------------------

def quote(value) -> str:
    """A DOT double-quoted string showing ``value`` literally.

    Control characters are escaped by :func:`printable` first; then
    backslashes are doubled (DOT reads ``\\n``, ``\\N``... in labels) and
    double quotes escaped.
    """
    escaped = printable(str(value)).replace('\\', '\\\\')
    return '"%s"' % escaped.replace('"', '\\"')


def _label(*lines) -> str:
    # The line breaks go in after quoting, so they are DOT's own.
    return '\\n'.join(quote(line)[1:-1] for line in lines if line)


def _fill(status) -> str:
    for part, colour in _COLOURS:
        if part in status:
            return colour
    return 'white'


def _lines(node) -> list:
    return [node.name, node.status, node.held] + node.marks + [
        _reason(node)]


def _owner_kind(node) -> str:
    """What a resource with resources under it is: a group, or a stack."""
    if 'Group' in node.resource_type.rsplit('::', 1)[-1]:
        return 'group of %d: %s' % (len(node.children), node.resource_type)
    return 'nested stack'


class _Dot:
    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.clusters: dict[str, str] = {}
        self.out: list[str] = []

    def node_id(self, node) -> str:
        return self.ids.setdefault(node.path, 'n%d' % len(self.ids))

    def cluster_id(self, node) -> str:
        return self.clusters.setdefault(node.path,
                                        'cluster_%d' % len(self.clusters))

    def emit(self, nodes, indent) -> None:
        pad = '  ' * indent
        for node in nodes:
            if node.children:
                self.emit_cluster(node, indent)
                continue
            attrs = {'label': '"%s"' % _label(*_lines(node)),
                     'fillcolor': '"%s"' % _fill(node.status)}
            if node.nested:
                attrs['shape'] = 'box3d'
            if node.held:
                attrs.update(shape='octagon', fillcolor='"%s"' % HELD_FILL,
                             color='"%s"' % HELD_LINE, penwidth='3')
            elif node.stops_before:
                attrs.update(shape='octagon', color='"%s"' % BREAKPOINT_LINE,
                             penwidth='2')
            elif node.marks:
                # Holds only after, on failure or on change: no stop sign.
                attrs.update(style='"rounded,filled,dashed"',
                             color='"%s"' % BREAKPOINT_LINE, penwidth='2')
            self.out.append('%s%s [%s];' % (
                pad, self.node_id(node), ', '.join(
                    '%s=%s' % item for item in attrs.items())))

    def emit_cluster(self, node, indent) -> None:
        pad = '  ' * indent
        self.out.append('%ssubgraph %s {' % (pad, self.cluster_id(node)))
        inner = pad + '  '
        lines = _lines(node)
        lines[0] = '%s (%s)' % (node.name, _owner_kind(node))
        self.out.append('%slabel="%s";' % (inner, _label(*lines)))
        colour = BREAKPOINT_LINE if node.marks else '#868e96'
        if node.held:
            colour = HELD_LINE
        self.out.append('%sstyle="rounded,filled"; fillcolor="%s"; '
                        'color="%s";' % (inner, '#f8f9fa', colour))
        self.emit(node.children, indent + 1)
        self.out.append('%s}' % pad)

    def anchor(self, node, first) -> str:
        """The node an edge to (or from) a nested stack attaches to."""
        while node.children:
            node = node.children[0 if first else -1]
        return self.node_id(node)

    def edges(self, nodes, indent=1) -> None:
        by_name = {node.name: node for node in nodes}
        for node in nodes:
            for name in node.requires:
                before = by_name[name]
                attrs = []
                if before.children:
                    attrs.append('ltail=%s' % self.cluster_id(before))
                if node.children:
                    # A rank more, or the cluster's label hides the arrow.
                    attrs += ['lhead=%s' % self.cluster_id(node), 'minlen=2']
                self.out.append('%s%s -> %s%s;' % (
                    '  ' * indent, self.anchor(before, False),
                    self.anchor(node, True),
                    ' [%s]' % ', '.join(attrs) if attrs else ''))
            self.edges(node.children, indent)


def dot(graph) -> str:
    """Graphviz DOT: ``openstack stack breakpoint graph S --dot | dot -Tsvg``.

    An edge goes from a resource to each resource that requires it (the
    order Heat creates them in); a nested stack is a cluster inside its
    resource; held resources are orange octagons labelled ``held: ...``,
    resources with a breakpoint red-bordered octagons.
    """
    render = _Dot()
    render.out += [
        'digraph %s {' % quote(graph.stack_name),
        '  compound=true;',
        '  labelloc=t;',
        '  label="%s";' % _label('stack ' + graph.stack_name,
                                 graph.stack_status),
        '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
        '  graph [fontname="Helvetica"];',
    ]
    render.emit(graph.nodes, 1)
    render.edges(graph.nodes)
    render.out.append('}')
    return '\n'.join(render.out) + '\n'
