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

from heat_breakpoint.engine import inputs

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
                      e=FakeParam(42, hidden=True))
    assert inputs.hidden_values(stack) == {'s3cret', '42'}


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


def test_resolved_inputs():
    stack = FakeStack(a=FakeParam('s3cret', hidden=True))
    assert inputs.resolved_inputs({'v': 'is s3cret'}, stack) == {
        'v': 'is %s' % MASK}

    class Unresolved(dict):
        def __iter__(self):
            raise KeyError('not yet')
    assert inputs.resolved_inputs(Unresolved(), stack) == {
        'unresolved': "'not yet'"}
