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
"""Templates of a scenario: a chain ``first -> NAME -> tail``.

``NAME`` is the resource of the family under test, named as the scenario
says; ``first`` and ``tail`` are test resources, so that a hold before,
after or during the operation has somewhere to be set from (a delete
runs the chain backwards: ``tail`` first). A chain keeps Heat's one
second per leaf to one leaf at a time. Pure: no Heat, no I/O.
"""

import json

NAMES = {
    'ascii': 'res',
    'cyrillic': 'ресурс',
    'emoji': 'res\U0001f525',
    # Heat's resource table holds names of up to 255 characters.
    'longest': 'r' * 255,
}
# A nested stack is named <stack>-<resource>-<12 characters> and a
# stack name has at most 255 (the runner's stack names have 11).
NESTING = ('nested', 'group', 'remote')
LONGEST_NESTING = 255 - len('ix-01234567') - 2 - 12
SECRET_PARAM = 'secret'


def resource_name(kind, family):
    if kind == 'longest' and family in NESTING:
        return 'r' * LONGEST_NESTING
    return NAMES[kind]


VERSION = '2021-04-16'


def _test(value, fail=False, replace=False, depends=None, secret=False):
    value = ({'list_join': ['-', [{'get_param': SECRET_PARAM}, value]]}
             if secret else value)
    props = {'value': value, 'fail': fail, 'update_replace': replace}
    res = {'type': 'OS::Heat::TestResource', 'properties': props}
    if depends:
        res['depends_on'] = depends
    return res


def _inner_template():
    return {'heat_template_version': VERSION,
            'parameters': {'value': {'type': 'string'},
                           'fail': {'type': 'boolean', 'default': False}},
            'resources': {'inner': {
                'type': 'OS::Heat::TestResource',
                'properties': {'value': {'get_param': 'value'},
                               'fail': {'get_param': 'fail'}}}},
            'outputs': {'value': {'value': {
                'get_attr': ['inner', 'output']}}}}


def family_resources(family, name, version, fail, replace):
    """The family's resources (``name`` first) and the held path.

    ``version`` changes what an in-place update changes; ``replace``
    makes that change a replacement; ``fail`` makes the action fail.
    """
    value = 'v%d' % version
    if family == 'test':
        return {name: _test(value, fail, replace, 'first', True)}, name
    if family == 'random':
        return {name: {'type': 'OS::Heat::RandomString',
                       'depends_on': 'first',
                       'properties': {'length': 8 + version,
                                      'salt': {'get_param': SECRET_PARAM}}}
                }, name
    if family == 'sim':
        return {name: {'type': 'OS::Neutron::Net', 'depends_on': 'first',
                       'properties': {'name': 'net-' + value}}}, name
    if family == 'wait':
        return {
            name: {'type': 'OS::Heat::WaitConditionHandle',
                   'depends_on': 'first'},
            'signaller': {'type': 'OS::Nova::Server', 'properties': {
                'image': 'cirros', 'flavor': 'm1.small',
                'networks': [{'network': 'private'}],
                'user_data_format': 'RAW',
                'user_data': {'str_replace': {
                    'template': "#!/bin/sh\nSIGNAL --data-binary "
                                "'{\"status\": \"SUCCESS\"}'\n",
                    'params': {'SIGNAL': {'get_attr': [name,
                                                       'curl_cli']}}}}}},
            'waiter': {'type': 'OS::Heat::WaitCondition', 'properties': {
                'handle': {'get_resource': name}, 'timeout': 120}},
        }, name
    if family.startswith('sd-'):
        return {
            'server': {'type': 'OS::Nova::Server', 'depends_on': 'first',
                       'properties': {'image': 'cirros',
                                      'flavor': 'm1.small',
                                      'networks': [{'network': 'private'}],
                                      'user_data_format':
                                          'SOFTWARE_CONFIG'}},
            'config': {'type': 'OS::Heat::SoftwareConfig', 'properties': {
                'group': 'script', 'config': 'echo hello',
                'inputs': [{'name': 'pw'}, {'name': 'v'}],
                'outputs': [{'name': 'result'}]}},
            name: {'type': 'OS::Heat::SoftwareDeployment', 'properties': {
                'config': {'get_resource': 'config'},
                'server': {'get_resource': 'server'},
                'signal_transport': family[3:],
                'input_values': {'pw': {'get_param': SECRET_PARAM},
                                 'v': value}}},
        }, name
    if family == 'nested':
        return {name: {'type': 'inner.yaml', 'depends_on': 'first',
                       'properties': {'value': value, 'fail': fail}}}, name
    if family == 'group':
        return {name: {'type': 'OS::Heat::ResourceGroup',
                       'depends_on': 'first',
                       'properties': {'count': 1, 'resource_def':
                                      _test(value, fail, replace)}}
                }, name + '/0'
    if family == 'remote':
        return {name: {'type': 'OS::Heat::Stack', 'depends_on': 'first',
                       'properties': {
                           'template': json.dumps(_inner_template()),
                           'parameters': {'value': value,
                                          'fail': fail}}}}, name
    raise ValueError('unknown family %s' % family)


def template(family, name, version=0, fail=False, replace=False,
             present=True):
    """The scenario's template; ``present=False`` leaves NAME out."""
    resources = {'first': _test('first')}
    head = 'first'
    held = None
    if present:
        extra, held = family_resources(family, name, version, fail,
                                       replace)
        resources.update(extra)
        head = name
    resources['tail'] = _test('tail', depends=head)
    return {'heat_template_version': VERSION,
            'parameters': {SECRET_PARAM: {'type': 'string',
                                          'hidden': True}},
            'resources': resources,
            'outputs': {'first': {'value': {'get_attr': ['first',
                                                         'output']}},
                        'tail': {'value': {'get_attr': ['tail',
                                                        'output']}}}}, held


def files():
    """Files a template resource refers to, by name."""
    return {'inner.yaml': _inner_template()}


def stock_hooks_env(path, hook):
    """Heat's own environment for one native hook at ``path``."""
    node = {'hooks': hook}
    for part in reversed(path.split('/')):
        node = {part: node}
    return {'resource_registry': {'resources': node}}


WHEN = {'after': 'after', 'on-failure': 'failed', 'on-change': 'changed',
        'on-replace': 'replaced'}


def breakpoint_env(path, hold, extra=()):
    """Our environment's ``breakpoints`` section for a hold kind."""
    entry = {'resource': path}
    if hold == 'delete':
        entry['action'] = 'delete'
    elif hold in WHEN:
        entry['when'] = WHEN[hold]
    return {'breakpoints': [entry] + list(extra)}
