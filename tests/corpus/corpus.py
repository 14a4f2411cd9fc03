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
"""Public templates nobody here wrote, run as a template author would.

The corpus is ``openstack/heat-templates`` (its README says which commit):
every YAML or JSON file under ``hot/`` or ``cfn/`` that is a template,
with its ``<name>_env.yaml`` beside it when there is one. Required
parameters get the values an author would type (``image=cirros``,
``flavor=m1.small``, ``key_name=mykey``, ``public_net=public``...), chosen
from the parameter's name, type and constraints.
"""

import dataclasses
import os
import re
import string
import time
from typing import Optional

import yaml

VERSION_KEYS = ('heat_template_version', 'AWSTemplateFormatVersion',
                'HeatTemplateFormatVersion')
SUFFIXES = ('.yaml', '.yml', '.json', '.template')


def default_root() -> Optional[str]:
    """Where the corpus is: $HEAT_BREAKPOINT_CORPUS, or beside the repo."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get('HEAT_BREAKPOINT_CORPUS'),
                  os.path.join(here, '..', '..', '..', 'shared', 'corpus',
                               'heat-templates')]
    for path in candidates:
        if path and os.path.isdir(os.path.join(path, 'hot')):
            return os.path.realpath(path)
    return None


class _Loader(yaml.SafeLoader):
    """YAML as Heat reads it: dates stay strings, unknown tags are None."""


_Loader.add_constructor('tag:yaml.org,2002:timestamp',
                        lambda loader, node: loader.construct_scalar(node))
_Loader.add_multi_constructor('!', lambda loader, suffix, node: None)


def load(path: str):
    with open(path, encoding='utf-8', errors='replace') as f:
        try:
            return yaml.load(f, Loader=_Loader)
        except yaml.YAMLError:
            return None


def is_template(doc) -> bool:
    if not isinstance(doc, dict):
        return False
    if any(key in doc for key in VERSION_KEYS):
        return True
    resources = doc.get('resources')
    return (isinstance(resources, dict) and bool(resources) and
            all(isinstance(r, dict) and 'type' in r
                for r in resources.values()))


@dataclasses.dataclass(frozen=True)
class Template:
    root: str
    path: str            # relative to root
    env: Optional[str]   # relative to root

    @property
    def abspath(self) -> str:
        return os.path.join(self.root, self.path)

    @property
    def env_abspath(self) -> Optional[str]:
        return self.env and os.path.join(self.root, self.env)

    @property
    def doc(self) -> dict:
        return load(self.abspath)

    @property
    def slug(self) -> str:
        """A stack name: the path, with the suffix where it matters."""
        stem = re.sub(r'\.(yaml|yml)$', '', self.path)
        return re.sub(r'[^A-Za-z0-9]+', '-', stem).strip('-').lower()


def _custom_types(node) -> set:
    """Types the template uses that neither Heat nor a file defines."""
    types = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ('type', 'Type') and isinstance(value, str) and \
                    '::' in value and not value.startswith(('OS::', 'AWS::')):
                types.add(value)
            else:
                types |= _custom_types(value)
    elif isinstance(node, list):
        for value in node:
            types |= _custom_types(value)
    return types


def _defined_types(env_path) -> set:
    doc = load(env_path) or {}
    registry = doc.get('resource_registry') if isinstance(doc, dict) else {}
    return set(registry or {})


def _env_for(root: str, path: str):
    """The env an author passes with a template.

    The one beside it (``<name>_env.yaml``), else one in its folder or
    above that defines the template's own resource types.
    """
    stem = path.rsplit('.', 1)[0]
    if os.path.isfile(stem + '_env.yaml'):
        return stem + '_env.yaml'
    wanted = _custom_types(load(path))
    if not wanted:
        return None
    folder = os.path.dirname(path)
    while folder.startswith(root) and folder != root:
        for name in sorted(os.listdir(folder)):
            candidate = os.path.join(folder, name)
            if name.endswith('_env.yaml') and \
                    wanted <= _defined_types(candidate):
                return candidate
        folder = os.path.dirname(folder)
    return None


def discover(root: str) -> list:
    """Every template of the corpus, in path order."""
    found = []
    for top in ('hot', 'cfn'):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SUFFIXES) or name.endswith('_env.yaml'):
                    continue
                path = os.path.join(dirpath, name)
                if not is_template(load(path)):
                    continue
                env = _env_for(root, path)
                found.append(Template(
                    root, os.path.relpath(path, root),
                    os.path.relpath(env, root) if env else None))
    return found


# What an author types for a required parameter, by what its name says.
_BY_NAME = [
    (r'pass(word)?|secret', 'Passw0rd!'),
    (r'pass(word)?|secret', 'Passw0rd1'),
    (r'pass(word)?|secret', 'Pass1234'),
    (r'e?mail', 'admin@example.com'),
    (r'^(ssh_)?key(_?name)?$|keypair', 'mykey'),
    (r'ubuntu_image', 'ubuntu-22.04'),
    (r'image', 'cirros'),
    (r'flavor|instancetype', 'm1.small'),
    (r'(public|external|ext)_?net', 'public'),
    (r'private_net_name', 'private-net'),
    (r'subnet', 'private-subnet'),
    (r'cidr', '10.0.0.0/24'),
    (r'gateway', '10.0.0.1'),
    (r'pool_start', '10.0.0.10'),
    (r'pool_end', '10.0.0.200'),
    (r'(^|_)ip(_address)?$|_ip_address$', '192.0.2.10'),
    (r'net(work)?(_id)?$|net_id', 'private'),
    (r'url', 'http://192.0.2.10:5000/v3'),
    (r'domain', 'default'),
    (r'region', 'RegionOne'),
    (r'(^|_)(hosts?)$', 'compute-0'),
    (r'availability_zone', 'nova'),
    (r'role', 'member'),
    (r'(user|username)$', 'admin'),
    (r'project', 'demo'),
    (r'server|instance', 'server-0'),
    (r'unc_path', r'\\fileserver\share\sql.iso'),
]

_CANDIDATES = ['corpus', 'admin', 'Passw0rd1', 'a1', 'value', 'abc123',
               'x']


def _fits(value, schema) -> bool:
    """Does a string satisfy every one of the parameter's constraints?"""
    patterns = [schema.get('AllowedPattern')]
    lengths = [(schema.get('MinLength'), schema.get('MaxLength'))]
    for constraint in schema.get('constraints') or []:
        if not isinstance(constraint, dict):
            continue
        patterns.append(constraint.get('allowed_pattern'))
        if 'length' in constraint:
            lengths.append((constraint['length'].get('min'),
                            constraint['length'].get('max')))
    for pattern in filter(None, patterns):
        match = re.match(pattern, value)
        if match is None or match.end() != len(value):
            return False
    for low, high in lengths:
        if low is not None and len(value) < int(low):
            return False
        if high is not None and len(value) > int(high):
            return False
    return True


