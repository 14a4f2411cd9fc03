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
"""The graph of ``openstack stack breakpoint graph``, built from plain
data (resource listings as heatclient returns them, breakpoints view rows)
and rendered as a text tree and as DOT.
"""

import shutil
import subprocess
import time
import types

import pytest
import stevedore

from heatclient_ext.osc import graph as osc_graph
from heatclient_ext.v1 import dependency_graph as graph
from heatclient_ext.v1 import stock

BASE = 'http://heat/v1/admin/stacks/'


def resource(name, status, stack, required_by=(), nested=None, reason=''):
    links = [{'rel': 'stack', 'href': BASE + stack}]
    if nested:
        links.append({'rel': 'nested', 'href': BASE + nested})
    return types.SimpleNamespace(
        resource_name=name, resource_status=status,
        resource_status_reason=reason, required_by=list(required_by),
        links=links)


ROOT = 'app/id-root'
TIER = 'app-web_tier-x/id-tier'


def listing():
    # app: db -> db_user -> web_tier (nested: config -> web_1, web_2 -> lb)
    # and a lone monitor; Heat lists them in no useful order.
    return [
        resource('web_1', 'CREATE_IN_PROGRESS', TIER, ['lb'],
                 reason='Breakpoint web_tier/web_* reached before CREATE'),
        resource('web_tier', 'CREATE_IN_PROGRESS', ROOT, nested=TIER),
        resource('lb', 'INIT_COMPLETE', TIER),
        resource('db_user', 'CREATE_COMPLETE', ROOT, ['web_tier']),
        resource('config', 'CREATE_COMPLETE', TIER, ['web_1', 'web_2']),
        resource('monitor', 'CREATE_FAILED', ROOT,
                 reason='Error: resources.monitor: it went wrong'),
        resource('db', 'CREATE_COMPLETE', ROOT, ['db_user']),
        resource('web_2', 'CREATE_IN_PROGRESS', TIER, ['lb']),
    ]


ROWS = [
    {'resource': 'web_tier/web_1', 'action': 'CREATE', 'state': 'held',
     'breakpoint': 'web_tier/web_*'},
    {'resource': 'web_tier/web_2', 'action': 'CREATE', 'state': 'held',
     'breakpoint': 'web_tier/web_*'},
    {'resource': 'web_tier/web_*', 'action': 'CREATE,UPDATE',
     'state': 'armed', 'breakpoint': 'web_tier/web_*'},
    {'resource': 'web_tier/lb', 'action': 'CREATE,UPDATE', 'state': 'armed',
     'breakpoint': 'web_tier/lb'},
    {'resource': 'db', 'action': 'CREATE', 'state': 'disarmed',
     'breakpoint': 'db'},
]


def app_graph(rows=ROWS):
    tree = stock.tree(ROOT, listing())
    return graph.build('app', 'CREATE_IN_PROGRESS',
                       graph.resources_of(tree), rows)


def test_text_tree_in_creation_order_with_nested_stack_inside():
    assert graph.text(app_graph()).splitlines() == [
        'app  CREATE_IN_PROGRESS',
        '|-- db        CREATE_COMPLETE     '
        '[breakpoint: before CREATE, disarmed]',
        '|-- monitor   CREATE_FAILED       '
        '(Error: resources.monitor: it went wrong)',
        '|-- db_user   CREATE_COMPLETE     requires: db',
        '`-- web_tier  CREATE_IN_PROGRESS  requires: db_user',
        '    |-- config  CREATE_COMPLETE',
        '    |-- web_1   CREATE_IN_PROGRESS  [held: before CREATE]  '
        'requires: config',
        '    |-- web_2   CREATE_IN_PROGRESS  [held: before CREATE]  '
        'requires: config',
        '    `-- lb      INIT_COMPLETE       '
        '[breakpoint: before CREATE,UPDATE]  requires: web_1, web_2',
    ]


