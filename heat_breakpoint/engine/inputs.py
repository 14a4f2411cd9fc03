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
whose names say they hold a secret (:mod:`heat_breakpoint.secrets`, the
rule the client uses too) are replaced by a mask.
"""

from heat_breakpoint import secrets

MASK = secrets.MASK


# Where a Stack object keeps its hidden values, with the Parameters object
# they were read from (a stack update may give the stack new ones).
_HIDDEN_ATTR = '_breakpoint_hidden_values'


def hidden_values(stack) -> frozenset:
    """The current values of the stack's hidden parameters.

    Read once per Stack object: every event of a stack with breakpoints
    asks for them.
    """
    params = stack.parameters
    known = getattr(stack, _HIDDEN_ATTR, None)
    if known is not None and known[0] is params:
        return known[1]
    values = set()
    for param in getattr(params, 'params', {}).values():
        if param.hidden():
            try:
                value = param.value()
            except Exception:  # no value given and no default
                continue
            if value not in (None, ''):
                values.add(str(value))
    values = frozenset(values)
    try:
        setattr(stack, _HIDDEN_ATTR, (params, values))
    except AttributeError:  # an object that takes no attributes
        pass
    return values


def mask(value, hidden, key: str = ''):
    """Return ``value`` with secrets replaced, recursing into containers.

    What holds no secret comes back as the very same object, so a caller
    can tell with ``is`` that there was nothing to mask.
    """
    if key and value not in (None, '') and secrets.is_secret_name(key):
        return MASK
    if isinstance(value, dict):
        masked = {k: mask(v, hidden, str(k)) for k, v in value.items()}
        if all(masked[k] is v for k, v in value.items()):
            return value
        return masked
    if isinstance(value, (list, tuple)):
        masked = [mask(v, hidden) for v in value]
        if all(new is old for new, old in zip(masked, value)):
            return value
        return masked
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
