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
"""Tests of the masking of secrets in what the engine shows."""

from unittest import mock

import pytest
import yaml

from heat_breakpoint.engine.masking import inputs
from heat_breakpoint.engine.masking import template_secrets as secrecy

MASK = inputs.MASK


class FakeParam:
    def __init__(self, value, hidden=False):
        self._value, self._hidden = value, hidden

    def hidden(self):
        return self._hidden

    def value(self):
        if isinstance(self._value, Exception):
            raise self._value
        return self._value


class FakeStack:
    def __init__(self, **params):
        self.parameters = mock.Mock(params=params)


def test_hidden_values():
    stack = FakeStack(a=FakeParam('s3cret', hidden=True),
                      b=FakeParam('plain'),
                      c=FakeParam(ValueError('no value'), hidden=True),
                      d=FakeParam('', hidden=True),
                      e=FakeParam(4242, hidden=True),
                      f=FakeParam('ow', hidden=True),
                      g=FakeParam(['lst-one', 'lst-two'], hidden=True))
    # Free text is searched only for values of 4 characters or more.
    assert inputs.hidden_values(stack) == {
        's3cret', '4242', 'lst-one', 'lst-two', 'lst-one,lst-two'}


def test_hidden_values_read_once_per_parameters():
    secret = FakeParam('s3cret', hidden=True)
    stack = FakeStack(a=secret)
    with mock.patch.object(secret, 'value',
                           wraps=secret.value) as value:
        inputs.hidden_values(stack)
        inputs.hidden_values(stack)
        assert value.call_count == 1
    # New parameters (a stack update): read again.
    stack.parameters = mock.Mock(params={'a': FakeParam('other', True)})
    assert inputs.hidden_values(stack) == {'other'}


def test_mask_hidden_values_and_secret_names():
    data = {'name': 'x-s3cret-y', 'password': 'anything',
            'list': ['s3cret', 1, None],
            'nested': {'api_token': 'abc', 'token': ''}}
    assert inputs.mask(data, {'s3cret'}) == {
        'name': 'x-%s-y' % MASK, 'password': MASK,
        'list': [MASK, 1, None], 'nested': {'api_token': MASK,
                                            'token': ''}}


def test_mask_gives_back_what_holds_no_secret():
    data = {'name': 'web', 'ports': [80, 443], 'meta': {'k': ['v']},
            'empty_password': None}
    assert inputs.mask(data, {'s3cret'}) is data
    assert inputs.mask(data, frozenset()) is data


def test_mask_copies_what_it_changes():
    data = {'keep': {'a': 1}, 'change': ['s3cret']}
    masked = inputs.mask(data, {'s3cret'})
    assert masked is not data and data['change'] == ['s3cret']
    assert masked['keep'] is data['keep']
    assert masked['change'] == [MASK]


def test_mask_never_searches_for_short_values():
    data = {'text': 'the quick brown fox'}
    assert inputs.mask(data, {'ow'}) is data


def test_mask_names_and_the_name_value_pair_idiom():
    data = {'env': [{'name': 'DB_PASSWORD', 'value': 'pw1'},
                    {'name': 'HOME', 'value': '/home/app'},
                    {'Key': 'api_token', 'Value': 'tok'}],
            'admin_pass': 'x', 'plain': 'y'}
    assert inputs.mask_names(data) == {
        'env': [{'name': 'DB_PASSWORD', 'value': MASK},
                {'name': 'HOME', 'value': '/home/app'},
                {'Key': 'api_token', 'Value': MASK}],
        'admin_pass': MASK, 'plain': 'y'}


def test_mask_paths_masks_whole_parts_and_says_what():
    data = {'a': {'b': 'secret-b', 'c': 'plain'}, 'l': ['x', 'y'],
            'n': 42, 'empty': ''}
    taken = []
    masked = inputs.mask_paths(data, {('a', 'b'), ('l', 1), ('n',),
                                      ('empty',)}, taken)
    assert masked == {'a': {'b': MASK, 'c': 'plain'}, 'l': ['x', MASK],
                      'n': MASK, 'empty': ''}
    assert sorted(map(str, taken)) == ['42', 'secret-b', 'y']
    assert data['a']['b'] == 'secret-b'  # a copy
    assert inputs.mask_paths(data, set()) is data
    assert inputs.mask_paths(data, {secrecy.WHOLE}) == MASK


