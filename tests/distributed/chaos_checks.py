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
:func:`problems` (what the plugin must never do) and :func:`figures`.
"""

import collections
import re
import threading
import time

from heat_breakpoint import reasons
from heatclient_ext import exceptions as client_exc
from heatclient_ext.v1 import breakpoints as bp_api
from tests.distributed import common

#: Our three tables and our resource data keys (heat_breakpoint/engine).
TABLES = ('breakpoint_operation', 'breakpoint_hold_target',
          'breakpoint_pause')
DATA_KEYS = ('breakpoint_hold', 'breakpoint_released', 'breakpoint_resume',
             'breakpoint_planned', 'breakpoint_sending')
RELEASED_RE = re.compile(r'^Breakpoint .+ released \(')
#: What stock Heat writes when it finds the work of a dead engine.
STOCK_DOWN = ('Engine went down', 'Worker went down')
#: ``[breakpoint] purge_interval`` of the plugin's deployment (s).
PURGE_INTERVAL = 10
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


def releases_in_flight(result, stack):
    """Releases of the stack whose engine died before it re-dispatched.

    A resource with the note of a release, not done, whose release (Heat
    logs the clearing of the hook in the engine serving it) has no
    ``breakpoint.released`` notification after it in that engine's log:
    the engine died between clearing the hook and re-dispatching the
    check (the notification goes out just before the re-dispatch).
    """
    cluster = result.cluster
    # Put back as it was, a held create reads INIT_COMPLETE: not done.
    done = {name for name, action, status, engine in
            locked_resources(cluster, stack.name)
            if status == 'COMPLETE' and action != 'INIT'}
    found = []
    for name, keys in sorted(notes_left(cluster, stack.name).items()):
        if 'breakpoint_released' not in keys or name in done:
            continue
        for engine in cluster.engines_logging(
                'hook on TestResource "%s"' % name):
            log = cluster.read_log(engine)
            cleared = log.rfind('hook on TestResource "%s"' % name)
            if '"resource_name": "%s"' % name not in log[cleared:]:
                stack.in_flight.append(name)
                found.append('%s released by %s, which died before it '
                             're-dispatched the check' % (name, engine))
    return found


def _stock_evidence(result, stack):
    """Why this stack stopped: ``(kind, details)``.

    Kinds: ``stock`` (Heat's own: a check, or its message, died with an
    engine), ``release in flight`` (the engine serving a release died
    before it re-dispatched the check: see :func:`releases_in_flight`),
    ``not stock`` (any other failure).
    """
    if (stack.final or '').endswith('FAILED'):
        if any(word in (stack.reason or '') for word in STOCK_DOWN):
            return 'stock', 'failed: %s' % stack.reason
        return 'not stock', 'failed: %s' % stack.reason
    in_flight = releases_in_flight(result, stack)
    if in_flight:
        return 'release in flight', '; '.join(in_flight)
    if stack.refused:
        return 'release in flight', 'held, its release refused: %s' % (
            stack.refused)
    dead = result.dead_engine_ids
    stuck = [name for name, action, status, engine in
             locked_resources(result.cluster, stack.name) if engine in dead]
    if stuck:
        return 'stock', 'check of %s died with its engine' % ', '.join(
            stuck)
    # No lock left: the check's message (taken off the queue, not yet
    # started, or sent by a check that had just finished) died with it.
    return 'stock', 'check message lost with an engine'


def _released_last(hc, stack):
    """Resources whose last event is our release.

    A release that never resumed its check: a lost hold.
    """
    last = {}
    for ev in common.events(hc, stack.name):
        if ev.resource_name in stack.names:
            last[ev.resource_name] = ev
    return [name for name, ev in last.items()
            if RELEASED_RE.match(ev.resource_status_reason or '')]


def _settle(result, stacks, seconds):
    """Drive what the clients gave up on for a while longer.

    A stack the clients saw stop moving may only have been slow (an
    engine busy starting): what is held now is continued, what completes
    needs no recovery. Returns the stacks still stuck.
    """
    hc = result.cluster.client()
    manager = bp_api.BreakpointManager(hc)
    pending = list(stacks)
    deadline = time.monotonic() + seconds
    while pending and time.monotonic() < deadline:
        for stack in list(pending):
            st = hc.stacks.get(stack.name, resolve_outputs=False)
            stack.final, stack.reason = st.stack_status, \
                st.stack_status_reason
            if not st.stack_status.endswith('IN_PROGRESS'):
                if not st.stack_status.endswith('FAILED'):
                    stack.stalled = False
                    pending.remove(stack)
            elif result.breakpoints and manager.held_now(stack.name)[1]:
                try:
                    manager.continue_(stack.name)
                    stack.stalled = False
                except client_exc.BreakpointCommandError as exc:
                    # Held, and the release refused: left for recovery.
                    stack.refused = client_exc.one_line(exc)[:200]
        time.sleep(2)
    return [s for s in pending if s.stalled or s.final.endswith('FAILED')]


def recover(result, settle=10, timeout=150):
    """``stack update --existing`` what stock Heat left; drive it home.

    Sets ``how`` (the stock evidence) and ``recovered`` (the status it
    reached) on every stack that needed it.
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
            except Exception:  # noqa: the stack was never made
                stack.how = 'create request failed: %s' % stack.create_error
                stack.recovered = 'NOT CREATED'
                continue
            stack.stalled = True
        candidates.append(stack)
    for stack in _settle(result, candidates, settle):
        kind, details = _stock_evidence(result, stack)
        lost = _released_last(hc, stack) if result.breakpoints else []
        if lost and kind == 'stock':
            kind, details = 'not stock', 'LOST after release: %s (%s)' % (
                ', '.join(lost), details)
        stack.kind, stack.how = kind, details
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
                stack.stock_words = sorted({
                    ev.resource_status_reason.split(' during')[0]
                    for ev in common.events(hc, stack.name)
                    if any(word in (ev.resource_status_reason or '')
                           for word in STOCK_DOWN)})
            elif result.breakpoints and manager.held_now(stack.name)[1]:
                # The update holds at the stack's breakpoints too.
                manager.continue_(stack.name)
        time.sleep(1)
    result.recovery_wall = time.monotonic() - started
    return todo


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


