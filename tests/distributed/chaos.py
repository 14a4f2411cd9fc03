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
"""Chaos under load: engines killed at random while clients drive holds.

Operators ask what happens when heat-engines die at random while many
operations are held and driven. :func:`run` answers on a
:class:`~tests.distributed.harness.HeatCluster` of its own:

* ``stacks`` client threads each create a 4-resource chain (with three
  breakpoints, or none) at the same moment, then drive it as a person
  would (``step`` mostly, sometimes ``continue``, through
  :class:`heatclient_ext.v1.breakpoints.BreakpointManager`, the python
  API every front end uses), and create the next one when it is done,
  until ``duration`` runs out;
* a chaos thread kills -9 a random heat-engine every ``kill_every``
  seconds and starts a fresh one (never fewer than one alive), noting
  which holds were parked and which resource checks were running in the
  engine it killed;
* after ``duration`` the clients drive what they hold to its end
  (``drain`` seconds at most, no more kills); a stack that stopped moving
  with nothing held is left for :func:`recover`.

:func:`recover` brings back what stock Heat leaves behind when an engine
dies in the middle of a resource check (the convergence engine waits
forever for a check whose message died with its engine): ``openstack
stack update --existing``, holds of that update continued, until
``UPDATE_COMPLETE``. :func:`problems` lists what the plugin must never
do; :func:`figures` prints the counts. The distributed tier runs it short
(``test_6_chaos.py``), ``benchmarks/distributed_chaos.py`` the full five
minutes.
"""

import collections
import concurrent.futures
import dataclasses
import functools
import random
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
CHAIN = 4
#: heat.conf of both deployments. A call heat-api makes to an engine that
#: dies unanswered waits this long (oslo.messaging's default: 60 s).
OPTIONS = {'DEFAULT': {'rpc_response_timeout': '20'}}
#: ``[breakpoint] purge_interval`` of the plugin's deployment (s).
PURGE_INTERVAL = 10
# The OSC shell runs in this process (stdout redirected): one at a time.
_OSC = threading.Lock()


@dataclasses.dataclass
class Stack:
    name: str
    slot: int
    names: list
    created: float
    final: str = None          # the status the client saw last
    reason: str = None
    stalled: bool = False      # no progress, nothing held: left behind
    create_error: str = None   # the create request itself failed
    recovered: str = None      # status after update --existing
    how: str = ''              # why it needed recovery (the evidence)
    kind: str = None           # stock, release in flight, not stock
    refused: str = None        # a release refused after the run
    stock_words: list = None   # Heat's "went down" reasons in its events
    in_flight: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Kill:
    at: float
    engine: str
    engine_id: str
    code: int
    parked: list               # [(stack, resource)] parked at the kill
    in_check: list             # [(stack, resource)] its running checks
    replacement: str = None
    replaced_after: float = None


@dataclasses.dataclass
class Result:
    cluster: object
    breakpoints: bool
    duration: float
    kill_every: float
    stacks: list = dataclasses.field(default_factory=list)
    kills: list = dataclasses.field(default_factory=list)
    commands: collections.Counter = dataclasses.field(
        default_factory=collections.Counter)
    errors: collections.Counter = dataclasses.field(
        default_factory=collections.Counter)
    wall: float = 0.0
    recovery_wall: float = 0.0
    chaos_problems: list = dataclasses.field(default_factory=list)
    last_error: str = None
    holds: collections.Counter = dataclasses.field(
        default_factory=collections.Counter)
    rows_at_end: dict = None   # of ours, as the run left them
    rows_after_sweep: dict = None

    @property
    def dead_engine_ids(self):
        return {k.engine_id for k in self.kills if k.engine_id}

    def needing_recovery(self):
        """Stacks the clients could not finish (before recovery)."""
        return [s for s in self.stacks if s.stalled or (
            s.final or '').endswith('FAILED') or s.final is None]

    def recovered(self):
        """Stacks brought back with ``stack update --existing``."""
        return [s for s in self.stacks if s.recovered and
                s.recovered != 'NOT CREATED']

    def not_created(self):
        return [s for s in self.stacks if s.recovered == 'NOT CREATED']


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


# -- the clients -------------------------------------------------------------

