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
"""The client half end to end: the real OSC shell and ``heat-breakpoint``
against the real local Heat (``heat_server``), plugin enabled and not.
"""

import json
import os
import subprocess
import sys

import pytest
import yaml

from heat_breakpoint.model import registry
from tests.functional import conftest
from tests.functional import utils

TEMPLATES = os.path.join(os.path.dirname(__file__), 'templates')
TWO_BRANCHES = os.path.join(TEMPLATES, 'two_branches.yaml')

NESTED_PARENT = {
    'heat_template_version': '2018-08-31',
    'resources': {
        'first': {'type': 'OS::Heat::TestResource',
                  'properties': {'value': 'first'}},
        'app': {'type': 'child.yaml', 'depends_on': 'first'},
    },
}
NESTED_CHILD = {
    'heat_template_version': '2018-08-31',
    'resources': {
        'db': {'type': 'OS::Heat::TestResource',
               'properties': {'value': 'db'}},
        'web': {'type': 'OS::Heat::TestResource',
                'properties': {'value': {'get_attr': ['db', 'output']}}},
    },
}


def forget_osc_clients():
    """Drop the API clients OSC caches process-wide.

    OSC keeps each plugin's client in a ``ClientCache`` descriptor on the
    ``ClientManager`` class, so a second in-process run would reuse the
    first run's endpoint (another server's).
    """
    from openstackclient.common import clientmanager
    from osc_lib import clientmanager as osc_clientmanager
    for cls in clientmanager.ClientManager.__mro__:
        for value in vars(cls).values():
            if isinstance(value, osc_clientmanager.ClientCache):
                value._handle = None


def osc(server, *argv):
    """Run ``openstack`` in-process; never a traceback on stderr."""
    forget_osc_clients()
    code, out, err = conftest.run_openstack(server, *argv)
    assert 'Traceback' not in err, err
    return code, out, err


def osc_json(server, *argv):
    code, out, err = osc(server, *(argv + ('-f', 'json')))
    assert code == 0, err
    return json.loads(out)


def listed(server, stack):
    return {row['Resource']: row for row in osc_json(
        server, 'stack', 'breakpoint', 'list', stack)}


def wait_held(server, stack, *names):
    def held():
        rows = listed(server, stack)
        return all(rows.get(name, {}).get('State') == 'held'
                   for name in names) and rows
    return utils.wait_for(held, 60, 0.3, 'held at %s' % (names,))


def stored_names(heat, stack):
    env = heat.stacks.environment(stack)
    return [bp.name for bp in registry.from_environment(env)]


def stored_hooks(heat, stack):
    env = heat.stacks.environment(stack)
    return {'/'.join(path): list(hooks)
            for path, hooks in registry.native_hooks(env) if hooks}


def last_error_line(err):
    lines = [line for line in err.splitlines()
             if line and not line.startswith('Could not load')]
    return lines[-1] if lines else ''


# -- create, list, show, continue -------------------------------------------

def test_create_held_list_show_continue(heat_server, heat, stack_name):
    created = osc_json(heat_server, 'stack', 'create', stack_name,
                       '-t', TWO_BRANCHES, '--breakpoint', 'a2',
                       '--wait', '--poll', '1')
    assert created['stack_status'] == 'CREATE_IN_PROGRESS'
    assert created['held_breakpoints'] == 'a2 (CREATE)'

    rows = listed(heat_server, stack_name)
    assert rows['a2']['State'] == 'held'
    assert rows['a2']['Action'] == 'CREATE'
    assert rows['a2']['Held Since']
    assert rows['a2']['Timeout Remaining']
    # the independent branch ran to completion, the dependent one waits
    utils.wait_resource(heat, stack_name, 'b3', 'CREATE_COMPLETE')
    assert utils.resources(heat, stack_name)['a3'].resource_status == \
        'INIT_COMPLETE'

    shown = osc_json(heat_server, 'stack', 'breakpoint', 'show',
                     stack_name, 'a2')
    assert shown['state'] == 'held'
    assert shown['requires'] == ['a1']
    assert shown['required_by'] == ['a3']
    # Masked as the hit event masked it: derived from a hidden value.
    assert shown['inputs']['salt'] == '******'
    assert 'hunter2' not in json.dumps(shown)

    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'continue',
                         stack_name)
    assert code == 0, err
    assert 'a2' in out
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    rows = listed(heat_server, stack_name)
    assert rows['a2']['State'] == 'armed'


