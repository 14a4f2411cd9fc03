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
"""Fault rules: parsing, matching, how often they act, and their words."""

import pytest

from heat_breakpoint.server.cloud import faults
from heat_breakpoint.server.cloud import timing


def one(**rule):
    return faults.parse_rule(rule, 1)


def test_a_rule_matches_by_name_type_and_action():
    rule = one(resource='web_*', type='OS::Nova::*', action='create')
    assert rule.matches('web_1', 'OS::Nova::Server', 'CREATE')
    assert not rule.matches('web_1', 'OS::Nova::Server', 'DELETE')
    assert not rule.matches('db', 'OS::Nova::Server', 'CREATE')
    assert not rule.matches('web_1', 'OS::Neutron::Port', 'CREATE')
    # Nested paths match at their own depth, as breakpoints do.
    nested = one(resource='tier/web_*')
    assert nested.matches('tier/web_2', 'OS::Nova::Server', 'UPDATE')
    assert not nested.matches('web_2', 'OS::Nova::Server', 'UPDATE')
    assert one().matches('a/b/c', 'X::Y', 'SUSPEND')


def test_the_first_matching_rule_decides_even_when_it_does_not_act():
    book = faults.FaultBook(faults.parse_rules([
        {'resource': 'web', 'times': 1, 'effect': 'delay', 'seconds': 3},
        {'resource': '*', 'effect': 'fail'}]))
    first = book.decide('web', 'T', 'CREATE', scope='s')
    assert first.effect == 'delay' and first.attempt == 1
    # The second attempt: the first rule matches, does not act, and the
    # catch-all after it is not looked at.
    assert book.decide('web', 'T', 'CREATE', scope='s') is None
    assert book.decide('db', 'T', 'CREATE', scope='s').effect == 'fail'


def test_times_and_every_count_each_resource_of_each_stack():
    book = faults.FaultBook(faults.parse_rules([{'every': 2}]))
    acted = [bool(book.decide('a', 'T', 'CREATE', scope='s1'))
             for _ in range(4)]
    assert acted == [False, True, False, True]
    # Another stack starts again from its first attempt.
    assert book.decide('a', 'T', 'CREATE', scope='s2') is None


def test_times_acts_on_the_first_n_attempts_of_each_resource():
    book = faults.FaultBook(faults.parse_rules([{'times': 2}]))
    acted = [bool(book.decide('a', 'T', 'CREATE', scope='s1'))
             for _ in range(4)]
    assert acted == [True, True, False, False]
    # Each resource and each stack has its own count.
    assert [bool(book.decide('b', 'T', 'CREATE', scope='s1')),
            bool(book.decide('a', 'T', 'CREATE', scope='s2'))] == [True,
                                                                   True]
    # Without a count, a rule acts on every attempt.
    always = faults.FaultBook(faults.parse_rules([{'resource': 'a'}]))
    assert [bool(always.decide('a', 'T', 'CREATE', scope='s1'))
            for _ in range(3)] == [True, True, True]


def test_a_seeded_probability_picks_the_same_resources_every_run():
    rules = [{'probability': 0.3, 'seed': 7}]
    picks = []
    for _ in range(2):
        book = faults.FaultBook(faults.parse_rules(rules))
        picks.append([i for i in range(40) if book.decide(
            'group/%d' % i, 'T', 'CREATE', scope='any')])
    assert picks[0] == picks[1]
    assert 4 <= len(picks[0]) <= 20
    other = faults.FaultBook(faults.parse_rules(
        [{'probability': 0.3, 'seed': 8}]))
    assert [i for i in range(40) if other.decide(
        'group/%d' % i, 'T', 'CREATE', scope='any')] != picks[0]


def test_default_messages_are_the_real_services_and_name_the_rule():
    rule = one(resource='web')
    text = rule.failure_message('OS::Nova::Server', 'CREATE')
    assert text.startswith('Went to status ERROR due to "Message: No valid '
                           'host was found.')
    assert text.endswith('(simulated fault: rule 1 (fail web))')
    refused = one(failure='refused')
    assert refused.refusal('OS::Nova::Server', 'CREATE')[0] == 'Forbidden'
    assert 'Quota exceeded for instances' in refused.failure_message(
        'OS::Nova::Server', 'CREATE')
    assert one(message='boom').failure_message('X', 'CREATE').startswith(
        'boom (simulated fault')