class _Run:
    """The threads of one run and what they saw."""

    def __init__(self, cluster, duration, kill_every, stacks, breakpoints,
                 drain, stall_after, seed, step_share, think):
        self.cluster = cluster
        self.result = Result(cluster, breakpoints, duration, kill_every)
        self.slots = stacks
        self.drain = drain
        self.stall_after = stall_after
        self.step_share = step_share
        self.think = think
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.tag = common.tag()
        self.barrier = threading.Barrier(stacks)

    def note_error(self, what, exc):
        with self.lock:
            self.result.errors['%s: %s' % (what, type(exc).__name__)] += 1
            self.result.last_error = client_exc.one_line(exc)[:160]

    # A chain of 4: one leaf (the convergence engine sleeps a second
    # after triggering each leaf), breakpoints at the three others.
    def _create(self, hc, slot, cycle):
        t = '%s_%02d_%d' % (self.tag, slot, cycle)
        names = ['%s_%s' % (letter, t) for letter in 'abcd'[:CHAIN]]
        stack = Stack('chaos-%s-%02d-%d' % (self.tag, slot, cycle), slot,
                      names, time.monotonic())
        env = (common.breakpoint_env(*names[1:]) if self.result.breakpoints
               else {})
        with self.lock:
            self.result.stacks.append(stack)
        try:
            hc.stacks.create(stack_name=stack.name,
                             template=common.chain(names), environment=env)
        except Exception as exc:  # noqa: an engine may die answering
            self.note_error('create', exc)
            stack.create_error = client_exc.one_line(exc)[:200]
        return stack

    def client(self, slot):
        hc = self.cluster.client()
        manager = bp_api.BreakpointManager(hc)
        self.barrier.wait()
        cycle = 0
        while time.monotonic() < self.end:
            stack = self._create(hc, slot, cycle)
            self._drive(hc, manager, stack)
            cycle += 1
            if not self.result.breakpoints:
                # The pace of a client with breakpoints: it thinks before
                # each of its three steps, this one between its creates.
                time.sleep(sum(self.random.uniform(*self.think)
                               for _ in range(CHAIN - 1)))

    def _status(self, hc, manager, stack):
        """(stack status, reason, held rows)."""
        if self.result.breakpoints:
            summary, rows = manager.current(stack.name)
            held = [r for r in rows if r['state'] == bp_api.HELD]
            if summary.stack_status and not summary.stack_status.endswith(
                    'IN_PROGRESS'):
                st = hc.stacks.get(stack.name, resolve_outputs=False)
                return st.stack_status, st.stack_status_reason, held
            return summary.stack_status, None, held
        st = hc.stacks.get(stack.name, resolve_outputs=False)
        return st.stack_status, st.stack_status_reason, []

    def _drive(self, hc, manager, stack):
        """Step and continue one stack until it ends, or stops moving."""
        last_move = time.monotonic()
        seen = None
        while time.monotonic() < self.end + self.drain:
            try:
                status, reason, held = self._status(hc, manager, stack)
            except Exception as exc:  # noqa: heat-api waits on a dead engine
                self.note_error('look', exc)
                if stack.create_error and 'not found' in str(exc).lower():
                    return  # the create never made it: nothing to drive
                time.sleep(1)
                continue
            stack.final, stack.reason = status, reason
            if not status.endswith('IN_PROGRESS'):
                return
            now = time.monotonic()
            signature = (status, tuple(sorted(r['resource'] for r in held)))
            if signature != seen:
                seen, last_move = signature, now
            if held:
                time.sleep(self.random.uniform(*self.think))
                step = self.random.random() < self.step_share
                try:
                    if step:
                        manager.step(stack.name)
                    else:
                        manager.continue_(stack.name)
                    with self.lock:
                        self.result.commands['step' if step else
                                             'continue'] += 1
                except Exception as exc:  # noqa: counted and retried
                    self.note_error('step' if step else 'continue', exc)
                continue
            if now - last_move > self.stall_after:
                stack.stalled = True
                return
            time.sleep(1.0)

    # -- chaos ---------------------------------------------------------------

    def _registered(self, name):
        """Alive, and its worker registered (it takes checks)."""
        proc = self.cluster.engines.get(name)
        if proc is None:
            return False  # killed already
        if name in self.registered:
            return proc.alive()
        if proc.alive() and engine_id_of(
                self.cluster, name):
            self.registered[name] = time.monotonic()
            return True
        return False

    def chaos(self):
        cluster = self.cluster
        self.registered = {name: self.start for name in cluster.engines}
        next_kill = self.start + self.result.kill_every
        while next_kill < self.end:
            wait = next_kill - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            for kill in self.result.kills:
                if kill.replaced_after is None and kill.replacement and \
                        self._registered(kill.replacement):
                    kill.replaced_after = (self.registered[kill.replacement]
                                           - self.start - kill.at)
            up = [n for n in cluster.engines if self._registered(n)]
            if len(up) < 2:
                # Never the last one: wait for a replacement to be up.
                next_kill = time.monotonic() + 1
                continue
            victim = self.random.choice(up)
            engine_id = engine_id_of(cluster, victim)
            try:
                parked = parked_holds(cluster)
                in_check = [c for c in checks_of(cluster, engine_id)
                            if c not in parked] if engine_id else []
            except Exception as exc:  # noqa: noted, the run goes on
                self.result.chaos_problems.append('look-up: %r' % exc)
                parked, in_check = [], []
            code = cluster.kill_engine(victim)
            self.registered.pop(victim, None)
            kill = Kill(time.monotonic() - self.start, victim, engine_id,
                        code, parked, in_check)
            self.result.kills.append(kill)
            try:
                kill.replacement = cluster.start_engine(wait=False)
            except Exception as exc:  # noqa: noted, the run goes on
                self.result.chaos_problems.append('start: %r' % exc)
            next_kill += self.result.kill_every
        # The last replacements: up before the checks look at the logs.
        for kill in self.result.kills:
            if kill.replacement in cluster.engines:
                try:
                    cluster.wait_engine(kill.replacement)
                except Exception as exc:  # noqa: reported as a problem
                    self.result.chaos_problems.append('start: %r' % exc)
                if kill.replaced_after is None:
                    kill.replaced_after = (time.monotonic() - self.start -
                                           kill.at)

    def run(self):
        self.start = time.monotonic()
        self.end = self.start + self.result.duration
        threads = [threading.Thread(target=self.client, args=(i,),
                                    name='chaos-client-%d' % i, daemon=True)
                   for i in range(self.slots)]
        killer = threading.Thread(target=self.chaos, name='chaos-killer',
                                  daemon=True)
        for thread in threads:
            thread.start()
        killer.start()
        killer.join()
        for thread in threads:
            thread.join(max(0, self.end + self.drain + 90 - time.monotonic()))
        self.result.wall = time.monotonic() - self.start
        for stack in self.result.stacks:
            if stack.final is not None and stack.final.endswith(
                    'IN_PROGRESS'):
                stack.stalled = True
        return self.result


