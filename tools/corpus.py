#!/usr/bin/env python3
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
"""Create every template of the public corpus on a fresh local server.

Prints one line per template (its outcome and, when it did not complete,
Heat's reason), then the totals. The corpus tier of the tests runs a part
of it; this runs it whole:

    .venv/bin/python tools/corpus.py [--corpus DIR] [--only PATTERN]
                                     [--jobs N] [--json FILE]
"""

import argparse
import concurrent.futures
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))

from heat_breakpoint.server import fixture  # noqa: E402
from tests.corpus import corpus  # noqa: E402
from tests.corpus import expected  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--corpus', default=corpus.default_root(),
                        help='the heat-templates checkout')
    parser.add_argument('--only', default='',
                        help='only templates whose path contains this')
    parser.add_argument('--jobs', type=int, default=4,
                        help='stacks created at once (default 4)')
    parser.add_argument('--timeout', type=float, default=180,
                        help='seconds a create may take (default 180)')
    parser.add_argument('--json', help='write the outcomes here')
    parser.add_argument('--keep', action='store_true',
                        help="keep the server's state directory (its "
                             "heat.log) and say where it is")
    parser.add_argument('--server-arg', action='append', default=[],
                        help='passed to heat-breakpoint-server')
    args = parser.parse_args(argv)
    if not args.corpus:
        parser.error('no corpus found: give --corpus or set '
                     'HEAT_BREAKPOINT_CORPUS')
    templates = [t for t in corpus.discover(args.corpus)
                 if args.only in t.path]
    state = tempfile.mkdtemp(prefix='heat-breakpoint-corpus-')
    server = fixture.LocalHeatProcess(state, extra_args=args.server_arg)
    server.start(reset=True)
    start = time.monotonic()
    try:
        def one(template):
            return corpus.create(corpus.client_for(server, template),
                                 template, template.slug,
                                 timeout=args.timeout)

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(one, templates))
    finally:
        if args.keep:
            server.stop()
            print('state directory kept: %s' % state)
        else:
            server.remove()
    report = expected.Report(outcomes)
    for line in report.lines():
        print(line)
    print('%.0f s in all' % (time.monotonic() - start))
    if args.json:
        with open(args.json, 'w') as out:
            json.dump([{'template': o.template.path, 'status': o.status,
                        'reason': o.reason, 'resources': o.resources,
                        'seconds': round(o.seconds, 1)}
                       for o in outcomes], out, indent=1)
    return 0 if report.ok else 1


if __name__ == '__main__':
    sys.exit(main())
