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
"""What the API filter costs a real heat-api request without breakpoints.

``python benchmarks/filter_end_to_end.py [--quick]``

Two local Heat servers side by side: Heat's ``noauth`` pipeline, and the
same pipeline with our filter (``noauth_breakpoint``). The same
template-validate request (a real heat-api parse plus an engine RPC) goes
to each in turn; the script prints min/median/max per side and the ratio
of medians. ``filter_overhead.py`` times the filter alone.
"""

import os
import sys
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

BARE, FILTERED = 'noauth', 'noauth_breakpoint'
_common.CONF[BARE] = '[paste_deploy]\nflavor = noauth\n'
_common.CONF[FILTERED] = '[paste_deploy]\nflavor = noauth_breakpoint\n'


def body(count=100):
    resources = {'r0': {'type': 'OS::Heat::None'}}
    for i in range(1, count):
        resources['r%d' % i] = {'type': 'OS::Heat::None',
                                'depends_on': 'r%d' % (i - 1),
                                'properties': {'note': 'x' * 120}}
    return {'template': {'heat_template_version': '2018-08-31',
                         'resources': resources},
            'environment': {'parameter_defaults': {'size': 'small'}}}


def main():
    quick = '--quick' in sys.argv
    rounds = 60 if quick else 300
    _common.header('filter_end_to_end: template-validate with and without '
                   'the API filter', quick)
    payload = body()
    samples = {BARE: [], FILTERED: []}
    with _common.servers([BARE, FILTERED]) as started:
        by_label = {s.label: s for s in started}
        session = requests.Session()
        for server in started:  # warm up
            for _ in range(5):
                session.post(server.endpoint + '/validate', json=payload,
                             timeout=60).raise_for_status()
        for round_ in range(rounds):
            for label in _common.order([BARE, FILTERED], round_):
                server = by_label[label]
                began = time.perf_counter()
                resp = session.post(server.endpoint + '/validate',
                                    json=payload, timeout=60)
                samples[label].append(time.perf_counter() - began)
                resp.raise_for_status()
    in_ms = {label: [t * 1000 for t in times]
             for label, times in samples.items()}
    _common.note(_common.describe('Heat noauth pipeline', in_ms[BARE],
                                  unit='ms'))
    _common.note(_common.describe('with the breakpoint filter',
                                  in_ms[FILTERED], unit='ms'))
    _common.note(_common.ratio('median ratio filtered/bare',
                               in_ms[FILTERED], in_ms[BARE]))
    _common.note(_common.paired('paired ratio filtered/bare',
                                in_ms[FILTERED], in_ms[BARE]))


if __name__ == '__main__':
    main()