def run(cluster, duration=90, kill_every=10, stacks=20, breakpoints=True,
        drain=30, stall_after=30, seed=None, step_share=0.75,
        think=(0.2, 1.5)):
    """Drive ``stacks`` clients for ``duration`` s, killing engines.

    Returns a :class:`Result`; nothing is asserted here (see
    :func:`problems`).
    """
    return _Run(cluster, duration, kill_every, stacks, breakpoints, drain,
                stall_after, seed, step_share, think).run()


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


def together(*calls):
    """Run the calls in threads at the same time; their results, in order.

    Both deployments live through the same seconds of the same machine:
    the side-by-side counts compare like with like.
    """
    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(call) for call in calls]
        return [future.result() for future in futures]


def start_clusters(deployment, engines=3):
    """``chaos`` (the plugin) and ``chaos-off`` (disabled), started at once.

    Each on a RabbitMQ virtual host and a database of its own, apart from
    the other deployments of the tier.
    """
    clusters = [
        deployment.add_cluster('chaos', engines=engines, vhost='chaos',
                               options=OPTIONS, breakpoint_options={
                                   'purge_interval': str(PURGE_INTERVAL)}),
        deployment.add_cluster('chaos-off', engines=engines,
                               vhost='chaos-off', options=OPTIONS,
                               breakpoint_options={'enabled': False})]
    together(*[cluster.start for cluster in clusters])
    return clusters


def side_by_side_run(on, off, duration, kill_every, stacks):
    """The same chaos on both at once, recovered and checked.

    ``on`` drives stacks with three breakpoints; ``off`` (the plugin
    disabled) the same chains without breakpoints, at the same pace: with
    breakpoints on a disabled plugin they would be Heat's native hooks,
    each pinning an engine thread, and a killed engine's hooks would never
    be released, which is not the failure counted here. Returns
    ``(with plugin, disabled, problems, lines to print)``.
    """
    results = together(*[
        functools.partial(run, cluster, duration=duration,
                          kill_every=kill_every, stacks=stacks,
                          breakpoints=with_breakpoints)
        for cluster, with_breakpoints in ((on, True), (off, False))])
    together(*[functools.partial(recover, result) for result in results])
    found, lines = [], []
    for result, more in zip(results, together(*[
            functools.partial(problems, result)
            for result in results])):
        found += more
        lines += figures(result)
    lines += ['', side_by_side(*results)]
    return results[0], results[1], found, lines
