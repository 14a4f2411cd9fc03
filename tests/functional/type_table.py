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
"""Minimal valid properties of any resource type, from Heat's own schema.

The schema is what ``openstack orchestration resource type show`` gives:
required properties get a value of their type that meets their
constraints (allowed values, ranges, lengths, patterns, custom
constraints such as ``nova.flavor`` or ``ip_addr``). Where a type's own
``validate`` asks for more than its schema says (one of two properties,
a resource of the same stack), ``EXTRA`` gives the properties and
``COMPANIONS`` the resources an author would write, each with its reason.
"""

import re
import warnings

with warnings.catch_warnings():
    warnings.simplefilter('ignore', DeprecationWarning)
    import sre_constants
    import sre_parse

# A value that meets each custom constraint (cloud names are assumed to
# exist by the simulated cloud; the others have a format).
CUSTOM = {
    'ip_addr': '192.0.2.10', 'net_cidr': '10.9.0.0/24',
    'ip_or_cidr': '10.9.0.0/24', 'mac_addr': 'fa:16:3e:00:00:01',
    'iso_8601': '2030-01-01T00:00:00Z', 'expiration': '2030-01-01T00:00:00',
    'cron_expression': '0 * * * *', 'timezone': 'UTC',
    'dns_name': 'www.example.com.', 'dns_domain': 'example.com.',
    'rel_dns_name': 'www', 'json_string': '{}',
    'nova.flavor': 'm1.small', 'glance.image': 'cirros',
    'nova.keypair': 'mykey', 'neutron.network': 'private',
    'neutron.subnet': 'private-subnet', 'neutron.security_group': 'default',
    'keystone.domain': 'default', 'keystone.project': 'demo',
    'keystone.role': 'member', 'keystone.user': 'demo',
    'keystone.group': 'admins', 'keystone.region': 'RegionOne',
    'keystone.service': 'nova', 'cinder.vtype': 'lvmdriver-1',
}
# By property name, where the schema says only "string".
BY_NAME = [
    (r'cidr', '10.9.0.0/24'), (r'(^|_)ip(_address)?$|address$', '192.0.2.10'),
    (r'url|uri|href', 'http://192.0.2.10/'), (r'mac', 'fa:16:3e:00:00:01'),
    (r'email', 'admin@example.com'), (r'protocol', 'tcp'),
    (r'(^|_)port$', '80'),
    (r'period|count|threshold|size|number|timeout', '1'),
    (r'dbinstanceclass', 'db.m1.small'), (r'instancetype', 'm1.small'),
    (r'imageid', 'cirros'),
]
# What changes a value to another valid one.
OTHER = {'192.0.2.10': '192.0.2.11', '10.9.0.0/24': '10.8.0.0/24',
         'm1.small': 'm1.medium', 'cirros': 'fedora',
         'fa:16:3e:00:00:01': 'fa:16:3e:00:00:02',
         'http://192.0.2.10/': 'http://192.0.2.11/', '80': '81',
         'tcp': 'udp', 'UTC': 'Europe/Paris', 'private': 'private-2',
         '0 * * * *': '5 * * * *', '1': '2'}

_NONE = {'type': 'OS::Heat::None'}
_IMAGE = {'ImageId': 'cirros', 'InstanceType': 'm1.small'}
_LAUNCH = {'type': 'AWS::AutoScaling::LaunchConfiguration',
           'properties': _IMAGE}
_DEPLOYABLE = {'type': 'OS::Nova::Server',
               'properties': {'image': 'cirros', 'flavor': 'm1.small',
                              'user_data_format': 'SOFTWARE_CONFIG'}}
_CONFIG = {'type': 'OS::Heat::SoftwareConfig',
           'properties': {'group': 'script', 'config': 'echo hello',
                          'outputs': [{'name': 'result'}]}}


def _signalling_server(handle: str, attribute: str = None) -> dict:
    """A server whose boot script signals the handle, as authors write."""
    ref = ({'get_attr': [handle, attribute]} if attribute else
           {'get_resource': handle})
    script = ("#!/bin/sh\nSIGNAL --data-binary '{\"status\": \"SUCCESS\"}'\n"
              if attribute else "#!/bin/sh\ncfn-signal -e 0 'SIGNAL'\n")
    return {'type': 'OS::Nova::Server',
            'properties': {'image': 'cirros', 'flavor': 'm1.small',
                           'user_data_format': 'RAW',
                           'user_data': {'str_replace': {
                               'template': script,
                               'params': {'SIGNAL': ref}}}}}