def test_breakpoints_from_env_file(heat_server, heat, stack_name, tmp_path):
    env = tmp_path / 'env.yaml'
    env.write_text('breakpoints:\n  resource: b2\n')
    osc_json(heat_server, 'stack', 'create', stack_name, '-t', TWO_BRANCHES,
             '-e', str(env))
    wait_held(heat_server, stack_name, 'b2')
    assert stored_names(heat, stack_name) == ['b2']
    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'clear',
                         stack_name, 'b2')
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_nested_breakpoint(heat_server, heat, stack_name, tmp_path):
    parent = tmp_path / 'parent.yaml'
    parent.write_text(yaml.safe_dump(NESTED_PARENT))
    (tmp_path / 'child.yaml').write_text(yaml.safe_dump(NESTED_CHILD))
    osc_json(heat_server, 'stack', 'create', stack_name, '-t', str(parent),
             '--breakpoint', 'app/db')
    rows = wait_held(heat_server, stack_name, 'app/db')
    assert rows['app/db']['Action'] == 'CREATE'
    shown = osc_json(heat_server, 'stack', 'breakpoint', 'show',
                     stack_name, 'app/db')
    assert shown['required_by'] == ['web']
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


# -- update --no-breakpoint ---------------------------------------------------

def _create_complete(server, heat, name, *breakpoint_names):
    """Create with breakpoints on independent resources, run it through."""
    argv = ['stack', 'create', name, '-t', TWO_BRANCHES]
    for bp in breakpoint_names:
        argv += ['--breakpoint', bp]
    osc_json(server, *argv)
    wait_held(server, name, *breakpoint_names)
    osc(server, 'stack', 'breakpoint', 'continue', name)
    utils.wait_stack(heat, name, 'CREATE_COMPLETE')


def test_continue_runs_past_later_breakpoints(heat_server, heat,
                                              stack_name):
    # a3 depends on a2: once continued, the operation ignores a3
    osc_json(heat_server, 'stack', 'create', stack_name, '-t', TWO_BRANCHES,
             '--breakpoint', 'a2', '--breakpoint', 'a3')
    wait_held(heat_server, stack_name, 'a2')
    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'continue',
                         stack_name)
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=30)


def test_no_breakpoint_with_existing_removes_it(heat_server, heat,
                                                stack_name):
    _create_complete(heat_server, heat, stack_name, 'a2', 'b2')
    assert stored_names(heat, stack_name) == ['a2', 'b2']
    osc_json(heat_server, 'stack', 'update', stack_name, '--existing',
             '--no-breakpoint', 'a2')
    # the PATCH really removed it from the stored environment ...
    assert stored_names(heat, stack_name) == ['b2']
    assert 'a2' not in stored_hooks(heat, stack_name)
    # ... so this update holds at b2 only
    rows = wait_held(heat_server, stack_name, 'b2')
    assert 'a2' not in rows
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')


def test_nobreakpoint_without_existing(heat_server, heat, stack_name,
                                       tmp_path):
    _create_complete(heat_server, heat, stack_name, 'a2')
    env = tmp_path / 'env.yaml'
    env.write_text(yaml.safe_dump({'breakpoints': ['a2', 'b3']}))
    osc_json(heat_server, 'stack', 'update', stack_name, '-t', TWO_BRANCHES,
             '-e', str(env), '--nobreakpoint', 'a2')
    assert stored_names(heat, stack_name) == ['b3']
    assert set(stored_hooks(heat, stack_name)) == {'b3'}
    wait_held(heat_server, stack_name, 'b3')
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')


# -- errors -------------------------------------------------------------------

@pytest.mark.parametrize('argv, message', [
    (('stack', 'breakpoint', 'list', 'no-such-stack'),
     'Stack not found: no-such-stack'),
    (('stack', 'breakpoint', 'show', 'no-such-stack', 'a'),
     'Stack not found: no-such-stack'),
    (('stack', 'breakpoint', 'continue', 'no-such-stack'),
     'Stack not found: no-such-stack'),
    (('stack', 'create', 'x', '-t', TWO_BRANCHES, '--breakpoint', 'zz'),
     "breakpoint 'zz' matches no resource in the template"),
])
def test_errors_are_one_line_exit_1(heat_server, argv, message):
    code, out, err = osc(heat_server, *argv)
    assert code == 1
    assert message in last_error_line(err)


