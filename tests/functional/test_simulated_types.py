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
"""Every resource type the local server offers, created, updated, deleted.

For each type ``resource type list`` shows: a stack with one resource of
that type and the minimal properties its schema asks for
(:mod:`type_table`); every attribute of its schema resolves to a value of
the declared type; a change of a property Heat updates in place keeps the
physical ID, a change of one Heat must replace gets a new one (Heat's own
decision, from the type's schema); the stack deletes.
"""

import concurrent.futures
import functools
import http.server
import json
import os
import tempfile
import threading
import time

import pytest

from heat_breakpoint.server import fixture
from tests.functional import type_table

TYPES_AT_ONCE = 6
SIMULATED = '(simulated cloud)'
TIMEOUT = 120
_TYPES = {'string': str, 'map': dict, 'list': list, 'integer': int,
          'boolean': bool}


@pytest.fixture(scope='module')
def template_url():
    """A nested template served over HTTP, as an author hosts one."""
    folder = tempfile.mkdtemp(prefix='heat-breakpoint-nested-')
    with open(os.path.join(folder, 'nested.json'), 'w') as out:
        json.dump({'AWSTemplateFormatVersion': '2010-09-09',
                   'Resources': {'N': {'Type': 'OS::Heat::None'}}}, out)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=folder)
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield 'http://127.0.0.1:%d/nested.json' % httpd.server_address[1]
    httpd.shutdown()


@pytest.fixture(scope='module')
def server():
    with fixture.local_heat('heat-breakpoint-types-',
                            '--no-leaf-sleep') as local:
        yield local


def _template(type_name, props, attributes=()):
    """One resource, and an output for each attribute (as get_attr)."""
    resources = dict(type_table.COMPANIONS.get(type_name, {}))
    resources['r'] = {'type': type_name, 'properties': props}
    return {'heat_template_version': '2021-04-16',
            'resources': resources,
            'outputs': {'a%d' % i: {'value': {'get_attr': ['r', name]}}
                        for i, name in enumerate(attributes)}}


def _wait(client, name, action):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        try:
            stack = client.stacks.get(name)
        except Exception as exc:
            if action == 'DELETE' and 'could not be found' in str(exc):
                return 'DELETE_COMPLETE', ''
            raise
        status = stack.stack_status
        if not status.endswith('IN_PROGRESS'):
            return status, stack.stack_status_reason
        time.sleep(0.2)
    return 'TIMEOUT', ''


def _attribute_problems(schema, stack):
    """What get_attr of each attribute gives, against its declared type."""
    outputs = {o['output_key']: o for o in stack.outputs or []}
    problems = []
    for i, (name, attr) in enumerate(sorted(schema['attributes'].items())):
        output = outputs.get('a%d' % i) or {}
        value = output.get('output_value')
        if output.get('output_error'):
            problems.append('attribute %s: %s' % (name,
                                                  output['output_error']))
            continue
        wanted = _TYPES.get(attr.get('type'))
        if value is None:
            problems.append('attribute %s is None' % name)
        elif wanted is int and isinstance(value, bool):
            problems.append('attribute %s: %r is not an integer'
                            % (name, value))
        elif wanted is not None and not isinstance(value, wanted):
            problems.append('attribute %s: %r is not a %s'
                            % (name, value, attr.get('type')))
    return problems


def _update(client, name, type_name, schema, props, in_place):
    """Change one property Heat takes (in place, or by replacement).

    Returns the property changed and what went wrong, if anything.
    """
    before = client.resources.get(name, 'r').physical_resource_id
    tries = 0
    for prop in type_table.update_candidates(schema, in_place):
        prop_schema = schema['properties'][prop]
        if isinstance(props.get(prop), dict) and \
                set(props[prop]) & {'get_resource', 'get_attr'}:
            continue  # a reference to another resource of the stack
        changed = dict(props)
        changed[prop] = type_table.value_for(prop, prop_schema, changed=True)
        if changed[prop] is None or changed[prop] == props.get(
                prop, prop_schema.get('default')):
            continue
        tries += 1
        if tries > 3:
            break
        try:
            client.stacks.update(name, template=_template(type_name,
                                                          changed),
                                 existing=False)
        except Exception:
            continue  # this change is not valid for the type: the next
        status, reason = _wait(client, name, 'UPDATE')
        if status != 'UPDATE_COMPLETE':
            return prop, 'update of %s: %s %s' % (prop, status, reason)
        after = client.resources.get(name, 'r').physical_resource_id
        if in_place and after != before:
            return prop, 'update of %s replaced it (%s -> %s)' % (
                prop, before, after)
        if not in_place and after == before:
            return prop, 'update of %s did not replace it' % prop
        props.update(changed)
        return prop, None
    return None, None


