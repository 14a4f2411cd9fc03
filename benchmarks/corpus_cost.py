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
   pacing: the median of the per-template ratios (target <= 1.2). (The
   baseline has no nested stacks, groups, wait conditions or
   deployments either: a template made of them is slower than its
   baseline for what Heat itself does.)
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


def none_env(template):
    """An environment mapping every type the template uses to None."""
    doc = template.doc or {}
    kinds = used_types(doc.get('resources') or doc.get('Resources') or {})
    env = os.path.join(tempfile.gettempdir(),
                       'heat-breakpoint-none-%s.yaml' % template.slug)
    with open(env, 'w') as out:
        out.write('resource_registry:\n')
        for kind in sorted(kinds):
            if kind != 'OS::Heat::None':
                out.write('  "%s": OS::Heat::None\n' % kind)
    return env


def timed(client, template, name, extra_env=()):
    outcome = corpus.create(client, template, name, timeout=300,
                            extra_env=extra_env)
    if outcome.status != 'REFUSED':
        client.stacks.delete(name)
    return outcome


def start(label, *args):
    state = tempfile.mkdtemp(prefix='heat-breakpoint-bench-%s-' % label)
    return fixture.LocalHeatProcess(state, extra_args=list(args)).start(
        reset=True)


def create_times(client, templates, rounds):
    """{template: [create seconds, a round each]}."""
    found = {t: [] for t in templates}
    for round_ in range(rounds):
        for template in templates:
            found[template].append(timed(
                client, template, 'big-%d-%s' % (
                    round_, template.slug[-40:])).seconds)
    return found


def main(argv=None):
    parser = _common.parser(__doc__)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args(argv)
    root = corpus.default_root()
    if root is None:
        sys.exit('no corpus: set HEAT_BREAKPOINT_CORPUS')
    clock = _common.start('Simulated cloud on the public corpus',
                          args.quick)
    templates = [t for t in corpus.discover(root)
                 if t.path not in expected.REFUSED]
    rounds = 1 if args.quick else args.rounds
    if args.quick:
        templates = templates[::8]

    paced = start('paced')
    try:
        client = paced.client()
        ratios, sizes, failed = [], {}, []
        for template in templates:
            times = {'sim': [], 'none': []}
            for round_ in range(rounds):
                for label in _common.order(('sim', 'none'), round_):
                    name = '%s-%s-%d' % (label, template.slug[-40:], round_)
                    env = [none_env(template)] if label == 'none' else []
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
            none = statistics.median(times['none'])
            ratios.append(sim / none)
            _common.note('%-64s sim %6.2f s  none %6.2f s  %.2f' % (
                template.path[-64:], sim, none, ratios[-1]))
        _common.note('')
        _common.note(
            '%d templates; simulated / every type as OS::Heat::None, '
            'median of per-template ratios: %.3f (min %.3f, max %.3f; '
            'target <= 1.2)' % (len(ratios), statistics.median(ratios),
                                min(ratios), max(ratios)))
        for label, path, reason in failed:
            _common.note('did not complete (%s): %s: %s' % (label, path,
                                                            reason[:200]))
        largest = sorted(sizes, key=lambda t: (-sizes[t], t.path))[:5]
        paced_times = create_times(client, largest, rounds)
    finally:
        paced.remove()

    fast = start('fast', '--no-leaf-sleep')
    try:
        client = fast.client()
        fast_times = create_times(client, largest, rounds)
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
