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
"""What a hold shows of a resource: its inputs and results, secrets masked.

A hold must help a person debug without leaking what the template author
hid. What is secret is decided from the template's structure
(:mod:`.template_secrets`: derived from a hidden parameter, through any
function, resource or nested stack) and masked whole; names that say they
hold a secret (:mod:`heat_breakpoint.model.secrets`, the rule the client uses
too, with its name/value pair idiom) are masked wherever they appear.
Free text (a failure's message, why a value could not be resolved) has
no structure: it is searched for the secret values themselves, the
second net, never for values shorter than
:data:`heat_breakpoint.model.secrets.MIN_TEXT_SECRET`.
"""

import collections.abc
import contextvars
import json
import weakref

from heat_breakpoint.engine.masking import template_secrets
from heat_breakpoint.model import secrets

MASK = secrets.MASK


class Masked(dict):
    """Values already masked by their structure: no text net over them."""


# The hidden values this thread read last: (a weak reference to the
# Parameters object they were read from, the values). A stack update may
# give a stack new parameters; a check loads its own.
# ContextVar: Heat's own event writes ask for them, one call each.
_hidden = contextvars.ContextVar('breakpoint_hidden_values', default=None)


def _leaves(value):
    """The strings a secret value may appear as in free text."""
    if isinstance(value, collections.abc.Mapping):
        yield json.dumps(value, sort_keys=True, default=str)
        for item in value.values():
            yield from _leaves(item)
    elif (isinstance(value, collections.abc.Iterable) and
            not isinstance(value, (str, bytes))):
        items = list(value)
        yield ','.join(str(item) for item in items)
        for item in items:
            yield from _leaves(item)
    elif value not in (None, ''):
        yield str(value)


def hidden_values(stack) -> frozenset:
    """The current values of the parameters the stack declares hidden.

    Read once per Parameters object: Heat's events of a stack with
    breakpoints ask for them (the text net over what they store).
    """
    params = stack.parameters
    known = _hidden.get()
    if known is not None and known[0]() is params:
        return known[1]
    values = set()
    for param in getattr(params, 'params', {}).values():
        if param.hidden():
            try:
                value = param.value()
            except Exception:  # no value given and no default
                continue
            values.update(_leaves(value))
    values = secrets.text_secrets(values)
    try:
        _hidden.set((weakref.ref(params), values))
    except TypeError:  # an object that takes no weak references
        pass
    return values


def secret_texts(found: template_secrets.Secrecy, taken=()) -> frozenset:
    """What free text about this stack is searched for.

    The values of every parameter that holds a secret (declared hidden
    or fed one by a parent) and ``taken``, values masked by structure.
    """
    values = []
    params = getattr(found.stack, 'parameters', None)
    for name in found.hidden_names():
        try:
            values.extend(_leaves(params[name]))
        except Exception:  # no value given and no default
            continue
    for value in taken:
        values.extend(_leaves(value))
    return secrets.text_secrets(values)


def mask_names(value, key: str = ''):
    """``value`` with what secret names hold masked, in any container.

    What holds no secret comes back as the very same object.
    """
    if key and value not in (None, '') and secrets.is_secret_name(key):
        return MASK
    return _mask_names_inside(value)


def _mask_names_inside(value):
    # Each key's name is asked once: on every event of a stack with
    # breakpoints (Heat's own events) this runs over the properties.
    if isinstance(value, dict):
        keys = secrets.secret_keys(value)
        masked = {k: (MASK if k in keys and v not in (None, '') else
                      _mask_names_inside(v)) for k, v in value.items()}
        if all(masked[k] is v for k, v in value.items()):
            return value
        return masked
    if isinstance(value, (list, tuple)):
        masked = [_mask_names_inside(v) for v in value]
        if all(new is old for new, old in zip(masked, value)):
            return value
        return masked
    return value


def mask_paths(value, paths, taken=None):
    """``value`` with the parts at secret ``paths`` masked whole.

    ``taken`` (a list) receives what was masked, for the text net.
    """
    if not paths:
        return value
    if template_secrets.WHOLE in paths:
        if value in (None, ''):
            return value
        if taken is not None:
            taken.append(value)
        return MASK
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = list(enumerate(value))
    else:
        return value
    changed = {}
    for key, item in items:
        inner = {p[1:] for p in paths if p and p[0] == key}
        if inner:
            new = mask_paths(item, inner, taken)
            if new is not item:
                changed[key] = new
    if not changed:
        return value
    if isinstance(value, dict):
        masked = dict(value)
        masked.update(changed)
        return masked
    return [changed.get(i, item) for i, item in items]