def problems(result):
    """What must never happen, as lines (empty: all checks met)."""
    found = list(result.chaos_problems)
    hc = result.cluster.client()
    parked_at_kills = {p for k in result.kills for p in k.parked}
    result.holds = collections.Counter()
    for stack in result.stacks:
        if stack.recovered == 'NOT CREATED':
            continue
        status = stack.recovered or stack.final
        if status not in ('CREATE_COMPLETE', 'UPDATE_COMPLETE'):
            found.append('%s ended %s (%s) %s' % (stack.name, status,
                                                  stack.reason, stack.how))
        if stack.kind not in (None, 'stock'):
            found.append('%s needed recovery, not the stock way: %s: %s'
                         % (stack.name, stack.kind, stack.how))
        events = common.events(hc, stack.name)
        counts = created_counts(stack, events)
        twice = {n: c for n, c in counts.items() if c > 1}
        if twice:
            found.append('%s: created more than once: %r' % (stack.name,
                                                             twice))
        if not stack.recovered and status == 'CREATE_COMPLETE':
            missing = [n for n in stack.names if counts.get(n) != 1]
            if missing:
                found.append('%s: not created once: %r' % (stack.name,
                                                           counts))
        if result.breakpoints:
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
    result.rows_at_end, left = rows_left(result.cluster)
    result.rows_after_sweep = left
    if left:
        found.append('rows of ours left for finished operations: %r' % left)
    for text in tracebacks_of_ours(result.cluster):
        found.append('Traceback of ours in %s' % text)
    return found


def checks_run(result):
    """Resources the run created (each one resource check at least)."""
    return sum(len(s.names) for s in result.stacks
               if s.recovered != 'NOT CREATED')


def figures(result):
    """The counts of one run, as lines."""
    recovered = result.recovered()
    kinds = collections.Counter(s.kind for s in recovered)
    lines = [
        '%s: %.0f s of chaos, a kill every %.0f s, %d clients; wall %.0f s '
        '(+%.0f s recovery)' % (
            'plugin, 3 breakpoints per stack' if result.breakpoints
            else 'plugin disabled, no breakpoints', result.duration,
            result.kill_every, len({s.slot for s in result.stacks}),
            result.wall, result.recovery_wall),
        '  stacks: %d (%d resources), %d complete without help; %d never '
        'made (the create request died with its engine)' % (
            len(result.stacks) - len(result.not_created()),
            checks_run(result),
            len(result.stacks) - len(result.not_created()) - len(recovered),
            len(result.not_created())),
        '  kills: %d (replacement up after %s s); holds parked at the '
        'kills: %d; checks running in the killed engine: %d' % (
            len(result.kills), '/'.join('%.0f' % (k.replaced_after or -1)
                                        for k in result.kills),
            sum(len(k.parked) for k in result.kills),
            sum(len(k.in_check) for k in result.kills)),
        '  stock-failed (engine died mid-check), recovered with update '
        '--existing: %d %s' % (len(recovered),
                               dict(kinds) if kinds else ''),
    ]
    for stack in recovered:
        lines.append('    %s: %s: %s -> %s%s' % (
            stack.name, stack.kind, stack.how, stack.recovered,
            ' (Heat: %s)' % ', '.join(stack.stock_words)
            if stack.stock_words else ''))
    if result.breakpoints:
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
    """The stock failures of the two runs next to each other."""
    def row(label, result):
        kinds = collections.Counter(s.kind for s in result.recovered())
        return '%-34s %6d %6d %10d %13d %10d %10d' % (
            label, len(result.kills),
            len(result.stacks) - len(result.not_created()),
            checks_run(result), kinds['stock'], len(result.not_created()),
            len(result.recovered()) - kinds['stock'])
    return '\n'.join([
        '%-34s %6s %6s %10s %13s %10s %10s' % (
            'under chaos', 'kills', 'stacks', 'resources', 'stock-failed',
            'never made', 'other'),
        row('plugin, 3 breakpoints per stack', with_plugin),
        row('plugin disabled, no breakpoints', disabled)])