def test_build_marks_held_armed_and_pattern_matches():
    nodes = {node.name: node for node in app_graph().nodes}
    tier = {node.name: node for node in nodes['web_tier'].children}
    assert tier['web_1'].held == 'held: before CREATE'
    # held wins over the breakpoint that holds it
    assert tier['web_1'].marks == []
    assert tier['lb'].held is None
    assert tier['lb'].marks == ['breakpoint: before CREATE,UPDATE']
    assert tier['config'].marks == []
    assert nodes['web_tier'].nested and nodes['web_tier'].marks == []
    # a pattern matches at its own depth only
    assert nodes['monitor'].marks == []


def test_held_text_says_when_if_the_row_does():
    rows = [{'resource': 'db', 'action': 'UPDATE', 'state': 'held',
             'when': 'after'}]
    nodes = {node.name: node for node in app_graph(rows).nodes}
    assert nodes['db'].held == 'held: after UPDATE'


def test_a_held_resource_shows_its_other_kinds_of_hold_still_ahead():
    rows = [{'resource': 'db', 'action': 'CREATE', 'state': 'held',
             'when': 'before'},
            {'resource': 'db', 'action': 'CREATE,UPDATE', 'state': 'armed',
             'when': 'after'},
            {'resource': 'db', 'action': 'CREATE,UPDATE', 'state': 'armed',
             'when': 'before'},
            {'resource': 'db', 'action': 'CREATE', 'state': 'done',
             'when': 'failed'}]
    nodes = {node.name: node for node in app_graph(rows).nodes}
    # the hold it is at says more than a breakpoint of the same kind;
    # what is done promises nothing
    assert nodes['db'].held == 'held: before CREATE'
    assert nodes['db'].marks == ['breakpoint: after CREATE,UPDATE']
    assert not nodes['db'].stops_before
    assert '[held: before CREATE]  [breakpoint: after CREATE,UPDATE]' in \
        graph.text(app_graph(rows))
    assert 'held: before CREATE\\nbreakpoint: after CREATE,UPDATE' in \
        graph.dot(app_graph(rows))


def test_resources_beyond_the_listing_depth_are_left_out():
    shallow = [res for res in listing() if TIER not in res.links[0]['href']]
    tree = stock.tree(ROOT, shallow)
    found = graph.build('app', 'CREATE_IN_PROGRESS',
                        graph.resources_of(tree), ROWS)
    [tier] = [node for node in found.nodes if node.name == 'web_tier']
    assert tier.children == []
    assert 'shape=box3d' in graph.dot(found)
    assert 'cluster' not in graph.dot(found)


def test_text_escapes_control_characters_from_templates():
    found = graph.build('st\x1b[2J', 'CREATE_FAILED', [
        {'path': ('a\x1b[31m',), 'status': 'CREATE_FAILED',
         'reason': 'bad\nthing\x07'}])
    out = graph.text(found)
    assert '\x1b' not in out and '\x07' not in out
    assert out.splitlines() == [
        'st\\x1b[2J  CREATE_FAILED',
        '`-- a\\x1b[31m  CREATE_FAILED  (bad\\x0athing\\x07)']


def test_text_cuts_long_failure_reasons():
    found = graph.build('s', 'CREATE_FAILED', [
        {'path': ('a',), 'status': 'CREATE_FAILED', 'reason': 'x' * 500}])
    line = graph.text(found).splitlines()[1]
    assert line.endswith('x...)')
    assert len(line) < graph.MAX_REASON + 40


def test_quote_escapes_quotes_backslashes_and_controls():
    assert graph.quote('plain') == '"plain"'
    assert graph.quote('a"b') == '"a\\"b"'
    assert graph.quote('a\\nb') == '"a\\\\nb"'
    assert graph.quote('x\ny') == '"x\\\\x0ay"'


