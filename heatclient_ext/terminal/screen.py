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
"""How the live session draws one snapshot of an operation.

On a terminal, :func:`frame` is the whole screen, redrawn in place and
cut to its height; for logs and pipes, :func:`change_line` is one line
per change. :class:`Screen` holds what the session said and the notes
about the last answer, so a redraw shows them again above the answers.
Nothing here reads Heat: it draws a :class:`.reading.Snapshot`.
"""

import os
import shutil
import sys
import textwrap
import time
import typing

from heat_breakpoint.model import breakpoints
from heatclient_ext._i18n import _
from heatclient_ext.printable import printable
from heatclient_ext.terminal import keyboard
from heatclient_ext.v1 import answers
from heatclient_ext.v1 import live

STATES = live.STATES
STATE_TITLES = {'waiting': _('waiting'), 'in_progress': _('in progress'),
                'held': _('held'), 'complete': _('complete'),
                'failed': _('failed')}
BAR_WIDTH = 30
EVENTS = live.EVENTS
# Lines of the session's own answers kept on the redrawn screen.
LOG_LINES = 6
# Held resources listed on the screen (the count says how many more).
HELD_LINES = 12
CLEAR_SCREEN = '\x1b[H\x1b[2J'


# -- drawing ------------------------------------------------------------------

def held_failures(snap) -> int:
    return sum(1 for row in live.held_rows(snap)
               if answers.when(row) == breakpoints.FAILED)


def _clock(seconds) -> str:
    seconds = int(seconds or 0)
    return '%d:%02d:%02d' % (seconds // 3600, seconds // 60 % 60,
                             seconds % 60)


def bar(done, total, width: int = BAR_WIDTH) -> str:
    """``[#########.........] 3 of 9 done``."""
    filled = min(width, int(width * done / total)) if total else 0
    return '[%s%s] %s' % ('#' * filled, '.' * (width - filled),
                          _('%(done)d of %(total)d done') % {
                              'done': done, 'total': total})


def counts_text(progress, failed_held=0) -> str:
    """The counts; a failure held on failure counts as failed too."""
    counts = dict(progress.get('counts') or {})
    texts = []
    for state in STATES:
        text = '%s %d' % (STATE_TITLES[state], counts.get(state, 0) +
                          (failed_held if state == 'failed' else 0))
        if state == 'failed' and failed_held:
            text = '%s %s' % (text, _('(%d held)') % failed_held)
        texts.append(text)
    return '  '.join(texts)


def _wrap(line, width: int, indent='    '):
    """A line in lines of ``width``, broken between words only."""
    if len(line) <= width:
        return [line]
    lead = len(line) - len(line.lstrip(' '))
    return textwrap.wrap(line, width, initial_indent='',
                         subsequent_indent=' ' * lead + indent,
                         break_on_hyphens=False,
                         drop_whitespace=True) or [line[:width]]


def _cut(line, width: int):
    return line if len(line) <= width else line[:max(0, width - 3)] + '...'


def header(snap) -> str:
    progress = snap.progress or {}
    return (_('Stack %(name)s  %(status)s  elapsed %(elapsed)s%(timeout)s')
            % {'name': printable(snap.stack_name), 'status': snap.status,
               'elapsed': _clock(progress.get('elapsed')),
               'timeout': (_('  timeout in %s') %
                           progress['timeout_remaining']
                           if progress.get('timeout_remaining') else '')})


def held_lines(held, limit=HELD_LINES, deeper=0) -> list:
    if not held:
        lines = [_('Nothing held')]
        if deeper:
            lines[0] = '%s; %s' % (lines[0], _(
                '%d held deeper than --nested-depth (watch without it to '
                'see them)') % deeper)
        return lines
    column = max(len(printable(row['resource'])) for row in held[:limit])
    lines = [_('Held (%d):') % len(held)]
    for row in held[:limit]:
        lines.append('  %-*s  %-7s %s' % (
            column, printable(row['resource']), row['action'],
            answers.hold_text(row)))
    if len(held) > limit:
        lines.append('  %s' % (_('... and %d more') % (len(held) - limit)))
    if deeper:
        lines.append('  %s' % (_('%d more held deeper than --nested-depth')
                               % deeper))
    return lines


