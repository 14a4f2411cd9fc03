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
"""What the commands say stays true as the operation moves, real local Heat.

A hold whose nested stack failed before its release came is not said to
be superseded by an operation that does not exist; ``list`` and
``graph`` do not promise a hold before an action that already ran (a
failure held, then retried), and ``graph`` shows every kind of hold a
resource has, held or not; the Why of ``continue --to`` keeps its target
once a step went into it; ``show -f value`` prints a planned change's
lines as lines.
"""

import json
import os

from heat_breakpoint.model import protocol
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import utils

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, 'templates')
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'examples')


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, *argv)
    assert code == 0, err
    return out


def rows(server, stack):
    return json.loads(osc(server, 'stack', 'breakpoint', 'list', stack,
                          '-f', 'json'))


def held(heat, stack, *paths):
    """The held rows once exactly ``paths`` are held."""
    manager = bp_v1.BreakpointManager(heat)

    def found():
        now = manager.held_now(stack)[1]
        return sorted(r['resource'] for r in now) == sorted(paths) and now
    return utils.wait_for(found, 90, what='%s held' % ', '.join(paths))


def released_events(heat, stack):
    return [(ev.resource_name, ev.resource_status_reason)
            for ev in heat.events.list(stack, nested_depth=2)
            if ' released (' in (ev.resource_status_reason or '')]


def test_a_hold_whose_nested_stack_failed_says_so(heat_server, heat,
                                                  stack_name):
    osc(heat_server, 'stack', 'create', stack_name, '-t',
        os.path.join(TEMPLATES, 'fail_pair_root.yaml'),
        '--breakpoint', 'inner/*', '--breakpoint-on-failure', 'inner')
    both = held(heat, stack_name, 'inner/d', 'inner/e')
    manager = bp_v1.BreakpointManager(heat)
    manager.release(stack_name, 'inner/d', protocol.RELEASE_CLEAR,
                    [row for row in both if row['resource'] == 'inner/d'])
    # d fails: the nested stack fails (the root holds its failure).
    held(heat, stack_name, 'inner')
    nested = heat.resources.get(stack_name, 'inner').physical_resource_id
    assert heat.stacks.get(nested).stack_status == 'CREATE_FAILED'
    # e's release as a continue listed it before the failure sends it.
    manager.release(stack_name, 'inner/e', protocol.RELEASE_CONTINUE,
                    [row for row in both if row['resource'] == 'inner/e'])
    utils.wait_for(lambda: ('e', 'Breakpoint inner/* released (stack '
                            'failed)') in released_events(heat, stack_name),
                   30, what='the release event of e')
    assert not [event for event in released_events(heat, stack_name)
                if 'superseded' in event[1]]
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_for(lambda: heat.stacks.get(stack_name).stack_status ==
                   'CREATE_FAILED', 60, what='the stack failed')


def _before_rows_of(listed, path):
    return [row for row in listed
            if row['Resource'] == path and row['When'] == 'before']


def test_after_a_failure_is_retried_nothing_holds_before_it(
        heat_server, heat, stack_name):
    osc(heat_server, 'stack', 'create', stack_name, '-t',
        os.path.join(TEMPLATES, 'step_fail_root.yaml'),
        '--breakpoint-after', 'inner/c', '--breakpoint-on-failure',
        'inner/d')
    held(heat, stack_name, 'inner/c')
    osc(heat_server, 'stack', 'breakpoint', 'step', stack_name, 'inner/c')
    held(heat, stack_name, 'inner/d')
    listed = rows(heat_server, stack_name)
    assert [row['Source'] for row in _before_rows_of(listed, 'inner/d')
            if row['State'] == 'held'] == ['step']
    osc(heat_server, 'stack', 'breakpoint', 'step', stack_name, 'inner/d')
    utils.wait_for(lambda: [r for r in rows(heat_server, stack_name)
                            if r['Resource'] == 'inner/d' and
                            r['When'] == 'failed' and r['State'] == 'held'],
                   60, what='inner/d held on failure')
    for _attempt in ('failed', 'retried'):
        listed = rows(heat_server, stack_name)
        # d's CREATE ran: a hold before it cannot come in this operation.
        assert [row['State'] for row in _before_rows_of(listed, 'inner/d')
                ] == ['done'], listed
        graph = osc(heat_server, 'stack', 'breakpoint', 'graph',
                    stack_name)
        line = [text for text in graph.splitlines() if '-- d ' in text][0]
        assert '[held: on CREATE failure]' in line and \
            'breakpoint: before' not in line, graph
        if _attempt == 'failed':
            osc(heat_server, 'stack', 'breakpoint', 'retry', stack_name,
                'inner/d')
            utils.wait_for(lambda: any(
                'released (retry)' in reason
                for _name, reason in released_events(heat, stack_name)),
                30, what='the retry')
            held(heat, stack_name, 'inner/d')
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)


