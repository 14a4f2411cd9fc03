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
"""What a chaos run left, looked at as an operator would.

:mod:`tests.distributed.chaos` drives the run; here what it is judged
by: the database and the engine logs (also looked at during the run, to
note what each kill interrupted), :func:`recover` for what stock Heat
leaves behind when an engine dies in the middle of a resource check,
:func:`problems` (what the plugin must never do), :func:`compare` (the
plugin's side no worse than the disabled one, whose holds are Heat's
native hooks) and :func:`figures`.

A stack the clients could not finish is Heat's own doing ("stock") only
with positive evidence of it (:func:`_evidence`); anything else fails
the run:

* a check that held its resource's lock when its engine was killed: on
  the recovery Heat marks that resource ``Worker went down during
  resource CREATE`` (checked after it);
* with the plugin disabled, a native hook lost with its engine
  (:func:`_hook_lost_with_its_engine`): stock Heat waits for a hook to
  be cleared in the thread of the check that reached it, before it
  locks the resource; the engine that logged reaching it was killed
  before the hook was cleared (or within :data:`HOOK_NOTICED` s after,
  before the thread could see it), and nothing created the resource
  after;
* the next check lost with an engine (:func:`_lost_with_an_engine`):
  nothing locked, nothing of ours in flight, and after the stack's last
  progress (:func:`last_progress`: the last line any engine logged about
  it, but for a native hook cleared, a signal any engine serves) the
  engine that logged it sent no check and was killed, or each check it
  sent was taken off the queue by an engine then killed
  (oslo.messaging's own DEBUG lines: the message sent, the message
  taken), each kill at most :data:`KILLED_WITHIN` s later;
* Heat failing the stack in its own words (``Worker went down``).

In each case nothing of ours may be in flight: no hold parked that the
clients could not continue, no release whose check is still to be sent
(``breakpoint_sending``).
"""

import collections
import dataclasses
import datetime
import math
import re
import threading
import time

from heatclient import exc as heat_exc

from heat_breakpoint.model import reasons
from heatclient_ext import exceptions as client_exc
from heatclient_ext.v1 import manager as bp_api
from tests.distributed import common

#: Our three tables and our resource data keys (heat_breakpoint/engine).
TABLES = ('breakpoint_operation', 'breakpoint_hold_target',
          'breakpoint_pause')
DATA_KEYS = ('breakpoint_hold', 'breakpoint_released', 'breakpoint_resume',
             'breakpoint_planned', 'breakpoint_sending')
RELEASED_RE = re.compile(r'^Breakpoint .+ released \(')
#: What stock Heat writes when it finds the work of a dead engine.
STOCK_DOWN = ('Engine went down', 'Worker went down')
WORKER_DOWN = 'Worker went down during resource CREATE'
#: ``[breakpoint] purge_interval`` of the plugin's deployment (s).
PURGE_INTERVAL = 10
#: At most this long between the last thing an engine did for a stack
#: (its last progress, or taking the message of its next check off the
#: queue) and that engine's kill, for the stack's next check to count as
#: lost with it (s). The runs measured up to 6.2 s (an engine just
#: started, on a loaded machine, acting on what it took); an engine that
#: dropped a check and was killed within that time would be excused.
KILLED_WITHIN = 10.0
#: How long a check waiting at a stock hook takes to see it cleared (it
#: looks once a second, as Heat's task runner steps) (s).
HOOK_NOTICED = 2.0
#: How near a kill a check message no engine logged taking must have been
#: sent to count as lost with it (the kill's time is the harness's, taken
#: around its ``kill -9``).
ON_THE_WIRE = 2.0
#: The plugin's side fails the comparison when, given the stuck stacks of
#: both sides, a count as high as its own would come by chance less often
#: than this (one-sided Fisher exact test on stuck / stacks made).
WORSE_BELOW = 0.01
#: What :func:`recover` sets on a stack whose create request a kill cut
#: off and which does not exist.
NOT_CREATED = 'NOT CREATED'
#: :func:`recover` drives a stack the clients gave up on until nothing of
#: it has moved for this long (s) ...
SETTLE_QUIET = 10.0
#: ... and for this long at most, in all (s).
SETTLE_MOST = 90.0
# The OSC shell runs in this process (stdout redirected): one at a time.
_OSC = threading.Lock()


# -- the database, as an operator would look ----------------------------------

def _query(cluster, sql, args=None):
    return cluster.mariadb.query(cluster.database, sql, args)


def engine_id_of(cluster, name):
    rows = _query(cluster, 'SELECT engine_id FROM service WHERE host = %s '
                  'AND deleted_at IS NULL ORDER BY created_at DESC',
                  ('%s-%s' % (cluster.name, name),))
    return rows[0][0] if rows else None


