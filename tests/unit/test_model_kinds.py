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
"""The table of kinds and exits: consistent, and every table agrees."""

import re

import pytest

from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.commands import commands
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import target_kinds
from heat_breakpoint.policies import rules
from heatclient_ext.dap import editor_breakpoints
from heatclient_ext.osc import breakpoint as osc_breakpoint
from heatclient_ext.v1 import answers
from heatclient_ext.v1 import kinds as client_kinds
from heatclient_ext.v1 import terms

WHENS = [kind.when for kind in kinds.KINDS]


def test_names_and_spellings_are_unique():
    assert len(set(WHENS)) == len(WHENS)
    flags = [kind.flag for kind in kinds.KINDS if kind.flag]
    assert len(set(flags)) == len(flags)
    assert [kind for kind in kinds.KINDS if not kind.flag] == [kinds.BEFORE]
    names = [way.name for way in kinds.EXITS]
    assert len(set(names)) == len(names)
    assert kinds.BY_WHEN == dict(zip(WHENS, kinds.KINDS))


@pytest.mark.parametrize('kind', kinds.KINDS, ids=WHENS)
def test_each_kind_is_whole(kind):
    assert kind.phase in (kinds.BEFORE_ACTION, kinds.ACTION_DONE)
    assert kind.actions and set(kind.actions) <= set(kinds.ACTIONS)
    assert set(kind.default_actions) <= set(kind.actions)
    # Heat's hooks: pre-* before, post-* after; a planned or failure
    # hold is the plugin's alone.
    if kind.stock_hook:
        assert kind.hook_prefix == {kinds.BEFORE_ACTION: 'pre-',
                                    kinds.ACTION_DONE: 'post-'}[kind.phase]
        assert not (kind.planned or kind.failure)
    # What an update plans is decided before it runs; a failure after.
    assert not kind.planned or kind.phase == kinds.BEFORE_ACTION
    assert not kind.failure or kind.phase == kinds.ACTION_DONE
    assert '%(name)s' in kind.reason and '%(action)s' in kind.reason
    assert kind.when_text.count('%s') == 1
    assert kind.enter in kinds.BY_NAME
    assert kinds.BY_NAME[kind.enter].applies(kind.when, kind.actions[0])
    if kind.flag:
        assert re.fullmatch(r'--[a-z]+(-[a-z]+)*', kind.flag)
        assert kind.option_help and kind.flag_help
        # The target column keeps 'set@<when>' (db/target_kinds.py).
        assert len(target_kinds.kind_of(target_kinds.CLEAR, kind.when)) \
            <= target_kinds._KIND_LENGTH


@pytest.mark.parametrize('way', kinds.EXITS, ids=lambda way: way.name)
def test_each_exit_is_whole(way):
    assert set(way.whens or ()) <= set(WHENS)
    assert set(way.actions or ()) <= set(kinds.ACTIONS)
    assert way.policy_help.rstrip().endswith('.')
    assert way.policy_payload.startswith('breakpoint_release: ' + way.name)


def test_the_models_tables_read_it():
    assert breakpoints.WHENS == tuple(WHENS)
    assert (breakpoints.BEFORE, breakpoints.AFTER, breakpoints.FAILED,
            breakpoints.CHANGED, breakpoints.REPLACED) == tuple(WHENS)
    for kind in kinds.KINDS:
        assert breakpoints.WHEN_ACTIONS[kind.when] == kind.actions
        assert breakpoints.WHEN_DEFAULT_ACTIONS[kind.when] == \
            kind.default_actions
        bp = breakpoints.Breakpoint((), 'r', None, kind.when)
        assert bp.actions == kind.default_actions
        assert bp.hooks == tuple((kind.hook_prefix or '') + action
                                 for action in kind.default_actions
                                 if kind.hook_prefix)
    assert target_kinds.BEFORE == kinds.BEFORE.when


def test_the_engines_tables_read_it():
    done = {k.when for k in kinds.KINDS if k.phase == kinds.ACTION_DONE}
    assert set(hold_records.DONE_WHENS) == done
    assert set(decision._DONE_WHENS) == done
    assert set(commands.BEFORE_WHENS) == set(WHENS) - done
    assert set(decision._PLANNED_WHENS) == {
        k.when for k in kinds.KINDS if k.planned}
    for kind in kinds.KINDS:
        assert hold_records.hook_of('UPDATE', kind.when) == \
            kind.flag_prefix + 'update'


@pytest.mark.parametrize('kind', kinds.KINDS, ids=WHENS)
def test_each_reason_reads_back(kind):
    hook = kind.flag_prefix + 'delete'
    if kind.planned:
        text = reasons.held_change('a/b (c)', 'DELETE', 'remove')
    else:
        text = reasons.held('a/b (c)', 'DELETE', hook, kind.when)
    found = reasons.parse_held(text)
    assert found['name'] == 'a/b (c)' and found['action'] == 'DELETE'
    assert found['hook'] == hook
    # A reason of its own tells the kind; before's and the planned
    # kinds' (which tell the change) do not.
    assert found.get('when') == (
        None if kind.planned or kind is kinds.BEFORE else kind.when)
    assert reasons.parse_held(text + ' ') is None


def test_the_exits_tables_read_it():
    for way in kinds.EXITS:
        assert way.name in protocol.RELEASES
        assert rules.action_for_signal(
            {protocol.SIGNAL_KEY: way.name, 'unset_hook': 'x'}) == way.name
    names = {rule.name for rule in rules.list_rules()}
    assert {rules.POLICY_ROOT % way.name for way in kinds.EXITS} <= names
    assert (protocol.RELEASE_STEP, protocol.RELEASE_CONTINUE,
            protocol.RELEASE_RETRY, protocol.RELEASE_RETAIN) == tuple(
                way.name for way in kinds.EXITS)


def test_the_clients_tables_read_it():
    flagged = [kind for kind in kinds.KINDS if kind.flag]
    assert [(k.option, k.dest, k.when) for k in client_kinds.KINDS] == [
        (k.option, k.dest, k.when) for k in flagged]
    assert [(flag, when) for flag, when, _help in
            osc_breakpoint._WHEN_FLAGS] == [(k.flag, k.when)
                                            for k in flagged]
    for kind in kinds.KINDS:
        assert editor_breakpoints.kind(kind.condition) == (kind.when, None)
        assert terms.when_text(kind.when, 'UPDATE') == ' '.join(
            (kind.when_text % 'UPDATE').split())
        row = {'when': kind.when, 'resource': 'r', 'breakpoint': 'r'}
        assert answers.enter_verb(row) == kind.enter
        assert answers.enter_meaning(row) == kind.enter_words
        assert answers.question(row) == kind.question % {'name': 'r'}
        assert answers.hold_text(row).startswith(
            kind.screen % {'name': 'r'})
    for way in kinds.EXITS:
        if way.prompt_help:
            assert answers.parse_answer('%s r' % way.name, []) == (
                way.name, 'r')
            assert way.prompt_help in answers.HELP_LINES


def test_an_unknown_kind_reads_as_before():
    """A newer engine's kind: the client says what it says of before."""
    assert kinds.of('someday') is kinds.BEFORE
    assert kinds.of(None) is kinds.BEFORE
    row = {'when': 'someday', 'resource': 'r', 'breakpoint': 'r'}
    assert answers.hold_text(row) == 'at breakpoint r'
    assert answers.enter_verb(row) == answers.STEP
