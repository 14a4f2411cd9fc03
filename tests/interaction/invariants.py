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
"""What must hold whatever the combination: each check returns problems.

A problem is one line saying what differs; an empty list is a pass. The
reference is the same scenario on a server with the plugin disabled
(:mod:`tests.interaction.runner`).
"""

import re

TRACEBACK = re.compile(r'^Traceback \(most recent call last\)', re.M)
CANCEL_END = ('ROLLBACK_COMPLETE', 'UPDATE_ROLLBACK_COMPLETE',
              'CREATE_FAILED', 'UPDATE_FAILED')


def ends_as_stock(run, ref):
    got, want = run.out, ref.out
    problems = []
    if got.status != want.status:
        problems.append('status %s, stock %s (reason: %s)'
                        % (got.status, want.status, got.reason))
    if got.status == want.status and got.outputs != want.outputs:
        problems.append('outputs %r, stock %r' % (got.outputs,
                                                  want.outputs))
    if got.wait_returned_held:
        if got.wait_code != 0:
            problems.append('--wait returned %s at a hold, not 0'
                            % got.wait_code)
    elif not want.wait_returned_held and got.wait_code != want.wait_code:
        problems.append('--wait exit code %s, stock %s'
                        % (got.wait_code, want.wait_code))
    return problems


def none_created_twice(run, ref):
    problems = []
    for name, ids in sorted(run.out.creates.items()):
        want = len(ref.out.creates.get(name, ()))
        if len(ids) > max(want, 1):
            problems.append('%s created %d times (%s), stock %d'
                            % (name, len(ids), ', '.join(sorted(
                                str(i) for i in ids)), want))
    return problems


def nothing_left_held(run):
    return ['still %s at the end: %s %s'
            % (row.get('state'), row.get('resource'), row.get('action'))
            for row in run.out.held_at_end]


def held_as_asked(run, ref):
    """The hold the scenario asked for happened."""
    held = run.held
    if held is None:  # the stack was refused before the operation
        return []
    seen = [key for key in run.out.holds_seen if key[0] == held]
    if seen:
        return []
    if run.s['setter'] in ('set', 'continue-to') and not [
            k for k in run.out.holds_seen if k[0] == run.prior]:
        return ['never held at %s, where %s is set from'
                % (run.prior, run.s['setter'])]
    return ['never held at %s (holds seen: %s)'
            % (held, run.out.holds_seen or 'none')]


def nothing_hidden_shown(run):
    secret = run.secret
    problems = []
    for key, value in run.out.outputs.items():
        if secret in str(value):
            problems.append('output %s shows the hidden value' % key)
    for text in run.out.texts:
        if secret in text:
            line = [ln for ln in text.splitlines() if secret in ln][0]
            problems.append('a command or event shows the hidden value: '
                            '%s' % line.strip()[:200])
            break
    for line in run.out.log.splitlines():
        if secret in line:
            problems.append("Heat's log shows the hidden value: %s"
                            % line.strip()[:200])
            break
    return problems


def no_traceback(run):
    match = TRACEBACK.search(run.out.log)
    if not match:
        return []
    tail = run.out.log[match.start():match.start() + 1500].splitlines()
    return ["traceback in Heat's log: %s" % ' | '.join(tail[-3:])]


def cancel_rolls_back(run):
    """A cancel ends in rollback; the held resource's work not done."""
    if run.s['release'] != 'cancel' or run.held is None:
        return []  # no cancel, or the stack refused before the operation
    problems = []
    out = run.out
    if run.s['operation'] == 'create':
        # Heat cancels a create only without rollback (``stack cancel
        # --no-rollback``; with rollback heatclient refuses it): it stops
        # there, CREATE_FAILED, and a resource held before its create
        # stays uncreated
        if out.status != 'CREATE_FAILED':
            problems.append('cancelled create ended %s, not CREATE_FAILED'
                            % out.status)
        leaf = run.held.split('/')[-1]
        made = [pid for (name, _parent), pid in out.after_ids.items()
                if name == leaf and pid]
        if run.s['hold'] == 'before' and made:
            problems.append('%s created although the create was cancelled '
                            'before it (%s)' % (leaf, ', '.join(made)))
    elif out.status not in CANCEL_END or 'ROLLBACK' not in (
            out.status or ''):
        problems.append('cancel ended %s, not in a rollback'
                        % out.status)
    before = {k: v for k, v in out.before_ids.items()}
    after = out.after_ids
    for key, pid in after.items():
        if key in before and before[key] != pid:
            problems.append('%s replaced although the update was '
                            'cancelled (%s -> %s)' % (key[0], before[key],
                                                      pid))
    return problems


def check(run, ref):
    """Every invariant; ``ref`` None: those needing stock's end are not.

    (A stock reference that never ended: see scenarios.run_scenario.)
    """
    against_stock = [] if ref is None else (
        ends_as_stock(run, ref) + none_created_twice(run, ref)
        + held_as_asked(run, ref))
    return (against_stock + nothing_left_held(run)
            + nothing_hidden_shown(run) + no_traceback(run)
            + cancel_rolls_back(run))