def parked_holds(cluster):
    """[(stack name, resource name)] of every hold parked now."""
    return sorted(_query(
        cluster, 'SELECT s.name, r.name FROM resource_data d '
        'JOIN resource r ON r.id = d.resource_id '
        'JOIN stack s ON s.id = r.stack_id WHERE d.`key` = %s',
        ('breakpoint_hold',)))


def checks_of(cluster, engine_id):
    """[(stack, resource)] whose check the engine runs (holds its lock)."""
    return sorted(_query(
        cluster, 'SELECT s.name, r.name FROM resource r '
        'JOIN stack s ON s.id = r.stack_id WHERE r.engine_id = %s',
        (engine_id,)))


def our_rows(cluster):
    """{table or resource_data.key: rows}: what of ours is stored now."""
    counts = {table: _query(cluster, 'SELECT COUNT(*) FROM %s' % table)[0][0]
              for table in TABLES}
    for key in DATA_KEYS:
        counts['resource_data.' + key] = _query(
            cluster, 'SELECT COUNT(*) FROM resource_data WHERE `key` = %s',
            (key,))[0][0]
    return counts


def rows_left(cluster, wait=2 * PURGE_INTERVAL + 10):
    """Our rows as the run left them, and once the engines' sweep ran.

    The end of an operation deletes its rows; an engine killed between
    the two leaves them to the sweep (every :data:`PURGE_INTERVAL` s
    here, five minutes by default). Returns ``(first look, last look)``,
    each ``{table or key: rows}`` of those not 0.
    """
    first = left = {k: v for k, v in our_rows(cluster).items() if v}
    deadline = time.monotonic() + wait
    while left and time.monotonic() < deadline:
        time.sleep(2)
        left = {k: v for k, v in our_rows(cluster).items() if v}
    return first, left


def sent_again(cluster):
    """Releases cut off with their engine that another engine finished."""
    return sum(cluster.read_log(name).count('Sending again the check of')
               for name in cluster.all_engine_names())


def locked_resources(cluster, stack):
    """[(resource, action, status, engine_id)] of one stack's resources."""
    return list(_query(
        cluster, 'SELECT r.name, r.action, r.status, r.engine_id '
        'FROM resource r JOIN stack s ON s.id = r.stack_id '
        'WHERE s.name = %s AND s.deleted_at IS NULL', (stack,)))


# -- engine logs --------------------------------------------------------------

_PREFIX = re.compile(r'^\S+ \S+ (\d+ [A-Z]+ \S+) ')


def tracebacks_of_ours(cluster):
    """Tracebacks in any engine log with a frame of heat_breakpoint.

    oslo.log writes each line of a traceback with the record's prefix
    (time, pid, level, logger): a traceback is the run of lines with the
    prefix of its first line.
    """
    found = []
    for name in cluster.all_engine_names():
        lines = cluster.read_log(name).splitlines()
        for i, line in enumerate(lines):
            if 'Traceback (most recent call last)' not in line:
                continue
            match = _PREFIX.match(line)
            block = [line]
            for more in lines[i + 1:i + 400]:
                same = _PREFIX.match(more)
                if match and (not same or same.group(1) != match.group(1)):
                    break
                block.append(more)
            if any('File "' in b and '/heat_breakpoint/' in b
                   for b in block):
                found.append('%s:\n%s' % (name, '\n'.join(block[-14:])))
    return found


def _log_time(line):
    """The wall clock (as ``time.time()``) of an oslo.log line, or None."""
    try:
        return datetime.datetime.strptime(
            line[:23], '%Y-%m-%d %H:%M:%S.%f').timestamp()
    except ValueError:
        return None


# oslo.log's line: time, pid, level, logger, [request context], message.
_LINE = re.compile(r'^\S+ \S+ \d+ [A-Z]+ \S+ \[([^]]*)\] ')
# oslo.messaging (DEBUG, see chaos.OPTIONS): a check sent, a message taken.
_CHECK_SENT = re.compile(r"CAST unique_id: (\w+) exchange '[^']*' topic "
                         r"'engine_worker'")
_TAKEN = re.compile(r'received message with unique_id: (\w+)')


def _context(line):
    match = _LINE.match(line)
    return match.group(1) if match else None


