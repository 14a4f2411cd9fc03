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
"""The one rule of what is a secret, and both halves using it."""

import pytest

from heat_breakpoint.engine.masking import inputs
from heat_breakpoint.model import secrets
from heatclient_ext.v1 import stock

MASKED = (
    'password', 'Password', 'OS_PASSWORD', 'db_password', 'admin_pass',
    'adminPass', 'admin-pass', 'passwd', 'passphrase', 'ssl_passphrase',
    'secret', 'client_secret', 'SecretAccessKey', 'token', 'auth_token',
    'api_token', 'authToken', 'private_key', 'privateKey', 'PrivateKey',
    'ssh_key', 'api_key', 'APIKey', 'apikey', 'access_key', 'credential',
    'credentials', 'encryption_key',
)
VISIBLE = (
    'key_name', 'KeyName', 'key', 'keys', 'key_pair', 'public_key',
    'name', 'value', 'bypass', 'bypass_cache', 'passenger', 'compass',
    'tokenizer', 'keystone_url', 'image', 'flavor', 'user_data', 'size',
    '', 'monkey', 'turnkey_name',
)


@pytest.mark.parametrize('name, secret', [(name, True) for name in MASKED]
                         + [(name, False) for name in VISIBLE])
def test_secret_names(name, secret):
    assert secrets.is_secret_name(name) is secret
    # the engine and the client apply the very same rule
    value = {name: 'v'} if name else {}
    expected = {name: secrets.MASK if secret else 'v'} if name else {}
    assert inputs.mask(value, frozenset()) == expected
    assert stock.mask_inputs(value) == expected


def test_non_text_names_are_not_secrets():
    assert not secrets.is_secret_name(None)
    assert not secrets.is_secret_name(3)


def test_hit_inputs_keeps_the_engine_masking_inside_values():
    # The plugin's hit event: the engine replaced the hidden value inside
    # the string; the client must not mask the whole input again.
    event = {'breakpoint': 'db_user', 'action': 'CREATE',
             'properties': {'value': 'database:app:******', 'size': 3,
                            'key_name': 'mykey', 'password': 'x'}}
    template = {'parameters': {'p': {'type': 'string', 'hidden': True}},
                'resources': {'db_user': {'properties': {
                    'value': {'list_join': [':', ['a', {'get_param': 'p'}]]}
                }}}}
    assert stock.hit_inputs(event, lambda: template, 'db_user') == {
        'value': 'database:app:******', 'size': 3, 'key_name': 'mykey',
        'password': secrets.MASK}


def test_hit_inputs_of_a_stock_event_masks_inputs_fed_by_hidden_params():
    template = {'parameters': {'p': {'type': 'string', 'hidden': True}},
                'resources': {'r': {'properties': {
                    'value': {'list_join': [':', ['a', {'get_param': 'p'}]]}
                }}}}
    assert stock.hit_inputs({'value': 'a:hunter2', 'key_name': 'k'},
                            lambda: template, 'r') == {
        'value': secrets.MASK, 'key_name': 'k'}


@pytest.mark.parametrize('mapping, keys', [
    ({'name': 'DB_PASSWORD', 'value': 'x'}, {'value'}),
    ({'Key': 'api_token', 'Value': 'x'}, {'Value'}),
    ({'name': 'HOME', 'value': '/home'}, set()),
    ({'name': 'web', 'password': 'x'}, {'password'}),
    ({'name': 3, 'value': 'x'}, set()),
])
def test_secret_keys_by_name_and_by_the_pair_idiom(mapping, keys):
    assert secrets.secret_keys(mapping) == keys


def test_mask_text_skips_short_values_and_masks_longest_first():
    text = 'the quick brown fox: pass Pw-s3cret-long'
    assert secrets.mask_text(text, {'ow', 'Pw-s3cret', 'Pw-s3cret-long'}) \
        == 'the quick brown fox: pass %s' % secrets.MASK
    assert secrets.mask_text(text, {'ow', 'fox'}) == text
    assert secrets.mask_text('', {'abcd'}) == ''
    assert secrets.mask_text(None, {'abcd'}) is None
    assert secrets.text_secrets(['ow', 1234, 'abcd']) == {'1234', 'abcd'}
