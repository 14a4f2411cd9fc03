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
"""What a breakpoint hit shows of the resource: its inputs, secrets masked.

The hit event's details must help a person debug without leaking what the
template author hid: values of ``hidden: true`` parameters and properties
whose names say they hold a secret are replaced by a mask.
"""

import re

MASK = '******'
_SECRET_NAME = re.compile(
    r'pass(word|phrase)?|secret|token|private_?key|credential',
    re.IGNORECASE)


def hidden_values(stack) -> set:
    """The current values of the stack's hidden parameters."""
    values = set()
    for param in getattr(stack.parameters, 'params', {}).values():
        if param.hidden():
            try:
                value = param.value()
            except Exception:  # no value given and no default
                continue
            if value not in (None, ''):
                values.add(str(value))
    return values


def mask(value, hidden: set, key: str = ''):
    """Return ``value`` with secrets replaced, recursing into containers."""
    if key and _SECRET_NAME.search(key) and value not in (None, ''):
        return MASK
    if isinstance(value, dict):
        return {k: mask(v, hidden, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask(v, hidden) for v in value]
    if isinstance(value, str):
        for secret in hidden:
            if secret and secret in value:
                value = value.replace(secret, MASK)
    return value


def resolved_inputs(properties, stack) -> dict:
    """The resolved input properties, masked, or the reason they are not."""
    try:
        data = {key: properties[key] for key in properties}
    except Exception as exc:  # resolution may need what is not there yet
        return {'unresolved': str(exc)}
    return mask(data, hidden_values(stack))