def test_dot_has_clusters_edges_and_held_marks():
    out = graph.dot(app_graph())
    assert out.startswith('digraph "app" {\n')
    assert 'compound=true;' in out
    assert out.count('subgraph cluster_') == 1
    assert 'label="web_tier (nested stack)\\nCREATE_IN_PROGRESS";' in out
    held = [line for line in out.splitlines()
            if line.strip().startswith('n') and 'web_1' in line]
    assert len(held) == 1
    assert 'held: before CREATE' in held[0]
    assert graph.HELD_FILL in held[0] and 'penwidth=3' in held[0]
    ids = {name: line.split()[0] for line in out.splitlines()
           for name in ('db', 'db_user', 'config', 'web_1', 'web_2', 'lb')
           if line.strip().startswith('n') and
           'label="%s\\n' % name in line}
    edges = {line.strip() for line in out.splitlines() if '->' in line}
    assert '%s -> %s;' % (ids['db'], ids['db_user']) in edges
    # into the nested stack: to its first resource, clipped at the cluster
    assert '%s -> %s [lhead=cluster_0, minlen=2];' % (
        ids['db_user'], ids['config']) in edges
    assert '%s -> %s;' % (ids['web_2'], ids['lb']) in edges
    assert len(edges) == 6


def test_dot_edges_between_two_nested_stacks_clip_at_both():
    found = graph.build('s', 'CREATE_COMPLETE', [
        {'path': ('one',), 'nested': True, 'required_by': ['two']},
        {'path': ('one', 'a')}, {'path': ('one', 'b')},
        {'path': ('one', 'a', 'deep')},
        {'path': ('two',), 'nested': True}, {'path': ('two', 'c')}])
    out = graph.dot(found)
    assert out.count('subgraph cluster_') == 3
    edges = [line.strip() for line in out.splitlines() if '->' in line]
    assert len(edges) == 1
    assert edges[0].endswith('[ltail=cluster_0, lhead=cluster_2, minlen=2];')


