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

#: Free text (an error message) is searched for secret values only this
#: long or longer: masking ``ow`` in "brown" would give the secret away.
MIN_TEXT_SECRET = 4

# The name/value pair idiom (``{name: DB_PASSWORD, value: ...}``, an
# environment variable): the value is secret when the sibling name is.
_PAIR_NAMES = frozenset(('name', 'key'))
_PAIR_VALUES = frozenset(('value',))

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


def secret_keys(mapping) -> set:
    """The keys of a mapping whose values hold a secret.

    By their own names (``password``), and the ``value`` of a name/value
    pair whose name is a secret's (``{name: DB_PASSWORD, value: ..}``,
    ``{Key: api_token, Value: ..}``).
    """
    found = {key for key in mapping if is_secret_name(key)}
    if any(isinstance(key, str) and key.lower() in _PAIR_NAMES and
           is_secret_name(mapping[key]) for key in mapping):
        found |= {key for key in mapping
                  if isinstance(key, str) and key.lower() in _PAIR_VALUES}
    return found


def text_secrets(values) -> frozenset:
    """Of ``values``, those long enough to be searched for in free text."""
    return frozenset(str(value) for value in values
                     if len(str(value)) >= MIN_TEXT_SECRET)


def mask_text(text, values):
    """``text`` with every secret of ``values`` in it masked.

    The second net, for free text only (failure messages, unresolved
    values): structured values are masked by what they are derived from.
    Values shorter than :data:`MIN_TEXT_SECRET` are left alone; longer
    ones are masked first, so a secret that contains another goes whole.
    """
    if not isinstance(text, str) or not text:
        return text
    for secret in sorted(text_secrets(values), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return text
