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
"""The less-travelled paths, on the real Heat: nested stacks not reached
yet, group members, delete holds, cancel, ``--wait`` after an earlier
operation, and the one event that ends every hold.

Templates: ``chain_nest`` (a -> dep -> nest: inner_a -> inner_b ->
other), ``two_tiers`` (base -> tier -> app, both the same nested tier),
``group`` (first -> group of members inner -> after -> last).
"""

import json

from tests.functional import test_client_cli as cli
from tests.functional import test_engine
from tests.functional import test_live_list
from tests.functional import utils

TIER = ('tier.yaml',)
MEMBER = ('member.yaml',)


bp = test_live_list.bp
ok = test_live_list.ok


def fails(server, *argv):
    code, out, err = bp(server, *argv)
    assert code == 1, (out, err)
    return cli.last_error_line(err)


def create(heat, name, tmpl, *bps, files=(), **kwargs):
    test_engine.create(heat, name, tmpl, *bps,
                       files=test_engine.template_files(*files), **kwargs)


def held(server, stack):
    return {row['Resource'] for row in cli.osc_json(
        server, 'stack', 'breakpoint', 'list', stack)
        if row['State'] == 'held'}


def wait_held(server, stack, *names, timeout=90):
    return utils.wait_for(lambda: held(server, stack) == set(names),
                          timeout, 0.3, 'held %s' % (names,))


def reasons_of(heat, stack, nested_depth=3):
    return [e.resource_status_reason or ''
            for e in heat.events.list(stack, nested_depth=nested_depth)]


def test_targets_in_nested_stacks_not_reached_yet(heat_server, heat,
                                                  stack_name):
    create(heat, stack_name, 'chain_nest.yaml', 'dep', files=TIER)
    wait_held(heat_server, stack_name, 'dep')
    # nest has no stack yet: its template says what can be named.
    assert ok(heat_server, 'set', stack_name, 'nest/inner_b', '-f',
              'value').split() == ['nest/inner_b', 'CREATE', 'before',
                                   'armed']
    assert fails(heat_server, 'set', stack_name, 'nest/inner_x') == (
        'Resource nest/inner_x not found in stack %s; closest: inner_a, '
        'inner_b (resources there: inner_a, inner_b, other)' % stack_name)
    assert fails(heat_server, 'set', stack_name, 'dep/x') == (
        'Resource dep is not a nested stack: dep/x has no resources '
        'below it')
    ok(heat_server, 'clear', stack_name, 'dep')  # released, targets kept
    wait_held(heat_server, stack_name, 'nest/inner_b')
    ok(heat_server, 'continue', stack_name, '--to', 'nest/other')
    wait_held(heat_server, stack_name, 'nest/other')
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_group_members_can_be_run_to(heat_server, heat, stack_name):
    create(heat, stack_name, 'group.yaml', 'first', files=MEMBER)
    wait_held(heat_server, stack_name, 'first')
    assert fails(heat_server, 'continue', stack_name, '--to',
                 'group/5/after').startswith(
        'Resource group/5/after not found in stack %s' % stack_name)
    assert held(heat_server, stack_name) == {'first'}  # nothing released
    ok(heat_server, 'continue', stack_name, '--to', 'group/1/after')
    wait_held(heat_server, stack_name, 'group/1/after')
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


DELETE_ENV = {'breakpoints': [
    {'resource': 'tier/inner_b', 'action': 'delete'},
    {'resource': '*/other', 'action': 'delete'}]}


def test_delete_holds_at_the_root_stacks_breakpoints(heat_server, heat,
                                                     stack_name, tmp_path):
    create(heat, stack_name, 'two_tiers.yaml', files=TIER)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    env = tmp_path / 'delete.yaml'
    env.write_text(json.dumps(DELETE_ENV))
    code, out, err = cli.osc(
        heat_server, 'stack', 'update', stack_name, '--existing', '-e',
        str(env), '--breakpoint', 'tier/inner_a', '--parameter', 'v=two')
    assert code == 0, err
    wait_held(heat_server, stack_name, 'tier/inner_a')
    # The update never reached app: its own environment has no delete
    # breakpoints, the root stack's has.
    heat.stacks.delete(stack_name)
    wait_held(heat_server, stack_name, 'app/other')
    shown = cli.osc_json(heat_server, 'stack', 'breakpoint', 'show',
                         stack_name, 'app/other')
    assert (shown['breakpoint'], shown['actions'], shown['action'],
            shown['state']) == ('*/other', 'DELETE', 'DELETE', 'held')
    assert shown['inputs']['value']  # as stored, resolved
    assert shown['next'] == ['inner_b']  # deleted next, the reverse graph
    ok(heat_server, 'step', stack_name, 'app/other')
    wait_held(heat_server, stack_name, 'app/inner_b')
    ok(heat_server, 'continue', stack_name)
    utils.wait_for(lambda: stack_name not in {
        s.stack_name for s in heat.stacks.list()}, 90, what='deleted')