# Per type: properties an author adds for the type's own validation.
EXTRA = {
    'OS::Nova::Server': {'image': 'cirros'},
    'OS::Neutron::Subnet': {'cidr': '10.9.0.0/24'},
    # "At least one of the following properties must be specified".
    'OS::Neutron::Quota': {'network': 10},
    'OS::Nova::Quota': {'instances': 10},
    'OS::Octavia::Quota': {'pool': 10},
    'OS::Cinder::Quota': {'volumes': 10},
    'OS::Neutron::RouterInterface': {'subnet': 'private-subnet'},
    'OS::Octavia::Pool': {'loadbalancer': 'sim-lb'},
    'OS::Mistral::CronTrigger': {'pattern': '0 * * * *'},
    'OS::Mistral::Workflow': {'tasks': [{'name': 'sim', 'action':
                                         'std.noop'}]},
    'OS::Cinder::Volume': {'size': 1},
    # Nova's newest API generates no key pair: the key is given.
    'OS::Nova::KeyPair': {'public_key': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 '
                                        'sim'},
    'OS::Zaqar::Subscription': {'subscriber': 'http://192.0.2.10/hook'},
    'OS::Barbican::Order': {'algorithm': 'aes', 'bit_length': 256},
    'OS::Designate::Zone': {'email': 'admin@example.com'},
    'OS::Aodh::CompositeAlarm': {'composite_rule': {'operator': 'or',
                                 'rules': [{'type': 'threshold'}] * 2}},
    # A group, a chain, a stack: of what, Heat's own type.
    'OS::Heat::ResourceGroup': {'resource_def': _NONE},
    'OS::Heat::AutoScalingGroup': {'resource': _NONE},
    'OS::Heat::ResourceChain': {'resources': ['OS::Heat::None']},
    'OS::Heat::Stack': {'template': '{"heat_template_version": '
                                    '"2021-04-16", "resources": {}}'},
    # Names of resources of the same stack (see COMPANIONS).
    'AWS::IAM::AccessKey': {'UserName': {'get_resource': 'user'}},
    'OS::Heat::AccessPolicy': {'AllowedResources': ['other']},
    'AWS::AutoScaling::AutoScalingGroup': {
        'LaunchConfigurationName': {'get_resource': 'launch'}},
    'OS::Heat::InstanceGroup': {
        'LaunchConfigurationName': {'get_resource': 'launch'}},
    'AWS::CloudFormation::WaitCondition': {
        'Handle': {'get_resource': 'handle'}, 'Timeout': 120},
    'OS::Heat::WaitCondition': {'handle': {'get_resource': 'handle'},
                                'timeout': 120},
    'OS::Heat::SoftwareDeployment': {'server': {'get_resource': 'server'},
                                     'config': {'get_resource': 'config'}},
    'OS::Heat::StructuredDeployment': {
        'server': {'get_resource': 'server'},
        'config': {'get_resource': 'config'}},
    'OS::Heat::SoftwareDeploymentGroup': {
        'servers': {'a': {'get_resource': 'server'}},
        'config': {'get_resource': 'config'}},
    'OS::Heat::StructuredDeploymentGroup': {
        'servers': {'a': {'get_resource': 'server'}},
        'config': {'get_resource': 'config'}},
    # Heat's own validation asks for these beside the schema.
    'AWS::AutoScaling::LaunchConfiguration': _IMAGE,
    'AWS::EC2::EIPAssociation': {'EIP': {'get_resource': 'eip'},
                                 'InstanceId': {'get_resource': 'server'}},
    'OS::Heat::SwiftSignal': {'handle': {'get_resource': 'handle'},
                              'timeout': 120},
}
# Per type: the other resources of the stack it needs.
COMPANIONS = {
    'AWS::IAM::AccessKey': {'user': {'type': 'AWS::IAM::User'}},
    'OS::Heat::AccessPolicy': {'other': _NONE},
    'AWS::AutoScaling::AutoScalingGroup': {'launch': _LAUNCH},
    'OS::Heat::InstanceGroup': {'launch': _LAUNCH},
    'AWS::CloudFormation::WaitCondition': {
        'handle': {'type': 'AWS::CloudFormation::WaitConditionHandle'},
        'server': _signalling_server('handle')},
    'OS::Heat::WaitCondition': {
        'handle': {'type': 'OS::Heat::WaitConditionHandle'},
        'server': _signalling_server('handle', 'curl_cli')},
    'OS::Heat::SoftwareDeployment': {'server': _DEPLOYABLE,
                                     'config': _CONFIG},
    'OS::Heat::StructuredDeployment': {
        'server': _DEPLOYABLE,
        'config': {'type': 'OS::Heat::StructuredConfig',
                   'properties': {'config': {'key': 'value'}}}},
    'OS::Heat::SoftwareDeploymentGroup': {'server': _DEPLOYABLE,
                                          'config': _CONFIG},
    'OS::Heat::StructuredDeploymentGroup': {
        'server': _DEPLOYABLE,
        'config': {'type': 'OS::Heat::StructuredConfig',
                   'properties': {'config': {'key': 'value'}}}},
    'OS::Heat::SwiftSignal': {
        'handle': {'type': 'OS::Heat::SwiftSignalHandle'},
        'server': _signalling_server('handle', 'curl_cli')},
    'AWS::EC2::EIPAssociation': {
        'eip': {'type': 'AWS::EC2::EIP'},
        'server': {'type': 'AWS::EC2::Instance', 'properties': _IMAGE}},
}

