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
"""What a big request with breakpoints costs, refused or checked.

``python benchmarks/filter_cost.py [--rounds N]`` (from the repository root)

1. End to end, on one local Heat with secure RBAC on
   (``enforce_new_defaults``, ``enforce_scope``; roles from the test-only
   filter of ``tests/policy_roles.py``), which serves our pipeline under
   ``/v1`` and Heat's stock one under ``/stock/v1``: the request of
   issue 24 (a ~120 KB stack create, 2,001 resources, 2,000 registry keys,
   10 breakpoints, one of which, ``r1*/inner``, names no nested stack) as
   a ``reader`` (Heat refuses: 403) and as a ``member`` (stock Heat refuses
   the unknown ``breakpoints`` section, the plugin refuses the bad name:
   400), each side in turn, alternating; medians and the ratio
   plugin/stock.
2. In process, the filter's own work on an authorized request that passes:
   2,000 resources, 200 breakpoints (150 names, 40 patterns, 10 nested),
   with and without 2,000 registry keys; median milliseconds, next to the
   ``json.loads`` of the same body.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from heat_breakpoint.api import filter as api_filter  # noqa: E402
from tests.functional import conftest  # noqa: E402
from tests import policy_roles  # noqa: E402

PROJECT = 'alpha'
READER = 'reader@%s' % PROJECT
MEMBER = 'member@%s' % PROJECT


def issue_request() -> bytes:
    """The request of issue 24: 2,001 resources, 2,000 keys, 10 names."""
    resources = {'r%04d' % i: {'type': 'OS::Heat::None'}
                 for i in range(2001)}
    registry = {'k%04d*' % i: {'hooks': []} for i in range(2000)}
    names = ['r%04d' % (i * 7) for i in range(9)] + ['r1*/inner']
    return json.dumps({
        'stack_name': 'big', 'timeout_mins': 60, 'files': {},
        'template': {'heat_template_version': '2018-08-31',
                     'description': 'two thousand and one resources',
                     'resources': resources},
        'environment': {'resource_registry': {'resources': registry},
                        'breakpoints': names},
    }).encode('utf-8')


def valid_request(registry_keys: int) -> bytes:
    """2,000 resources and 200 breakpoints that all pass the checks."""
    resources = {'r%04d' % i: {'type': 'OS::Heat::None'}
                 for i in range(2000)}
    for i in range(0, 2000, 100):
        resources['r%04d' % i] = {'type': 'child.yaml'}
    registry = {'k%04d*' % i: {'hooks': []} for i in range(registry_keys)}
    names = (['r%04d' % (i * 13 + 1) for i in range(150)] +
             ['r%03d*' % i for i in range(40)] +
             ['r%04d/inner' % (i * 100) for i in range(10)])
    return json.dumps({
        'stack_name': 'big',
        'template': {'heat_template_version': '2018-08-31',
                     'resources': resources},
        'environment': {'resource_registry': {'resources': registry},
                        'breakpoints': names},
    }).encode('utf-8')


def start_server(directory):
    conf = policy_roles.write_rbac_config(directory)
    saved = os.environ.get('PYTHONPATH')
    os.environ['PYTHONPATH'] = os.pathsep.join(
        [ROOT] + ([saved] if saved else []))
    try:
        return conftest.LocalHeatProcess(
            os.path.join(directory, 'state'), config_files=[conf]).start(
                reset=True)
    finally:
        if saved is None:
            os.environ.pop('PYTHONPATH', None)
        else:
            os.environ['PYTHONPATH'] = saved


def post(url, token, raw):
    started = time.perf_counter()
    answer = requests.post(url, data=raw, timeout=600, headers={
        'X-Auth-Token': token, 'Content-Type': 'application/json'})
    return (time.perf_counter() - started) * 1000.0, answer.status_code


def line(label, samples, codes):
    return '  %-24s min %9.1f  median %9.1f  max %9.1f  ms   HTTP %s' % (
        label, min(samples), statistics.median(samples), max(samples),
        '/'.join(str(c) for c in sorted(codes)))


def end_to_end(server, rounds):
    raw = issue_request()
    sides = {'plugin': '%s/v1/%s/stacks' % (server.url, PROJECT),
             'stock': '%s%s/v1/%s/stacks' % (server.url,
                                             policy_roles.STOCK_PREFIX,
                                             PROJECT)}
    print('1. end to end: %d bytes, 2,001 resources, 2,000 registry keys, '
          '10 breakpoints; %d rounds, alternating' % (len(raw), rounds))
    for who, token in (('reader', READER), ('member', MEMBER)):
        samples = {side: [] for side in sides}
        codes = {side: set() for side in sides}
        for side, url in sides.items():  # warm up both
            post(url, token, raw)
        for round_ in range(rounds):
            order = sorted(sides, reverse=bool(round_ % 2))
            for side in order:
                took, code = post(sides[side], token, raw)
                samples[side].append(took)
                codes[side].add(code)
        print(' as %s:' % who)
        for side in ('stock', 'plugin'):
            print(line(side, samples[side], codes[side]))
        ratio = (statistics.median(samples['plugin']) /
                 statistics.median(samples['stock']))
        print('  median ratio plugin/stock: %.2f' % ratio)


def in_process(rounds):
    print('2. in process, the filter on requests that pass '
          '(2,000 resources, 200 breakpoints); %d rounds' % rounds)
    for keys in (0, 2000):
        raw = valid_request(keys)
        filtered, parsed = [], []
        for _ in range(rounds):
            started = time.perf_counter()
            assert api_filter.rewrite_body(raw) is not None
            filtered.append((time.perf_counter() - started) * 1000.0)
            started = time.perf_counter()
            json.loads(raw)
            parsed.append((time.perf_counter() - started) * 1000.0)
        print('  %5d registry keys, %6d bytes: filter median %6.1f ms '
              '(json.loads alone %.1f ms)' % (
                  keys, len(raw), statistics.median(filtered),
                  statistics.median(parsed)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix='filter-cost-') as directory:
        server = start_server(directory)
        try:
            end_to_end(server, args.rounds)
        finally:
            server.stop()
    in_process(args.rounds)


if __name__ == '__main__':
    main()
