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
"""A running operation, watched live and driven from one prompt.

``openstack stack breakpoint watch`` (and ``--interactive``) lives here,
apart from the cliff command so that each piece tests alone: what one
refresh reads (:func:`fetch`: the breakpoints view with ``?progress=1``,
one request whatever the stack's size or history), how it is drawn
(:func:`frame` for a terminal, :func:`change_line` for logs), how an
answer at the prompt is understood (:func:`parse_answer`) and the loop
(:class:`Session`). Releases go through :class:`.BreakpointManager`.

Against a Heat without the view's progress (stock Heat, or an older
plugin) a refresh falls back to the resource list and the latest events:
slower, and said once.
"""

import collections
import difflib
import fnmatch
import re
import shutil
import time
import urllib.parse

from heatclient import exc as heat_exc

from heat_breakpoint import reasons
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.printable import printable
from heatclient_ext.v1 import breakpoints as bp_v1

STATES = ('waiting', 'in_progress', 'held', 'complete', 'failed')
STATE_TITLES = {'waiting': _('waiting'), 'in_progress': _('in progress'),
                'held': _('held'), 'complete': _('complete'),
                'failed': _('failed')}
BAR_WIDTH = 30
EVENTS = 8
# Lines of the session's own answers kept on the redrawn screen.
LOG_LINES = 6
# Held resources listed on the screen (the count says how many more).
HELD_LINES = 12
EXIT_COMPLETE, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130

CLEAR_SCREEN = '\x1b[H\x1b[2J'
PROMPT_HELP = _('Enter: step it | NAME or GLOB: release | c: continue | '
                'to R | set R | clear R | cancel | q: leave')
FALLBACK_NOTE = _('Note: this Heat has no breakpoints view with progress: '
                  'each refresh lists every resource (slower)')

Snapshot = collections.namedtuple(
    'Snapshot', ('stack_name', 'stack_id', 'status', 'rows', 'progress'))


class AnswerError(exceptions.BreakpointCommandError):
    """An answer at the prompt that does nothing (said in one line)."""


# -- reading ------------------------------------------------------------------

def _view_path(stack, nested_depth):
    query = {'progress': 1}
    if nested_depth is not None:
        query['nested_depth'] = nested_depth
    return '/stacks/%s/breakpoints?%s' % (
        urllib.parse.quote(stack, safe='/'), urllib.parse.urlencode(query))


def fetch(client, stack, nested_depth=None):
    """One refresh: a :class:`Snapshot` from one request to the view.

    ``progress`` of the snapshot is None when the server's view has no
    progress (the caller may then use :func:`fetch_without_view`).
    Returns None when the server has no breakpoints view at all.
    """
    try:
        body = client.http_client.get(_view_path(stack, nested_depth)).json()
    except heat_exc.HTTPNotFound:
        return None
    except heat_exc.HTTPException as exc:
        raise exceptions.BreakpointCommandError(
            _('Cannot watch %(stack)s: %(reason)s') % {
                'stack': stack, 'reason': exceptions.one_line(exc)})
    except ValueError:
        return None
    if not isinstance(body, dict) or 'breakpoints' not in body:
        return None
    found = body.get('stack') or {}
    return Snapshot(found.get('stack_name'), found.get('id'),
                    found.get('stack_status') or '',
                    list(body['breakpoints']), body.get('progress'))


def fetch_without_view(client, stack, nested_depth=None):
    """The same from stock calls: stack, resource list, latest events."""
    manager = bp_v1.BreakpointManager(client)
    st = manager.get_stack(stack)
    ident = '%s/%s' % (st.stack_name, st.id)
    armed = manager.armed(ident)
    depth = manager._depth(armed, nested_depth)
    tree = manager._resources(ident, depth)
    rows = manager.held(st, armed, nested_depth, tree=tree)
    rows += manager._armed_rows(st, armed, rows)
    return Snapshot(st.stack_name, st.id, st.stack_status or '', rows,
                    stock_progress(client, st, tree, rows, depth, manager))