def _allowed(schema):
    values = schema.get('AllowedValues')
    for constraint in schema.get('constraints') or []:
        if isinstance(constraint, dict) and 'allowed_values' in constraint:
            values = constraint['allowed_values']
    return values


def _number(schema):
    low = schema.get('MinValue')
    for constraint in schema.get('constraints') or []:
        if isinstance(constraint, dict) and 'range' in constraint:
            low = constraint['range'].get('min', low)
    return low if low is not None else 1


def plausible_value(name: str, schema: dict):
    """The value an author would give ``name`` on the command line."""
    allowed = _allowed(schema)
    if allowed:
        return allowed[0]
    kind = str(schema.get('type') or schema.get('Type') or 'string').lower()
    if kind == 'number':
        return _number(schema)
    if kind == 'boolean':
        return 'true'
    if kind == 'json':
        return '{}'
    if kind in ('comma_delimited_list', 'commadelimitedlist'):
        return '8,16' if 'length' in name.lower() else 'corpus'
    lowered = name.lower()
    for pattern, value in _BY_NAME:
        if re.search(pattern, lowered) and _fits(value, schema):
            return value
    for value in _CANDIDATES:
        if _fits(value, schema):
            return value
    pattern = _pattern_of(schema)
    return _sample(pattern) if pattern else 'corpus'