def mask_text_in(value, texts):
    """The text net over every string in ``value``."""
    if not texts:
        return value
    if isinstance(value, str):
        return secrets.mask_text(value, texts)
    if isinstance(value, dict):
        masked = {k: mask_text_in(v, texts) for k, v in value.items()}
        if all(masked[k] is v for k, v in value.items()):
            return value
        return masked
    if isinstance(value, (list, tuple)):
        masked = [mask_text_in(v, texts) for v in value]
        if all(new is old for new, old in zip(masked, value)):
            return value
        return masked
    return value


def mask(value, hidden, key: str = ''):
    """Names masked, and the text net with the ``hidden`` values.

    For stored values whose definition is not at hand (Heat's own
    events). What holds no secret comes back as the very same object.
    """
    return mask_text_in(mask_names(value, key),
                        secrets.text_secrets(hidden))


def _tree(properties, rsrc):
    tree = getattr(properties, 'data', None)
    if tree is None and rsrc is not None:
        tree = template_secrets.definition_tree(rsrc.t)
    return tree


def resolved_inputs(properties, stack, rsrc=None) -> dict:
    """The resolved input properties, masked, or the reason they are not.

    ``properties``: Heat's Properties of the definition (its parsed
    ``data`` says what is secret) or plain values; for plain values the
    definition of ``rsrc``, if given, says, else the text net.
    """
    found = template_secrets.for_stack(stack)
    try:
        data = {key: properties[key] for key in properties}
    except Exception as exc:  # resolution may need what is not there yet
        return {'unresolved': secrets.mask_text(str(exc),
                                                secret_texts(found))}
    if isinstance(properties, Masked):
        return mask_names(data)
    tree = _tree(properties, rsrc)
    if tree is None:
        return mask_text_in(mask_names(mask_paths(data, found.member_paths)),
                            secret_texts(found))
    return mask_names(mask_paths(data, found.property_paths(tree)))


def masked_attributes(rsrc, found: dict) -> dict:
    """A resource's resolved attributes, secrets masked.

    An attribute is secret whole when the template's structure says so
    (:meth:`.template_secrets.Secrecy.attribute`). Attribute values come
    from the resource type's code, not from the template, so the text net
    runs
    over what is left (an attribute that echoes a secret input).
    """
    known = template_secrets.for_stack(rsrc.stack)
    taken = []
    masked = {}
    for name, value in found.items():
        if known.attribute(rsrc.name, name, rsrc) and value not in (
                None, ''):
            taken.append(value)
            masked[name] = MASK
        else:
            masked[name] = value
    texts = secret_texts(known, taken) | _secret_inputs(rsrc, known)
    return mask_text_in(mask_names(masked), texts)


def _secret_inputs(rsrc, known) -> frozenset:
    """The resource's own secret input values, for the text net."""
    taken = []
    try:
        props = rsrc.properties
        data = {key: props[key] for key in props}
        mask_paths(data, known.property_paths(_tree(props, rsrc)), taken)
    except Exception:  # not resolvable: the hidden values still count
        pass
    return secret_texts(known, taken)


def failure_text(rsrc, text: str) -> str:
    """A failure's message about ``rsrc`` with secret values masked."""
    if not text:
        return text
    return secrets.mask_text(text, _secret_inputs(
        rsrc, template_secrets.for_stack(rsrc.stack)))


class Masking:
    """How the values of one resource's properties are masked.

    ``paths``: the secret property paths (:mod:`.template_secrets`); ``texts``:
    the secret values the text net looks for in free text.
    """

    def __init__(self, paths=frozenset(), texts=frozenset()):
        self.paths = frozenset(paths)
        self.texts = frozenset(texts)

    def property(self, key, value):
        """The value of property ``key``, masked."""
        inner = {p[1:] for p in self.paths if p and p[0] == key}
        if template_secrets.WHOLE in self.paths:
            inner.add(template_secrets.WHOLE)
        return mask_names(mask_paths(value, inner), str(key))

    def values(self, data) -> Masked:
        """All of a resource's property values, masked."""
        return Masked({key: self.property(key, value)
                       for key, value in data.items()})

    def text(self, text: str) -> str:
        """Free text about the resource, masked."""
        return secrets.mask_text(text, self.texts)
