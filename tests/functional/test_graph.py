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
"""``openstack stack breakpoint graph`` on the real local Heat: a stack
held two nested stacks deep, as a text tree and as DOT that Graphviz's
``dot`` renders.
"""

import os
import re
import shutil
import subprocess

from heatclient_ext.v1 import manager as bp_v1
from tests.functional import test_client_cli
from tests.functional import test_engine
from tests.functional import utils

DEEP = 'outer/inner/leaf'


def graph(server, *argv):
    return test_client_cli.osc(server, 'stack', 'breakpoint', 'graph',
                               *argv)


def held_nested(heat, stack_name):
    test_engine.create(
        heat, stack_name, 'nested_root.yaml', DEEP, 'outer/inner/aft*',
        files=test_engine.template_files('level1.yaml', 'level2.yaml'))
    manager = bp_v1.BreakpointManager(heat)
    utils.wait_for(lambda: manager.held_now(stack_name)[1], 90,
                   what='the nested hold')


def test_text_tree_shows_the_hold_inside_its_nested_stacks(
        heat_server, heat, stack_name):
    held_nested(heat, stack_name)
    code, out, err = graph(heat_server, stack_name)
    assert code == 0, err
    assert out.splitlines() == [
        '%s  CREATE_IN_PROGRESS' % stack_name,
        '|-- first  CREATE_COMPLETE',
        '`-- outer  CREATE_IN_PROGRESS  requires: first',
        '    `-- inner  CREATE_IN_PROGRESS',
        '        |-- leaf   CREATE_IN_PROGRESS  [held: before CREATE]',
        '        `-- after  INIT_COMPLETE       '
        '[breakpoint: before CREATE,UPDATE]  requires: leaf',
    ]

    # --nested-depth limits the listing: the nested stack's resources go
    code, out, err = graph(heat_server, stack_name, '--nested-depth', '1')
    assert code == 0, err
    assert out.splitlines()[-1] == '    `-- inner  CREATE_IN_PROGRESS'

    # the legacy shell prints the same tree
    code, legacy, err = test_client_cli.heat_breakpoint(
        heat_server, 'breakpoint-graph', stack_name)
    assert code == 0, err
    assert legacy.splitlines()[1:] == graph(
        heat_server, stack_name)[1].splitlines()[1:]

    code, out, err = test_client_cli.osc(
        heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    code, out, err = graph(heat_server, stack_name)
    assert code == 0, err
    assert '[held' not in out
    assert 'IN_PROGRESS' not in out and 'INIT' not in out
    assert out.count('CREATE_COMPLETE') == 6


def test_dot_of_a_nested_stack_renders_with_graphviz(heat_server, heat,
                                                     stack_name):
    # Not skipped: rendering by Graphviz is what this test proves.
    assert shutil.which('dot'), 'needs Graphviz: apt-get install graphviz'
    held_nested(heat, stack_name)
    code, out, err = graph(heat_server, stack_name, '--dot')
    assert code == 0, err
    assert out.startswith('digraph "%s" {' % stack_name)
    # outer and inner: one cluster each, one inside the other
    assert re.findall(r'subgraph (cluster_\d+) \{', out) == [
        'cluster_0', 'cluster_1']
    assert 'label="outer (nested stack)\\nCREATE_IN_PROGRESS";' in out
    [leaf] = [line for line in out.splitlines() if 'label="leaf' in line]
    assert 'held: before CREATE' in leaf and 'fillcolor="#ffa94d"' in leaf

    proc = subprocess.run(['dot', '-Tsvg'], input=out, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ''
    assert proc.stdout.rstrip().endswith('</svg>')
    assert '>held: before CREATE</text>' in proc.stdout
    assert '>outer (nested stack)</text>' in proc.stdout
    # release it so the session's server ends with nothing held
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_unknown_stack_is_a_one_line_error(heat_server):
    code, out, err = graph(heat_server, 'no-such-stack')
    assert code == 1
    assert test_client_cli.last_error_line(err) == \
        'Stack not found: no-such-stack'
    assert out == ''


def test_a_group_in_natural_order_and_rules_that_say_when(
        heat_server, heat, stack_name):
    # eleven members: 0 .. 10, so that text order would put 10 before 2
    code, out, err = test_client_cli.osc(
        heat_server, 'stack', 'create', stack_name, '-t',
        os.path.join(test_engine.TEMPLATES, 'group.yaml'), '--parameter',
        'count=11', '--breakpoint', 'last', '--breakpoint-on-failure', '*',
        '--wait')
    assert code == 0, err
    code, out, err = graph(heat_server, stack_name)
    assert code == 0, err
    lines = out.splitlines()
    members = [line.split()[2] for line in lines
               if re.match(r'^\|   [|`]-- \d+ ', line)]
    assert members == [str(index) for index in range(11)], out
    assert '[held: before CREATE]' in [
        line for line in lines if '-- last' in line][0]
    # '*' on failure marks every other resource, never as a stop before
    assert 'breakpoint: before' not in out
    marked = [line for line in lines if '-- ' in line and
              '-- last' not in line]
    assert marked and all('[breakpoint: on CREATE,UPDATE failure]' in line
                          for line in marked), out

    code, out, err = graph(heat_server, stack_name, '--dot')
    assert code == 0, err
    assert 'label="group (group of 11: OS::Heat::ResourceGroup)' in out
    assert '(nested stack)' in out  # each member is a nested stack
    nodes = [line for line in out.splitlines() if '[label=' in line]
    assert all(line.count('fillcolor=') == 1 for line in nodes)
    assert [line for line in nodes if 'octagon' in line] == [
        line for line in nodes if 'label="last' in line]
    proc = subprocess.run(['dot', '-Tsvg'], input=out, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == '', proc.stderr
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