def test_cancel_rolls_back_without_holding(heat_server, heat, stack_name):
    create(heat, stack_name, 'chain_nest.yaml', 'dep', 'nest/inner_a',
           files=TIER)
    wait_held(heat_server, stack_name, 'dep')
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    heat.stacks.update(stack_name, existing=True, parameters={'v': 'two'})
    wait_held(heat_server, stack_name, 'dep')
    ok(heat_server, 'step', stack_name, 'dep')
    wait_held(heat_server, stack_name, 'nest')
    ok(heat_server, 'step', stack_name, 'nest')
    wait_held(heat_server, stack_name, 'nest/inner_a')
    heat.actions.cancel_update(stack_name)
    # No continue: the rollback runs through, at every depth.
    utils.wait_for(lambda: heat.stacks.get(stack_name).stack_status ==
                   'ROLLBACK_COMPLETE', 90, what='rolled back')
    assert held(heat_server, stack_name) == set()
    found = reasons_of(heat, stack_name)
    assert 'Breakpoint nest/inner_a released (operation cancelled)' in found
    rollback_hits = [r for r in found[:found.index(
        'Stack ROLLBACK started')] if ' reached before ' in r] \
        if 'Stack ROLLBACK started' in found else []
    assert rollback_hits == []  # events are newest first


def test_wait_counts_only_the_operation_it_started(heat_server, heat,
                                                   stack_name):
    code, out, err = cli.osc(
        heat_server, 'stack', 'create', stack_name, '-t',
        test_engine.os.path.join(test_engine.TEMPLATES, 'group.yaml'),
        '--breakpoint', 'group/*/after', '--wait')
    assert code == 0, err
    assert 'is held at' in out
    wait_held(heat_server, stack_name, 'group/0/after', 'group/1/after')
    code, out, err = cli.osc(
        heat_server, 'stack', 'update', stack_name, '-t',
        test_engine.os.path.join(test_engine.TEMPLATES, 'group.yaml'),
        '--parameter', 'count=3', '--wait')
    assert code == 0, err
    assert 'is held at' not in out + err
    assert heat.stacks.get(stack_name).stack_status == 'UPDATE_COMPLETE'


def test_runtime_commands_say_what_is_wrong(heat_server, heat, stack_name):
    create(heat, stack_name, 'abcd.yaml', 'a', 'c')
    wait_held(heat_server, stack_name, 'a')
    # One message, with close matches, for every command.
    expected = ('Resource cc not found in stack %s; closest: c '
                '(resources: a, b, c, d)' % stack_name)
    for argv in (('show', stack_name, 'cc'), ('set', stack_name, 'cc'),
                 ('clear', stack_name, 'cc'), ('step', stack_name, 'cc'),
                 ('continue', stack_name, '--to', 'cc')):
        assert fails(heat_server, *argv) == expected, argv
    # set says what there was to do.
    assert ok(heat_server, 'set', stack_name, 'a', '-f', 'value').split() \
        == ['a', 'CREATE', 'before', 'already', 'held']
    assert ok(heat_server, 'set', stack_name, 'c', '-f', 'value').split() \
        == ['c', 'CREATE', 'before', 'already', 'armed']
    # show and list give the same time left.
    listed = {row['Resource']: row for row in cli.osc_json(
        heat_server, 'stack', 'breakpoint', 'list', stack_name)}
    shown = cli.osc_json(heat_server, 'stack', 'breakpoint', 'show',
                         stack_name, 'a')
    assert shown['timeout_remaining'] == listed['a']['Timeout Remaining']
    ok(heat_server, 'step', stack_name, 'a')
    wait_held(heat_server, stack_name, 'b')
    # a is done: set and --to refuse it, and nothing is released.
    assert fails(heat_server, 'set', stack_name, 'a') == (
        'a is already done in this operation: a breakpoint there would '
        'never hold')
    assert fails(heat_server, 'continue', stack_name, '--to', 'a') == (
        'a is already done in this operation: nothing released')
    assert held(heat_server, stack_name) == {'b'}
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert fails(heat_server, 'continue', stack_name, '--to', 'd') == (
        'Nothing is running in stack %s (CREATE_COMPLETE): continue --to '
        'applies to a running operation' % stack_name)


def test_a_hold_superseded_by_an_update_ends_with_an_event(
        heat_server, heat, stack_name):
    create(heat, stack_name, 'abcd.yaml', 'b')
    wait_held(heat_server, stack_name, 'b')
    heat.stacks.update(stack_name, existing=True, parameters={'v': 'two'})
    utils.wait_for(lambda: 'Breakpoint b released (superseded by a newer '
                   'operation)' in reasons_of(heat, stack_name, 0), 60,
                   what='the superseded hold ended')
    wait_held(heat_server, stack_name, 'b')  # the update's own hold
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    endings = [r for r in reasons_of(heat, stack_name, 0)
               if r.startswith('Breakpoint b released')]
    assert sorted(endings) == [
        'Breakpoint b released (continue)',
        'Breakpoint b released (superseded by a newer operation)']