class Logs(object):
    """Every engine log of a deployment, read once, searched by stack."""

    def __init__(self, cluster):
        self.lines = {name: cluster.read_log(name).splitlines()
                      for name in cluster.all_engine_names()}
        #: {unique id: [(time, engine)]}: which engines took a message.
        self.taken = collections.defaultdict(list)
        for engine, lines in self.lines.items():
            for line in lines:
                if 'received message with unique_id' in line:
                    match = _TAKEN.search(line)
                    if match:
                        self.taken[match.group(1)].append(
                            (_log_time(line), engine))

    def about(self, stack, names=None):
        """The lines naming the stack, or only its resources ``names``.

        ``[(time, engine, line)]``, in time order.
        """
        # Whole names: cycle 1 of a client is a prefix of its cycle 10.
        named = re.compile(r'(?<![\w-])(?:%s)(?![\w-])' % '|'.join(
            re.escape(n) for n in names or [stack.name] + list(stack.names)))
        found = []
        for engine, lines in self.lines.items():
            for line in lines:
                if named.search(line):
                    when = _log_time(line)
                    if when is not None:
                        found.append((when, engine, line))
        return sorted(found)

    def count_checks_sent(self):
        """Check messages the engines sent (resource checks, all told)."""
        return sum(1 for lines in self.lines.values() for line in lines
                   if 'CAST unique_id' in line and _CHECK_SENT.search(line))

    def checks_sent(self, engine, after, line):
        """``[(unique id, time)]``: checks ``engine`` sent after ``line``.

        In the same request context (the thread that wrote ``line``, and
        any other of the same operation's in that engine), later than
        ``after``.
        """
        context = _context(line)
        found = []
        for later in self.lines[engine]:
            if 'CAST unique_id' not in later or _context(later) != context:
                continue
            when = _log_time(later)
            match = _CHECK_SENT.search(later)
            if match and when is not None and when >= after:
                found.append((match.group(1), when))
        return found


def kill_after(result, when, engine=None):
    """The first kill at most :data:`KILLED_WITHIN` s after ``when``.

    Of ``engine`` only, if given.
    """
    for kill in sorted(result.kills, key=lambda k: k.wall):
        if (engine is None or kill.engine == engine) and \
                0 <= kill.wall - when <= KILLED_WITHIN:
            return kill
    return None


def _killed_around(result, when):
    """A kill at most :data:`ON_THE_WIRE` s from ``when``, or None."""
    for kill in sorted(result.kills, key=lambda k: abs(k.wall - when)):
        if abs(kill.wall - when) <= ON_THE_WIRE:
            return kill
    return None


def _nearest_kill(result, when):
    """``(engine, seconds after when)`` of the kill nearest ``when``."""
    kills = [(kill.engine, kill.wall - when) for kill in result.kills]
    return min(kills, key=lambda k: abs(k[1])) if kills else None


def _short(line, width=110):
    """An oslo.log line without its time, pid and request context."""
    line = re.sub(r'\[[^]]*\] ', '', line[24:], count=1)
    return line[:width]


# -- after the run -----------------------------------------------------------

def notes_left(cluster, stack):
    """{resource: [our data keys]} on one stack's resources now."""
    found = {}
    for name, key in _query(
            cluster, 'SELECT r.name, d.`key` FROM resource_data d '
            'JOIN resource r ON r.id = d.resource_id '
            'JOIN stack s ON s.id = r.stack_id WHERE s.name = %s',
            (stack,)):
        if key in DATA_KEYS:
            found.setdefault(name, []).append(key)
    return found


def _ours_in_flight(result, stack):
    """What of ours holds the stack up, as lines (empty: nothing)."""
    found = []
    for name, keys in sorted(notes_left(result.cluster, stack.name).items()):
        if 'breakpoint_sending' in keys:
            found.append('the release of %s has not sent its check' % name)
        if 'breakpoint_hold' in keys:
            found.append('%s is parked, and was not continued' % name)
    if stack.refused:
        found.append('held, its release refused: %s' % stack.refused)
    return found


def _evidence(result, stack, logs):
    """Why this stack stopped: ``(kind, details)``.

    Kinds: ``stock`` (and the evidence), ``ours in flight`` (see
    :func:`_ours_in_flight`), ``not stock`` (no evidence that Heat lost
    it). A ``stock`` stack with resources locked by a killed engine
    (``stack.locked_by_dead``) is confirmed after its recovery.
    """
    ours = _ours_in_flight(result, stack)
    if ours:
        return 'ours in flight', '; '.join(ours)
    if (stack.final or '').endswith('FAILED'):
        if any(word in (stack.reason or '') for word in STOCK_DOWN):
            return 'stock', "failed, in Heat's words: %s" % stack.reason
        return 'not stock', 'failed: %s' % stack.reason
    dead = result.dead_engine_ids
    locked = [(name, engine) for name, action, status, engine in
              locked_resources(result.cluster, stack.name) if engine]
    alive = sorted(name for name, engine in locked if engine not in dead)
    if alive:
        return 'not stock', ('nothing moves, %s locked by a live engine'
                             % ', '.join(alive))
    if locked:
        stack.locked_by_dead = sorted(name for name, engine in locked)
        return 'stock', 'check of %s died with its engine' % ', '.join(
            stack.locked_by_dead)
    if not result.plugin:
        found = _hook_lost_with_its_engine(result, stack, logs)
        if found is not None:
            return 'stock', found
    last = last_progress(logs, stack)
    if last is None:
        return 'not stock', 'no engine logged anything of it'
    return _lost_with_an_engine(result, stack, logs, *last)