@pytest.mark.parametrize('rule, words', [
    ({'action': 'REBOOT'}, "unknown action 'REBOOT'"),
    ({'effect': 'explode'}, "unknown effect 'explode'"),
    ({'colour': 'red'}, 'unknown keys colour'),
    ({'times': 0}, 'times must be between 1'),
    ({'times': 1.5}, 'times must be a whole number'),
    ({'probability': 2}, 'probability must be between 0 and 1'),
    ({'times': 1, 'every': 2}, 'give one of times, every and probability'),
    ({'effect': 'delay'}, 'a delay needs seconds'),
    ({'effect': 'delay', 'seconds': [5, 1]}, 'low > high'),
    ({'resource': 'a[b'}, "'[' opens a set that is not closed"),
    ({'type': ''}, 'type must be a type name'),
    ({'failure': 'sometimes'}, "unknown failure 'sometimes'"),
    ({'message': 5}, 'message must be text'),
    ({'type': 'OS::Heat::TestResource'},
     "type OS::Heat::TestResource is one of Heat's own types"),
    ({'type': 'OS::Heat::Random*'}, 'fault rules act on the simulated'),
    ({'type': 'AWS::CloudFormation::WaitCondition'},
     'OS::Heat::SoftwareDeployment and OS::Heat::StructuredDeployment'),
])
def test_a_bad_rule_is_one_line_naming_it(rule, words):
    with pytest.raises(faults.FaultError) as caught:
        faults.parse_rule(rule, 1)
    assert words in str(caught.value)
    assert '\n' not in str(caught.value)


@pytest.mark.parametrize('type_name', [
    'OS::Heat::SoftwareDeployment', 'OS::Heat::StructuredDeployment',
    'OS::Heat::*Deployment', 'OS::Heat::*', 'OS::*', '*', 'OS::Nova::*',
    'AWS::EC2::Instance'])
def test_types_a_rule_can_act_on_are_taken(type_name):
    assert faults.parse_rule({'type': type_name}, 1).type == type_name


def test_nothing_is_half_added():
    book = faults.FaultBook(faults.parse_rules([{'resource': 'a'}]))
    with pytest.raises(faults.FaultError):
        book.add([{'resource': 'b'}, {'action': 'nope'}])
    assert [r.resource.name for r in book.rules] == ['a']
    added = book.add([{'resource': 'b'}])
    assert added[0].number == 2
    assert book.remove(1).resource.name == 'a'
    with pytest.raises(faults.FaultError, match='no fault rule 1'):
        book.remove(1)


@pytest.mark.parametrize('text, words', [
    ('faults: [{action: X}]\n', "unknown action 'X'"),
    ('- {resource: a}\n- 5\n', 'fault 2 must be a mapping'),
    ('{a: 1}\n', 'faults must be a list'),
    ('[\n', 'is not YAML'),
])
def test_a_bad_faults_file_is_named(tmp_path, text, words):
    path = tmp_path / 'faults.yaml'
    path.write_text(text)
    with pytest.raises(faults.FaultError) as caught:
        faults.load_file(str(path))
    assert words in str(caught.value) and '\n' not in str(caught.value)


def test_a_deployment_s_stderr_names_its_inputs():
    assert faults.render_stderr('denied for ${user} with ${pw}', {
        'user': 'root', 'pw': 's3cret'}) == 'denied for root with s3cret'
    assert faults.render_stderr('${missing}', {}) == '${missing}'


def test_realistic_times_are_a_cloud_s_and_the_same_for_a_seed():
    times = timing.Timing(seed=3)
    server = times.seconds('OS::Nova::Server', 'CREATE', 'web')
    assert 20 <= server <= 40
    assert server == timing.Timing(seed=3).seconds('OS::Nova::Server',
                                                   'CREATE', 'web')
    assert 1 <= times.seconds('OS::Neutron::Port', 'CREATE', 'p') <= 1.5
    assert times.seconds('OS::Heat::None', 'CHECK', 'x') <= 0.5