def _pattern_of(schema):
    for constraint in schema.get('constraints') or []:
        if isinstance(constraint, dict) and 'allowed_pattern' in constraint:
            return constraint['allowed_pattern']
    return schema.get('AllowedPattern')


def _sample(pattern: str) -> str:
    """A short string of the classes a simple pattern names."""
    chars = ''
    if re.search(r'a-z', pattern):
        chars += 'abc'
    if re.search(r'A-Z', pattern):
        chars += 'A'
    if re.search(r'0-9|\\d', pattern):
        chars += '1'
    return chars or string.ascii_lowercase[:4]


def parameters(template: Template, env_params=()) -> dict:
    """Values for every parameter without a default (nor one in the env)."""
    doc = template.doc or {}
    params = doc.get('parameters') or doc.get('Parameters') or {}
    values = {}
    for name, schema in params.items():
        if not isinstance(schema, dict):
            continue
        if 'default' in schema or 'Default' in schema or name in env_params:
            continue
        values[name] = plausible_value(name, schema)
    return values


@dataclasses.dataclass
class Outcome:
    template: Template
    status: str
    reason: str = ''
    resources: int = 0
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return self.status == 'CREATE_COMPLETE' and self.resources > 0


def _env_parameters(env_path):
    if not env_path:
        return {}
    doc = load(env_path) or {}
    merged = dict(doc.get('parameters') or {})
    merged.update(doc.get('parameter_defaults') or {})
    return merged


def client_for(server, template: Template):
    """A heatclient of a project of the template's own.

    As an author tries a template in a fresh project of a real cloud: a
    server naming no network goes on the project's only one, which other
    templates' networks would make ambiguous. The local server's noauth
    takes the project from ``X-Auth-Project``.
    """
    from heatclient import client as heat_client
    from keystoneauth1 import noauth
    from keystoneauth1 import session
    project = 'corpus-%s' % template.slug[:40]
    sess = session.Session(auth=noauth.NoAuth(),
                           additional_headers={'X-Auth-Project': project})
    return heat_client.Client('1', session=sess, endpoint_override=(
        '%s/v1/%s' % (server.url, project)))


def create(client, template: Template, name: str, timeout: float = 300,
           extra_env=()):
    """Create ``template`` as ``name`` the way the CLI would; an Outcome."""
    from heatclient.common import template_utils
    from heatclient import exc

    start = time.monotonic()
    files, tpl = template_utils.get_template_contents(
        template_file=template.abspath)
    env_paths = [p for p in [template.env_abspath] if p] + list(extra_env)
    env_files, env = template_utils.process_multiple_environments_and_files(
        env_paths=env_paths)
    files.update(env_files)
    params = parameters(template, _env_parameters(template.env_abspath))
    try:
        client.stacks.create(stack_name=name, template=tpl, files=files,
                             environment=env, parameters=params,
                             disable_rollback=True)
    except exc.HTTPException as e:
        return Outcome(template, 'REFUSED', _one_line(e),
                       seconds=time.monotonic() - start)
    deadline = start + timeout
    stack = client.stacks.get(name)
    while stack.stack_status.endswith('IN_PROGRESS') and \
            time.monotonic() < deadline:
        time.sleep(0.5)
        stack = client.stacks.get(name)
    seconds = time.monotonic() - start
    count = len(client.resources.list(name, nested_depth=5))
    status = stack.stack_status
    if status.endswith('IN_PROGRESS'):
        status = 'TIMEOUT'
    return Outcome(template, status,
                   _one_line(stack.stack_status_reason or ''), count,
                   seconds)


def _one_line(text) -> str:
    text = str(getattr(text, 'error', None) and
               text.error.get('error', {}).get('message') or text)
    return ' '.join(text.split())[:400]