def test_masking_of_planned_change_values():
    masking = inputs.Masking(paths={('value',), ('env', 'DB')},
                             texts={'Pw-s3cret'})
    assert masking.property('value', {'any': 1}) == MASK
    assert masking.property('env', {'DB': 'x', 'HOME': '/'}) == {
        'DB': MASK, 'HOME': '/'}
    assert masking.property('password', 'p') == MASK
    assert masking.property('other', 'Pw-s3cret') == 'Pw-s3cret'
    assert masking.text('bad value Pw-s3cret') == 'bad value %s' % MASK
    assert isinstance(masking.values({'value': 1}), inputs.Masked)


# ---------------------------------------------------------------------------
# On Heat's own parsed templates (in memory: no database for a root stack)

HIDDEN = {'pw': 'Pw-s3cret-1', 'pin': 7391846, 'lst': 'lst-a1,lst-b2',
          'js': {'k': 'json-s3cret'}, 'sh': 'ow', 'shown': 'visible'}


def heat_stack(resources, outputs=None, files=None):
    from heat.common import context
    from heat.engine import environment
    from heat.engine import stack as parser
    from heat.engine import template
    tmpl = template.Template({
        'heat_template_version': '2018-08-31',
        'parameters': {
            'pw': {'type': 'string', 'hidden': True},
            'pin': {'type': 'number', 'hidden': True},
            'lst': {'type': 'comma_delimited_list', 'hidden': True},
            'js': {'type': 'json', 'hidden': True},
            'sh': {'type': 'string', 'hidden': True},
            'shown': {'type': 'string'}},
        'resources': resources, 'outputs': outputs or {}},
        files=files, env=environment.Environment(dict(HIDDEN)))
    cnxt = context.RequestContext(project_id='p', user_id='u',
                                  is_admin=True)
    return parser.Stack(cnxt, 'masking', tmpl)


def value(defn):
    return {'type': 'OS::Heat::Value', 'properties': {'value': defn}}


SHAPES = [
    ('direct', {'get_param': 'pw'}, MASK),
    ('str_replace', {'str_replace': {
        'template': 'pw=$p', 'params': {'$p': {'get_param': 'pw'}}}}, MASK),
    ('list_join', {'list_join': ['-', ['x', {'get_param': 'pw'}]]}, MASK),
    ('yaql', {'yaql': {'expression': '$.data.toUpper()',
                       'data': {'get_param': 'pw'}}}, MASK),
    ('split_join', {'list_join': ['+', {'str_split': [
        '-', {'get_param': 'pw'}]}]}, MASK),
    ('number', {'get_param': 'pin'}, MASK),
    ('cdl_item', {'get_param': ['lst', 1]}, MASK),
    ('json', {'get_param': 'js'}, MASK),
    ('if_secret', {'if': [True, {'get_param': 'pw'}, 'no']}, MASK),
    ('plain', {'get_param': 'shown'}, 'visible'),
    ('fox', 'the quick brown fox', 'the quick brown fox'),
    ('list', ['a', {'get_param': 'pw'}], ['a', MASK]),
]


@pytest.mark.parametrize('name, defn, expected', SHAPES,
                         ids=[shape[0] for shape in SHAPES])
def test_resolved_inputs_mask_what_is_derived_from_a_hidden_param(
        name, defn, expected):
    stack = heat_stack({'r': value({'the_' + name: defn})})
    shown = inputs.resolved_inputs(stack['r'].properties, stack)
    assert shown['value'] == {'the_' + name: expected}


def test_attributes_of_a_value_fed_a_secret():
    stack = heat_stack({'src': value({'get_param': 'pw'}),
                        'plain_src': value('x'),
                        'mixed': value({'a': {'get_param': 'pw'}}),
                        'r': value({'via': {'get_attr': ['src', 'value']},
                                    'plain': {'get_attr': ['plain_src',
                                                           'value']}})})
    found = secrecy.for_stack(stack)
    assert found.property_paths(stack['r'].properties.data) == {
        ('value', 'via')}
    assert found.attribute('src', 'value')
    assert not found.attribute('plain_src', 'value')
    assert found.attribute('mixed', ('value', 'b'))
    assert found.attribute('mixed', None)


def test_outputs_derived_from_a_secret():
    stack = heat_stack({'src': value({'get_param': 'pw'})}, outputs={
        'secret': {'value': {'get_attr': ['src', 'value']}},
        'plain': {'value': {'get_param': 'shown'}}})
    found = secrecy.for_stack(stack)
    assert found.output('secret') and not found.output('plain')


