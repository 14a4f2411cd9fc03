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
"""Hidden values stay hidden wherever they flow, on the real local Heat.

One chain-shaped stack carries every shape of a secret in its template:
a hidden parameter of each type, transformed on the way, through an
``OS::Heat::Value``, into a nested stack whose parameter is not hidden
and out of its outputs, into a ``ResourceGroup``'s members (themselves
nested stacks), and the names that say they hold one. It is created with
holds before and after resources, then updated with holds on the planned
changes; every hold is looked at the way a person would (``show`` as
JSON and as a table, the hit event's details, the after-hold attributes,
the planned change). A second, two-resource stack fails on a secret, for
the free text: a value that cannot be resolved and Heat's error.

The table :data:`SHAPES` says, for every shape, what ``show`` must give:
the mask, or the value itself (what is not secret stays readable: a short
secret does not mask unrelated text).
"""

import json

import yaml

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from heat_breakpoint.model import secrets
from tests.functional import conftest
from tests.functional import utils

MASK = secrets.MASK

CREATE = {'pw': 'Pw-s3cret-one', 'pin': 7391846,
          'pwlist': 'lst-s3cret-a,lst-s3cret-b',
          'pwjson': {'k': 'json-s3cret-1'}, 'sh': 'ow',
          'shown': 'visible-value'}
UPDATE = {'pw': 'Pw-s3cret-two', 'pin': 7391847,
          'pwlist': 'lst-s3cret-c,lst-s3cret-d',
          'pwjson': {'k': 'json-s3cret-2'}, 'sh': 'ow',
          'shown': 'visible-value'}
INNER_SECRET = 'inner-s3cret-9'   # the nested template's own hidden default

# Text that must appear in nothing a person can see.
LEAKS = ('s3cret', 'S3CRET', '7391846', '7391847', 'literal-db-pass',
         'literal-admin-pass', 'literal-token-x')

#: (shape, its definition in ``shapes``, what ``show`` gives; MASK: masked)
SHAPES = [
    ('direct', {'get_param': 'pw'}, MASK),
    ('str_replace', {'str_replace': {'template': 'pw=$p',
                                     'params': {'$p': {'get_param': 'pw'}}}},
     MASK),
    ('list_join', {'list_join': ['-', ['x', {'get_param': 'pw'}]]}, MASK),
    ('yaql_upper', {'yaql': {'expression': '$.data.toUpper()',
                             'data': {'get_param': 'pw'}}}, MASK),
    ('split_join', {'list_join': ['+', {'str_split': [
        '-', {'get_param': 'pw'}]}]}, MASK),
    ('number', {'get_param': 'pin'}, MASK),
    ('cdl', {'get_param': 'pwlist'}, MASK),
    ('cdl_item', {'get_param': ['pwlist', 1]}, MASK),
    ('json', {'get_param': 'pwjson'}, MASK),
    ('json_item', {'get_param': ['pwjson', 'k']}, MASK),
    ('heat_value', {'get_attr': ['val', 'value']}, MASK),
    ('nested_fed', {'get_attr': ['child', 'fed']}, MASK),
    ('nested_own', {'get_attr': ['child', 'own']}, MASK),
    ('nested_plain', {'get_attr': ['child', 'plain']}, 'visible-value'),
    ('env_pairs', [{'name': 'DB_PASSWORD', 'value': 'literal-db-pass'},
                   {'name': 'HOME', 'value': '/home/app'}],
     [{'name': 'DB_PASSWORD', 'value': MASK},
      {'name': 'HOME', 'value': '/home/app'}]),
    ('admin_pass', 'literal-admin-pass', MASK),
    ('token', 'literal-token-x', MASK),
    ('fox_text', 'the quick brown fox', 'the quick brown fox'),
    ('plain_param', {'get_param': 'shown'}, 'visible-value'),
]

PARAMETERS = {
    'pw': {'type': 'string', 'hidden': True},
    'pin': {'type': 'number', 'hidden': True},
    'pwlist': {'type': 'comma_delimited_list', 'hidden': True},
    'pwjson': {'type': 'json', 'hidden': True},
    'sh': {'type': 'string', 'hidden': True},
    'shown': {'type': 'string'},
}

