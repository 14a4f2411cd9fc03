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
"""Chaos under load, the full run: engines killed -9 for five minutes.

On the distributed tier (RabbitMQ + MariaDB + heat-api + 3 heat-engines,
as tests/distributed/harness.py starts them; as root, it installs the
Debian packages if they are missing), two deployments side by side, at
the same time: ``chaos`` (the plugin; 20 clients step and continue
4-resource chains with 3 breakpoints each) and ``chaos-off`` (the plugin
disabled; the same clients, chains and breakpoints, held there by
Heat's native hooks, at the same pace). Every ``--kill-every`` seconds
each kills -9 a random engine and starts a fresh one. Then the checks of
tests/distributed/test_6_chaos.py (which runs the same for 60 s in CI),
and the figures: stacks, holds parked and released, kills, stacks stock
Heat left behind (recovered with ``stack update --existing``) with the
plugin and without.
"""

import os
import sys
import time

import _common

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.distributed import chaos  # noqa: E402
from tests.distributed import harness  # noqa: E402


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--seconds', 'seconds of chaos', 300, 60, type=float)
    parser.add_argument('--kill-every', type=float, default=10,
                        help='seconds between kills (default 10)')
    parser.add_argument('--stacks', type=int, default=20,
                        help='clients, each with a stack at a time '
                             '(default 20)')
    args = parser.parse_args()
    seconds = args.seconds
    clock = _common.start('chaos: %.0f s, a kill -9 every %.0f s, %d '
                          'clients' % (seconds, args.kill_every, args.stacks),
                          args.quick)
    harness.ensure_packages(log=_common.note)
    deployment = harness.Deployment()
    failed = True
    try:
        deployment.start_services()
        started = time.monotonic()
        on, off = chaos.start_clusters(deployment)
        _common.note('deployments up in %.0f s'
                     % (time.monotonic() - started))
        with_plugin, disabled, found, lines = chaos.side_by_side_run(
            on, off, seconds, args.kill_every, args.stacks)
        for line in lines:
            _common.note(line)
        _common.note('')
        _common.note('Summary:')
        _common.note('  checks of test_6_chaos: %s' % (
            'met' if not found else 'MISSED'))
        for line in found[:30]:
            _common.note('    ' + line)
        failed = bool(found)
    finally:
        deployment.stop()
        if args.keep or failed:
            _common.note('configuration and logs kept in %s'
                         % deployment.base_dir)
        else:
            import shutil
            shutil.rmtree(deployment.base_dir, ignore_errors=True)
    clock.footer()
    return 1 if failed else 0


if __name__ == '__main__':
    raise SystemExit(main())
