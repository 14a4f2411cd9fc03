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
"""What the breakpoint filter costs a stack-create that has no breakpoints.

Runs a realistic create request (a ~20 KB template, no breakpoints) through
the filter-wrapped app and through the bare app, alternating A/B in batches
so drift hits both sides alike, and prints per-request times and the ratio
of medians. The downstream app only reads and decodes the body, the least
heat-api does, so the ratio overstates the cost against a real Heat, whose
handling of a create takes milliseconds.

Usage: python benchmarks/filter_overhead.py [--rounds N] [--batch N]
"""

import argparse
import io
import json
import statistics
import time

import webob

from heat_breakpoint.api import filter as api_filter

PATH = '/v1/tenant/stacks'


def template(servers: int = 45) -> dict:
    resources = {}
    for index in range(servers):
        resources['server_%02d' % index] = {
            'type': 'OS::Nova::Server',
            'depends_on': ['net'] if index else [],
            'properties': {
                'name': {'list_join': ['-', [{'get_param': 'OS::stack_name'},
                                             'server', str(index)]]},
                'image': {'get_param': 'image'},
                'flavor': {'get_param': 'flavor'},
                'key_name': {'get_param': 'key_name'},
                'networks': [{'network': {'get_resource': 'net'}}],
                'metadata': {'role': 'app', 'index': str(index)},
                'user_data_format': 'RAW',
                'user_data': '#!/bin/sh\necho hello from %d\n' % index,
            },
        }
    resources['net'] = {'type': 'OS::Neutron::Net',
                        'properties': {'name': 'bench-net'}}
    return {
        'heat_template_version': '2018-08-31',
        'description': 'A web tier of forty-five servers on one network',
        'parameters': {name: {'type': 'string', 'default': name}
                       for name in ('image', 'flavor', 'key_name')},
        'resources': resources,
        'outputs': {'first_ip': {'value': {'get_attr': ['server_00',
                                                        'first_address']}}},
    }


def body(with_breakpoints: bool = False) -> bytes:
    environment = {'parameters': {'flavor': 'm1.small'}}
    if with_breakpoints:
        environment['breakpoints'] = ['server_0*', {'resource': 'net'}]
    return json.dumps({'stack_name': 'bench', 'template': template(),
                       'environment': environment, 'files': {},
                       'timeout_mins': 60}).encode('utf-8')


def bare_app(environ, start_response):
    # The least heat-api does with a create: read the body and decode the
    # JSON. It does it more slowly (webob spools bodies over 10 KB through a
    # temporary file), so the ratio overstates the filter's share.
    json.loads(environ['wsgi.input'].read(int(environ['CONTENT_LENGTH'])))
    start_response('201 Created', [('Content-Type', 'application/json')])
    return [b'{}']


def _start_response(status, headers, exc_info=None):
    return None


def environ(raw: bytes) -> dict:
    env = webob.Request.blank(PATH, method='POST',
                              content_type='application/json').environ
    env['wsgi.input'] = io.BytesIO(raw)
    env['CONTENT_LENGTH'] = str(len(raw))
    return env


def time_batch(app, raw: bytes, batch: int) -> float:
    """Microseconds per request over one batch of fresh requests."""
    environs = [environ(raw) for _ in range(batch)]
    started = time.perf_counter_ns()
    for env in environs:
        b''.join(app(env, _start_response))
    return (time.perf_counter_ns() - started) / batch / 1000.0


def describe(label: str, samples: list) -> str:
    return '%-28s min %8.2f  median %8.2f  max %8.2f  us/request' % (
        label, min(samples), statistics.median(samples), max(samples))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=300)
    parser.add_argument('--batch', type=int, default=50)
    args = parser.parse_args()

    plain = body()
    filtered_app = api_filter.BreakpointFilter(bare_app)
    sides = {'bare': bare_app, 'filtered': filtered_app}
    samples = {'bare': [], 'filtered': []}
    for name, app in sides.items():  # warm up both sides
        time_batch(app, plain, args.batch)
    for round_ in range(args.rounds):
        order = ('bare', 'filtered') if round_ % 2 else ('filtered', 'bare')
        for name in order:
            samples[name].append(time_batch(sides[name], plain, args.batch))

    print('request body: %d bytes, no breakpoints; %d rounds x %d requests'
          % (len(plain), args.rounds, args.batch))
    print(describe('bare app', samples['bare']))
    print(describe('filtered app', samples['filtered']))
    bare = statistics.median(samples['bare'])
    filtered = statistics.median(samples['filtered'])
    print('median ratio filtered/bare: %.3f (%+.2f us/request)'
          % (filtered / bare, filtered - bare))

    with_bp = body(with_breakpoints=True)
    rewrites = [time_batch(filtered_app, with_bp, 10) for _ in range(30)]
    print('with breakpoints (informational, %d bytes): median %.2f '
          'us/request (parse, rewrite, name check, re-serialise)'
          % (len(with_bp), statistics.median(rewrites)))


if __name__ == '__main__':
    main()