def exercise(client, type_name):
    """The problems of one type, and which updates were tried."""
    schema = client.resource_types.get(type_name)
    props = type_table.minimal_properties(type_name, schema)
    attributes = sorted(schema['attributes'])
    name = 'type-' + type_name.replace('::', '-').lower()
    problems, tried = [], {}
    try:
        client.stacks.create(stack_name=name,
                             template=_template(type_name, props,
                                                attributes),
                             disable_rollback=True)
    except Exception as exc:
        return ['create refused: %s' % exc], tried
    status, reason = _wait(client, name, 'CREATE')
    if status != 'CREATE_COMPLETE':
        return ['create: %s %s' % (status, reason)], tried
    # Heat's own types resolve their attributes as Heat does; a simulated
    # one must give a value of the declared type for each.
    simulated = SIMULATED in client.resources.get(
        name, 'r').resource_status_reason
    tried['simulated'] = simulated
    if simulated:
        problems += _attribute_problems(schema, client.stacks.get(name))
    # Updates of Heat's own types are Heat's; of a simulated type, the
    # simulation must leave Heat's decision as Heat makes it.
    for in_place in (True, False) if simulated else ():
        prop, problem = _update(client, name, type_name, schema, props,
                                in_place)
        tried['in place' if in_place else 'replace'] = prop
        if problem:
            problems.append(problem)
    client.stacks.delete(name)
    status, reason = _wait(client, name, 'DELETE')
    if status != 'DELETE_COMPLETE':
        problems.append('delete: %s %s' % (status, reason))
    return problems, tried


def test_every_offered_type_creates_updates_and_deletes(server,
                                                        template_url):
    type_table.EXTRA['AWS::CloudFormation::Stack'] = {
        'TemplateURL': template_url}
    client = server.client()
    types = sorted(t.resource_type for t in client.resource_types.list())
    assert len(types) >= 160, types
    with concurrent.futures.ThreadPoolExecutor(TYPES_AT_ONCE) as pool:
        results = dict(zip(types, pool.map(
            lambda t: exercise(server.client(), t), types)))
    failed = {t: p for t, (p, _) in results.items()
              if p and t not in type_table.UNSIMULATED}
    for type_name, (_, tried) in sorted(results.items()):
        mark = ('FAILED' if type_name in failed else 'listed'
                if type_name in type_table.UNSIMULATED else 'ok')
        print('%-45s %-7s %s' % (type_name, mark, ', '.join(
            '%s: %s' % kv for kv in sorted(tried.items())
            if kv[0] != 'simulated')))
    assert not failed, '\n'.join(
        '%s: %s' % (t, '; '.join(p)) for t, p in sorted(failed.items()))
    wrongly_listed = [t for t in type_table.UNSIMULATED
                      if t in results and not results[t][0]]
    assert not wrongly_listed, wrongly_listed
    simulated = [t for t, (_, tried) in results.items()
                 if tried.get('simulated')]
    assert len(simulated) > 120, len(simulated)
    in_place = [t for t, (_, tried) in results.items()
                if tried.get('in place')]
    replaced = [t for t, (_, tried) in results.items()
                if tried.get('replace')]
    print('%d types, %d simulated; %d updated in place, %d replaced'
          % (len(types), len(simulated), len(in_place), len(replaced)))
    assert len(in_place) > 90 and len(replaced) > 90, (
        len(in_place), len(replaced))
