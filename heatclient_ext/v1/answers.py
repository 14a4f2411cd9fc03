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
"""The words of the live session's prompt, apart from any terminal.

What a held resource is called on the screen (:func:`hold_text`), what
the prompt asks and what Enter does there (:func:`prompt_text`,
:func:`enter_meaning`: it depends on the kind of hold), and what an
answer asks (:func:`parse_answer`: ``set R``, ``clear R``, ``to R``,
``retry [R]``, ``retain R``, ``c``, ``cancel``, ``q``, ``help``, a name
or a glob).
``watch --interactive`` uses them; so can any other front end that
speaks to a person (the DAP adapter's debug console), so that the same
answer means the same thing everywhere.
"""

import collections
import fnmatch
import re
import typing

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.printable import printable
from heatclient_ext.v1 import manager as bp_v1

Answer = collections.namedtuple('Answer', ('verb', 'arg'))
STEP, RELEASE, CONTINUE, TO, SET, CLEAR, RETRY, CANCEL, HELP, QUIT = (
    'step', 'release', 'continue', 'to', 'set', 'clear', 'retry', 'cancel',
    'help', 'quit')
RETAIN = 'retain'
_WORDS = {'c': CONTINUE, 'continue': CONTINUE, 'cancel': CANCEL,
          'q': QUIT, 'quit': QUIT, '?': HELP, 'help': HELP, 'h': HELP}
# The exits of some holds only (retry, retain) are answers of their own,
# each its name (:func:`kinds.own_exits`, read when answered).
_WITH_ARG = {'to': TO, 'set': SET, 'clear': CLEAR}
_GLOB = re.compile(r'[*?\[]')

#: The prompt while nothing is held, shown once something is typed.
IDLE_PROMPT = _('Nothing held now [c, to R, set R, clear R, cancel, ?, q] '
                '> ')
PROMPT_HELP = _('Enter: see the prompt | NAME or GLOB: release | c: '
                'continue | to R | set R | clear R | retry [R] | cancel | '
                '? : help | q: leave')
HELP_LINES = (
    _('Enter      what the prompt says: step a resource held before or '
      'after its action, retry a failed one'),
    _('NAME/GLOB  release the held resources it names (their breakpoint '
      'is done with)'),
    _('c          continue: release everything, no breakpoint holds for '
      'the rest of this operation'),
    _('to R       run until R, releasing the rest'),
    _('set R      arm a breakpoint on R for the rest of this operation'),
    _('clear R    release R, or disarm its breakpoint'),
) + tuple(_(way.prompt_help) for way in kinds.EXITS if way.prompt_help) + (
    _('cancel     cancel the operation: an update rolls back, a create '
      'is stopped and the stack deleted'),
    _('q          leave: the operation stays as it is'),
)

#: What a cancel made of the operation, in the words every front end
#: says it with (:meth:`.BreakpointManager.cancel`).
CANCELLED = {bp_v1.CANCEL_ROLLBACK: _('cancelled the operation: Heat '
                                      'rolls it back'),
             bp_v1.CANCEL_DELETE: _('cancelled the create: the stack is '
                                    'deleted')}


class AnswerError(exceptions.BreakpointCommandError):
    """An answer at the prompt that does nothing (said in one line)."""


def when(row) -> str:
    """The kind of hold of a held row (before, after, failed, ...)."""
    return row.get('when') or breakpoints.BEFORE


def enter_meaning(row) -> str:
    """What Enter does for the resource the prompt names."""
    return _(kinds.of(when(row)).enter_words)


def enter_verb(row) -> str:
    return kinds.of(when(row)).enter


def hold_text(row) -> str:
    """How a held row reads on the screen, after its name and action."""
    kind = kinds.of(when(row))
    text = _(kind.screen) % {'name': printable(row.get('breakpoint'))}
    reason = exceptions.one_line(row.get('why') or '') if kind.failure \
        else ''
    return '%s: %s' % (text, printable(reason)) if reason else text