def stock_progress(client, st, tree, rows, depth, manager):
    """Counts from resource states, as well as stock Heat tells them."""
    action = (st.stack_status or '').split('_', 1)[0]
    held = {row['resource'] for row in rows if row['state'] == bp_v1.HELD}
    counts = dict.fromkeys(STATES, 0)
    for res in tree:
        status = res.status
        if res.path_name in held:
            state = 'held'
        elif status.endswith('_IN_PROGRESS'):
            state = 'in_progress'
        elif status.endswith('_FAILED'):
            state = 'failed'
        elif status == '%s_COMPLETE' % action:
            state = 'complete'
        else:
            state = 'waiting'
        counts[state] += 1
    kwargs = {'nested_depth': depth} if depth else {}
    try:
        listed = client.events.list('%s/%s' % (st.stack_name, st.id),
                                    sort_dir='desc', limit=EVENTS, **kwargs)
    except heat_exc.HTTPException:
        listed = []
    events = [{'time': getattr(ev, 'event_time', '') or '',
               'resource': getattr(ev, 'resource_name', '') or '',
               'action': (getattr(ev, 'resource_status', '') or ''
                          ).split('_', 1)[0],
               'status': (getattr(ev, 'resource_status', '') or ''
                          ).partition('_')[2],
               'reason': getattr(ev, 'resource_status_reason', '') or ''}
              for ev in reversed(list(listed))]
    started = manager._operation_start(st)
    return {'counts': counts, 'total': sum(counts.values()),
            'done': counts['complete'], 'events': events,
            'elapsed': _seconds_since(started),
            'timeout_remaining': manager._timeout_remaining(st)}


def _seconds_since(started):
    if started is None:
        return 0
    from oslo_utils import timeutils
    return max(0, int((timeutils.utcnow() - started).total_seconds()))


# -- drawing ------------------------------------------------------------------

def held_rows(snap):
    """The held rows, by resource path (the prompt's order)."""
    return sorted((row for row in snap.rows if row['state'] == bp_v1.HELD),
                  key=lambda row: row['resource'])


def _clock(seconds):
    seconds = int(seconds or 0)
    return '%d:%02d:%02d' % (seconds // 3600, seconds // 60 % 60,
                             seconds % 60)


def bar(done, total, width=BAR_WIDTH):
    """``[#########.........] 3 of 9 done``."""
    filled = int(width * done / total) if total else 0
    return '[%s%s] %s' % ('#' * filled, '.' * (width - filled),
                          _('%(done)d of %(total)d done') % {
                              'done': done, 'total': total})


def counts_text(progress):
    counts = progress.get('counts') or {}
    return '  '.join('%s %d' % (STATE_TITLES[state], counts.get(state, 0))
                     for state in STATES)


def _short_time(value):
    # '2026-11-30T20:19:19Z' -> '20:19:19'
    match = re.search(r'(\d\d:\d\d:\d\d)', value or '')
    return match.group(1) if match else printable(value)


def event_line(event):
    return '%s  %s  %s_%s  %s' % (
        _short_time(event.get('time')), printable(event.get('resource')),
        printable(event.get('action')), printable(event.get('status')),
        printable(event.get('reason')))


def frame(snap, log=(), width=100):
    """The screen, as lines: header, bar, counts, held, events, log."""
    progress = snap.progress or {}
    lines = [_('Stack %(name)s  %(status)s  elapsed %(elapsed)s%(timeout)s')
             % {'name': printable(snap.stack_name), 'status': snap.status,
                'elapsed': _clock(progress.get('elapsed')),
                'timeout': (_('  timeout in %s') %
                            progress['timeout_remaining']
                            if progress.get('timeout_remaining') else '')},
             bar(progress.get('done', 0), progress.get('total', 0)),
             counts_text(progress), '']
    held = held_rows(snap)
    if held:
        lines.append(_('Held (%d):') % len(held))
        for row in held[:HELD_LINES]:
            lines.append('  %-30s %-7s %s %s' % (
                printable(row['resource']), row['action'],
                _('at breakpoint'), printable(row['breakpoint'])))
        if len(held) > HELD_LINES:
            lines.append('  %s' % (_('... and %d more') %
                                   (len(held) - HELD_LINES)))
    else:
        lines.append(_('Nothing held'))
    events = progress.get('events') or []
    if events:
        lines += ['', _('Latest events:')]
        lines += ['  ' + event_line(event) for event in events[-EVENTS:]]
    if log:
        lines += ['', _('This session:')]
        lines += ['  ' + line for line in list(log)[-LOG_LINES:]]
    return [line[:width] for line in lines]


def change_line(snap):
    """One line saying where the operation is (for logs, not terminals)."""
    progress = snap.progress or {}
    held = held_rows(snap)
    text = '%s %s %s | %s' % (
        printable(snap.stack_name), snap.status,
        _('%(done)d of %(total)d done') % {
            'done': progress.get('done', 0),
            'total': progress.get('total', 0)},
        counts_text(progress))
    if held:
        text += ' | %s: %s' % (_('held'), ', '.join(
            printable(row['resource']) for row in held))
    return text


# -- answering ----------------------------------------------------------------

