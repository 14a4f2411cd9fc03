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

* ``stacks`` client threads each create a 4-resource chain with three
  breakpoints at the same moment, then drive it as a person would
  (``step`` mostly, sometimes ``continue``, through
  :class:`heatclient_ext.v1.manager.BreakpointManager`, the python
  API every front end uses), and create the next one when it is done,
  until ``duration`` runs out. With the plugin disabled the same
  environment holds at Heat's native hooks, which the same client clears
  (a ``step`` there is a ``continue``: the next hook holds anyway; after
  a ``continue`` the client clears the stack's later hooks without
  thinking, as the plugin's ``continue`` holds no more);
* a chaos thread kills -9 a random heat-engine every ``kill_every``
  seconds and starts a fresh one (never fewer than one alive), noting
  which holds were parked and which resource checks were running in the
  engine it killed;
* after ``duration`` the clients drive what they hold to its end
  (``drain`` seconds at most, no more kills); a stack that stopped moving
  with nothing held is left for :func:`chaos_checks.recover`.

:mod:`tests.distributed.chaos_checks` judges the run:
:func:`~chaos_checks.recover` brings back what stock Heat leaves behind
when an engine dies in the middle of a resource check (the convergence
engine waits forever for a check whose message died with its engine):
``openstack stack update --existing``, holds of that update continued,
until ``UPDATE_COMPLETE``, each with the evidence that it was Heat's
doing; :func:`~chaos_checks.problems` lists what the plugin must never
do; :func:`~chaos_checks.compare` holds the plugin's stuck rate against
the disabled deployment's; :func:`~chaos_checks.figures` prints the
counts.
The distributed tier runs it short (``test_6_chaos.py``),
``benchmarks/distributed_chaos.py`` the full five minutes.
"""

import collections
import concurrent.futures
import dataclasses
import functools
import random
import threading
import time

from heatclient import exc as heat_exc
from oslo_log import log as oslo_logging

from heatclient_ext import exceptions as client_exc
from heatclient_ext.v1 import manager as bp_api
from tests.distributed import chaos_checks as checks
from tests.distributed import common

CHAIN = 4
NOT_CREATED = checks.NOT_CREATED
#: heat.conf of both deployments. A call heat-api makes to an engine that
#: dies unanswered waits this long (oslo.messaging's default: 60 s).
#: oslo.messaging's AMQP driver logs at DEBUG which message each engine
#: sends and takes: the evidence that a check died with an engine
#: (:func:`chaos_checks._lost_with_an_engine`).
OPTIONS = {'DEFAULT': {
    'rpc_response_timeout': '20',
    'default_log_levels': ','.join(
        oslo_logging.get_default_log_levels() +
        ['oslo_messaging._drivers.amqpdriver=DEBUG'])}}


@dataclasses.dataclass
class Stack:
    name: str
    slot: int
    names: list
    created: float
    final: str = None          # the status the client saw last
    continued: bool = False    # the client said continue: no more pauses
    reason: str = None
    stalled: bool = False      # no progress, nothing held: left behind
    create_error: str = None   # the create request itself failed
    create_started: float = None  # wall clock (time.time()) of the
    create_ended: float = None    # create request
    recovered: str = None      # status after update --existing
    how: str = ''              # why it needed recovery (the evidence)
    kind: str = None           # stock, ours in flight, not stock, ...
    # Resources stock Heat must mark "Worker went down" on the recovery:
    # their check held their lock when its engine was killed.
    locked_by_dead: list = dataclasses.field(default_factory=list)
    refused: str = None        # a release refused after the run
    stock_words: list = None   # Heat's "went down" reasons in its events


@dataclasses.dataclass
class Kill:
    at: float                  # seconds after the run's start
    wall: float                # time.time() of the kill
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
    plugin: bool               # the plugin holds (else Heat's hooks)
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
    made_good: list = dataclasses.field(default_factory=list)
    checks_sent: int = 0       # check messages sent, from the engine logs

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
                s.recovered != NOT_CREATED]

    def not_created(self):
        return [s for s in self.stacks if s.recovered == NOT_CREATED]


def not_found(exc):
    """Heat answered 404 (Heat's own client, or ours, which says it)."""
    while exc is not None:
        if isinstance(exc, heat_exc.HTTPNotFound):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


# -- the clients -------------------------------------------------------------

class _Run:
    """The threads of one run and what they saw."""

    def __init__(self, cluster, duration, kill_every, stacks, plugin,
                 drain, stall_after, seed, step_share, think):
        self.cluster = cluster
        self.result = Result(cluster, plugin, duration, kill_every)
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
        # What the client sends: native hooks and the plugin's marker.
        env = common.breakpoint_env(*names[1:])
        with self.lock:
            self.result.stacks.append(stack)
        stack.create_started = time.time()
        try:
            hc.stacks.create(stack_name=stack.name,
                             template=common.chain(names), environment=env)
        except Exception as exc:  # noqa: an engine may die answering
            self.note_error('create', exc)
            stack.create_error = client_exc.one_line(exc)[:200]
        stack.create_ended = time.time()
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

    def _status(self, hc, manager, stack):
        """(stack status, reason, held rows: a breakpoint's or a hook's)."""
        summary, rows = manager.current(stack.name)
        held = [r for r in rows if r['state'] == bp_api.HELD]
        if summary.stack_status and not summary.stack_status.endswith(
                'IN_PROGRESS'):
            st = hc.stacks.get(stack.name, resolve_outputs=False)
            return st.stack_status, st.stack_status_reason, held
        return summary.stack_status, None, held

    def _drive(self, hc, manager, stack):
        """Step and continue one stack until it ends, or stops moving."""
        last_move = time.monotonic()
        seen = None
        while time.monotonic() < self.end + self.drain:
            try:
                status, reason, held = self._status(hc, manager, stack)
            except Exception as exc:  # noqa: heat-api waits on a dead engine
                self.note_error('look', exc)
                if stack.create_error and not_found(exc):
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
                if not stack.continued:
                    time.sleep(self.random.uniform(*self.think))
                    step = self.random.random() < self.step_share
                    stack.continued = not step
                else:
                    step = False  # a hook after a continue: cleared at once
                try:
                    if step and self.result.plugin:
                        manager.step(stack.name)
                    else:
                        # Stock Heat: a hook cleared, the next one holds.
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
        if proc.alive() and checks.engine_id_of(
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
            engine_id = checks.engine_id_of(cluster, victim)
            try:
                parked = checks.parked_holds(cluster)
                in_check = [c for c in checks.checks_of(cluster, engine_id)
                            if c not in parked] if engine_id else []
            except Exception as exc:  # noqa: noted, the run goes on
                self.result.chaos_problems.append('look-up: %r' % exc)
                parked, in_check = [], []
            code = cluster.kill_engine(victim)
            self.registered.pop(victim, None)
            kill = Kill(time.monotonic() - self.start, time.time(), victim,
                        engine_id, code, parked, in_check)
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


def run(cluster, duration=90, kill_every=10, stacks=20, plugin=True,
        drain=30, stall_after=30, seed=None, step_share=0.75,
        think=(0.2, 1.5)):
    """Drive ``stacks`` clients for ``duration`` s, killing engines.

    ``plugin``: whether the cluster runs the plugin (its holds are
    breakpoints) or has it disabled (Heat's native hooks hold). Returns a
    :class:`Result`; nothing is asserted here (see :func:`problems`).
    """
    return _Run(cluster, duration, kill_every, stacks, plugin, drain,
                stall_after, seed, step_share, think).run()


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
                                   'purge_interval':
                                   str(checks.PURGE_INTERVAL)}),
        deployment.add_cluster('chaos-off', engines=engines,
                               vhost='chaos-off', options=OPTIONS,
                               breakpoint_options={'enabled': False})]
    together(*[cluster.start for cluster in clusters])
    return clusters


def side_by_side_run(on, off, duration, kill_every, stacks):
    """The same chaos on both at once, recovered and checked.

    Both drive the same chains with the same three breakpoints, at the
    same pace: on ``on`` the plugin holds them; on ``off`` (the plugin
    disabled) Heat's native hooks do, as stock Heat holds what the client
    asks it to: each hook pins an engine thread and the resource's lock
    until it is cleared, and a hook whose engine is killed is lost with
    it. Returns ``(with plugin, disabled, problems, lines to print)``.
    """
    results = together(*[
        functools.partial(run, cluster, duration=duration,
                          kill_every=kill_every, stacks=stacks,
                          plugin=plugin)
        for cluster, plugin in ((on, True), (off, False))])
    together(*[functools.partial(checks.recover, result)
               for result in results])
    found, lines = [], []
    for result, more in zip(results, together(*[
            functools.partial(checks.problems, result)
            for result in results])):
        found += more
        lines += checks.figures(result)
    worse, compared = checks.compare(*results)
    found += worse
    lines += ['', checks.side_by_side(*results)] + compared
    return results[0], results[1], found, lines