def question(row) -> str:
    """The prompt's question about the resource it names."""
    return _(kinds.of(when(row)).question) % {
        'name': printable(row['resource'])}


def prompt_text(held, width: typing.Optional[int] = None):
    """The prompt: its question about the first held row, and the keys.

    Within ``width`` columns if given: the list of answers gives way to
    ``?: help`` first.
    """
    first = held[0]
    words = {'question': question(first), 'enter': enter_meaning(first)}
    text = _('%(question)s [Enter: %(enter)s, NAME/GLOB, c, to R, set R, '
             'clear R, retry R, cancel, ?, q] > ') % words
    if width is None or len(text) < width:
        return text
    return _('%(question)s [Enter: %(enter)s, ?: help] > ') % words


def _bad_glob(pattern) -> typing.Optional[str]:
    """Why ``pattern`` is not a glob fnmatch reads as meant, or None."""
    depth = 0
    for char in pattern:
        if char == '[':
            if depth:
                return _('"[" inside a [...] set')
            depth = 1
        elif char == ']' and depth:
            depth = 0
    if depth:
        return _('"[" without "]"')
    return None


def names_text(names) -> str:
    return ', '.join(printable(name) for name in names) or _('none')


def parse_answer(text, held) -> 'Answer':
    """What an answer at the prompt asks, as an :class:`Answer`.

    ``held``: the held rows (the prompt names the first). A name or glob
    must match held resources; anything else is an :class:`AnswerError`
    and nothing is done.
    """
    text = (text or '').strip()
    if not text:
        if not held:
            raise AnswerError(_('nothing is held'))
        return Answer(enter_verb(held[0]), held[0]['resource'])
    word, _sep, rest = text.partition(' ')
    rest = rest.strip()
    if word in _WORDS and not rest:
        return Answer(_WORDS[word], None)
    way = kinds.own_exit(word)
    if way is not None and way.name_optional and not rest:
        # The one held where it applies (retry: the one failure).
        there = [row for row in held
                 if way.applies(when(row), row.get('action') or '')]
        if len(there) != 1:
            raise AnswerError(
                _('"%(word)s" takes %(which)s, e.g. "%(word)s %(name)s"') % {
                    'word': word, 'which': _(way.which),
                    'name': printable(there[0]['resource'] if there
                                      else 'node_1')})
        return Answer(way.name, there[0]['resource'])
    if word in _WITH_ARG or way is not None:
        if not rest or ' ' in rest:
            raise AnswerError(_('"%(word)s" takes one resource, e.g. '
                                '"%(word)s node_1"') % {'word': word})
        if _GLOB.search(rest):
            raise AnswerError(_('"%(word)s" takes one resource, not a '
                                'pattern: %(arg)s') % {
                                    'word': word, 'arg': printable(rest)})
        return Answer(_WITH_ARG.get(word, word), rest)
    if ' ' in text:
        raise AnswerError(_('unknown answer %(text)r: %(help)s') % {
            'text': printable(text), 'help': PROMPT_HELP})
    names = [row['resource'] for row in held]
    if _GLOB.search(text):
        bad = _bad_glob(text)
        if bad:
            raise AnswerError(_('bad pattern %(text)s: %(why)s') % {
                'text': printable(text), 'why': bad})
        matched = [name for name in names
                   if fnmatch.fnmatchcase(name, text)]
        if not matched:
            raise AnswerError(_('no held resource matches %(text)s '
                                '(held: %(held)s)') % {
                                    'text': printable(text),
                                    'held': names_text(names)})
        return Answer(RELEASE, matched)
    if text in names:
        return Answer(RELEASE, [text])
    close = breakpoints.closest_names(text, names)
    hint = (_('did you mean %s?') % ', '.join(printable(n) for n in close)
            if close else _('held: %s') % names_text(names))
    raise AnswerError(_('%(text)s is not held (%(hint)s)') % {
        'text': printable(text), 'hint': hint})
