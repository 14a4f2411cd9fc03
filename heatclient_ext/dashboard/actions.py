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
"""The commands a page may send, who may send them, and stale pages.

Each action is one public call of the breakpoint manager, as the
``openstack stack breakpoint`` command of the same name makes it. Before
it runs, the holds the page showed are compared with the holds now: a
hold released elsewhere meanwhile (another user, a second click) gives a
message and nothing is sent, so a double click releases once.
"""

import dataclasses
import typing

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heatclient_ext._i18n import _
from heatclient_ext.v1 import terms

#: action -> (policy scope, rule): ours (each exit's, set's and clear's,
#: named as the model names them), and Heat's for a cancel.
RULES = {name: ('breakpoints', 'breakpoints:' + name)
         for name in [way.name for way in kinds.EXITS] + ['set', 'clear']}
RULES['cancel'] = ('orchestration', 'actions:action')
INDEX_RULE = ('breakpoints', 'breakpoints:index')
#: What ``set`` offers: every kind of hold, as the model declares them.
WHENS = tuple(kind.when for kind in kinds.KINDS)


class Stale(Exception):
    """The page showed a hold that is not held any more."""


@dataclasses.dataclass
class Request:
    """One POSTed action: what it names, and the holds the page showed."""

    action: str
    resource: str = ''
    when: str = breakpoints.BEFORE
    to: str = ''
    held_since: str = ''
    seen: tuple = ()

    @classmethod
    def of(cls, post) -> 'Request':
        return cls(action=post.get('action', ''),
                   resource=post.get('resource', '').strip(),
                   when=post.get('when') or breakpoints.BEFORE,
                   to=post.get('to', '').strip(),
                   held_since=post.get('held_since', ''),
                   seen=tuple(post.getlist('seen')))


def seen_key(row) -> str:
    """How a page names one hold: its resource and when it began."""
    return '%s@%s' % (row['resource'], row.get('held_since') or '')


def check_fresh(req: Request, held: list) -> None:
    """Raise :class:`Stale` when the hold the page acted on is gone.

    ``held``: the rows held now. A hold named with its ``held_since``
    must still be that very hold; a command on the whole stack needs at
    least one of the holds the page showed.
    """
    now = {seen_key(row) for row in held}
    if req.held_since:
        if '%s@%s' % (req.resource, req.held_since) not in now:
            raise Stale(_('%(name)s is no longer held as this page showed '
                          'it (released meanwhile): nothing was done') %
                        {'name': req.resource})
    elif req.seen and not now.intersection(req.seen):
        raise Stale(_('The holds this page showed were released meanwhile:'
                      ' nothing was done'))


def _names(rows) -> str:
    return terms.held_text(rows) or _('nothing')


def perform(manager, ident: str, req: Request,
            held: list) -> typing.Tuple[str, str]:
    """Carry ``req`` out; ``(level, message)`` for the page.

    The manager's errors (:data:`exceptions.USER_ERRORS`) go up.
    """
    name = req.resource or None
    if req.action == 'step':
        rows = manager.step(ident, name)
        return 'success', _('Stepped: %s') % _names(rows)
    if req.action == 'continue':
        rows = manager.continue_(ident, to=req.to or None)
        if req.to:
            return 'success', _('Running to %(to)s; released: %(rows)s') % {
                'to': req.to, 'rows': _names(rows)}
        return 'success', _('Continued; released: %s') % _names(rows)
    if req.action == 'set':
        if req.when not in WHENS:
            raise terms.error(_('Unknown kind of breakpoint: %(when)s'),
                              when=req.when)
        result = manager.set(ident, req.resource, req.when)
        return 'success', _('Breakpoint %(name)s (%(when)s): %(result)s') % {
            'name': req.resource, 'when': req.when, 'result': result}
    if req.action == 'clear':
        rows, result = manager.clear(ident, req.resource)
        return 'success', _('Cleared %(name)s: %(result)s') % {
            'name': req.resource, 'result': result}
    if req.action in ('retry', 'retain'):
        rows = getattr(manager, req.action)(ident, req.resource)
        return 'success', _('%(what)s: %(rows)s') % {
            'what': kinds.BY_NAME[req.action].done.capitalize(),
            'rows': _names(rows)}
    if req.action == 'cancel':
        what, _rows = manager.cancel(ident, held=held)
        if what == terms.CANCEL_DELETE:
            return 'success', _('Cancelled: the create stopped and the stack '
                                'is being deleted')
        return 'success', _('Cancelled: the update is rolling back')
    raise terms.error(_('Unknown action: %(action)s'), action=req.action)
