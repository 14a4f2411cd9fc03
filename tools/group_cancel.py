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
"""A cancelled update held inside ResourceGroup members, stock and ours.

How often does the cancel end ``ROLLBACK_FAILED``, and is a member's
``rep`` replaced anyway? The same rounds on two local servers at once:
one with breakpoints (``--breakpoint-on-replace 'group/*/rep'``, then
``BreakpointManager.cancel`` or ``openstack stack cancel``, what is held
during the rollback released), one with ``[breakpoint] enabled = false``
and Heat's native ``pre-update`` hooks on the same resources (``openstack
stack cancel``, the hooks cleared during the rollback as a stock user
clears them). The template is the functional tier's
``tests/functional/templates/cancel_group.yaml``.

Heat 27's own race shows on both: the rollback's update of a member
stack is preempted by a second check of the same traversal (a failed
check of the cancelled update sends it again), and the member reports
``Stack UPDATE cancelled``. Usage::

    .venv/bin/python tools/group_cancel.py --rounds 16
"""

import argparse
import collections
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

from heat_breakpoint.model import protocol
from heat_breakpoint.server import fixture
from heatclient_ext.v1 import manager as bp_v1

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, '..', 'tests', 'functional', 'templates')
OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
HOOKS = ('resource_registry:\n  resources:\n    group:\n      "*":\n'
         '        rep:\n          hooks: pre-update\n')
MEMBERS = 3


def _osc(server, *argv, check=True):
    proc = subprocess.run((OPENSTACK,) + argv, capture_output=True,
                          text=True, env=dict(os.environ, **server.env))
    if check and proc.returncode:
        raise RuntimeError('openstack %s: %s' % (' '.join(argv),
                                                 proc.stderr))
    return proc


def _reps(server, client, name):
    """Every ``rep`` row of the tree: a replacement is a row of its own."""
    db = sqlite3.connect(os.path.join(server.state_dir, 'heat.sqlite'))
    try:
        return db.execute(
            "SELECT id, nova_instance FROM resource WHERE root_stack_id = ?"
            " AND name = 'rep' ORDER BY id",
            (client.stacks.get(name).id,)).fetchall()
    finally:
        db.close()


def _until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.3)
    raise RuntimeError('timed out waiting for %s' % what)


def _paused(client, name):
    return len([e for e in client.events.list(name, nested_depth=3)
                if 'paused' in (e.resource_status_reason or '').lower()])


def rounds(server, stock, count, hooks_file, results):
    client = server.client()
    manager = bp_v1.BreakpointManager(client)
    name = 'gc-%s' % ('stock' if stock else 'ours')
    _osc(server, 'stack', 'create', name, '-t',
         os.path.join(TEMPLATES, 'cancel_group.yaml'), '--wait')
    before = _reps(server, client, name)
    for run in range(count):
        update = ['stack', 'update', name, '--existing', '--parameter',
                  'val=v%d' % (run + 2)]
        if stock:
            seen = _paused(client, name)
            _osc(server, *update, '-e', hooks_file)
            _until(lambda: _paused(client, name) > seen, 90, 'a hook')
            # refused if a member's failure ended the update first: the
            # round then ends as that failure left it
            _osc(server, 'stack', 'cancel', name, check=False)
        else:
            _osc(server, *update, '--breakpoint-on-replace', 'group/*/rep')
            held = _until(lambda: manager.held_now(name)[1], 90, 'a hold')
            if run % 2:
                _osc(server, 'stack', 'cancel', name, check=False)
            else:
                try:
                    manager.cancel(name, held)
                except Exception as exc:  # ended first, as above
                    print('%s: %s' % (name, exc), file=sys.stderr)
        while client.stacks.get(name).stack_status.endswith('IN_PROGRESS'):
            if stock:
                for member in range(MEMBERS):
                    _osc(server, 'stack', 'hook', 'clear', name,
                         'group/%d/rep' % member, '--pre-update',
                         check=False)
            else:
                for row in manager.held_now(name)[1]:
                    try:
                        manager.release(name, row['resource'],
                                        protocol.RELEASE_CONTINUE, [row])
                    except Exception:  # ended meanwhile
                        pass
            time.sleep(0.3)
        st = client.stacks.get(name)
        now = _reps(server, client, name)
        results.append({'who': 'stock' if stock else 'ours', 'run': run,
                        'status': st.stack_status,
                        'reason': st.stack_status_reason,
                        'rep replaced': now != before})
        print(json.dumps(results[-1]), flush=True)
        before = now


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=16)
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix='heat-breakpoint-group-cancel-')
    conf = os.path.join(work, 'stock.conf')
    with open(conf, 'w') as out:
        out.write('[breakpoint]\nenabled = false\n')
    hooks_file = os.path.join(work, 'hooks.yaml')
    with open(hooks_file, 'w') as out:
        out.write(HOOKS)
    servers = {
        False: fixture.LocalHeatProcess(os.path.join(work, 'ours')),
        True: fixture.LocalHeatProcess(os.path.join(work, 'stock'),
                                       config_files=[conf])}
    results = []
    try:
        for server in servers.values():
            server.start(reset=True)
        threads = [threading.Thread(target=rounds, args=(
            server, stock, args.rounds, hooks_file, results))
            for stock, server in servers.items()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for server in servers.values():
            server.remove()
        shutil.rmtree(work, ignore_errors=True)
    for who in ('stock', 'ours'):
        mine = [r for r in results if r['who'] == who]
        ends = collections.Counter(r['status'] for r in mine)
        replaced = sum(r['rep replaced'] for r in mine)
        print('%-5s %d rounds: %s; a member\'s rep replaced in %d' % (
            who, len(mine), ', '.join('%s %d' % kv for kv in
                                      sorted(ends.items())), replaced))


if __name__ == '__main__':
    main()