# The nested template: its ``secret`` is not hidden, it is fed a secret.
CHILD = {
    'heat_template_version': '2018-08-31',
    'parameters': {
        'secret': {'type': 'string'},
        'plain': {'type': 'string'},
        'inner_pw': {'type': 'string', 'hidden': True,
                     'default': INNER_SECRET}},
    'resources': {'leaf': {'type': 'OS::Heat::Value', 'properties': {
        'value': {'fed': {'get_param': 'secret'},
                  'plain': {'get_param': 'plain'},
                  'own': {'get_param': 'inner_pw'}}}}},
    'outputs': {
        'fed': {'value': {'get_param': 'secret'}},
        'plain': {'value': {'get_param': 'plain'}},
        'own': {'value': {'list_join': ['', ['x', {'get_param':
                                                   'inner_pw'}]]}}},
}

#: (hold, property path in ``show``'s inputs, what it gives)
NESTED_INPUTS = [
    ('child/leaf', ('value', 'fed'), MASK),
    ('child/leaf', ('value', 'own'), MASK),
    ('child/leaf', ('value', 'plain'), 'visible-value'),
    ('group/0', ('secret',), MASK),
    ('group/0', ('plain',), 'visible-value'),
    ('group/0/leaf', ('value', 'fed'), MASK),
    ('group/0/leaf', ('value', 'plain'), 'visible-value'),
]

#: (hold after the action, attribute, what it gives)
ATTRIBUTES = [
    ('val', 'value', MASK),
    ('child', 'fed', MASK),
    ('child', 'own', MASK),
    ('child', 'plain', 'visible-value'),
]


def template():
    """val -> child -> group -> shapes, one chain."""
    return {
        'heat_template_version': '2018-08-31',
        'parameters': PARAMETERS,
        'resources': {
            'val': {'type': 'OS::Heat::Value',
                    'properties': {'value': {'get_param': 'pw'}}},
            'child': {'type': 'child.yaml', 'properties': {
                'secret': {'get_attr': ['val', 'value']},
                'plain': {'get_param': 'shown'}}},
            'group': {'type': 'OS::Heat::ResourceGroup',
                      'depends_on': ['child'],
                      'properties': {'count': 1, 'resource_def': {
                          'type': 'child.yaml', 'properties': {
                              'secret': {'get_param': 'pw'},
                              'plain': {'get_param': 'shown'}}}}},
            'shapes': {'type': 'OS::Heat::Value', 'depends_on': ['group'],
                       'properties': {'value': {
                           name: defn for name, defn, _ in SHAPES}}},
        },
    }


FILES = {'child.yaml': yaml.safe_dump(CHILD)}


def env(*names_when):
    found = {}
    for names, when in names_when:
        found = registry.apply_to_environment(
            found, breakpoints.parse_names(names, when=when))
    return found


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, 'stack', 'breakpoint',
                                            *argv)
    assert code == 0, err
    return out


def held(server, stack):
    listed = json.loads(osc(server, 'list', stack, '-f', 'json'))
    return {row['Resource'] for row in listed if row['State'] == 'held'}


def wait_held(server, stack, path):
    try:
        utils.wait_for(lambda: path in held(server, stack), 90,
                       what='%s held' % path)
    except utils.Timeout:
        states = [(r.resource_name, r.resource_status,
                   r.resource_status_reason)
                  for r in server.client().resources.list(
                      stack, nested_depth=3)]
        with open(server.log_file, errors='replace') as log:
            errors = [line for line in log if ' ERROR ' in line]
        raise AssertionError('%s not held: %s\n%s' % (
            path, states, ''.join(errors[-20:])))


def look(server, heat, stack, path):
    """Everything a person sees of the hold at ``path``.

    (show as JSON, all the text: the table, the JSON, the hit event.)
    """
    text = osc(server, 'show', stack, path, '-f', 'json')
    shown = json.loads(text)
    assert shown['state'] == 'held', shown
    text += osc(server, 'show', stack, path)
    name = path.rsplit('/', 1)[-1]
    assert shown['event'], shown
    hit = heat.events.get(shown['stack'], name, shown['event'])
    shown['hit'] = hit.to_dict()
    text += json.dumps(shown['hit'])
    return shown, text


def at(value, path):
    for key in path:
        value = value[key]
    return value


def assert_no_leak(text, where):
    leaked = [secret for secret in LEAKS if secret in text]
    assert not leaked, '%s shows %s: %s' % (where, leaked, text)


