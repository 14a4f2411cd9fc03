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
"""Resource names end to end: the longest Heat takes, and non-ASCII ones.

Heat's API reads a resource's URL as Latin-1, so a resource whose name is
not ASCII cannot be shown or signalled (stock ``hook clear`` fails too):
a breakpoint naming one is refused up front, and no pattern holds one.
"""

import pytest

from heat_breakpoint.model import breakpoints
from tests.functional import conftest
from tests.functional import utils

LONGEST = 'r' * breakpoints.MAX_NAME_LENGTH
UNICODE = """\
heat_template_version: 2018-08-31
resources:
  first:
    type: OS::Heat::TestResource
    properties: {value: first}
  web_\U0001F600:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, output]}}
  \u0434\u0431_\u0441\u0435\u0440\u0432\u0435\u0440:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, output]}}
  %s:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, output]}}
""" % LONGEST


def template(tmp_path):
    path = tmp_path / 'names.yaml'
    path.write_text(UNICODE, encoding='utf-8')
    return str(path)


def held(hc, stack):
    from heatclient_ext.v1 import manager as bp_v1
    return sorted(row['resource'] for row in
                  bp_v1.BreakpointManager(hc).held_now(stack)[1])


@pytest.mark.parametrize('name', ['web_\U0001F600',
                                  '\u0434\u0431_\u0441\u0435\u0440\u0432'
                                  '\u0435\u0440'])
def test_a_name_no_release_could_reach_is_refused_up_front(
        heat_server, heat, stack_name, tmp_path, name):
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', template(tmp_path),
        '--breakpoint', name, stack_name)
    assert code == 1
    assert err.strip().splitlines()[-1] == breakpoints.NOT_ASCII % (
        "breakpoint '%s'" % name)
    assert stack_name not in [s.stack_name for s in heat.stacks.list()]


def test_a_pattern_holds_no_such_name_and_the_stack_completes(
        heat_server, heat, stack_name, tmp_path):
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', template(tmp_path),
        '--breakpoint', '*', stack_name)
    assert code == 0, err
    utils.wait_for(lambda: held(heat, stack_name) == ['first'], 60,
                   what='first held')
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'breakpoint', 'step', stack_name)
    assert code == 0, err
    # Only the longest (ASCII) name holds next; the others go on.
    utils.wait_for(lambda: held(heat, stack_name) == [LONGEST], 60,
                   what='the longest name held')
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'breakpoint', 'step', stack_name, LONGEST)
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