def last_progress(logs, stack):
    """``(time, engine, line)``: the last line of the stack's work.

    A native hook cleared is a signal any engine serves, not the check's
    progress: the check that waited at it goes on in its own engine, or
    died with it (its next check message taken by an engine then killed,
    before that engine could log reaching the hook).
    """
    seen = [found for found in logs.about(stack)
            if not _HOOK_CLEARED.search(found[2])]
    return seen[-1] if seen else None


_REACHED_HOOK = re.compile(r'Reached hook on \S+ "([^"]+)"')
_HOOK_CLEARED = re.compile(r'Clearing pre-\w+ hook on ')


def _hook_lost_with_its_engine(result, stack, logs):
    """Why a stack of the disabled side stopped at a hook, or None.

    Heat logs ``Reached hook on <resource>`` in the engine whose check
    then waits, in that thread, for the hook to be cleared (the resource
    not locked yet). Lost with that engine when it was killed after it
    reached the hook, before the hook was cleared or at most
    :data:`HOOK_NOTICED` s after, and no engine created the resource
    after reaching it.
    """
    reached = [(when, engine, _REACHED_HOOK.search(line).group(1))
               for when, engine, line in logs.about(stack)
               if _REACHED_HOOK.search(line)]
    if not reached:
        return None
    when, engine, name = reached[-1]
    later = [(w, line) for w, e, line in logs.about(stack, [name])
             if w > when]
    if any(_creates_logged(name)[0] in line for w, line in later):
        return None
    cleared = [w for w, line in later if _HOOK_CLEARED.search(line)]
    until = cleared[0] + HOOK_NOTICED if cleared else float('inf')
    kill = next((k for k in sorted(result.kills, key=lambda k: k.wall)
                 if k.engine == engine and when <= k.wall <= until), None)
    if kill is None:
        return None
    return ('the hook on %s reached in %s, killed %.1f s later with the '
            'check waiting for it (%s)' % (
                name, engine, kill.wall - when,
                'cleared %.1f s after the kill' % (cleared[0] - kill.wall)
                if cleared else 'never cleared'))


def _lost_with_an_engine(result, stack, logs, when, engine, line):
    """Nothing locked, nothing of ours: was the next check lost?

    ``line`` is the stack's last progress, logged by ``engine``. Lost
    when that engine sent no check after it and was killed at most
    :data:`KILLED_WITHIN` s later (it died before it sent the next check,
    or stored the stack's completion), or when each check it sent after
    it was last taken off the queue by an engine killed at most
    :data:`KILLED_WITHIN` s after taking it (a message taken is
    acknowledged when its work starts: one taken and not acknowledged
    goes to another engine, and would show there).
    """
    last = '%s: %s' % (engine, _short(line, 80))
    sent = logs.checks_sent(engine, when, line)
    if not sent:
        kill = kill_after(result, when, engine)
        if kill is None:
            nearest = _nearest_kill(result, when)
            return 'not stock', (
                'nothing locked, nothing of ours in flight, no check sent '
                'after its last progress (%s), and %s not killed within '
                '%.0f s after it (nearest kill: %s)' % (
                    last, engine, KILLED_WITHIN, 'none' if nearest is None
                    else '%s %+.1f s' % nearest))
        what = 'its completion' if (
            'COMPLETE (%s)' % stack.name in line or
            'stack.create.end' in line) else 'its next check'
        return 'stock', '%s lost with %s, killed %.1f s after its last ' \
            'progress, before it sent a check (%s)' % (
                what, engine, kill.wall - when, last)
    lost = []
    for unique_id, sent_at in sent:
        takers = sorted(logs.taken.get(unique_id, ()))
        kill = kill_after(result, takers[-1][0], takers[-1][1]) \
            if takers else None
        if not takers:
            # On the wire when an engine died: taken off the queue by it,
            # before it could log the message (no live engine ever did).
            kill = _killed_around(result, sent_at)
            if kill is not None:
                lost.append('message %s taken by no engine alive, sent '
                            '%.1f s before %s was killed' % (
                                unique_id, kill.wall - sent_at,
                                kill.engine))
                continue
        if kill is None:
            return 'not stock', (
                'nothing locked, nothing of ours in flight; its next check '
                '(message %s, sent by %s after its last progress: %s) was %s'
                % (unique_id, engine, last, 'taken by no engine'
                   if not takers else 'taken by %s, not killed within %.0f '
                   's after' % (takers[-1][1], KILLED_WITHIN)))
        lost.append('message %s taken by %s, killed %.1f s later' % (
            unique_id, kill.engine, kill.wall - takers[-1][0]))
    return 'stock', 'its next check lost: %s (after its last progress, ' \
        '%s)' % ('; '.join(lost), last)


