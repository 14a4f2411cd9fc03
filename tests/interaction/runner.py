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
"""Run one scenario on a local Heat, recording every command it sends.

The same scenario runs on the server under test (``stock=False``: our
breakpoints, set and released the scenario's way) and on a reference
server with the plugin disabled (``stock=True``: Heat's native hook where
one of that kind exists, cleared with ``openstack stack hook clear``, no
hook otherwise). Each run gives an :class:`Outcome` for the invariants;
``commands`` is what to paste to reproduce it.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import time
import uuid

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import utils
from tests.interaction import templates

NATIVE = {('before', 'create'): 'pre-create', ('after', 'create'):
          'post-create', ('delete', 'delete'): 'pre-delete'}
FLAG = {'before': '--breakpoint', 'after': '--breakpoint-after',
        'on-failure': '--breakpoint-on-failure',
        'on-change': '--breakpoint-on-change',
        'on-replace': '--breakpoint-on-replace'}
SET_FLAG = {'after': '--after', 'on-failure': '--on-failure',
            'on-change': '--on-change', 'on-replace': '--on-replace'}
OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
TIMEOUT = 240
# Stock Heat's hook events: "... paused until Hook pre-create is
# cleared", then "Hook pre-create is cleared".
PAUSED = re.compile(r'paused until Hook (\S+) is cleared')
CLEARED = re.compile(r'^Hook (\S+) is cleared')


def native_hook(hold, operation):
    if operation == 'create':
        return NATIVE.get((hold, 'create'))
    if operation == 'delete':
        return NATIVE.get((hold, 'delete'))
    return {'before': 'pre-update', 'after': 'post-update'}.get(hold)


def reference_hook(scenario):
    """The native hook the stock reference holds at, if any.

    A cancel or a superseding update needs the operation to be stopped
    at the held resource in stock Heat too: where no native hook of the
    scenario's kind exists, the one before the resource's action stands
    in (a failure or a change is held before the action by stock's
    nearest means).
    """
    hold, op = scenario['hold'], scenario['operation']
    hook = native_hook(hold, op)
    if hook is None and scenario['release'] in ('cancel', 'supersede'):
        hook = native_hook('before', op)
    return hook


class Outcome:
    def __init__(self):
        self.status = None
        self.reason = None
        self.outputs = {}
        self.wait_code = None
        self.wait_returned_held = False
        self.creates = {}
        self.held_at_end = []
        self.holds_seen = []
        self.texts = []
        self.log = ''
        self.before_ids = {}
        self.after_ids = {}


class Run:
    def __init__(self, server, scenario, workdir, stock=False):
        self.server = server
        self.s = scenario
        self.stock = stock
        self.hc = server.client()
        self.manager = bp_v1.BreakpointManager(self.hc)
        self.workdir = workdir
        self.stack = 'ix-%s' % uuid.uuid4().hex[:8]
        self.secret = 'hidden-%s' % uuid.uuid4().hex[:12]
        self.name = templates.resource_name(scenario['name'],
                                            scenario['family'])
        self.commands = []
        self.out = Outcome()
        self.held = self.prior = None
        self.main_proc = None

    # -- commands ------------------------------------------------------
    def note(self, line):
        self.commands.append(line)

    def osc(self, *argv, check=True):
        self.note('openstack ' + shlex.join(argv))
        code, out, err = conftest.run_openstack(self.server, *argv)
        self.out.texts.append(out + err)
        if check and code != 0:
            raise AssertionError('`openstack %s` exited %s: %s'
                                 % (shlex.join(argv), code,
                                    (err or out).strip()[-800:]))
        return code, out, err

    def osc_bounded(self, *argv):
        """A command that may never end, bounded.

        Stock's cancel or update ``--wait`` behind a native hook no one
        clears never ends: in a process of its own, ended after
        :data:`TIMEOUT` seconds as a :class:`utils.Timeout`.
        """
        proc = self.osc_background(*argv)
        try:
            out, _err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _err = proc.communicate()
            self.out.texts.append(out)
            raise utils.Timeout('%s: `openstack %s` did not end in %ss'
                                % (self.stack, shlex.join(argv), TIMEOUT))
        self.out.texts.append(out)
        return proc.returncode, out

    def osc_background(self, *argv):
        self.note('openstack ' + shlex.join(argv))
        env = dict(os.environ, **self.server.env)
        return subprocess.Popen((OPENSTACK,) + argv, env=env,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True)

    def write(self, filename, content):
        path = os.path.join(self.workdir, '%s-%s' % (self.stack, filename))
        with open(path, 'w', encoding='utf-8') as out:
            json.dump(content, out, ensure_ascii=False, indent=1)
        shown = json.dumps(content, ensure_ascii=False)
        self.note('# %s:\n# %s' % (path, shown))
        return path

    def template_args(self, version, present=True, tag='t'):
        s = self.s
        op = s['operation']
        fail = ((s['hold'] == 'on-failure' or op == 'rollback')
                and (version == 1 or op == 'create'))
        body, held = templates.template(
            s['family'], self.name, version, fail=fail,
            replace=(op == 'update-replace' and version == 1),
            present=present)
        inner = os.path.join(self.workdir, 'inner.yaml')
        with open(inner, 'w') as out:
            json.dump(templates.files()['inner.yaml'], out)
        path = os.path.join(self.workdir,
                            '%s-%s%d.yaml' % (self.stack, tag, version))
        with open(path, 'w', encoding='utf-8') as out:
            json.dump(body, out, ensure_ascii=False, indent=1)
        self.note('# %s: %s' % (path, json.dumps(body, ensure_ascii=False)))
        return ['-t', path, '--parameter',
                '%s=%s' % (templates.SECRET_PARAM, self.secret)], held

    # -- the scenario --------------------------------------------------
    def refused_up_front(self):
        """A breakpoint on a name no release could reach is refused.

        Heat's API cannot address a resource whose name is not ASCII
        (``breakpoints.NOT_ASCII``): the breakpoint is refused in one line
        before anything is created, whatever else the scenario would do,
        where stock Heat's native hook there could never be released.
        Returns the problems found.
        """
        args, held = self.template_args(0)
        # The name is refused whatever the kind: a create takes a plain
        # breakpoint (an on-change one would be refused for its kind).
        code, out, err = self.osc('stack', 'create', self.stack, *args,
                                  '--breakpoint', held, check=False)
        # The reason, whatever path of the held name it quotes.
        words = breakpoints.NOT_ASCII.split(': ', 1)[1]
        problems = []
        if code != 1 or words not in err:
            problems.append('a breakpoint on %r was not refused up front '
                            '(exit %s): %s'
                            % (held, code, (err or out)[-300:]))
        if any(st.stack_name == self.stack for st in self.hc.stacks.list()):
            problems.append('the refused create made stack %s' % self.stack)
        return problems

    def run(self):
        s = self.s
        op = s['operation']
        log_start = self._log_size()
        self.main_proc = None
        try:
            self._run(op)
        finally:
            if self.main_proc is not None and self.main_proc.poll() is None:
                self.main_proc.kill()
                self.main_proc.wait()
            self._collect(log_start)
        return self.out

    def _run(self, op):
        if op != 'create':
            present = op != 'update-add'
            args, held = self.template_args(0, present)
            env = []
            if op == 'delete':
                env = self._delete_env(held)
            code, _out, _err = self.osc('stack', 'create', self.stack, *args,
                                        *env, '--wait', check=False)
            if code != 0:
                # Refused or failed before the operation under test (a
                # name Heat refuses): the reference must end the same.
                self.held = self.prior = None
                self.out.wait_code = code
                return
            self.out.before_ids = self._ids()
        version = 0 if op in ('create', 'delete') else 1
        args, held = self.template_args(version)
        self.held = held
        self.prior = 'tail' if op == 'delete' else 'first'
        main = self._main_args(op, args, held)
        proc = self.osc_background(*main)
        self.main_proc = proc
        self._drive(held)
        self._finish()
        try:
            self.out.wait_code = proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            self.out.wait_code = 'timeout'
        printed = proc.stdout.read()
        self.out.texts.append(printed)
        # --wait returns once the stack is held or done: which, it says.
        self.out.wait_returned_held = ' is held at' in printed

    def _delete_env(self, held):
        """A delete's holds live in the stored environment."""
        s = self.s
        if self.stock:
            hook = native_hook(s['hold'], 'delete')
            if s['setter'] in ('set', 'continue-to'):
                hook_env = templates.stock_hooks_env('tail', 'pre-delete')
                if hook:
                    hook_env['resource_registry']['resources'].update(
                        templates.stock_hooks_env(held, hook)[
                            'resource_registry']['resources'])
            elif hook:
                hook_env = templates.stock_hooks_env(held, hook)
            else:
                return []
            return ['-e', self.write('env.json', hook_env)]
        extra = []
        if s['setter'] in ('set', 'continue-to'):
            extra = [{'resource': 'tail', 'action': 'delete'}]
        if s['setter'] == 'set':
            return ['-e', self.write('env.json', {'breakpoints': extra})]
        return ['-e', self.write('env.json', templates.breakpoint_env(
            held, 'delete', extra))]

    def _main_args(self, op, args, held):
        s = self.s
        if op == 'delete':
            return ['stack', 'delete', self.stack, '-y', '--wait']
        verb = ['stack', 'create', self.stack] if op == 'create' else \
            ['stack', 'update', self.stack]
        extra = ['--wait']
        if op == 'rollback':
            extra += ['--rollback', 'enabled']
        if self.stock:
            hook = reference_hook(s)
            hooks = {}
            if s['setter'] in ('set', 'continue-to'):
                hooks[self.prior] = self._prior_hook()
            if hook:
                hooks[held] = hook
            if hooks:
                env = {'resource_registry': {'resources': {}}}
                for path, kind in hooks.items():
                    env['resource_registry']['resources'].update(
                        templates.stock_hooks_env(path, kind)[
                            'resource_registry']['resources'])
                extra += ['-e', self.write('env.json', env)]
            return verb + args + extra
        if s['setter'] == 'cli':
            extra += [FLAG[s['hold']], held]
        elif s['setter'] == 'env':
            extra += ['-e', self.write('env.json', templates.breakpoint_env(
                held, s['hold']))]
        elif s['setter'] == 'set':
            extra += ['--breakpoint', self.prior]
        elif s['setter'] == 'continue-to':
            extra += ['--breakpoint', self.prior, FLAG[s['hold']], held]
        return verb + args + extra

    def _held_rows(self):
        if self.stock:
            return self._stock_held_rows()
        try:
            return self.manager.held_now(self.stack)[1]
        except Exception:
            return []

    def _stock_held_rows(self):
        """Pending native hooks, from stock Heat's own hook events.

        ``hook poll`` knows only the pre-* hooks; the events say the
        post-* ones too.
        """
        try:
            evs = self.hc.events.list(self.stack, nested_depth=3,
                                      sort_dir='asc')
        except Exception:
            return []
        pending = {}
        for ev in evs:
            reason = ev.resource_status_reason or ''
            paused, cleared = PAUSED.search(reason), CLEARED.search(reason)
            if paused:
                pending[ev.resource_name] = paused.group(1)
            elif cleared:
                pending.pop(ev.resource_name, None)
        paths = {p.split('/')[-1]: p for p in (self.held, self.prior) if p}
        return [{'resource': paths.get(name, name), 'hook': hook,
                 'action': hook.split('-')[1].upper(), 'when': hook,
                 'why': '', 'state': 'held'}
                for name, hook in pending.items()]

    def _stock_clear(self, row):
        """Stock's release: ``hook clear``, or the unset_hook signal."""
        path, hook = row['resource'], row['hook']
        if hook.startswith('pre-'):
            self.osc('stack', 'hook', 'clear', self.stack, path,
                     '--' + hook, check=False)
            return
        stack, name = self.stack, path
        if '/' in path:
            owner, name = path.rsplit('/', 1)
            stack = self.hc.resources.get(
                self.stack, owner).physical_resource_id
        self.osc('stack', 'resource', 'signal', stack, name, '--data',
                 json.dumps({'unset_hook': hook}), check=False)

    def _in_progress(self):
        try:
            st = self.hc.stacks.get(self.stack)
        except Exception:
            return False  # deleted
        return st.stack_status.endswith('IN_PROGRESS')

    def _wait_held(self, path=None, timeout=TIMEOUT):
        """Held rows (at ``path`` if given) or [] once the stack ended."""
        deadline = time.monotonic() + timeout
        started = False
        while time.monotonic() < deadline:
            rows = self._held_rows()
            for row in rows:
                key = (row.get('resource'), row.get('action'),
                       row.get('when'), row.get('why'))
                if key not in self.out.holds_seen:
                    self.out.holds_seen.append(key)
            if rows and (path is None or any(r['resource'] == path
                                             for r in rows)):
                return rows
            if self._in_progress():
                started = True
            elif started or self.main_proc.poll() is not None:
                return []
            time.sleep(0.5)
        raise utils.Timeout('%s: nothing held at %s in %ss'
                            % (self.stack, path, timeout))

    def _drive(self, held):
        s = self.s
        if s['setter'] in ('set', 'continue-to'):
            if not self._wait_held(self.prior):
                return
            if self.stock:
                self._stock_clear({'resource': self.prior,
                                   'hook': self._prior_hook()})
            elif s['setter'] == 'set':
                self.osc('stack', 'breakpoint', 'set', self.stack, held,
                         *([SET_FLAG[s['hold']]] if s['hold'] in SET_FLAG
                           else []))
                self.osc('stack', 'breakpoint', 'clear', self.stack,
                         self.prior)
            else:
                self.osc('stack', 'breakpoint', 'continue', self.stack,
                         '--to', held)
        rows = self._wait_held(held)
        if not rows:
            return
        self._release(held, rows)

    def _prior_hook(self):
        op = self.s['operation']
        return 'pre-create' if op == 'create' else \
            'pre-delete' if op == 'delete' else 'pre-update'

    def _release(self, held, rows):
        release = self.s['release']
        st = self.stack
        if release == 'cancel':
            # a create: Heat's only cancel (heatclient refuses the other)
            no_rollback = ['--no-rollback'] if (
                self.s['operation'] == 'create') else []
            self.osc_bounded('stack', 'cancel', st, *no_rollback, '--wait')
        elif release == 'supersede':
            args, _held = self.template_args(
                0 if self.s['operation'] == 'create' else 1, tag='s')
            self.osc_bounded('stack', 'update', st, *args, '--wait')
        elif self.stock:
            for row in rows:
                if row['resource'] == held:
                    self._stock_clear(row)
        elif release == 'step':
            self.osc('stack', 'breakpoint', 'step', st, held)
        elif release == 'continue':
            self.osc('stack', 'breakpoint', 'continue', st)
        elif release == 'hook-clear':
            # As a stock user clears a hook: hook clear with the hook's
            # kind (heatclient guesses pre-update during any update), the
            # unset_hook signal for a post-* hook (hook clear has none).
            for row in rows:
                if row['resource'] == held:
                    self._stock_clear(row)
        elif release == 'retry':
            self.osc('stack', 'breakpoint', 'retry', st, held)
        elif release == 'dap-continue':
            self.note('# the DAP adapter\'s continue: '
                      'BreakpointManager.release(%r, %r, "clear"); the same as'
                      % (st, held))
            self.note('openstack stack breakpoint clear %s %s'
                      % (st, shlex.quote(held)))
            row = [r for r in rows if r['resource'] == held]
            self.manager.release(st, held, protocol.RELEASE_CLEAR, row)

    def _finish(self):
        """Release whatever else holds, the plain way, until the end."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            rows = self._wait_held(None)
            if not rows:
                return
            if self.stock:
                for row in rows:
                    self._stock_clear(row)
            else:
                self.osc('stack', 'breakpoint', 'continue', self.stack,
                         check=False)
            time.sleep(0.5)
        raise utils.Timeout('%s still in progress' % self.stack)

    # -- what happened -------------------------------------------------
    def _ids(self):
        try:
            return {(r.resource_name, r.parent_resource if hasattr(
                r, 'parent_resource') else None): r.physical_resource_id
                for r in self.hc.resources.list(self.stack, nested_depth=3)}
        except Exception:
            return {}

    def _log_size(self):
        try:
            return os.path.getsize(self.server.log_file)
        except OSError:
            return 0

    def _collect(self, log_start):
        out = self.out
        try:
            st = self.hc.stacks.get(self.stack)
            out.status, out.reason = st.stack_status, st.stack_status_reason
            out.outputs = {o['output_key']: o.get('output_value')
                           for o in (st.outputs or [])}
        except Exception:
            out.status = 'GONE'
        out.after_ids = self._ids()
        try:
            evs = self.hc.events.list(self.stack, nested_depth=3)
        except Exception:
            evs = []
        for ev in evs:
            out.texts.append('%s %s %s' % (ev.resource_name,
                                           ev.resource_status,
                                           ev.resource_status_reason))
            if ev.resource_status == 'CREATE_COMPLETE':
                key = ev.resource_name
                out.creates.setdefault(key, set()).add(
                    ev.physical_resource_id)
        out.held_at_end = self._held_rows() if out.status != 'GONE' else []
        try:
            with open(self.server.log_file, errors='replace') as log:
                log.seek(log_start)
                out.log = log.read()
        except OSError:
            out.log = ''