Answer = collections.namedtuple('Answer', ('verb', 'arg'))
STEP, RELEASE, CONTINUE, TO, SET, CLEAR, CANCEL, QUIT = (
    'step', 'release', 'continue', 'to', 'set', 'clear', 'cancel', 'quit')
_WORDS = {'c': CONTINUE, 'continue': CONTINUE, 'cancel': CANCEL,
          'q': QUIT, 'quit': QUIT}
_WITH_ARG = {'to': TO, 'set': SET, 'clear': CLEAR}
_GLOB = re.compile(r'[*?\[]')


def _bad_glob(pattern):
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


def parse_answer(text, held):
    """What an answer at the prompt asks, as an :class:`Answer`.

    ``held``: the held rows (the prompt names the first). A name or glob
    must match held resources; anything else is an :class:`AnswerError`
    and nothing is done.
    """
    text = (text or '').strip()
    if not text:
        if not held:
            raise AnswerError(_('nothing is held'))
        return Answer(STEP, held[0]['resource'])
    word, _sep, rest = text.partition(' ')
    rest = rest.strip()
    if word in _WORDS and not rest:
        return Answer(_WORDS[word], None)
    if word in _WITH_ARG:
        if not rest or ' ' in rest:
            raise AnswerError(_('"%(word)s" takes one resource, e.g. '
                                '"%(word)s node_1"') % {'word': word})
        if _GLOB.search(rest):
            raise AnswerError(_('"%(word)s" takes one resource, not a '
                                'pattern: %(arg)s') % {
                                    'word': word, 'arg': printable(rest)})
        return Answer(_WITH_ARG[word], rest)
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
                                    'held': _names(names)})
        return Answer(RELEASE, matched)
    if text in names:
        return Answer(RELEASE, [text])
    close = difflib.get_close_matches(text, names, n=3)
    hint = (_('did you mean %s?') % ', '.join(printable(n) for n in close)
            if close else _('held: %s') % _names(names))
    raise AnswerError(_('%(text)s is not held (%(hint)s)') % {
        'text': printable(text), 'hint': hint})


def _names(names):
    return ', '.join(printable(name) for name in names) or _('none')


def prompt_text(held):
    first = held[0]['resource']
    return _('Release %(name)s? [Enter: step it, NAME/GLOB, c, to R, '
             'set R, clear R, cancel, q] > ') % {'name': printable(first)}


# -- the loop -----------------------------------------------------------------