def _settle(result, stacks, quiet, most=SETTLE_MOST):
    """Drive what the clients gave up on while it still moves.

    A stack the clients saw stop moving may only have been slow (an
    engine busy starting): what is held now is continued, what completes
    needs no recovery. A stack continued here is watched like the others
    until it ends: stuck once nothing of it (its status, its resources'
    states, a hold) has moved for ``quiet`` s, or still in progress after
    ``most`` s in all. Returns the stuck stacks (``stalled``), and those
    that failed.
    """
    hc = result.cluster.client()
    manager = bp_api.BreakpointManager(hc)
    started = time.monotonic()
    watched = {stack.name: _Watched(stack, None, started)
               for stack in stacks}
    stuck = []
    while watched:
        for name, seen in list(watched.items()):
            stack = seen.stack
            st = hc.stacks.get(name, resolve_outputs=False)
            stack.final, stack.reason = st.stack_status, \
                st.stack_status_reason
            now = time.monotonic()
            if not st.stack_status.endswith('IN_PROGRESS'):
                del watched[name]
                stack.stalled = st.stack_status.endswith('FAILED')
                if stack.stalled:
                    stuck.append(stack)
                continue
            states = sorted((r.resource_name, r.resource_status,
                             r.resource_status_reason)
                            for r in hc.resources.list(name))
            if states != seen.states:
                seen.states, seen.moved = states, now
            if manager.held_now(name)[1]:
                try:
                    manager.continue_(name)
                    seen.moved = now
                except client_exc.BreakpointCommandError as exc:
                    # Held, and the release refused: left for recovery.
                    stack.refused = client_exc.one_line(exc)[:200]
            if now - seen.moved > quiet or now - started > most:
                del watched[name]
                stack.stalled = True
                stuck.append(stack)
        if watched:
            time.sleep(2)
    return stuck


@dataclasses.dataclass
class _Watched:
    """A stack :func:`_settle` drives: its resources' states, when moved."""
    stack: object
    states: list
    moved: float


def creates_cut(result):
    """Stacks whose create request was in flight when an engine died."""
    return [s for s in result.stacks if s.create_started is not None and
            any(s.create_started <= k.wall <= (s.create_ended or k.wall)
                for k in result.kills)]


def _never_made(result, stack):
    """A stack Heat does not know: made good only if a kill cut it off."""
    stack.recovered = NOT_CREATED
    kill = next((k for k in result.kills
                 if stack.create_started <= k.wall <= stack.create_ended),
                None)
    if kill is None:
        stack.kind = 'not stock'
        stack.how = ('its create failed (%s), no engine was killed during '
                     'the request, and the stack does not exist'
                     % stack.create_error)
    else:
        stack.kind = 'cut off'
        stack.how = ('its create request was in flight when %s was killed '
                     '(%s)' % (kill.engine, stack.create_error))


