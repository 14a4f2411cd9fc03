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
"""Soak: does anything of ours stay behind after many operations?

``--cycles`` (default 200) create/step/continue/update/delete cycles of a
chain ``A -> B -> C -> D`` of ``OS::Heat::TestResource`` on a local Heat
(plugin enabled): create held at ``B``, ``step`` (held at ``C``),
``continue``; update held at ``C`` (pre-update), ``continue``; delete.
Side by side, the same cycles without breakpoints on a second local Heat
(plugin enabled too). Then, servers stopped:

* rows of ours left (our three tables and ``breakpoint_released``
  markers): target 0, without running any purge;
* the database size, compacted (``VACUUM INTO``), as the run left it and
  after the operator's ``heat-manage purge_deleted`` plus
  ``heat-breakpoint-manage purge``: target with breakpoints <= 1.05 x
  without. (Before purge_deleted, the soft-deleted stacks still hold their
  events, and a hold adds events of its own: those are Heat's rows,
  reported for information.)
"""

import os
import sqlite3
import subprocess
import sys
import time

import _common

from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons

TARGET = 1.05
BIN = os.path.dirname(sys.executable)
OURS = ('breakpoint_operation', 'breakpoint_hold_target',
        'breakpoint_pause')


def template(value):
    resources, previous = {}, None
    for name in 'ABCD':
        props = {'value': value if previous is None else
                 {'get_attr': [previous, 'output']}}
        resources[name] = {'type': 'OS::Heat::TestResource',
                           'properties': props}
        previous = name
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def wait_held(server, name, resource, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = server.query(
            'SELECT r.status_reason FROM resource r JOIN stack s ON '
            'r.stack_id = s.id WHERE s.name = ? AND s.deleted_at IS NULL '
            'AND r.name = ?', name, resource)
        if rows and reasons.parse_held(rows[0][0]):
            return
        time.sleep(0.02)
    raise _common.BenchError('%s/%s not held' % (name, resource))


def release(hc, name, resource, hook, how):
    hc.resources.signal(name, resource, data={'unset_hook': hook,
                                              protocol.SIGNAL_KEY: how})


def wait_deleted(server, name, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = server.query('SELECT deleted_at FROM stack WHERE name = ? '
                            'AND owner_id IS NULL', name)
        if rows and rows[0][0] is not None:
            return
        time.sleep(0.02)
    raise _common.BenchError('%s not deleted' % name)


def cycle(server, hc, index, with_breakpoints):
    name = 'soak%04d' % index
    env = {'breakpoints': ['B']} if with_breakpoints else {}
    hc.stacks.create(stack_name=name, template=template('one'),
                     environment=env)
    if with_breakpoints:
        wait_held(server, name, 'B')
        release(hc, name, 'B', 'pre-create', protocol.RELEASE_STEP)
        wait_held(server, name, 'C')
        release(hc, name, 'C', 'pre-create', protocol.RELEASE_CONTINUE)
    server.wait_stack(name, 'CREATE')
    env = ({'breakpoints': [{'resource': 'C', 'action': 'update'}]}
           if with_breakpoints else {})
    hc.stacks.update(name, template=template('two'), environment=env)
    if with_breakpoints:
        wait_held(server, name, 'C')
        release(hc, name, 'C', 'pre-update', protocol.RELEASE_CONTINUE)
    server.wait_stack(name, 'UPDATE')
    hc.stacks.delete(name)
    wait_deleted(server, name)


def soak(label, cycles, with_breakpoints, keep):
    """Run the cycles on a fresh server; return what the database holds."""
    with _common.servers([_common.PLUGIN], keep=keep) as (server,):
        hc = server.client()
        began = time.monotonic()
        for index in range(cycles):
            cycle(server, hc, index, with_breakpoints)
            if (index + 1) % 25 == 0:
                _common.note('  %s: %d cycles, %.0f s' % (
                    label, index + 1, time.monotonic() - began))
        elapsed = time.monotonic() - began
        server.stop()
        conf = os.path.join(server.state_dir, 'heat.conf')
        path = os.path.join(server.state_dir, 'heat.sqlite')
        found = {'seconds': elapsed, 'rows': ours(path),
                 'size': compacted(path)}
        manage('heat-breakpoint-manage', conf, 'purge')
        found['rows_purged'] = ours(path)
        found['purge_deleted'] = manage('heat-manage', conf,
                                        'purge_deleted', '-g', 'seconds',
                                        '0', check=False)
        if not found['purge_deleted']:
            found['size_purged'] = compacted(path)
        else:
            found['size_purged'] = compacted(path, drop_events=True)
    return found


def manage(command, conf, *argv, check=True):
    """Run an operator's command; its last error line, or ''."""
    result = subprocess.run([os.path.join(BIN, command), '--config-file',
                             conf] + list(argv), capture_output=True,
                            text=True, timeout=600)
    if not result.returncode:
        return ''
    if check:
        raise _common.BenchError('%s %s: %s' % (command, argv,
                                                result.stderr[-2000:]))
    return result.stderr.strip().splitlines()[-1]


def ours(path):
    with sqlite3.connect(path) as db:
        counts = {}
        for table in OURS:
            try:
                counts[table] = db.execute(
                    'SELECT count(*) FROM %s' % table).fetchone()[0]
            except sqlite3.OperationalError:  # never created
                counts[table] = 0
        counts['breakpoint_released'] = db.execute(
            "SELECT count(*) FROM resource_data WHERE key = "
            "'breakpoint_released'").fetchone()[0]
    return counts


def compacted(path, drop_events=False):
    """Bytes of the database once compacted (free pages left out).

    With ``drop_events``, of a copy without the events of soft-deleted
    stacks (and their properties data): what ``heat-manage
    purge_deleted`` removes first, for when it cannot run.
    """
    target = path + '.vacuum'
    for name in (target, target + '2'):
        if os.path.exists(name):
            os.unlink(name)
    with sqlite3.connect(path) as db:
        db.execute("VACUUM INTO '%s'" % target)
    if drop_events:
        with sqlite3.connect(target) as db:
            gone = ('SELECT id FROM stack WHERE deleted_at IS NOT NULL')
            rpd = ('SELECT rsrc_prop_data_id FROM event WHERE stack_id IN '
                   '(%s)' % gone)
            db.execute('DELETE FROM resource_properties_data WHERE id IN '
                       '(%s) AND id NOT IN (SELECT rsrc_prop_data_id FROM '
                       'event WHERE stack_id NOT IN (%s))' % (rpd, gone))
            db.execute('DELETE FROM event WHERE stack_id IN (%s)' % gone)
        with sqlite3.connect(target) as db:
            db.execute("VACUUM INTO '%s'" % (target + '2'))
        os.unlink(target)
        target += '2'
    size = os.path.getsize(target)
    os.unlink(target)
    return size


def report_size(log, found, how, instead=''):
    """The database's size as left and purged, and a purge_deleted failed.

    ``how`` the database was made comparable (``compacted``); ``instead``:
    what was done when purge_deleted failed, if anything.
    """
    log('  %-35s%8.1f KiB' % ('database, %s, as left:' % how,
                              found['size'] / 1024.0))
    log('  ... after purge_deleted + purge:   %8.1f KiB'
        % (found['size_purged'] / 1024.0))
    if found['purge_deleted']:
        log('  (heat-manage purge_deleted failed: %s%s)'
            % (found['purge_deleted'], instead))


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--cycles', 'cycles per side', 200, 10)
    args = parser.parse_args()
    clock = _common.start('soak: %d create/step/continue/update/delete '
                          'cycles' % args.cycles, args.quick)
    with_bp = soak('with breakpoints', args.cycles, True, args.keep)
    without = soak('without breakpoints', args.cycles, False, args.keep)
    note = _common.note
    note('')
    for title, found in (('with breakpoints', with_bp),
                         ('without breakpoints', without)):
        note('-- %s: %d cycles in %.0f s'
             % (title, args.cycles, found['seconds']))
        note('  rows of ours left by the run:      %s' % found['rows'])
        note('  after purge_deleted + our purge:   %s'
             % found['rows_purged'])
        report_size(note, found, 'compacted', '; its removal of the deleted '
                    'stacks\' events done on a copy instead')
    left = sum(with_bp['rows'].values())
    as_left = with_bp['size'] / float(without['size'])
    purged = with_bp['size_purged'] / float(without['size_purged'])
    note('')
    note('Summary:')
    note('  rows of ours left, with breakpoints:        %d  %s'
         % (left, 'met' if left == 0 else 'MISSED'))
    note('  database with / without, as left:          %.3f  (Heat\'s '
         'events of soft-deleted stacks; information)' % as_left)
    note('  database with / without, after purge:      %.3f  %s (target '
         '<= %.2f)' % (purged, 'met' if purged <= TARGET else 'MISSED',
                       TARGET))
    clock.footer()
    return 0 if left == 0 and purged <= TARGET else 1


if __name__ == '__main__':
    raise SystemExit(main())
