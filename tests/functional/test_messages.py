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
"""What the commands say, on the real local Heat (issue 19's messages).

Masked inputs as the engine masks them, refusals of names that cannot
hold, the answer of ``create --wait`` on stdout, what ``clear`` says on an
idle stack, text from templates escaped (JSON exact), and the local
server's own start and stop.
"""

import json
import os
import signal
import tempfile
import time

import pytest
import yaml

from tests.functional import conftest
from tests.functional import utils
from tests import osc_shell

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
APP = os.path.join(ROOT, 'examples', 'app.yaml')
ESC = '\x1b[2J'
CHAIN_WITH_ODD_NAME = {
    'heat_template_version': '2018-08-31',
    'resources': {
        'odd' + ESC: {'type': 'OS::Heat::TestResource',
                      'properties': {'value': 'x' + ESC}},
        'r': {'type': 'OS::Heat::TestResource',
              'properties': {'value': {'get_attr': ['odd' + ESC,
                                                    'output']}}},
    },
}


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, *argv)
    # Other OSC plugins' load warnings (python-blazarclient's missing
    # command; troveclient's, once a test in this process imported Heat,
    # which turns on lazy translation) are not ours.
    err = '\n'.join(line for line in err.splitlines()
                    if not line.startswith('Could not load '))
    return code, out, err


def wait_held(server, stack, name):
    def held():
        code, out, _err = osc(server, 'stack', 'breakpoint', 'list', stack,
                              '-f', 'json')
        return code == 0 and any(row['Resource'] == name and
                                 row['State'] == 'held'
                                 for row in json.loads(out))
    utils.wait_for(held, 60, 0.3, 'held at %s' % name)


def test_show_masks_an_input_fed_by_a_hidden_parameter(
        heat_server, heat, stack_name):
    # db_user's value is list_join of db's output, "app" and the hidden
    # db_password: derived from a secret, the whole input is masked, in
    # the hit event and in show alike
    code, out, err = osc(heat_server, 'stack', 'create', stack_name, '-t',
                         APP, '--breakpoint', 'db_user', '--wait')
    assert code == 0, err
    # the answer of the command, after its table, on stdout
    assert out.rstrip('\n').endswith(
        'Stack %s is held at: db_user (CREATE)' % stack_name)
    assert 'held at' not in err
    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'show',
                         stack_name, 'db_user', '-f', 'json')
    assert code == 0, err
    shown = json.loads(out)
    assert shown['inputs']['value'] == '******'
    assert 'correct-horse' not in out
    # numbers and booleans as they are, in JSON and in the table
    assert shown['inputs']['wait_secs'] == 0
    assert shown['inputs']['fail'] is False
    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'show',
                         stack_name, 'db_user')
    assert 'value="******"' in out
    assert 'fail=false' in out and 'wait_secs=0' in out
    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'show',
                         stack_name, 'db_user', '-f', 'shell')
    assert code == 0, err
    assert 'None' not in out and 'False' not in out and "{'" not in out
    assert '******' in out and 'correct-horse' not in out
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=90)


def test_nested_name_under_a_plain_resource_is_refused(heat_server, heat,
                                                       stack_name):
    code, out, err = osc(heat_server, 'stack', 'create', stack_name, '-t',
                         APP, '--breakpoint', 'db/x')
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "breakpoint 'db/x': 'db' is not a nested stack "
        "(OS::Heat::TestResource); nested stack resources: app_tier")
    assert stack_name not in [s.stack_name for s in heat.stacks.list()]
    # a stock client goes through the API filter: the same refusal
    template = yaml.safe_load(open(APP))
    template['resources']['app_tier']['type'] = 'OS::Heat::Stack'
    template['resources']['app_tier']['properties'] = {'template': 'x'}
    from heatclient import exc as heat_exc
    with pytest.raises(heat_exc.HTTPBadRequest,
                       match="'db' is not a nested stack"):
        heat.stacks.create(stack_name=stack_name, template=template,
                           environment={'breakpoints': ['db/x']})