def create_app(server, stack, *options):
    """``examples/app.yaml`` as the README creates it, held at once."""
    osc(server, 'stack', 'create', stack, '-t',
        os.path.join(EXAMPLES, 'app.yaml'), *options, '--wait')


def test_graph_shows_a_held_resource_s_other_breakpoints(
        heat_server, heat, stack_name):
    create_app(heat_server, stack_name, '--breakpoint', 'db',
               '--breakpoint-after', 'db')
    listed = rows(heat_server, stack_name)
    assert sorted((row['When'], row['State']) for row in listed
                  if row['Resource'] == 'db') == [('after', 'armed'),
                                                  ('before', 'held')]
    graph = osc(heat_server, 'stack', 'breakpoint', 'graph', stack_name)
    line = [text for text in graph.splitlines() if '-- db ' in text][0]
    assert '[held: before CREATE]  [breakpoint: after CREATE,UPDATE]' \
        in line, graph
    dot = osc(heat_server, 'stack', 'breakpoint', 'graph', stack_name,
              '--dot')
    node = [text for text in dot.splitlines() if 'label="db\\n' in text][0]
    assert 'held: before CREATE\\nbreakpoint: after CREATE,UPDATE' in node
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)


def test_run_to_keeps_its_target_in_why_after_a_step_into_it(
        heat_server, heat, stack_name):
    create_app(heat_server, stack_name, '--breakpoint', 'db',
               '--breakpoint', 'db_user')
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name, '--to',
        'app_tier')
    held(heat, stack_name, 'app_tier')
    whys = {row['Resource']: row['Why'] for row in rows(heat_server,
                                                        stack_name)}
    assert whys['db_user'] == 'run to app_tier'
    osc(heat_server, 'stack', 'breakpoint', 'step', stack_name)
    held(heat, stack_name, 'app_tier/web_1')
    whys = {row['Resource']: row['Why'] for row in rows(heat_server,
                                                        stack_name)}
    assert whys['db_user'] == 'run to app_tier', whys
    assert whys['db'] == 'run to app_tier', whys
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)


def test_show_value_prints_the_planned_change_as_lines(
        heat_server, heat, stack_name):
    def template(value):
        return {'heat_template_version': '2018-08-31', 'resources': {
            'r': {'type': 'OS::Heat::TestResource', 'properties': {
                'value': value, 'update_replace': True}}}}

    heat.stacks.create(stack_name=stack_name, template=template('a'))
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    path = os.path.join(os.environ.get('TMPDIR', '/tmp'),
                        '%s.yaml' % stack_name)
    with open(path, 'w') as out:
        json.dump(template('b'), out)
    try:
        osc(heat_server, 'stack', 'update', stack_name, '-t', path,
            '--breakpoint-on-replace', 'r')
    finally:
        os.unlink(path)
    held(heat, stack_name, 'r')
    shown = osc(heat_server, 'stack', 'breakpoint', 'show', stack_name,
                'r', '-f', 'value', '-c', 'change')
    assert shown == 'replace (forced by: value)\nvalue: "a" -> "b"\n'
    # Each line is still escaped: a control character cannot act.
    assert '\\x0a' not in shown
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
