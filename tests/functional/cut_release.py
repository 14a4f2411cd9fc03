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
"""TEST ONLY: the local server, its releases cut off right after the claim.

``python -m tests.functional.cut_release <heat-breakpoint-server args>``
runs the real ``heat-breakpoint-server``; once its engine runs, the claim
of a release (``heat_breakpoint.engine.releases._claim``, the real one,
its transaction committed) is followed, for the resources named in
``$CUT_RELEASE`` (``how:name``, space-separated), by:

* ``die``: SIGKILL to this process, as a heat-engine killed -9 between
  the claim and sending the check on;
* ``fail``: :class:`ReleaseCutOff` raised, as a database error would cut
  a release off half-way in an engine that goes on running.

``$CUT_RELEASE_STUCK_SECONDS``, if set, is the age from which this
engine takes any marker for lost (``lost_releases.STUCK_SECONDS``, a
minute in the product), so that a test need not wait a minute.

``tests/functional/test_lost_release.py`` uses it. Never deploy this.
"""

import os
import signal
import sys

from heat_breakpoint.server import cli

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
            raise SystemExit('%s: %r is not die:NAME or fail:NAME'
                             % (CUT, item))
        found[name] = how
    return found


def install(cut, stuck=None):
    """Wrap the real claim of a release; set the stuck age if given.

    Called once the engine runs: Heat and the plugin are imported then,
    on the backend the server chose.
    """
    from heat_breakpoint.engine import lost_releases
    from heat_breakpoint.engine import releases

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


def main(argv=None):
    cut = cuts(os.environ.get(CUT))
    stuck = os.environ.get(STUCK)
    start = cli.LocalHeat.start

    def start_then_install(heat):
        start(heat)
        install(cut, float(stuck) if stuck else None)
    cli.LocalHeat.start = start_then_install
    return cli.main(argv)


if __name__ == '__main__':
    sys.exit(main())
