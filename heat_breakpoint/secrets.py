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
"""Which property names hold a secret: one rule for engine and client.

The engine masks a held resource's inputs in the hit event; the client
masks what a stock Heat's event shows. Both ask :func:`is_secret_name`, so
a name is masked everywhere or nowhere. The rule works on the words of a
name (``admin_pass``, ``adminPass`` and ``admin-pass`` are all ``admin`` +
``pass``), so ``bypass`` or ``key_name`` (a Nova key pair's *name*) stay
visible while ``password``, ``private_key`` or ``auth_token`` are masked.

Pure: no Heat, heatclient or oslo import, like :mod:`.breakpoints`.
"""

import re

MASK = '******'

#: A name with one of these words holds a secret.
SECRET_WORDS = frozenset((
    'pass', 'passwd', 'password', 'passwords', 'passphrase', 'pwd',
    'secret', 'secrets', 'token', 'tokens', 'credential', 'credentials',
    'privatekey', 'apikey', 'accesskey'))
#: ``<word> key`` is a secret for these words (``private_key``); ``key``
#: alone, ``key_name`` or ``public_key`` are not.
SECRET_KEY_QUALIFIERS = frozenset((
    'private', 'api', 'access', 'secret', 'ssh', 'encryption', 'signing',
    'auth', 'master', 'shared', 'session'))
_KEY_WORDS = frozenset(('key', 'keys'))

# Lower-to-upper and acronym-to-word boundaries (adminPass, APIKey), then
# anything that is not a letter or a digit.
_CAMEL = re.compile(r'(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])')
_SEPARATORS = re.compile(r'[^A-Za-z0-9]+')


def words(name: str) -> list:
    """The lower-case words of a property name."""
    return [word.lower()
            for part in _SEPARATORS.split(_CAMEL.sub(' ', str(name)))
            for word in part.split() if word]


def is_secret_name(name) -> bool:
    """Whether a property (or mapping key) of this name holds a secret."""
    if not isinstance(name, str) or not name:
        return False
    found = words(name)
    if any(word in SECRET_WORDS for word in found):
        return True
    return any(word in _KEY_WORDS and previous in SECRET_KEY_QUALIFIERS
               for previous, word in zip(found, found[1:]))