def test_errors_on_a_stack(heat_server, heat, stack_name, tmp_path):
    _create_complete(heat_server, heat, stack_name, 'a2')
    for argv, message in [
            (('show', stack_name, 'zz'),
             'Resource zz not found in stack %s' % stack_name),
            (('continue', stack_name),
             'Nothing is held in stack %s' % stack_name),
            (('clear', stack_name, 'b1'),
             'No breakpoint b1 in stack %s' % stack_name),
            (('step', stack_name),
             'Nothing is held in stack %s' % stack_name),
            (('set', stack_name, 'a1'), 'has no operation in progress')]:
        code, out, err = osc(heat_server, 'stack', 'breakpoint', *argv)
        assert code == 1, argv
        assert message in last_error_line(err), err
    bad = tmp_path / 'bad.yaml'
    bad.write_text('breakpoints: [a2\n')
    code, out, err = osc(heat_server, 'stack', 'update', stack_name,
                         '--existing', '-e', str(bad))
    assert code == 1
    assert 'Malformed environment file' in last_error_line(err)
    code, out, err = osc(heat_server, 'stack', 'update', stack_name,
                         '--existing', '--no-breakpoint', 'b1')
    assert code == 1
    assert 'has no breakpoint b1' in last_error_line(err)


# -- heat-breakpoint, the legacy spelling ---------------------------------

def heat_breakpoint(server, *argv):
    code, out, err = utils.heat_breakpoint(server, *argv)
    assert 'Traceback' not in err, err
    return code, out, err


def test_heat_breakpoint_console_script(heat_server, heat, stack_name):
    code, out, err = heat_breakpoint(
        heat_server, 'stack-create', stack_name, '-f', TWO_BRANCHES,
        '--breakpoint', 'b2', '--poll', '1')
    assert code == 0, err
    assert 'Stack %s is held at: b2 (CREATE)' % stack_name in out
    code, out, err = heat_breakpoint(heat_server, 'breakpoint-list',
                                     stack_name, '--format', 'json')
    assert code == 0, err
    assert [(r['resource'], r['state']) for r in json.loads(out)] == [
        ('b2', 'held')]
    code, out, err = heat_breakpoint(heat_server, 'breakpoint-show',
                                     stack_name, 'b2', '--format', 'json')
    assert json.loads(out)['requires'] == ['b1']
    code, out, err = heat_breakpoint(heat_server, 'breakpoint-continue',
                                     stack_name)
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    code, out, err = heat_breakpoint(
        heat_server, 'stack-update', stack_name, '--existing',
        '--nobreakpoint', 'b2')
    assert code == 0, err
    assert stored_names(heat, stack_name) == []
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')


def test_heat_breakpoint_errors(heat_server):
    code, out, err = heat_breakpoint(heat_server, 'breakpoint-list', 'nope')
    assert (code, err) == (1, 'Stack not found: nope\n')
    code, out, err = heat_breakpoint(heat_server, 'breakpoint-step', 'nope')
    assert (code, err) == (1, 'Stack not found: nope\n')


def test_heat_breakpoint_console_script_is_installed():
    scripts = os.path.dirname(sys.executable)
    proc = subprocess.run([os.path.join(scripts, 'heat-breakpoint'),
                           'help', 'breakpoint-list'],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert 'usage: heat-breakpoint breakpoint-list' in proc.stdout


# -- stock Heat: the plugin disabled, breakpoints are native hooks ----------

@pytest.fixture(scope='module')
def stock_server():
    with conftest.stock_heat('heat-breakpoint-stock-') as server:
        yield server


def test_stock_hooks_list_clear_continue(stock_server, stack_name):
    heat = stock_server.client()
    osc_json(stock_server, 'stack', 'create', stack_name, '-t',
             TWO_BRANCHES, '--breakpoint', 'a2', '--breakpoint', 'b2')
    rows = wait_held(stock_server, stack_name, 'a2', 'b2')
    assert heat.resources.get(stack_name, 'a2').resource_status == \
        'INIT_COMPLETE'
    assert rows['a2']['Held Since']
    code, out, err = osc(stock_server, 'stack', 'breakpoint', 'clear',
                         stack_name, 'a2')
    assert code == 0, err
    utils.wait_resource(heat, stack_name, 'a3', 'CREATE_COMPLETE')
    code, out, err = osc(stock_server, 'stack', 'breakpoint', 'continue',
                         stack_name)
    assert code == 0, err
    assert 'no breakpoint plugin' in err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