def recover(result, settle=SETTLE_QUIET, timeout=150):
    """``stack update --existing`` what stock Heat left; drive it home.

    Sets ``kind`` and ``how`` (the evidence, :func:`_evidence`) and
    ``recovered`` (the status it reached) on every stack that needed it;
    a stack whose create failed and that Heat does not know is
    :data:`NOT_CREATED` (see :func:`_never_made`).
    """
    started = time.monotonic()
    cluster = result.cluster
    hc = cluster.client()
    todo = []
    candidates = []
    for stack in result.needing_recovery():
        if stack.create_error:
            try:
                hc.stacks.get(stack.name, resolve_outputs=False)
            except heat_exc.HTTPNotFound:
                _never_made(result, stack)
                continue
            except Exception as exc:  # noqa: reported, the run goes on
                result.chaos_problems.append(
                    '%s: looking it up after its create failed: %s'
                    % (stack.name, client_exc.one_line(exc)[:200]))
                continue
            stack.stalled = True
        candidates.append(stack)
    stuck = _settle(result, candidates, settle)
    logs = Logs(cluster)
    for stack in stuck:
        stack.kind, stack.how = _evidence(result, stack, logs)
        with _OSC:
            common.osc_ok(cluster, 'stack', 'update', '--existing',
                          stack.name)
        todo.append(stack)
    manager = bp_api.BreakpointManager(hc)
    deadline = time.monotonic() + timeout
    pending = list(todo)
    while pending and time.monotonic() < deadline:
        for stack in list(pending):
            st = hc.stacks.get(stack.name, resolve_outputs=False)
            stack.recovered = st.stack_status
            if not st.stack_status.endswith('IN_PROGRESS') and \
                    st.stack_status.startswith('UPDATE'):
                pending.remove(stack)
                _confirm(hc, stack)
            elif manager.held_now(stack.name)[1]:
                # The update holds at the stack's breakpoints (or hooks).
                manager.continue_(stack.name)
        time.sleep(1)
    result.recovery_wall = time.monotonic() - started
    return todo


def _confirm(hc, stack):
    """After the recovery: Heat's words for the dead engines' checks."""
    said = collections.defaultdict(set)
    for ev in common.events(hc, stack.name):
        for word in STOCK_DOWN:
            if word in (ev.resource_status_reason or ''):
                said[ev.resource_name].add(
                    ev.resource_status_reason.split(' during')[0])
    stack.stock_words = sorted(set().union(*said.values()))
    missing = [name for name in stack.locked_by_dead
               if 'Worker went down' not in said.get(name, ())]
    if stack.kind == 'stock' and missing:
        stack.kind = 'not stock'
        stack.how += '; but on the recovery Heat did not mark %s "%s"' % (
            ', '.join(missing), WORKER_DOWN)


def hold_counts(stack, events):
    """{resource: (holds parked, releases)} from the stack's events."""
    counts = {name: [0, 0] for name in stack.names}
    for ev in events:
        if ev.resource_name not in counts:
            continue
        reason = ev.resource_status_reason or ''
        if reasons.parse_held(reason) and ev.resource_status.endswith(
                'IN_PROGRESS'):
            counts[ev.resource_name][0] += 1
        elif RELEASED_RE.match(reason):
            counts[ev.resource_name][1] += 1
    return {name: tuple(c) for name, c in counts.items()}


def created_counts(stack, events):
    """{resource: Heat's own CREATE_COMPLETE events ("state changed")}.

    Our release event carries the state the resource is put back to (an
    update's hold released: CREATE_COMPLETE again); Heat's own state
    change event says it was created.
    """
    counts = collections.Counter()
    for ev in events:
        if ev.resource_name in stack.names and \
                ev.resource_status == 'CREATE_COMPLETE' and \
                ev.resource_status_reason == 'state changed':
            counts[ev.resource_name] += 1
    return counts


def _creates_logged(name):
    """What Heat and TestResource log as a resource's create runs."""
    return ('creating TestResource "%s"' % name, '%s wait_secs:' % name,
            'Resource %s waited' % name)


def creations(result, stack, events, hc, logs):
    """{resource: times created}, and notes on what was made good.

    Heat's own count (:func:`created_counts`), but for a resource Heat
    stored ``CREATE_COMPLETE`` without the event: Heat stores the state,
    then writes the event; an engine killed in between loses the event
    (stock). It counts once when its create ran once (one ``creating``
    line in all logs) and its engine was killed at most
    :data:`KILLED_WITHIN` s after the create's last line.
    """
    counts = created_counts(stack, events)
    notes = []
    missing = [name for name in stack.names if not counts.get(name)]
    if not missing:
        return counts, notes
    states = {r.resource_name: (r.resource_status, r.resource_status_reason)
              for r in hc.resources.list(stack.name)}
    for name in missing:
        if states.get(name) != ('CREATE_COMPLETE', 'state changed'):
            continue
        lines = [(when, engine, line)
                 for when, engine, line in logs.about(stack, [name])
                 if any(w in line for w in _creates_logged(name))]
        if sum(_creates_logged(name)[0] in line
               for when, engine, line in lines) != 1:
            continue
        when, engine, line = lines[-1]
        kill = kill_after(result, when, engine)
        if kill is not None:
            counts[name] = 1
            notes.append('%s/%s: stored complete, its event lost with %s '
                         '(killed %.1f s after its create)' % (
                             stack.name, name, engine, kill.wall - when))
    return counts, notes


