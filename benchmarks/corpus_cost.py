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
"""What the simulated cloud costs a template author, on public templates.

1. Every corpus template that completes, created with the simulated
   cloud and again with every resource type it uses mapped to
   ``OS::Heat::None``, back to back, on one local server with Heat's own
   pacing: the median of the per-template ratios (target <= 1.2). And
   the same with only the simulated types mapped to ``OS::Heat::None``
   (Heat's own types, nested stacks, groups, wait conditions and
   deployments kept): what the simulation itself costs.
2. The five largest templates (by resources created): their create time
   with Heat's one-second sleep after each independent resource, and on a
   server started with ``--no-leaf-sleep``; the difference is the sleep's
   share.

    .venv/bin/python benchmarks/corpus_cost.py [--quick] [--rounds N]
"""

import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))

from benchmarks import _common  # noqa: E402
from heat_breakpoint.server import fixture  # noqa: E402
from tests.corpus import corpus  # noqa: E402
from tests.corpus import expected  # noqa: E402


def used_types(node, found=None):
    """Every resource type a template names (nested definitions too)."""
    found = set() if found is None else found
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ('type', 'Type') and isinstance(value, str) and (
                    '::' in value or value.endswith(('.yaml', '.template'))):
                found.add(value)
            else:
                used_types(value, found)
    elif isinstance(node, list):
        for value in node:
            used_types(value, found)
    return found


def none_env(template, label, kinds=None):
    """An environment mapping the given types (default: all) to None."""
    if kinds is None:
        doc = template.doc or {}
        kinds = used_types(doc.get('resources') or doc.get('Resources') or
                           {})
    env = os.path.join(tempfile.gettempdir(), 'heat-breakpoint-%s-%s.yaml'
                       % (label, template.slug))
    with open(env, 'w') as out:
        out.write('resource_registry:\n')
        for kind in sorted(kinds):
            if kind != 'OS::Heat::None':
                out.write('  "%s": OS::Heat::None\n' % kind)
    return env


def simulated_types(client, name):
    return {r.resource_type for r in client.resources.list(
        name, nested_depth=5)
        if '(simulated cloud)' in (r.resource_status_reason or '')}


def timed(client, template, name, extra_env=(), found=None):
    outcome = corpus.create(client, template, name, timeout=300,
                            extra_env=extra_env)
    if found is not None and outcome.complete:
        found.update(simulated_types(client, name))
    if outcome.status != 'REFUSED':
        client.stacks.delete(name)
    return outcome


def start(label, *args):
    state = tempfile.mkdtemp(prefix='heat-breakpoint-bench-%s-' % label)
    return fixture.LocalHeatProcess(state, extra_args=list(args)).start(
        reset=True)


def main(argv=None):
    parser = _common.parser(__doc__)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args(argv)
    root = corpus.default_root()
    if root is None:
        sys.exit('no corpus: set HEAT_BREAKPOINT_CORPUS')
    _common.header('Simulated cloud on the public corpus', args.quick)
    clock = _common.Clock()
    templates = [t for t in corpus.discover(root)
                 if t.path not in expected.REFUSED]
    rounds = 1 if args.quick else args.rounds
    if args.quick:
        templates = templates[::8]

    paced = start('paced')
    try:
        client = paced.client()
        ratios = {'all': [], 'simulated': []}
        sizes, failed = {}, []
        labels = ('sim', 'all', 'simulated')
        for template in templates:
            times = {label: [] for label in labels}
            kinds = set()
            timed(client, template, 'warm-%s' % template.slug[-40:],
                  found=kinds)
            for round_ in range(rounds):
                for label in _common.order(labels, round_):
                    name = '%s-%s-%d' % (label, template.slug[-40:], round_)
                    env = [] if label == 'sim' else [none_env(
                        template, label,
                        None if label == 'all' else kinds)]
                    outcome = timed(client, template, name, env)
                    if not outcome.complete:
                        failed.append((label, template.path,
                                       outcome.reason))
                        continue
                    times[label].append(outcome.seconds)
                    if label == 'sim':
                        sizes[template] = outcome.resources
            if not all(times.values()):
                continue
            sim = statistics.median(times['sim'])
            line = '%-64s sim %6.2f s' % (template.path[-64:], sim)
            for label in ('all', 'simulated'):
                base = statistics.median(times[label])
                ratios[label].append(sim / base)
                line += '  %s %6.2f s %.2f' % (
                    label, base, ratios[label][-1])
            _common.note(line)
        _common.note('')
        for label, words in (('all', 'every type'),
                             ('simulated', 'the simulated types')):
            found = ratios[label]
            _common.note(
                '%d templates; simulated / %s as OS::Heat::None, median '
                'of per-template ratios: %.3f (min %.3f, max %.3f; target '
                '<= 1.2)' % (len(found), words, statistics.median(found),
                             min(found), max(found)))
        for label, path, reason in failed:
            _common.note('did not complete (%s): %s: %s' % (label, path,
                                                            reason[:200]))
        largest = sorted(sizes, key=lambda t: (-sizes[t], t.path))[:5]
        paced_times = {t: [] for t in largest}
        for round_ in range(rounds):
            for template in largest:
                paced_times[template].append(timed(
                    client, template, 'big-%d-%s' % (
                        round_, template.slug[-40:])).seconds)
    finally:
        paced.remove()

    fast = start('fast', '--no-leaf-sleep')
    try:
        client = fast.client()
        fast_times = {t: [] for t in largest}
        for round_ in range(rounds):
            for template in largest:
                fast_times[template].append(timed(
                    client, template, 'big-%d-%s' % (
                        round_, template.slug[-40:])).seconds)
    finally:
        fast.remove()
    _common.note('')
    _common.note('The five largest (resources created, create time: with '
                 "Heat's leaf sleep, with --no-leaf-sleep, the sleep's "
                 'share):')
    for template in largest:
        slow = statistics.median(paced_times[template])
        quick = statistics.median(fast_times[template])
        _common.note('%-60s %4d res  %6.2f s  %6.2f s  %3.0f%%' % (
            template.path, sizes[template], slow, quick,
            100 * (slow - quick) / slow if slow else 0))
    clock.footer()


if __name__ == '__main__':
    main()