class Session:
    """Watch one stack's operation until it ends; prompt when held.

    The terminal and the clock are passed in, so the loop runs the same
    under a test as on a real terminal.
    """

    def __init__(self, client, stack, out, stdin=None, nested_depth=None,
                 interval=2.0, interactive=False, redraw=False,
                 sleep=time.sleep, cancel=None):
        self.client = client
        self.manager = bp_v1.BreakpointManager(client)
        self.stack = stack
        self.out = out
        self.stdin = stdin
        self.nested_depth = nested_depth
        self.interval = interval
        self.interactive = interactive
        self.redraw = redraw
        self.sleep = sleep
        self._cancel = cancel or (
            lambda stack_id: client.actions.cancel_update(stack_id))
        self.log = []
        self.cancelled = False
        self._without_view = False
        self._last_line = None
        self.snap = None

    # -- output

    def say(self, text):
        """One line of what the session did (echoed, and kept on screen)."""
        text = str(text)
        self.log.append(text)
        self.out.write('%s\n' % text)
        self.out.flush()

    def show(self, snap):
        if self.redraw:
            width = shutil.get_terminal_size((100, 40)).columns
            self.out.write(CLEAR_SCREEN + '\n'.join(
                frame(snap, self.log, width)) + '\n')
        else:
            line = change_line(snap)
            if line == self._last_line:
                return
            self._last_line = line
            self.out.write('%s %s\n' % (time.strftime('%H:%M:%S'), line))
        self.out.flush()

    # -- reading

    def refresh(self):
        snap = None
        if not self._without_view:
            snap = fetch(self.client, self.stack, self.nested_depth)
        if snap is None and self.snap is not None and \
                not self._without_view:
            # The view had it: the stack is gone (a delete finished).
            st = self.manager.get_stack(self.stack)
            snap = self.snap._replace(status=st.stack_status or '', rows=[])
        if snap is None or snap.progress is None:
            snap = fetch_without_view(self.client, self.stack,
                                      self.nested_depth)
            if not self._without_view:
                self._without_view = True
                self.say(FALLBACK_NOTE)
        if snap.stack_id:
            # Follow this stack, not a later one given the same name.
            self.stack = '%s/%s' % (snap.stack_name, snap.stack_id)
        self.snap = snap
        return snap

    # -- the loop

    def run(self):
        """Watch until the operation ends; the exit code (0, 1 or 130)."""
        try:
            return self._run()
        except KeyboardInterrupt:
            self.out.write('\n')
            self.say(self._left_text(_('interrupted')))
            return EXIT_INTERRUPTED

    def _run(self):
        while True:
            snap = self.refresh()
            self.show(snap)
            if not snap.status.endswith('_IN_PROGRESS'):
                return self._finished(snap)
            held = held_rows(snap)
            if held and self.cancelled:
                # A rollback after cancel: nothing is to stay parked.
                self._release([row['resource'] for row in held],
                              reasons.RELEASE_CONTINUE, held,
                              _('during the rollback'))
                continue
            if held and self.interactive:
                if self._ask(held) == QUIT:
                    self.say(self._left_text(_('left')))
                    return EXIT_COMPLETE
                continue
            self.sleep(self.interval)

    def _left_text(self, how):
        held = held_rows(self.snap) if self.snap else []
        if held:
            return _('%(how)s: the operation stays held at %(held)s; run '
                     'the same command again to resume') % {
                         'how': how, 'held': _names(
                             [row['resource'] for row in held])}
        return _('%s: the operation is untouched') % how

    def _finished(self, snap):
        status = snap.status
        if status.endswith('_COMPLETE'):
            self.say(_('Stack %(name)s %(status)s') % {
                'name': printable(snap.stack_name), 'status': status})
            return EXIT_COMPLETE
        reason = ''
        try:
            reason = self.manager.get_stack(self.stack).stack_status_reason
        except exceptions.USER_ERRORS:
            pass
        self.say(_('Stack %(name)s %(status)s: %(reason)s') % {
            'name': printable(snap.stack_name), 'status': status,
            'reason': printable(reason or _('no reason given'))})
        return EXIT_FAILED

    def _ask(self, held):
        while True:
            self.out.write(str(prompt_text(held)))
            self.out.flush()
            line = self.stdin.readline()
            if not line:  # end of input: leave as with q
                self.out.write('\n')
                return QUIT
            try:
                answer = parse_answer(line, held)
                if answer.verb == QUIT:
                    return QUIT
                self._do(answer, held)
                return answer.verb
            except exceptions.USER_ERRORS as exc:
                message = _('error: %s') % printable(
                    exceptions.one_line(exc))
                self.out.write('%s\n' % message)
                self.out.flush()

    def _do(self, answer, held):
        verb, arg = answer
        if verb == STEP:
            self._release([arg], reasons.RELEASE_STEP, held)
        elif verb == RELEASE:
            self._release(arg, reasons.RELEASE_CLEAR, held)
        elif verb == CONTINUE:
            rows = self.manager.continue_(self.stack)
            self.say(_('released %(names)s (continue); no breakpoint '
                       'holds for the rest of this operation') % {
                           'names': _names([r['resource'] for r in rows])})
        elif verb == TO:
            rows = self.manager.continue_(self.stack, to=arg)
            self.say(_('running to %(to)s: released %(names)s') % {
                'to': printable(arg),
                'names': _names([r['resource'] for r in rows])})
        elif verb == SET:
            self.manager.set(self.stack, arg)
            self.say(_('armed %s for the rest of this operation')
                     % printable(arg))
        elif verb == CLEAR:
            rows, result = self.manager.clear(self.stack, arg)
            self.say(_('cleared %(name)s (%(result)s)') % {
                'name': printable(arg), 'result': result})
        elif verb == CANCEL:
            self.cancel(held)

    def _release(self, names, how, held, note=''):
        rows = [row for row in held if row['resource'] in names]
        released = []
        for row in rows:
            self.manager.release(self.stack, row['resource'], how, [row])
            released.append(row['resource'])
        self.say(_('released %(names)s (%(how)s)%(note)s') % {
            'names': _names(released), 'how': how,
            'note': ' %s' % note if note else ''})

    def cancel(self, held):
        """Cancel the update (Heat rolls back), then free what is held."""
        try:
            self._cancel(self.stack)
        except heat_exc.HTTPException as exc:
            raise exceptions.BreakpointCommandError(
                _('Cannot cancel: %s') % exceptions.one_line(exc))
        self.cancelled = True
        self.say(_('cancelled the operation: Heat rolls it back'))
        released = []
        for row in held:
            try:
                self.manager.release(self.stack, row['resource'],
                                     reasons.RELEASE_CLEAR, [row])
                released.append(row['resource'])
            except exceptions.USER_ERRORS:
                pass  # the rollback already let it go
        if released:
            self.say(_('released %s (clear) so nothing stays parked')
                     % _names(released))