def problems(result):
    """What must never happen, as lines (empty: all checks met)."""
    found = list(result.chaos_problems)
    hc = result.cluster.client()
    logs = Logs(result.cluster)
    parked_at_kills = {p for k in result.kills for p in k.parked}
    result.holds = collections.Counter()
    result.made_good = []
    result.checks_sent = logs.count_checks_sent()
    for stack in result.stacks:
        if stack.recovered == NOT_CREATED:
            if stack.kind != 'cut off':
                found.append('%s never made: %s' % (stack.name, stack.how))
            continue
        status = stack.recovered or stack.final
        if status not in ('CREATE_COMPLETE', 'UPDATE_COMPLETE'):
            found.append('%s ended %s (%s) %s' % (stack.name, status,
                                                  stack.reason, stack.how))
        if stack.kind not in (None, 'stock'):
            found.append('%s needed recovery, not the stock way: %s: %s'
                         % (stack.name, stack.kind, stack.how))
        events = common.events(hc, stack.name)
        counts, notes = creations(result, stack, events, hc, logs)
        result.made_good += notes
        if status in ('CREATE_COMPLETE', 'UPDATE_COMPLETE'):
            wrong = {n: counts.get(n, 0) for n in stack.names
                     if counts.get(n, 0) != 1}
        else:
            wrong = {n: c for n, c in counts.items() if c > 1}
        if wrong:
            found.append('%s (%s%s): not each resource created once: %r'
                         % (stack.name, status, ', recovered: %s' % stack.how
                            if stack.recovered else '', wrong))
        if result.plugin:
            for name, (held, released) in hold_counts(stack,
                                                      events).items():
                result.holds['parked'] += held
                result.holds['released'] += released
                if (stack.name, name) in parked_at_kills:
                    result.holds['parked at a kill'] += 1
                    if held < 1 or released != held:
                        found.append('%s/%s parked at a kill: %d holds, %d '
                                     'releases' % (stack.name, name, held,
                                                   released))
                elif released != held:
                    found.append('%s/%s: %d holds, %d releases'
                                 % (stack.name, name, held, released))
    if result.plugin:
        # The environment names native hooks too: with the plugin they
        # never hold (its holds are parked, not a thread waiting).
        stock_holds = [line for lines in logs.lines.values()
                       for line in lines if _REACHED_HOOK.search(line)]
        if stock_holds:
            found.append('%d native hooks held with the plugin on, e.g. %s'
                         % (len(stock_holds), _short(stock_holds[0])))
    result.rows_at_end, left = rows_left(result.cluster)
    result.rows_after_sweep = left
    if left:
        found.append('rows of ours left for finished operations: %r' % left)
    for text in tracebacks_of_ours(result.cluster):
        found.append('Traceback of ours in %s' % text)
    return found


# -- the plugin's side against the disabled one ------------------------------

def made(result):
    """Stacks Heat made (all but those whose create a kill cut off)."""
    return len(result.stacks) - len(result.not_created())


def worse_p(stuck, stacks, other_stuck, other_stacks):
    """One-sided Fisher exact test: how likely this many stuck or more.

    Given ``stuck + other_stuck`` stuck stacks among both sides, the
    chance that ``stuck`` or more of them fall on this side's
    ``stacks`` when both sides get stuck alike.
    """
    total, bad = stacks + other_stacks, stuck + other_stuck
    if not stacks or not bad:
        return 1.0
    return sum(math.comb(stacks, k) * math.comb(other_stacks, bad - k)
               for k in range(stuck, min(stacks, bad) + 1)) / math.comb(
                   total, bad)


def fails_from(stacks, other_stuck, other_stacks):
    """The fewest stuck stacks of ``stacks`` that fail the comparison."""
    for stuck in range(stacks + 1):
        if worse_p(stuck, stacks, other_stuck, other_stacks) < WORSE_BELOW:
            return stuck
    return None