def test_no_breakpoint_typo_without_existing(heat_server, heat,
                                             stack_name):
    code, out, err = osc(heat_server, 'stack', 'create', stack_name, '-t',
                         APP, '--breakpoint', 'web', '--wait')
    assert code == 0, err
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=90)
    for extra in ((), ('--existing',)):
        code, out, err = osc(heat_server, 'stack', 'update', stack_name,
                             '-t', APP, '--no-breakpoint', 'wbe', *extra)
        assert code == 1, (extra, out)
        assert err.strip().splitlines()[-1] == (
            'Stack %s has no breakpoint wbe; closest: web (breakpoints: '
            'web)' % stack_name), extra
    assert utils.stack_status(heat, stack_name) == 'CREATE_COMPLETE'


def test_clear_on_an_idle_stack_says_the_update_first(heat_server, heat,
                                                      stack_name):
    code, out, err = osc(heat_server, 'stack', 'create', stack_name, '-t',
                         APP, '--breakpoint', 'web', '--breakpoint',
                         'app_tier/web_1', '--wait')
    assert code == 0, err
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=90)
    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'clear',
                         stack_name, 'web', '-f', 'value')
    assert code == 0, err
    assert err.strip() == (
        'Stack %s has no operation running: removing breakpoint web from '
        'its stored environment runs a stack update (--existing) now; it '
        'will hold at: app_tier/web_1' % stack_name)
    assert out.split() == ['web', 'removed']
    # and so it does
    wait_held(heat_server, stack_name, 'app_tier/web_1')
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE', timeout=90)


def test_text_from_templates_is_escaped_json_exact(heat_server, heat,
                                                   stack_name, tmp_path):
    template = tmp_path / 'odd.yaml'
    template.write_text(json.dumps(CHAIN_WITH_ODD_NAME))
    code, out, err = osc(heat_server, 'stack', 'create', stack_name, '-t',
                         str(template), '--breakpoint', 'r', '--wait')
    assert code == 0, err
    for fmt in ('table', 'value', 'shell'):
        code, out, err = osc(heat_server, 'stack', 'breakpoint', 'show',
                             stack_name, 'r', '-f', fmt)
        assert code == 0, err
        assert '\x1b' not in out, (fmt, out)
        assert 'odd\\x1b[2J' in out or 'odd\\u001b[2J' in out, (fmt, out)
    code, out, err = osc(heat_server, 'stack', 'breakpoint', 'show',
                         stack_name, 'r', '-f', 'json')
    shown = json.loads(out)
    assert shown['requires'] == ['odd' + ESC]
    assert shown['inputs']['value'] == 'x' + ESC
    # the legacy shell too
    code, out, err = legacy(heat_server, 'breakpoint-show', stack_name, 'r')
    assert code == 0, err
    assert '\x1b' not in out and 'odd\\x1b[2J' in out
    osc(heat_server, 'stack', 'breakpoint', 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=90)


def legacy(server, *argv):
    import contextlib
    import io

    from heatclient_ext import shell
    out, err = io.StringIO(), io.StringIO()
    with osc_shell.server_environment(server), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = shell.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_local_server_starts_quietly_and_stops_at_once():
    state = tempfile.mkdtemp(prefix='heat-breakpoint-stop-')
    server = conftest.LocalHeatProcess(state).start(reset=True)
    try:
        hc = server.client()
        hc.stacks.create(stack_name='kept', template=CHAIN_WITH_ODD_NAME)
        utils.wait_stack(hc, 'kept', 'CREATE_COMPLETE')
        started = time.monotonic()
        assert server.stop(signal.SIGTERM) == 0
        took = time.monotonic() - started
        output = server.read_output()
        assert took < 3, took
        assert 'heat-breakpoint-server: stopped' in output
        assert 'Eventlet' not in output and 'Warning' not in output, output
    finally:
        server.remove()
