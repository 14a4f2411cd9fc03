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
"""The words the engine writes where users and clients read them.

A held resource's status reason and the events of a hit and a release
are part of the contract between the engine plugin and the client
extension (the keys of the signals are in :mod:`.protocol`); both import
them from here, so this module must stay free of Heat imports.
"""

import re

from heat_breakpoint.model import kinds

# Stock Heat's own wording for a paused resource; `openstack stack hook
# poll` matches this exact string, so a breakpoint hit writes it too.
NATIVE_PAUSED = '%(action)s paused until Hook %(hook)s is cleared'

# Each kind's reason is declared with the kind (:mod:`.kinds`): before
# and after the action (with the stock hook's name), on its failure (the
# resource keeps Heat's own error as its status reason), and before what
# an update plans (:data:`HELD_CHANGE`).
HELD = kinds.BEFORE.reason
HELD_AFTER = kinds.AFTER.reason
HELD_FAILED = kinds.FAILED.reason
RELEASED = 'Breakpoint %(name)s released (%(how)s)'
# An exit's event is declared with the exit (:mod:`.kinds`): a resource
# retained after its delete failed names what stays in the cloud.
RETAINED = kinds.RETAIN.event
# What a command changed in the running operation, on the root stack.
COMMANDED = {
    'set': 'Breakpoint set on %(name)s for this operation',
    'clear': 'Breakpoint on %(name)s cleared for this operation',
    'to': 'Running to %(name)s: the other breakpoints are off for this '
          'operation',
}
CONTINUED = 'Continue: every breakpoint is off for this operation'

# A hold that depends on what the update will do (``when: changed`` or
# ``replaced``) names the planned change instead of the hook.
HELD_CHANGE = kinds.CHANGED.reason
CHANGES = ('in-place', 'replace', 'add', 'remove')
_FIELD_RE = re.compile(r'%\((\w+)\)s')


def _reason_re(kind: kinds.Kind) -> re.Pattern:
    """What reads a kind's reason back: its fields, as they are written."""
    fields = {'name': '.+', 'action': '[A-Z]+',
              'hook': re.escape(kind.flag_prefix) + '[a-z]+',
              'change': '|'.join(re.escape(c) for c in CHANGES)}
    parts = _FIELD_RE.split(kind.reason)
    pattern = ''.join(
        re.escape(part) if i % 2 == 0 else
        '(?P<%s>%s)' % (part, fields[part])
        for i, part in enumerate(parts))
    return re.compile('^%s$' % pattern)


def _readers() -> tuple:
    """``(pattern, kind, when it tells)`` per distinct reason, in order.

    A reason that one kind alone writes (other than before's) tells the
    kind; the planned kinds share theirs, which tells the change instead.
    """
    writers: dict[str, list] = {}
    for kind in kinds.KINDS:
        writers.setdefault(kind.reason, []).append(kind)
    return tuple((_reason_re(found[0]), found[0],
                  found[0].when if len(found) == 1 and
                  found[0] is not kinds.BEFORE else None)
                 for found in writers.values())


_READERS = _readers()

# C0 and C1 control characters and DEL: a terminal acts on them.
_CONTROL_RE = re.compile('[\x00-\x1f\x7f-\x9f]')


def printable(text) -> str:
    """``text`` with its control characters escaped (``\\x1b``, ``\\n``).

    For whatever a user chose (a breakpoint, a path) on its way into a
    log line or an event reason, which stock clients print as they are.
    """
    return _CONTROL_RE.sub(
        lambda found: found.group().encode('unicode_escape').decode('ascii'),
        str(text))


def held(name: str, action: str, hook: str, when: str = 'before') -> str:
    """The reason of a hit: before (the default), after or failed."""
    kind = kinds.BY_WHEN.get(when)
    # A planned change's reason names the change: :func:`held_change`.
    text = kind.reason if kind and not kind.planned else HELD
    return text % {'name': printable(name), 'action': action, 'hook': hook}


def held_change(name: str, action: str, change: str) -> str:
    return HELD_CHANGE % {'name': printable(name), 'action': action,
                          'change': change}


def parse_held(reason: str | None) -> dict | None:
    """Return name, action and hook of a hit's reason, or None.

    A hold before the action gives exactly those three keys; one after it
    or on its failure adds ``when`` (``after``, ``failed``); a failure's
    hook is the action's post-* hook, which releases it. A hold on a
    planned change (``when: changed|replaced``) adds ``change`` (in-place,
    replace, add, remove); its hook is the action's pre-* hook.
    """
    reason = reason or ''
    for reader, kind, when in _READERS:
        match = reader.match(reason)
        if not match:
            continue
        found = match.groupdict()
        found.setdefault('hook',
                         kind.flag_prefix + found['action'].lower())
        if when is not None:
            found['when'] = when
        return found
    return None


def taken(way: kinds.Exit, name: str, physical_id) -> str:
    """The event of exit ``way`` taken at ``name`` (:attr:`.Exit.event`)."""
    # Only an exit that declares its event records one.
    assert way.event is not None, way.name
    return way.event % {'name': printable(name),
                        'physical': printable(physical_id or 'none')}


def retained(name: str, physical_id) -> str:
    """The event of a resource forgotten by ``retain`` after its delete."""
    return taken(kinds.RETAIN, name, physical_id)


def released(name: str, how: str) -> str:
    return RELEASED % {'name': printable(name), 'how': printable(how)}


def commanded(name: str, command: str, when: str = 'before') -> str:
    """The stack event of a command; a breakpoint not before names when.

    ``set R --after`` and a ``clear R`` that disarms R's breakpoints
    after and before are told apart: ``R (after)``.
    """
    if when != kinds.BEFORE.when:
        name = '%s (%s)' % (name, when)
    return COMMANDED[command] % {'name': printable(name)}
