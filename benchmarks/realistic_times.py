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
"""``--realistic-times``: does a create take what its longest path adds up to?

Creates the corpus's largest template with servers on a local server
started with ``--realistic-times --no-leaf-sleep``, and prints its create
time next to the build times (the same seeded draws the server makes)
added up along the longest path of its dependency graph.

    .venv/bin/python benchmarks/realistic_times.py [--template PATH]
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))

from benchmarks import _common  # noqa: E402
from heat_breakpoint.server.cloud import timing  # noqa: E402
from heat_breakpoint.server import fixture  # noqa: E402
from tests.corpus import corpus  # noqa: E402
from tests.corpus import expected  # noqa: E402

SERVERS = ('OS::Nova::Server', 'AWS::EC2::Instance')


def largest_with_servers(root):
    best = None
    for template in corpus.discover(root):
        if template.path in expected.REFUSED:
            continue
        doc = template.doc or {}
        resources = doc.get('resources') or doc.get('Resources') or {}
        kinds = [r.get('type') or r.get('Type') for r in resources.values()
                 if isinstance(r, dict)]
        if any(k in SERVERS for k in kinds) and (
                best is None or len(kinds) > best[0]):
            best = (len(kinds), template)
    return best[1]


def longest_path(resources, seconds):
    """The heaviest chain of ``requires``, and its total."""
    memo = {}

    def cost(name):
        if name not in memo:
            before = [cost(r) for r in resources[name]['requires']]
            best = max(before, key=lambda c: c[0], default=(0.0, []))
            memo[name] = (best[0] + seconds[name], best[1] + [name])
        return memo[name]
    return max((cost(n) for n in resources), key=lambda c: c[0])


def stack_path(client, stack, times, prefix=''):
    """The longest path of a stack, a nested stack counting its own."""
    listed = client.resources.list(stack)
    resources = {r.resource_name: {'requires': []} for r in listed}
    seconds = {}
    for r in listed:
        for other in r.required_by or []:
            if other in resources:
                resources[other]['requires'].append(r.resource_name)
        nested = [link for link in r.links if link.get('rel') == 'nested']
        if nested and r.physical_resource_id:
            seconds[r.resource_name] = stack_path(
                client, r.physical_resource_id, times,
                prefix + r.resource_name + '/')[0]
        elif '(simulated cloud)' in (r.resource_status_reason or ''):
            seconds[r.resource_name] = times.seconds(
                r.resource_type, 'CREATE', prefix + r.resource_name)
        else:
            seconds[r.resource_name] = 0.0
    total, chain = longest_path(resources, seconds)
    return total, chain, seconds


def main(argv=None):
    parser = _common.parser(__doc__)
    parser.add_argument('--template', help='a corpus path')
    args = parser.parse_args(argv)
    root = corpus.default_root()
    if root is None:
        sys.exit('no corpus: set HEAT_BREAKPOINT_CORPUS')
    template = (corpus.Template(root, args.template, None) if args.template
                else largest_with_servers(root))
    clock = _common.start('Realistic build times: %s' % template.path,
                          args.quick)
    state = tempfile.mkdtemp(prefix='heat-breakpoint-realistic-')
    server = fixture.LocalHeatProcess(
        state, extra_args=['--realistic-times', '--no-leaf-sleep'])
    server.start(reset=True)
    try:
        client = server.client()
        outcome = corpus.create(client, template, 'realistic', timeout=900)
        if not outcome.complete:
            sys.exit('did not complete: %s %s' % (outcome.status,
                                                  outcome.reason))
        total, chain, seconds = stack_path(client, 'realistic',
                                           timing.Timing())
    finally:
        server.remove()
    _common.note('longest path: %s' % ' -> '.join(
        '%s (%.1f s)' % (name, seconds[name]) for name in chain))
    _common.note('build times along it:  %6.1f s' % total)
    _common.note('create took:           %6.1f s  (%.2f of the path; Heat '
                 'notices a finished resource at its next 1 s poll)'
                 % (outcome.seconds, outcome.seconds / total))
    clock.footer()


if __name__ == '__main__':
    main()