# Types the simulated cloud cannot run, and why.
UNSIMULATED = {
}


def sample(pattern: str) -> str:
    """The shortest string a simple regular expression matches."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return _sample(sre_parse.parse(pattern))


def _sample(tree) -> str:
    out = []
    for op, arg in tree:
        if op == sre_constants.LITERAL:
            out.append(chr(arg))
        elif op == sre_constants.ANY:
            out.append('a')
        elif op == sre_constants.IN:
            out.append(_in(arg))
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
            low, _, sub = arg
            out.append(_sample(sub) * max(low, 0))
        elif op == sre_constants.SUBPATTERN:
            out.append(_sample(arg[-1]))
        elif op == sre_constants.BRANCH:
            out.append(_sample(arg[1][0]))
    return ''.join(out)


def _in(items) -> str:
    for op, arg in items:
        if op == sre_constants.LITERAL:
            return chr(arg)
        if op == sre_constants.RANGE:
            return chr(arg[0])
        if op == sre_constants.CATEGORY:
            return {sre_constants.CATEGORY_DIGIT: '1',
                    sre_constants.CATEGORY_SPACE: ' '}.get(arg, 'a')
    return 'a'


def value_for(name: str, schema: dict, changed: bool = False):
    """A valid value; another valid one when ``changed``."""
    kind = schema.get('type')
    constraints = schema.get('constraints') or []
    for constraint in constraints:
        if 'allowed_values' in constraint:
            values = constraint['allowed_values']
            return values[1 if changed and len(values) > 1 else 0]
    if kind in ('integer', 'number'):
        low, high = 1, None
        for constraint in constraints:
            if 'range' in constraint:
                low = constraint['range'].get('min', low)
                high = constraint['range'].get('max', high)
        value = low if low is not None else (high if high is not None
                                             else 1)
        if changed and (high is None or value + 1 <= high):
            value += 1
        return value
    if kind == 'boolean':
        default = schema.get('default')
        return (not default) if changed else bool(default)
    if kind == 'map':
        nested = schema.get('schema') or {}
        value = {k: value_for(k, s, changed) for k, s in nested.items()
                 if s.get('required')}
        if changed and nested and not value:
            return None  # no key to change: not a candidate
        return value or ({'sim': 'changed'} if changed else {})
    if kind == 'list':
        item = (schema.get('schema') or {}).get('*')
        low = 1
        for constraint in constraints:
            if 'length' in constraint:
                low = max(low, constraint['length'].get('min') or 1)
        if item is None:
            return ['changed' if changed else 'sim'] * low
        return [value_for(name, item, changed)] * low
    if kind == 'json':
        return {'sim': 'changed'} if changed else {}
    return _string(name, constraints, changed)


def _string(name, constraints, changed):
    value = None
    for constraint in constraints:
        custom = constraint.get('custom_constraint')
        if custom:
            value = CUSTOM.get(custom, 'sim-%s' % custom.rsplit('.', 1)[-1])
    if value is None:
        lowered = name.lower()
        value = next((v for p, v in BY_NAME if re.search(p, lowered)), None)
    for constraint in constraints:
        if value is None and 'allowed_pattern' in constraint:
            value = sample(constraint['allowed_pattern'])
    if value is None:
        value = 'sim-%s' % name
        for constraint in constraints:
            if 'length' in constraint:
                low = constraint['length'].get('min') or 0
                high = constraint['length'].get('max')
                value = value.ljust(low, 'x')
                if high is not None:
                    value = value[:high]
    if changed:
        value = OTHER.get(value, value + '2')
    return value


def minimal_properties(type_name: str, schema: dict) -> dict:
    props = {name: value_for(name, s)
             for name, s in schema['properties'].items()
             if s.get('required')}
    props.update(EXTRA.get(type_name, {}))
    return props


def _simple(schema) -> bool:
    return schema.get('type') in ('string', 'integer', 'number', 'boolean',
                                  'map', 'list')


def update_candidates(schema: dict, in_place: bool) -> list:
    """Properties whose change Heat makes in place (or by replacement)."""
    found = []
    for name, prop in sorted(schema['properties'].items()):
        if not _simple(prop) or prop.get('immutable'):
            continue
        if bool(prop.get('update_allowed')) == in_place:
            found.append(name)
    return found
