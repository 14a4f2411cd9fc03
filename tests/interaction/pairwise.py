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
"""A seeded greedy all-pairs generator, with constraints.

The interaction tier cannot run every combination of the product's
dimensions (tens of thousands), but most defects where features meet need
only two of them to line up. This picks few scenarios that together hold
every pair of values that can meet in one scenario at all, the same ones
for the same seed. Pure: no Heat, no I/O.
"""

import itertools
import random


def pairs_of(scenario, names):
    """The pairs ((dim, value), (dim, value)) one scenario covers."""
    items = [(name, scenario[name]) for name in names]
    return set(itertools.combinations(items, 2))


def valid_scenarios(dimensions, allowed):
    """Every full combination ``allowed`` accepts, in dimension order."""
    names = list(dimensions)
    for values in itertools.product(*(dimensions[n] for n in names)):
        scenario = dict(zip(names, values))
        if allowed(scenario):
            yield scenario


def coverable_pairs(dimensions, allowed):
    """The pairs some valid full scenario holds: what must be covered."""
    names = list(dimensions)
    pairs = set()
    for scenario in valid_scenarios(dimensions, allowed):
        pairs |= pairs_of(scenario, names)
    return pairs


def generate(dimensions, allowed, seed, candidates=20):
    """Scenarios (dicts) covering every coverable pair, most-covering first.

    ``dimensions`` maps a name to its values (order kept); ``allowed`` is
    asked about partial scenarios too (a dict of some dimensions) and
    answers False as soon as what it is given cannot be part of a valid
    scenario. Each round builds ``candidates`` scenarios, each around a
    pair not covered yet, greedily, and keeps the one covering the most
    new pairs; ties and orders come from ``random.Random(seed)``.
    """
    names = list(dimensions)
    rng = random.Random(seed)
    uncovered = coverable_pairs(dimensions, allowed)
    chosen = []
    while uncovered:
        best, best_gain = None, 0
        ordered = sorted(uncovered, key=repr)
        for _ in range(candidates):
            seed_pair = rng.choice(ordered)
            scenario = _complete(dict(seed_pair), names, dimensions,
                                 allowed, uncovered, rng)
            if scenario is None:
                continue
            gain = len(pairs_of(scenario, names) & uncovered)
            if gain > best_gain:
                best, best_gain = scenario, gain
        if best is None:
            # Each coverable pair has a valid completion: find it whole.
            best = _any_completion(dict(ordered[0]), dimensions, allowed)
        chosen.append(best)
        uncovered -= pairs_of(best, names)
    return chosen


def _complete(partial, names, dimensions, allowed, uncovered, rng):
    rest = [n for n in names if n not in partial]
    rng.shuffle(rest)
    for name in rest:
        options = []
        for value in dimensions[name]:
            trial = dict(partial, **{name: value})
            if not allowed(trial):
                continue
            gain = sum(1 for other, v in partial.items()
                       if _pair(names, (name, value), (other, v))
                       in uncovered)
            options.append((gain, rng.random(), value))
        if not options:
            return None
        partial[name] = max(options)[2]
    if not allowed(partial):
        return None
    return {n: partial[n] for n in names}


def _pair(names, a, b):
    return (a, b) if names.index(a[0]) < names.index(b[0]) else (b, a)


def _any_completion(partial, dimensions, allowed):
    names = list(dimensions)
    fixed = [n for n in names if n not in partial]
    for values in itertools.product(*(dimensions[n] for n in fixed)):
        scenario = dict(partial, **dict(zip(fixed, values)))
        if allowed(scenario):
            return {n: scenario[n] for n in names}
    raise ValueError('no valid scenario holds %r' % (partial,))


def covered(scenarios, names):
    """Every pair the scenarios hold together."""
    pairs = set()
    for scenario in scenarios:
        pairs |= pairs_of(scenario, names)
    return pairs