def frame(snap, log=(), width: int = 100, height=None, notes=()):
    """The screen, as lines: header, bar, counts, held, events, log.

    ``notes``: lines said about the last answer (an error, the help),
    kept above the answers. Within ``height`` lines (one is left for the
    prompt), what goes first is the oldest events, then the session's
    oldest lines, then held rows; the header always stays. Lines with
    names wrap between words rather than cut a name.
    """
    progress = snap.progress or {}
    top = []
    for line in (header(snap),
                 bar(progress.get('done', 0), progress.get('total', 0),
                     min(BAR_WIDTH, max(5, width - 20))),
                 counts_text(progress, held_failures(snap)), ''):
        top += _wrap(line, width)
    held = live.held_rows(snap)
    events = list(progress.get('events') or [])[-EVENTS:]
    log = list(log)[-LOG_LINES:]
    notes = list(notes)
    limit = HELD_LINES

    def build() -> list:
        lines = list(top)
        for line in held_lines(held, limit, snap.deeper):
            lines += _wrap(line, width)
        if events:
            lines += ['', _('Latest events:')]
            lines += [_cut('  ' + live.event_line(event), width)
                      for event in events]
        if log:
            lines += ['', _('This session:')]
            lines += [_cut('  ' + line, width) for line in log]
        return lines

    noted = [line for note in notes for line in _wrap(note, width)]
    lines = build()
    if height is None:
        return lines + noted
    room = max(len(top) + 1, height - 1)
    if len(top) + len(noted) > room:
        noted = [_cut(note, width) for note in notes]  # a line each
    while len(lines) + len(noted) > room and (events or log or limit > 1):
        if events:
            events.pop(0)
        elif log:
            log.pop(0)
        else:
            limit -= 1
        lines = build()
    # the header stays; then what was said about the last answer
    noted = noted[:max(0, room - len(top))]
    return (lines[:room - len(noted)] + noted)[:room]


def change_line(snap) -> str:
    """One line saying where the operation is (for logs, not terminals)."""
    progress = snap.progress or {}
    held = live.held_rows(snap)
    text = '%s %s %s | %s' % (
        printable(snap.stack_name), snap.status,
        _('%(done)d of %(total)d done') % {
            'done': progress.get('done', 0),
            'total': progress.get('total', 0)},
        counts_text(progress, held_failures(snap)))
    if held:
        text += ' | %s: %s' % (_('held'), ', '.join(
            printable(row['resource']) for row in held))
    if snap.deeper:
        text += ' | %s' % (_('%d held deeper than --nested-depth')
                           % snap.deeper)
    return text


def terminal_size(out):
    """The terminal's size now, from the terminal itself.

    Asked of the terminal first: ``COLUMNS`` and ``LINES`` in the
    environment (which :func:`shutil.get_terminal_size` prefers) are
    often stale values of the shell that started the command.
    """
    for stream in (out, sys.__stdout__):
        try:
            return os.get_terminal_size(stream.fileno())
        except (AttributeError, OSError, ValueError):
            continue
    return shutil.get_terminal_size((100, 40))


class Screen:
    """What the session shows: redrawn in place, or a line per change.

    Keeps the session's own lines (``say``) and the notes about the last
    answer (an error, the help) that a redraw shows again above the
    prompt, with what is typed so far (``keys``, a
    :class:`.keyboard.LineReader`).
    """

    def __init__(self, out, redraw, size) -> None:
        self.out = out
        self.redraw = redraw
        self.size = size
        self.keys: typing.Optional[keyboard.LineReader] = None
        self.log: list = []
        self.notes: list = []
        self.prompted = None
        self._last_line: typing.Optional[str] = None

    def write(self, text) -> None:
        self.out.write(text)
        self.out.flush()

    echo = write

    def say(self, text) -> None:
        """One line of what the session did (echoed, and kept on screen)."""
        text = str(text)
        self.log.append(text)
        self.write('%s\n' % text)

    def note(self, text) -> None:
        """A line about the last answer, kept above the answers."""
        self.notes.append(str(text))
        if not self.redraw:
            self.write('%s\n' % text)

    def aside(self, text, snap) -> None:
        """A passing line (``reconnecting``), on the last screen drawn."""
        if self.redraw and snap is not None:
            kept, self.notes = self.notes, [text]
            self.show(snap)
            self.notes = kept
        else:
            self.write('%s\n' % text)

    def show(self, snap, held=()) -> None:
        """Draw the screen, and the prompt when something is held.

        Off a terminal: a line when it changed, the prompt when it did.
        """
        typed = self.keys.typed if self.keys is not None else ''
        if self.redraw:
            size = self.size()
            if held:
                ask = answers.prompt_text(held, size.columns) + typed
            else:
                # What was typed at a prompt a redraw took away stays.
                ask = answers.IDLE_PROMPT + typed if typed else ''
            # the prompt's own lines are kept free at the bottom
            rows = max(1, -(-(len(ask) + 1) // max(1, size.columns)))
            lines = frame(snap, self.log, size.columns,
                          size.lines - rows + 1, self.notes)
            self.write(CLEAR_SCREEN + '\n'.join(lines) + '\n' + ask)
            return
        line = change_line(snap)
        if line != self._last_line:
            self._last_line = line
            self.prompted = None
            self.out.write('%s %s\n' % (time.strftime('%H:%M:%S'), line))
        if held and self.prompted != answers.prompt_text(held):
            self.prompted = answers.prompt_text(held)
            self.out.write(self.prompted)
        self.out.flush()
