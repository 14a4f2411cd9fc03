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
"""The editor's breakpoints (:mod:`heatclient_ext.dap.editor_breakpoints`)."""

from unittest import mock

from heatclient_ext.dap import editor_breakpoints as eb


def test_kinds():
    assert eb.kind('') == ('before', None)
    assert eb.kind(' replaced ') == ('replaced', None)
    when, why = eb.kind('often')
    assert when is None and why.startswith("unknown condition 'often'")


def test_function_breakpoints_use_the_model_words():
    found = eb.EditorBreakpoints().set_functions(
        [{'name': 'node_*'}, {'name': 'a//b'}, {'name': 'x',
                                                'condition': 'after'}])
    assert [bp.verified for bp in found] == [True, False, True]
    assert found[1].message  # the model's own words for a bad name
    assert found[2].when == 'after'


def test_wanted_and_hits():
    bps = eb.EditorBreakpoints()
    bps.set_functions([{'name': 'node_*'}])
    bps.set_filters(['failures'])
    assert bps.wanted() == {('node_*', 'before'), ('*', 'failed')}
    row = {'resource': 'node_2', 'when': 'before', 'breakpoint': 'node_*'}
    assert bps.hits(row) == [bps.functions[0].id]
    failed = {'resource': 'x/y', 'when': 'failed', 'breakpoint': '*'}
    assert bps.hits(failed) == [bps.failures.id]
    bps.set_filters([])
    assert bps.hits(failed) == []


def test_arming_sends_only_what_changed():
    said = []
    arming = eb.Arming(lambda text, category='console': said.append(text))
    manager = mock.Mock()
    manager.set.return_value = 'armed'
    manager.clear.return_value = ([], 'disarmed')
    arming.sync(manager, 's/1', {('a', 'before'), ('b', 'after')})
    arming.sync(manager, 's/1', {('a', 'before'), ('b', 'after')})
    assert manager.set.call_count == 2
    # b changes kind: armed again; a, no longer wanted, is cleared.
    arming.sync(manager, 's/1', {('b', 'before')})
    manager.clear.assert_called_once_with('s/1', 'a')
    manager.set.assert_called_with('s/1', 'b', 'before')
    assert said[-1] == 'breakpoint a: disarmed'
