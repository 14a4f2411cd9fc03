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

# Stock Heat's own wording for a paused resource; `openstack stack hook
# poll` matches this exact string, so a breakpoint hit writes it too.
NATIVE_PAUSED = '%(action)s paused until Hook %(hook)s is cleared'

HELD = 'Breakpoint %(name)s reached before %(action)s (%(hook)s)'
# After the action completed (stock post-* hook names), and on its failure
# (the resource keeps Heat's own error as its status reason).
HELD_AFTER = 'Breakpoint %(name)s reached after %(action)s (%(hook)s)'
HELD_FAILED = 'Breakpoint %(name)s reached on %(action)s failure'
RELEASED = 'Breakpoint %(name)s released (%(how)s)'
# A resource retained after its delete failed: what stays in the cloud.
RETAINED = ('Retained %(name)s: Heat forgets it, physical resource '
            '%(physical)s is left in the cloud')
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
HELD_CHANGE = 'Breakpoint %(name)s reached before %(action)s (%(change)s)'
CHANGES = ('in-place', 'replace', 'add', 'remove')

_HELD_RE = re.compile(
    r'^Breakpoint (?P<name>.+) reached before (?P<action>[A-Z]+) '
    r'\((?P<hook>pre-[a-z]+)\)$')
_HELD_AFTER_RE = re.compile(
    r'^Breakpoint (?P<name>.+) reached after (?P<action>[A-Z]+) '
    r'\((?P<hook>post-[a-z]+)\)$')
_HELD_FAILED_RE = re.compile(
    r'^Breakpoint (?P<name>.+) reached on (?P<action>[A-Z]+) failure$')
_HELD_CHANGE_RE = re.compile(
    r'^Breakpoint (?P<name>.+) reached before (?P<action>[A-Z]+) '
    r'\((?P<change>%s)\)$' % '|'.join(re.escape(c) for c in CHANGES))

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
    text = {'after': HELD_AFTER, 'failed': HELD_FAILED}.get(when, HELD)
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
    match = _HELD_RE.match(reason)
    if match:
        return match.groupdict()
    match = _HELD_AFTER_RE.match(reason)
    if match:
        return dict(match.groupdict(), when='after')
    match = _HELD_FAILED_RE.match(reason)
    if match:
        found = match.groupdict()
        return dict(found, hook='post-' + found['action'].lower(),
                    when='failed')
    match = _HELD_CHANGE_RE.match(reason)
    if match:
        found = match.groupdict()
        return dict(found, hook='pre-' + found['action'].lower())
    return None


def retained(name: str, physical_id) -> str:
    """The event of a resource forgotten by ``retain`` after its delete."""
    return RETAINED % {'name': printable(name),
                       'physical': printable(physical_id or 'none')}


def released(name: str, how: str) -> str:
    return RELEASED % {'name': printable(name), 'how': printable(how)}


def commanded(name: str, command: str, when: str = 'before') -> str:
    """The stack event of a command; a breakpoint not before names when.

    ``set R --after`` and a ``clear R`` that disarms R's breakpoints
    after and before are told apart: ``R (after)``.
    """
    if when != 'before':
        name = '%s (%s)' % (name, when)
    return COMMANDED[command] % {'name': printable(name)}