def test_secrets_follow_the_data(heat_server, heat, stack_name):
    heat.stacks.create(
        stack_name=stack_name, template=template(), files=FILES,
        parameters=CREATE, environment=env(
            (['child/leaf', 'group/0', 'group/0/leaf', 'shapes'],
             breakpoints.BEFORE),
            (['val', 'child'], breakpoints.AFTER)))

    # The create: holds in the order of the chain.
    seen = {}
    for path in ('val', 'child/leaf', 'child', 'group/0', 'group/0/leaf',
                 'shapes'):
        wait_held(heat_server, stack_name, path)
        seen[path] = look(heat_server, heat, stack_name, path)
        assert_no_leak(seen[path][1], 'the hold of %s' % path)
        osc(heat_server, 'clear', stack_name, path)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')

    shapes = seen['shapes'][0]
    for name, _, expected in SHAPES:
        assert shapes['inputs']['value'][name] == expected, name
        assert shapes['hit']['resource_properties']['properties'][
            'value'][name] == expected, name
    for path, inner, expected in NESTED_INPUTS:
        shown = seen[path][0]
        assert at(shown['inputs'], inner) == expected, (path, inner)
        assert at(shown['hit']['resource_properties']['properties'],
                  inner) == expected, (path, inner)
    for path, attribute, expected in ATTRIBUTES:
        shown = seen[path][0]
        assert shown['attributes'][attribute] == expected, (path,
                                                            attribute)
        assert shown['hit']['resource_properties']['attributes'][
            attribute] == expected, (path, attribute)

    # The update: holds on every planned change, old and new masked.
    heat.stacks.update(
        stack_name, template=template(), files=FILES, parameters=UPDATE,
        environment=env((['val', 'child', 'child/leaf', 'group',
                          'group/0', 'group/0/leaf', 'shapes'],
                         breakpoints.CHANGED)))
    planned = {}
    for path in ('val', 'child', 'child/leaf', 'group', 'group/0',
                 'group/0/leaf', 'shapes'):
        wait_held(heat_server, stack_name, path)
        shown, text = look(heat_server, heat, stack_name, path)
        assert_no_leak(text, 'the planned change of %s' % path)
        assert shown['change'] == shown['hit']['resource_properties'][
            'change'], path
        planned[path] = shown['change']['properties']
        osc(heat_server, 'clear', stack_name, path)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')

    masked = {'old': MASK, 'new': MASK}
    assert planned['val'] == {'value': masked}
    assert planned['child'] == {'secret': masked}
    assert planned['child/leaf'] == {'value': {
        'old': {'fed': MASK, 'own': MASK, 'plain': 'visible-value'},
        'new': {'fed': MASK, 'own': MASK, 'plain': 'visible-value'}}}
    assert planned['group']['resource_def']['new']['properties'] == {
        'secret': MASK, 'plain': 'visible-value'}
    assert planned['group/0'] == {'secret': masked}
    assert planned['group/0/leaf']['value']['new']['fed'] == MASK
    shape_values = planned['shapes']['value']
    for name, _, expected in SHAPES:
        assert shape_values['new'][name] == expected, name
        assert shape_values['old'][name] == expected, name


FAILING = {
    'heat_template_version': '2018-08-31',
    'parameters': {'pw': PARAMETERS['pw']},
    'resources': {
        'val': {'type': 'OS::Heat::Value',
                'properties': {'value': {'get_param': 'pw'}}},
        # Heat says "Value '<the secret>' is not an integer".
        'bad': {'type': 'OS::Heat::RandomString',
                'properties': {'length': {'get_attr': ['val', 'value']}}}},
}


def test_free_text_about_a_secret(heat_server, heat, stack_name):
    heat.stacks.create(
        stack_name=stack_name, template=FAILING,
        parameters={'pw': CREATE['pw']}, environment=env(
            (['bad'], breakpoints.BEFORE), (['bad'], breakpoints.FAILED)))

    wait_held(heat_server, stack_name, 'bad')
    shown, text = look(heat_server, heat, stack_name, 'bad')
    assert_no_leak(text, 'the hold before bad')
    assert shown['inputs'] == {'unresolved': "Value '%s' is not an integer"
                               % MASK}, shown['inputs']
    osc(heat_server, 'clear', stack_name, 'bad')

    def failure_held():
        return (held(heat_server, stack_name) == {'bad'} and
                json.loads(osc(heat_server, 'show', stack_name, 'bad',
                               '-f', 'json'))['when'] == breakpoints.FAILED)
    utils.wait_for(failure_held, 60, what='the failure of bad held')
    shown, text = look(heat_server, heat, stack_name, 'bad')
    assert_no_leak(text, 'the failure hold of bad')
    assert MASK in shown['error'], shown['error']
    assert shown['hit']['resource_properties']['error'] == shown['error']
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_FAILED')
