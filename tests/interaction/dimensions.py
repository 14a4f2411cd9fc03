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
"""The product's dimensions, which of their values can meet, the plan.

A scenario is one value of each dimension below. ``allowed`` says which
cannot meet (a hold "on replace" in a create; a retry of a hold that is
not a failure; a family that cannot fail asked to). ``plan(seed)`` is the
whole tier, ``plan(seed)[:SLICE]`` what CI runs: the generator puts the
scenarios that cover the most pairs first. Pure: no Heat, no I/O.
"""

import os

from tests.interaction import pairwise

HOLDS = ('before', 'after', 'on-failure', 'on-change', 'on-replace',
         'delete')
SETTERS = ('cli', 'env', 'set', 'continue-to')
SIGNAL_TRANSPORTS = ('CFN_SIGNAL', 'HEAT_SIGNAL', 'TEMP_URL_SIGNAL',
                     'ZAQAR_SIGNAL', 'NO_SIGNAL')
FAMILIES = (('test', 'random', 'sim', 'wait')
            + tuple('sd-' + t for t in SIGNAL_TRANSPORTS)
            + ('nested', 'group', 'remote'))
OPERATIONS = ('create', 'update-change', 'update-replace', 'update-add',
              'delete', 'rollback')
RELEASES = ('step', 'continue', 'hook-clear', 'retry', 'dap-continue',
            'cancel', 'supersede')
NAMES = ('ascii', 'cyrillic', 'emoji', 'longest')

DIMENSIONS = {
    'hold': HOLDS,
    'setter': SETTERS,
    'family': FAMILIES,
    'operation': OPERATIONS,
    'release': RELEASES,
    'name': NAMES,
}

# What each family's held resource can be made to do by a template.
CAN = {
    'test': {'change', 'replace', 'fail'},
    'random': {'replace'},
    'sim': {'change'},
    'wait': set(),
    'nested': {'change', 'fail'},
    'group': {'change', 'replace', 'fail'},
    'remote': {'change', 'fail'},
}
CAN.update({'sd-' + t: {'change'} for t in SIGNAL_TRANSPORTS})

UPDATES = ('update-change', 'update-replace', 'update-add', 'rollback')
# The operations in which a hold of each kind can happen at all.
HOLD_OPERATIONS = {
    'before': ('create',) + UPDATES,
    'after': ('create', 'update-change', 'update-replace', 'update-add'),
    'on-failure': ('create', 'update-change', 'rollback'),
    'on-change': ('update-change', 'update-replace', 'update-add',
                  'rollback'),
    'on-replace': ('update-replace',),
    'delete': ('delete',),
}
# What the family must be able to do for the operation.
NEEDS = {'update-change': 'change', 'update-replace': 'replace',
         'rollback': 'fail'}

DEFAULT_SEED = 52
# Three scenarios a worker: about four minutes on 2 CPUs.
SLICE = 9
SLOW_RELEASES = ('cancel', 'supersede')


def allowed(s):
    """False as soon as the (partial) scenario cannot be run."""
    hold, op = s.get('hold'), s.get('operation')
    family, release = s.get('family'), s.get('release')
    setter = s.get('setter')
    if hold and op and op not in HOLD_OPERATIONS[hold]:
        return False
    if family and op in NEEDS and NEEDS[op] not in CAN[family]:
        return False
    if family and hold == 'on-failure' and 'fail' not in CAN[family]:
        return False
    if release == 'retry' and hold and hold != 'on-failure':
        return False
    if release in ('cancel', 'supersede') and op == 'delete':
        return False
    # Stack delete has no breakpoint options: a delete hold is set in the
    # environment or during the operation.
    if setter == 'cli' and (hold == 'delete' or op == 'delete'):
        return False
    return True


def scenario_id(s):
    return '-'.join(s[name] for name in DIMENSIONS)


def plan(seed=DEFAULT_SEED):
    return pairwise.generate(DIMENSIONS, allowed, seed)


def selection(seed=DEFAULT_SEED, which=None):
    """The scenarios to run: ``which`` 'all' or the CI slice (default)."""
    which = which or os.environ.get('HEAT_BREAKPOINT_INTERACTION', 'slice')
    scenarios = plan(seed)
    if which == 'all':
        return scenarios
    # CI's slice leaves out the releases whose stock reference cannot end
    # (a native hook keeps a cancelled or superseded operation's check
    # waiting: 240 s each) and whose subject ran past the same limit under
    # CI's load, which tests/functional/test_cancel.py and
    # test_fix_and_continue.py cover; the whole run has them.
    quick = [s for s in scenarios if s['release'] not in SLOW_RELEASES]
    return quick[:SLICE]


def seed_from_env():
    return int(os.environ.get('HEAT_BREAKPOINT_INTERACTION_SEED',
                              DEFAULT_SEED))
