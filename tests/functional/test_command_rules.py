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
"""Commands that do what they say, on the chain A -> B -> C -> D.

``set R --after`` while R is held before arms the hold after it;
``continue`` before anything is held disarms every breakpoint for the
rest of the operation; ``continue --to R`` and ``set R`` refuse a
resource already running or done, by the same rule; ``continue
--nested-depth 0`` leaves the nested stacks' breakpoints armed.
"""

from tests.functional import conftest
from tests.functional import test_cancel
from tests.functional import test_engine
from tests.functional import utils


def bp(server, *argv):
    return conftest.run_openstack(server, 'stack', 'breakpoint', *argv)


def ok(server, *argv):
    code, out, err = bp(server, *argv)
    assert code == 0, (out, err)
    return out


def reasons_of(heat, stack, name):
    return [e.resource_status_reason for e in
            heat.events.list(stack, resource_name=name)]


def create_slow_chain(heat, stack_name, seconds, *bps):
    """chain.yaml with BPS, its first resource A taking SECONDS to create."""
    tmpl = test_engine.template('chain.yaml')
    tmpl['resources']['A']['properties']['action_wait_secs'] = {
        'create': seconds}
    heat.stacks.create(stack_name=stack_name, template=tmpl,
                       environment=test_engine.breakpoint_env(*bps))


def test_set_after_while_held_before_arms_the_after_hold(
        heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'chain.yaml', 'B')
    test_engine.wait_held(heat, stack_name, 'B')
    out = ok(heat_server, 'set', stack_name, 'B', '--after')
    assert 'armed' in out and 'already' not in out, out
    ok(heat_server, 'clear', stack_name, 'B')
    test_engine.wait_held(heat, stack_name, 'B', status='CREATE_COMPLETE')
    assert any(r.startswith('Breakpoint B reached after CREATE')
               for r in reasons_of(heat, stack_name, 'B'))
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_continue_before_anything_is_held_disarms_everything(
        heat_server, heat, stack_name):
    # Slow enough that the continue comes before C is reached.
    create_slow_chain(heat, stack_name, 6, 'D', 'C')
    utils.wait_resource(heat, stack_name, 'A', 'CREATE_IN_PROGRESS')
    code, out, err = bp(heat_server, 'continue', stack_name)
    assert code == 0, (out, err)
    assert 'disarmed' in out and 'C' in out and 'D' in out, out
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    for name in ('C', 'D'):
        assert not any(' reached ' in (r or '')
                       for r in reasons_of(heat, stack_name, name)), name
    test_engine.assert_created_once(heat, stack_name, 'ABCD')


def test_to_and_set_refuse_a_resource_running_or_done(
        heat_server, heat, stack_name):
    create_slow_chain(heat, stack_name, 15, 'C')
    utils.wait_resource(heat, stack_name, 'A', 'CREATE_IN_PROGRESS')
    for argv in (('continue', stack_name, '--to', 'A'),
                 ('set', stack_name, 'A')):
        code, out, err = bp(heat_server, *argv)
        assert code == 1, (argv, out, err)
        assert 'A is already running in this operation' in err, err
    test_engine.wait_held(heat, stack_name, 'C', timeout=90)
    for argv in (('continue', stack_name, '--to', 'A'),
                 ('set', stack_name, 'A')):
        code, out, err = bp(heat_server, *argv)
        assert code == 1, (argv, out, err)
        assert 'A is already done in this operation' in err, err
    # Nothing was disarmed by the refusals: C still holds.
    assert reasons_of(heat, stack_name, 'C')
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_continue_nested_depth_zero_keeps_nested_breakpoints(
        heat_server, heat, stack_name):
    test_cancel.create(heat_server, heat, stack_name, 1)
    test_cancel.osc(heat_server, 'stack', 'update', stack_name,
                    '--existing', '--parameter', 'val=v2', '--breakpoint',
                    'inner', '--breakpoint', 'inner/rep', '--breakpoint',
                    'tail')
    test_engine.wait_held(heat, stack_name, 'inner',
                          status='UPDATE_IN_PROGRESS')
    out = ok(heat_server, 'continue', stack_name, '--nested-depth', '0')
    assert 'inner' in out and 'released' in out, out
    # One level down still holds ...
    test_cancel.wait_hold(heat, stack_name, 'inner/rep',
                          'UPDATE_IN_PROGRESS')
    # ... and the top level's breakpoints are off: tail never holds.
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    assert not any(' reached ' in (r or '')
                   for r in reasons_of(heat, stack_name, 'tail'))