@pytest.mark.skipif(not shutil.which('dot'), reason='needs Graphviz dot')
def test_dot_renders_hostile_names_literally():
    names = ['q"uote', 'back\\slash', 'new\\nline', 'esc\x1bape', 'br{a}ce']
    found = graph.build('s"t', 'CREATE_IN_PROGRESS', [
        {'path': (name,), 'status': 'INIT_COMPLETE'} for name in names] + [
        {'path': ('nest"ed',), 'nested': True, 'required_by': names},
        {'path': ('nest"ed', 'in\\ner')}])
    proc = subprocess.run(['dot', '-Tsvg'], input=graph.dot(found),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ''
    svg = proc.stdout
    for shown in ('q&quot;uote', 'back\\slash', 'new\\nline',
                  'esc\\x1bape', 'br{a}ce', 'in\\ner'):
        assert '>%s</text>' % shown in svg, shown


def test_order_survives_duplicates_cycles_and_a_long_chain():
    found = graph.build('s', '', [
        {'path': ('b',), 'required_by': ['c', 'c', 'gone']},
        {'path': ('c',), 'required_by': ['d']},
        {'path': ('d',), 'required_by': ['c']},
        {'path': ('a',)}])
    assert [node.name for node in found.nodes] == ['a', 'b', 'c', 'd']
    assert found.nodes[2].requires == ['b', 'd']

    count = 1000
    names = ['r%04d' % i for i in range(count)]
    chain = [{'path': (name,), 'required_by': names[i + 1:i + 2]}
             for i, name in reversed(list(enumerate(names)))]
    rows = [{'resource': 'r*', 'action': 'CREATE', 'state': 'armed'}]
    start = time.monotonic()
    found = graph.build('s', '', chain, rows)
    out = graph.text(found)
    assert time.monotonic() - start < 2
    assert [node.name for node in found.nodes] == names
    assert out.count('[breakpoint: before CREATE]') == count


def test_rows_without_action_or_with_new_states_still_mark():
    rows = [{'resource': 'db', 'state': 'held'},
            {'resource': 'db_user', 'state': 'armed'},
            {'resource': 'monitor', 'action': 'DELETE', 'state': 'done'}]
    nodes = {node.name: node for node in app_graph(rows).nodes}
    assert nodes['db'].held == 'held: before'
    assert nodes['db_user'].marks == ['breakpoint: before']
    assert nodes['monitor'].marks == ['breakpoint: before DELETE, done']


def test_openstack_finds_the_command():
    mgr = stevedore.ExtensionManager('openstack.orchestration.v1')
    assert mgr['stack_breakpoint_graph'].plugin is osc_graph.GraphBreakpoint


def test_rules_say_when_they_hold_and_only_before_is_a_stop_sign():
    rows = [{'resource': '*', 'state': 'armed', 'when': 'failed',
             'action': 'CREATE,UPDATE'},
            {'resource': 'db', 'state': 'armed', 'when': 'after',
             'action': 'CREATE'},
            {'resource': 'app_tier/web_*', 'state': 'armed',
             'when': 'changed', 'action': 'UPDATE'},
            {'resource': 'db_user', 'state': 'armed', 'when': 'replaced',
             'action': 'UPDATE'},
            {'resource': 'web', 'state': 'armed', 'action': 'CREATE'},
            {'resource': 'web_tier/web_1', 'state': 'held',
             'action': 'CREATE', 'when': 'before'}]
    found = app_graph(rows)
    nodes = {node.name: node for node in found.nodes}
    assert nodes['monitor'].marks == [
        'breakpoint: on CREATE,UPDATE failure']
    assert nodes['db'].marks == ['breakpoint: on CREATE,UPDATE failure',
                                 'breakpoint: after CREATE']
    assert 'breakpoint: before UPDATE if replaced' in nodes['db_user'].marks
    assert not nodes['monitor'].stops_before and not nodes['db'].stops_before
    out = graph.dot(found)
    lines = {line.split(' [')[0].strip(): line for line in out.splitlines()
             if '[label=' in line}
    for line in lines.values():
        assert line.count('fillcolor=') == 1, line
    monitor = [line for line in lines.values() if 'label="monitor' in line]
    assert 'dashed' in monitor[0] and 'octagon' not in monitor[0]
    held = [line for line in lines.values() if 'label="web_1' in line]
    assert 'fillcolor="#ffa94d"' in held[0] and 'octagon' in held[0]


def test_a_group_is_a_group_and_its_members_sort_naturally():
    resources = [{'path': ('grp',), 'status': 'CREATE_COMPLETE',
                  'nested': True, 'type': 'OS::Heat::ResourceGroup'}]
    resources += [{'path': ('grp', str(index)), 'status': 'CREATE_COMPLETE',
                   'nested': True, 'type': 'member.yaml'}
                  for index in (10, 2, 1, 0)]
    resources += [{'path': ('grp', str(index), 'inner'),
                   'status': 'CREATE_COMPLETE'} for index in (10, 2, 1, 0)]
    found = graph.build('s', 'CREATE_COMPLETE', resources)
    assert [node.name for node in found.nodes[0].children] == [
        '0', '1', '2', '10']
    out = graph.dot(found)
    assert 'label="grp (group of 4: OS::Heat::ResourceGroup)' in out
    assert 'label="10 (nested stack)' in out


@pytest.mark.parametrize('when, text', [
    (None, 'held: before CREATE'),
    ('after', 'held: after CREATE'),
    ('failed', 'held: on CREATE failure'),
    ('changed', 'held: before CREATE if changed'),
    ('replaced', 'held: before CREATE if replaced'),
])
def test_a_hold_reads_as_the_guide_says(when, text):
    from heatclient_ext.v1 import dependency_graph
    assert dependency_graph._held_text(
        {'when': when, 'action': 'CREATE'}) == text
