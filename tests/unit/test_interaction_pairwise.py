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
"""The interaction tier's pairwise generator and its constraints."""

import itertools

from tests.interaction import dimensions
from tests.interaction import known
from tests.interaction import pairwise

SMALL = {'a': (1, 2, 3), 'b': ('x', 'y'), 'c': ('p', 'q', 'r'),
         'd': (True, False)}


def _no_3_with_x(s):
    return not (s.get('a') == 3 and s.get('b') == 'x')


def test_every_coverable_pair_is_covered():
    chosen = pairwise.generate(SMALL, _no_3_with_x, seed=1)
    names = list(SMALL)
    assert pairwise.covered(chosen, names) == pairwise.coverable_pairs(
        SMALL, _no_3_with_x)


def test_no_scenario_breaks_the_constraint():
    chosen = pairwise.generate(SMALL, _no_3_with_x, seed=1)
    assert all(_no_3_with_x(s) for s in chosen)
    assert not any(s['a'] == 3 and s['b'] == 'x' for s in chosen)


def test_a_forbidden_pair_is_not_asked_for():
    pairs = pairwise.coverable_pairs(SMALL, _no_3_with_x)
    assert (('a', 3), ('b', 'x')) not in pairs
    assert (('a', 3), ('b', 'y')) in pairs


def test_fewer_scenarios_than_the_product():
    chosen = pairwise.generate(SMALL, _no_3_with_x, seed=1)
    full = len(list(pairwise.valid_scenarios(SMALL, _no_3_with_x)))
    # 3 x 3 pairs of a and c need 9; the product has 30.
    assert 9 <= len(chosen) <= 12 < full


def test_the_same_seed_gives_the_same_plan():
    assert pairwise.generate(SMALL, _no_3_with_x, 7) == \
        pairwise.generate(SMALL, _no_3_with_x, 7)


def test_scenarios_are_full_and_use_known_values():
    for s in pairwise.generate(SMALL, _no_3_with_x, 3):
        assert list(s) == list(SMALL)
        assert all(s[k] in SMALL[k] for k in SMALL)


def test_a_constraint_on_three_dimensions_is_kept():
    def rule(s):
        return not (s.get('a') == 1 and s.get('b') == 'x'
                    and s.get('c') == 'p')
    chosen = pairwise.generate(SMALL, rule, 5)
    assert all(rule(s) for s in chosen)
    assert pairwise.covered(chosen, list(SMALL)) == \
        pairwise.coverable_pairs(SMALL, rule)


def test_the_product_plan_covers_every_compatible_pair():
    names = list(dimensions.DIMENSIONS)
    chosen = dimensions.plan()
    want = pairwise.coverable_pairs(dimensions.DIMENSIONS,
                                    dimensions.allowed)
    assert pairwise.covered(chosen, names) == want
    assert all(dimensions.allowed(s) for s in chosen)
    # Far fewer than every valid combination.
    assert len(chosen) < 150


def test_the_slice_is_the_head_of_the_plan_without_slow_releases():
    quick = [s for s in dimensions.plan()
             if s['release'] not in dimensions.SLOW_RELEASES]
    assert dimensions.selection(which='slice') == quick[:dimensions.SLICE]
    assert dimensions.selection(which='all') == dimensions.plan()
    assert any(s['release'] in dimensions.SLOW_RELEASES
               for s in dimensions.plan())


def test_impossible_combinations_are_refused():
    allowed = dimensions.allowed
    assert not allowed({'hold': 'on-replace', 'operation': 'create'})
    assert not allowed({'hold': 'on-change', 'operation': 'create'})
    assert not allowed({'hold': 'delete', 'operation': 'update-change'})
    assert not allowed({'hold': 'before', 'release': 'retry'})
    assert not allowed({'operation': 'delete', 'release': 'cancel'})
    assert not allowed({'family': 'wait', 'hold': 'on-failure'})
    assert not allowed({'family': 'random', 'operation': 'update-change'})
    assert not allowed({'setter': 'cli', 'operation': 'delete'})
    assert allowed({'hold': 'on-replace', 'operation': 'update-replace',
                    'family': 'group', 'release': 'cancel'})
    assert allowed({'hold': 'on-failure', 'release': 'retry',
                    'family': 'test', 'operation': 'create'})


def test_every_value_of_every_dimension_is_in_the_plan():
    chosen = dimensions.plan()
    for name, values in dimensions.DIMENSIONS.items():
        assert {s[name] for s in chosen} == set(values)


def test_signal_transports_are_heats():
    assert set(dimensions.SIGNAL_TRANSPORTS) == {
        'CFN_SIGNAL', 'HEAT_SIGNAL', 'TEMP_URL_SIGNAL', 'ZAQAR_SIGNAL',
        'NO_SIGNAL'}


def test_known_defects_name_the_scenarios_they_mark():
    base = {'hold': 'before', 'setter': 'cli', 'family': 'test',
            'operation': 'create', 'release': 'continue', 'name': 'ascii'}
    assert known.known_defects(base) == []
    # Each entry of the table marks some scenario of the whole plan: a
    # predicate that marks none is a fixed defect left behind.
    plan = dimensions.plan(dimensions.DEFAULT_SEED)
    for why, hits in known.KNOWN_DEFECTS + known.FOUND_HERE:
        assert any(hits(scenario) for scenario in plan), why


def test_pairs_of_one_scenario():
    s = {'a': 1, 'b': 'x', 'c': 'p', 'd': True}
    pairs = pairwise.pairs_of(s, list(SMALL))
    assert len(pairs) == len(list(itertools.combinations(SMALL, 2)))
    assert (('a', 1), ('d', True)) in pairs