def compare(with_plugin, disabled):
    """``(problems, lines)``: stuck per stack, the plugin's no worse.

    Stuck: every stack the clients could not finish and that was
    recovered with ``update --existing``, whatever the evidence. Both
    sides make the same stacks with the same three breakpoints, driven
    by the same clients at the same pace under the same kills: the
    plugin holds them on one side, Heat's native hooks on the other (the
    plugin disabled). So the rate asserted is stuck / stacks Heat made.
    The margin is the run's size: the plugin's side fails when its count
    would come by chance less often than :data:`WORSE_BELOW` had both
    sides the same rate. Per check message sent and per kill are shown
    beside it.
    """
    x1, n1 = len(with_plugin.recovered()), made(with_plugin)
    x2, n2 = len(disabled.recovered()), made(disabled)
    p = worse_p(x1, n1, x2, n2)
    limit = fails_from(n1, x2, n2)
    line = ('stuck, recovered with update --existing: plugin %d of %d '
            'stacks (%.1f%%), disabled %d of %d (%.1f%%); asserted: the '
            "plugin's rate no worse (one-sided Fisher exact test, p = "
            '%.3g, fails below %g: at this size it fails from %s stuck)' % (
                x1, n1, 100.0 * x1 / n1 if n1 else 0, x2, n2,
                100.0 * x2 / n2 if n2 else 0, p, WORSE_BELOW,
                'none' if limit is None else limit))
    problems = [] if p >= WORSE_BELOW else [
        "the plugin's side is stuck more often than the disabled one: "
        + line]
    if not (n1 and n2):
        problems.append('a side made no stack: ' + line)
    # Not asserted: the same counts per check message sent and per kill.
    per = ['%s %d per %d checks sent (%.1f per 100), %.1f per kill' % (
        label, len(r.recovered()), r.checks_sent,
        100.0 * len(r.recovered()) / r.checks_sent if r.checks_sent else 0,
        float(len(r.recovered())) / len(r.kills) if r.kills else 0)
        for label, r in (('plugin', with_plugin), ('disabled', disabled))]
    return problems, [line, '  stuck ' + '; '.join(per)]


# -- figures -----------------------------------------------------------------

def checks_run(result):
    """Resources the run created (each one resource check at least)."""
    return sum(len(s.names) for s in result.stacks
               if s.recovered != NOT_CREATED)


def figures(result):
    """The counts of one run, as lines."""
    recovered = result.recovered()
    kinds = collections.Counter(s.kind for s in recovered)
    lines = [
        '%s: %.0f s of chaos, a kill every %.0f s, %d clients; wall %.0f s '
        '(+%.0f s recovery)' % (
            'plugin, 3 breakpoints per stack' if result.plugin
            else "plugin disabled, Heat's 3 hooks per stack",
            result.duration,
            result.kill_every, len({s.slot for s in result.stacks}),
            result.wall, result.recovery_wall),
        '  stacks: %d (%d resources), %d complete without help; %d never '
        'made (their create request in flight when an engine was killed: '
        '%d creates were)' % (
            made(result), checks_run(result),
            made(result) - len(recovered), len(result.not_created()),
            len(creates_cut(result))),
        '  kills: %d (replacement up after %s s); holds parked at the '
        'kills: %d; checks running in the killed engine: %d' % (
            len(result.kills), '/'.join('%.0f' % (k.replaced_after or -1)
                                        for k in result.kills),
            sum(len(k.parked) for k in result.kills),
            sum(len(k.in_check) for k in result.kills)),
        '  stuck, recovered with update --existing: %d %s' % (
            len(recovered), dict(kinds) if kinds else ''),
    ]
    for stack in recovered:
        lines.append('    %s: %s: %s -> %s%s' % (
            stack.name, stack.kind, stack.how, stack.recovered,
            ' (Heat: %s)' % ', '.join(stack.stock_words)
            if stack.stock_words else ''))
    for stack in result.not_created():
        lines.append('    %s: never made: %s' % (stack.name, stack.how))
    for note in getattr(result, 'made_good', None) or []:
        lines.append('    %s' % note)
    if result.plugin:
        lines.append('  holds parked: %d, released: %d (parked at a kill: '
                     '%d; releases cut off with their engine, sent again '
                     'by another: %d); commands: %s' % (
                         result.holds['parked'], result.holds['released'],
                         result.holds['parked at a kill'],
                         sent_again(result.cluster), dict(result.commands)))
        lines.append('  rows of ours at the end: %s; after the sweep: %s' % (
            result.rows_at_end or 0, result.rows_after_sweep or 0))
    if result.errors:
        lines.append('  client errors (retried): %r; last: %s'
                     % (dict(result.errors), result.last_error))
    return lines


def side_by_side(with_plugin, disabled):
    """The stuck stacks of the two runs next to each other."""
    def row(label, result):
        kinds = collections.Counter(s.kind for s in result.recovered())
        return '%-34s %6d %6d %10d %8d %8d %10d %10d' % (
            label, len(result.kills), made(result), checks_run(result),
            len(result.recovered()), kinds['stock'],
            len(result.not_created()),
            len(result.recovered()) - kinds['stock'])
    return '\n'.join([
        '%-34s %6s %6s %10s %8s %8s %10s %10s' % (
            'under chaos', 'kills', 'stacks', 'resources', 'stuck',
            'stock', 'never made', 'other'),
        row('plugin, 3 breakpoints per stack', with_plugin),
        row("plugin disabled, Heat's 3 hooks", disabled)])
