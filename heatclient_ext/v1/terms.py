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
"""The words of the breakpoint rows, and the errors, every part shares.

The manager's parts (:mod:`.viewing`, :mod:`.commanding`,
:mod:`.operating`) and every front end speak of rows in these words.
"""

import argparse
import collections

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heat_breakpoint.model import secrets
from heatclient_ext._i18n import _
from heatclient_ext import exceptions

ARMED = 'armed'
HELD = 'held'
MASK = secrets.MASK


COLUMNS = ('resource', 'action', 'when', 'state', 'why', 'source',
           'held_since', 'timeout_remaining')
SHOW_KEYS = ('resource', 'stack', 'breakpoint', 'actions', 'when', 'state',
             'why', 'source', 'action', 'held_since', 'timeout_remaining',
             'resource_status', 'resource_status_reason', 'simulated',
             'inputs',
             'attributes', 'error', 'requires', 'required_by', 'next', 'event',
             'change')
# What the view's rows and resources may say besides held and armed.
DISARMED = 'disarmed'
DONE = 'done'
WAITING = 'waiting'
# What set and clear report when there was nothing to change.
ALREADY_HELD = 'already held'
#: What a cancel made of the operation (:meth:`BreakpointManager.cancel`).
CANCEL_ROLLBACK = 'rollback'
CANCEL_DELETE = 'delete'
#: Seconds a cancelled create may take to stop before it is deleted.
CANCEL_STOP_WAIT = 20
ALREADY_ARMED = 'already armed'
ALREADY_DISARMED = 'already disarmed'


def row_value(row, key) -> str:
    """A row's value; rows of an older server lack the newer keys."""
    if key == 'when':
        return row.get(key) or breakpoints.BEFORE
    return row.get(key) or ''


#: What ``set`` suggests for a stack with no operation running.
NEXT_OPERATION = ('openstack stack update --existing --breakpoint %(name)s '
                  '%(stack)s')


def at_least(convert, minimum, message: str):
    """An argparse type: ``convert(text)``, from ``minimum`` on.

    ``message`` says what is wanted, with ``%r`` for what was given.
    """
    def argument(text):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(message % text)
        return value
    return argument


#: argparse type of ``--nested-depth``: a whole number from 0.
depth_argument = at_least(int, 0, _('must be a whole number from 0, got %r'))


# When a breakpoint holds, in words around its action(s): one table for
# every front end (graph labels, the editor's threads).
WHEN_TEXT = {kind.when: kind.when_text for kind in kinds.KINDS}


def when_text(when, actions) -> str:
    """``before UPDATE if changed``: a kind of hold and its action(s)."""
    when = when or breakpoints.BEFORE
    text = WHEN_TEXT.get(when, when + ' %s') % (actions or '')
    return ' '.join(text.split())


def held_text(rows) -> str:
    """``'a (CREATE), outer/b (CREATE)'``: what a wait stopped at."""
    return ', '.join('%s (%s)' % (row['resource'], row['action'])
                     for row in rows)


# The stack as the breakpoints view describes it: enough for the commands.
StackSummary = collections.namedtuple('StackSummary',
                                      ('id', 'stack_name', 'stack_status'))


def error(message, **values) -> exceptions.BreakpointCommandError:
    return exceptions.BreakpointCommandError(message % values)


def server_words(exc: Exception) -> str:
    """What the server said, without heatclient's ``ERROR:`` prefix."""
    text = exceptions.one_line(exc)
    return text[len('ERROR: '):] if text.startswith('ERROR: ') else text


def is_pattern(name: str) -> bool:
    return any(c in name for c in '*?[')


def running(stack) -> bool:
    return (stack.stack_status or '').endswith('_IN_PROGRESS')


def ident(stack) -> str:
    return '%s/%s' % (stack.stack_name, stack.id)


def update_note(stack_name, name, rows) -> str:
    """What removing ``name`` from an idle stack's environment will do.

    Heat stores an environment only with a stack update, and that update
    walks the stack's resources: the other breakpoints armed for updates
    hold it.
    """
    meets = sorted({row['breakpoint'] for row in rows
                    if row['state'] == ARMED and row['breakpoint'] != name
                    and 'UPDATE' in (row['action'] or '').split(',')})
    text = _('Stack %(stack)s has no operation running: removing breakpoint '
             '%(name)s from its stored environment runs a stack update '
             '(--existing) now') % {'stack': stack_name, 'name': name}
    if meets:
        return '%s; %s' % (text, _('it will hold at: %s') % ', '.join(meets))
    return '%s; %s' % (text, _('no other breakpoint will hold it'))
