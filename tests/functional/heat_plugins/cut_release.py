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
"""TEST ONLY: releases cut off right after their claim, in a real Heat.

Heat imports every module of its ``[DEFAULT] plugin_dirs`` when it loads
its resource plugins; a local server given this directory there
(``tests/functional/test_lost_release.py``) imports this one. Then the
claim of a release
(``heat_breakpoint.engine.commands.releases._claim``, the real one, its
transaction committed) is followed, for the resources named in
``$CUT_RELEASE`` (``how:name``, space-separated), by:

* ``die``: SIGKILL to the server, as a heat-engine killed -9 between the
  claim and sending the check on;
* ``fail``: :class:`ReleaseCutOff` raised, as a database error would cut
  a release off half-way in an engine that goes on running.

``$CUT_RELEASE_STUCK_SECONDS``, if set, is the age from which the
engine takes any marker for lost (``lost_releases.STUCK_SECONDS``, a
minute in the product), so that a test need not wait a minute.
Without ``$CUT_RELEASE`` this module changes nothing. Never deploy it.
"""

import os
import signal

from heat_breakpoint.engine.commands import lost_releases
from heat_breakpoint.engine.commands import releases

CUT = 'CUT_RELEASE'
STUCK = 'CUT_RELEASE_STUCK_SECONDS'


class ReleaseCutOff(Exception):
    """A release cut off after its claim, its engine still running."""


def cuts(text):
    """``{resource name: how}`` from ``$CUT_RELEASE``."""
    found = {}
    for item in (text or '').split():
        how, _sep, name = item.partition(':')
        if how not in ('die', 'fail') or not name:
            raise ValueError('%s: %r is not die:NAME or fail:NAME'
                             % (CUT, item))
        found[name] = how
    return found


def install(cut, stuck=None):
    """Wrap the real claim of a release; set the stuck age if given."""
    claim = releases._claim

    def claim_then_cut(rsrc, *args, **kwargs):
        claimed = claim(rsrc, *args, **kwargs)
        how = cut.get(rsrc.name) if claimed else None
        if how == 'die':
            os.kill(os.getpid(), signal.SIGKILL)
        elif how == 'fail':
            raise ReleaseCutOff('release of %s cut off after its claim'
                                % rsrc.name)
        return claimed
    releases._claim = claim_then_cut
    if stuck is not None:
        lost_releases.STUCK_SECONDS = stuck


if os.environ.get(CUT):
    install(cuts(os.environ[CUT]),
            float(os.environ[STUCK]) if os.environ.get(STUCK) else None)