def test_unresolved_inputs_go_through_the_text_net():
    stack = heat_stack({})

    class Unresolved(dict):
        def __iter__(self):
            raise ValueError("Value 'Pw-s3cret-1' is not an integer, ow")
    assert inputs.resolved_inputs(Unresolved(), stack) == {
        'unresolved': "Value '%s' is not an integer, ow" % MASK}


def test_plain_values_without_a_definition_get_the_text_net():
    stack = heat_stack({})
    assert inputs.resolved_inputs(
        {'v': 'is Pw-s3cret-1', 'f': 'brown fox'}, stack) == {
            'v': 'is %s' % MASK, 'f': 'brown fox'}
    already = inputs.Masked({'v': MASK, 'password': 'p'})
    assert inputs.resolved_inputs(already, stack) == {'v': MASK,
                                                      'password': MASK}


def test_a_group_member_inherits_the_secret_paths():
    stack = heat_stack({})
    member = secrecy.Secrecy(stack, member_paths={('value', 'fed')})
    assert member.property_paths({'value': {'fed': 'x', 'p': 'y'}}) == {
        ('value', 'fed')}
    hidden = secrecy.Secrecy(stack, hidden={'shown'})
    assert hidden.param_hidden('shown') and hidden.param_hidden('pw')
    assert not secrecy.Secrecy(stack).param_hidden('shown')
    assert secrecy.Secrecy(stack, all_hidden=True).param_hidden('shown')


def test_what_a_nested_stack_inherits_from_its_parent_resource():
    group_def = {'type': 'child.yaml', 'properties': {
        'fed': {'get_param': 'pw'}, 'plain': {'get_param': 'shown'}}}
    parent = heat_stack({
        'child': {'type': 'child.yaml', 'properties': {
            'fed': {'str_replace': {'template': 'x$p', 'params': {
                '$p': {'get_param': 'pin'}}}},
            'plain': {'get_param': 'shown'}}},
        'group': {'type': 'OS::Heat::ResourceGroup', 'properties': {
            'count': 1, 'resource_def': group_def}},
        'chain': {'type': 'OS::Heat::ResourceChain', 'properties': {
            'resources': ['OS::Heat::Value'],
            'resource_properties': {'value': {'get_param': 'pw'}}}},
        'plain': {'type': 'child.yaml', 'properties': {
            'fed': 'x', 'plain': 'y'}}},
        files={'child.yaml': yaml.safe_dump({
            'heat_template_version': '2018-08-31',
            'parameters': {'fed': {'type': 'string'},
                           'plain': {'type': 'string'}}})})
    outer = secrecy.for_stack(parent)
    nested = heat_stack({})
    child = outer.inherited('child', nested)
    assert child.hidden == {'fed'} and not child.member_paths
    group = outer.inherited('group', nested)
    assert group.member_paths == {('fed',)} and not group.hidden
    chain = outer.inherited('chain', nested)
    assert chain.member_paths == {('value',)}
    assert outer.inherited('plain', nested).hidden == frozenset()
    # Inside the group, a member is a template resource fed the secret.
    assert group.property_paths({'fed': 'Pw', 'plain': 'v'}) == {('fed',)}


def test_a_cfn_template_masks_a_noecho_parameter():
    from heat.common import context
    from heat.engine import environment
    from heat.engine import stack as parser
    from heat.engine import template
    tmpl = template.Template({
        'AWSTemplateFormatVersion': '2010-09-09',
        'Parameters': {'Pw': {'Type': 'String', 'NoEcho': 'true'},
                       'Shown': {'Type': 'String'}},
        'Resources': {'r': {'Type': 'OS::Heat::Value', 'Properties': {
            'value': {'a': {'Fn::Join': ['-', ['x', {'Ref': 'Pw'}]]},
                      'b': {'Ref': 'Shown'}}}}}},
        env=environment.Environment({'Pw': 'Pw-s3cret', 'Shown': 'v'}))
    stack = parser.Stack(context.RequestContext(project_id='p',
                                                is_admin=True), 'cfn', tmpl)
    assert inputs.resolved_inputs(stack['r'].properties, stack) == {
        'value': {'a': MASK, 'b': 'v'}, 'type': None}
