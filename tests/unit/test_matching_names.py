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
"""The fast name matching of the checks agrees with ``fnmatchcase``."""

import fnmatch

from hypothesis import given
from hypothesis import strategies as st

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import nesting

ALPHABET = 'ab_1*?[]!'
names = st.lists(st.text(alphabet='ab_1[', min_size=0, max_size=5),
                 max_size=12)
patterns = st.text(alphabet=ALPHABET, min_size=0, max_size=5)


@given(patterns, names)
def test_matching_names_is_fnmatchcase(pattern, found):
    ordered = sorted(set(found))
    expected = [n for n in ordered if fnmatch.fnmatchcase(n, pattern)]
    assert breakpoints.matching_names(pattern, ordered) == expected
    first = breakpoints.matching_names(pattern, ordered, first=True)
    assert first == expected[:1]


@given(st.lists(st.tuples(patterns, st.sampled_from(
    ['OS::Heat::None', 'OS::Nova::*', 'OS::Heat::*', 'hooks'])),
    max_size=6), st.sampled_from(['a', 'ab', 'b_1', 'a[']),
    st.sampled_from(['OS::Heat::None', 'OS::Nova::Server',
                     'OS::Heat::Stack', 'x.yaml', None]))
def test_certainly_not_nested_as_before(entries, name, kind):
    """The indexed check answers as the scan over every entry did.

    A breakpoint below a resource that is surely no stack is refused.
    """
    env = {'resource_registry': {'resources': {
        pattern: {key: 'child.yaml'} for pattern, key in entries}}}
    plain = isinstance(kind, str) and kind.startswith(('OS::', 'AWS::')) \
        and kind not in nesting.STACK_TYPES
    remapped = any(
        fnmatch.fnmatchcase(name, pattern) and (
            key == kind or (key.endswith('*') and isinstance(kind, str) and
                            kind.startswith(key[:-1])))
        for pattern, entry in env['resource_registry']['resources'].items()
        for key in entry)
    try:
        nesting.check_nested(breakpoints.parse_names([name + '/x']),
                             {name: kind}, [env])
    except breakpoints.BreakpointError:
        refused = True
    else:
        refused = False
    assert refused == (plain and not remapped)


def test_a_big_registry_names_the_first_resource():
    """2,000 resources and 2,000 registry patterns: the same message."""
    types = {'r%04d' % i: 'OS::Heat::None' for i in range(2000)}
    env = {'resource_registry': {'resources': {
        'k%04d*' % i: {'OS::Heat::None': 'x.yaml'} for i in range(2000)}}}
    try:
        nesting.check_nested(breakpoints.parse_names(['r1*/x']), types,
                             [env])
    except breakpoints.BreakpointError as error:
        assert error.message == (
            "breakpoint 'r1*/x': 'r1000' is not a nested stack "
            "(OS::Heat::None); the template has no nested stack resources")
    else:
        raise AssertionError('r1*/x names no nested stack')
