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
"""An in-memory stand-in for the heatclient v1 ``Client``, for tests.

It answers the calls the breakpoint manager makes with heatclient's own
``Stack``/``Resource``/``Event`` objects built from fabricated API bodies
(links and all), and records what was sent: signals, updates, creates and
every events query, so a test can assert that listing never scans a
stack's events. Shipped for downstream code that drives the manager.
"""

import copy
import itertools

from heatclient import exc
from heatclient.v1 import events
from heatclient.v1 import resources
from heatclient.v1 import stacks

BASE = 'http://heat.example/v1/admin'
_ids = itertools.count(1)


def _stack_href(stack):
    return '%s/stacks/%s/%s' % (BASE, stack['stack_name'], stack['id'])


class FakeHeat:
    """Stacks, resources and events in dicts; a ``Client`` look-alike."""

    def __init__(self):
        self._stacks = {}
        self._resources = {}   # stack id -> [resource body]
        self._events = {}      # stack id -> [event body], oldest first
        self._envs = {}
        self._templates = {}
        self.signals = []
        self.updates = []
        self.creates = []
        self.event_queries = []
        self.stacks = _Stacks(self)
        self.resources = _Resources(self)
        self.events = _Events(self)
        self.http_client = _Http(self)
        # ``GET .../breakpoints``: None answers 404 (a Heat without the
        # view); a callable ``(path) -> body`` serves it.
        self.breakpoints_view = None
        self.http_gets = []

    # -- building the fake cloud -------------------------------------------

    def add_stack(self, name, status='CREATE_IN_PROGRESS', env=None,
                  template=None, timeout_mins=None, reason='',
                  creation_time='2024-01-01T00:00:00Z', updated_time=None,
                  parent=None):
        stack_id = 'sid-%d' % next(_ids)
        body = {'id': stack_id, 'stack_name': name, 'stack_status': status,
                'stack_status_reason': reason, 'description': '',
                'creation_time': creation_time, 'updated_time': updated_time,
                'timeout_mins': timeout_mins, 'parent': parent}
        body['links'] = [{'rel': 'self', 'href': _stack_href(body)}]
        self._stacks[stack_id] = body
        self._resources[stack_id] = []
        self._events[stack_id] = []
        self._envs[stack_id] = copy.deepcopy(env or {})
        self._templates[stack_id] = copy.deepcopy(template or {})
        return body

    def add_resource(self, stack, name, status='INIT_COMPLETE', reason='',
                     required_by=(), nested=None,
                     updated_time='2024-01-01T00:00:10Z'):
        links = [{'rel': 'self',
                  'href': '%s/resources/%s' % (_stack_href(stack), name)},
                 {'rel': 'stack', 'href': _stack_href(stack)}]
        if nested is not None:
            links.append({'rel': 'nested', 'href': _stack_href(nested)})
        body = {'resource_name': name, 'resource_status': status,
                'resource_status_reason': reason,
                'required_by': list(required_by), 'links': links,
                'resource_type': 'OS::Heat::TestResource',
                'physical_resource_id': nested['id'] if nested else '',
                'creation_time': '2024-01-01T00:00:00Z',
                'updated_time': updated_time}
        if stack.get('parent'):
            body['parent_resource'] = stack['parent']
        self._resources[stack['id']].append(body)
        return body

    def add_event(self, stack, resource, reason, event_time,
                  status='INIT_COMPLETE', properties=None):
        body = {'id': 'eid-%d' % next(_ids), 'resource_name': resource,
                'resource_status_reason': reason, 'event_time': event_time,
                'resource_status': status,
                'resource_properties': copy.deepcopy(properties or {}),
                'links': [{'rel': 'stack', 'href': _stack_href(stack)}]}
        self._events[stack['id']].append(body)
        return body

    # -- look-ups ------------------------------------------------------------

    def find(self, ident):
        for key in (ident, str(ident).split('/')[-1]):
            if key in self._stacks:
                return self._stacks[key]
        for body in self._stacks.values():
            if body['stack_name'] == ident:
                return body
        raise exc.HTTPNotFound('The Stack (%s) could not be found.' % ident)

    def environment_of(self, ident):
        return self._envs[self.find(ident)['id']]

    def set_environment(self, ident, env):
        self._envs[self.find(ident)['id']] = copy.deepcopy(env)


class _Response:
    def __init__(self, body):
        self._body = body

    def json(self):
        return copy.deepcopy(self._body)


class _Http:
    """``Client.http_client``: raw GETs (the breakpoints view)."""

    def __init__(self, fake):
        self.fake = fake

    def get(self, path):
        self.fake.http_gets.append(path)
        if self.fake.breakpoints_view is None:
            raise exc.HTTPNotFound('The resource could not be found.')
        return _Response(self.fake.breakpoints_view(path))


class _Stacks:
    def __init__(self, fake):
        self.fake = fake

    def get(self, stack_id, resolve_outputs=True):
        return stacks.Stack(self, copy.deepcopy(self.fake.find(stack_id)),
                            loaded=True)

    def environment(self, stack_id):
        return copy.deepcopy(self.fake.environment_of(stack_id))

    def template(self, stack_id):
        return copy.deepcopy(self.fake._templates[
            self.fake.find(stack_id)['id']])

    def update(self, stack_id, **fields):
        self.fake.find(stack_id)
        self.fake.updates.append(dict(fields, stack_id=stack_id))

    def create(self, **fields):
        self.fake.creates.append(fields)
        body = self.fake.add_stack(fields['stack_name'])
        return {'stack': {'id': body['id']}}


class _Resources:
    def __init__(self, fake):
        self.fake = fake

    def list(self, stack_id, nested_depth=0, **kwargs):
        root = self.fake.find(stack_id)
        found = []
        pending = [(root, 0)]
        while pending:
            stack, depth = pending.pop(0)
            for body in self.fake._resources[stack['id']]:
                found.append(resources.Resource(self, copy.deepcopy(body),
                                                loaded=True))
                nested = [link['href'] for link in body['links']
                          if link['rel'] == 'nested']
                if nested and depth < (nested_depth or 0):
                    pending.append((self.fake.find(
                        nested[0].rsplit('/', 1)[-1]), depth + 1))
        return found

    def signal(self, stack_id, resource_name, data=None):
        stack = self.fake.find(stack_id)
        if not any(body['resource_name'] == resource_name
                   for body in self.fake._resources[stack['id']]):
            raise exc.HTTPNotFound('The Resource (%s) could not be found.'
                                   % resource_name)
        self.fake.signals.append({
            'stack_id': stack_id, 'resource_name': resource_name,
            'data': data})


class _Events:
    def __init__(self, fake):
        self.fake = fake

    def list(self, stack_id, resource_name=None, **kwargs):
        stack = self.fake.find(stack_id)
        self.fake.event_queries.append(dict(
            kwargs, stack_id=stack_id, resource_name=resource_name))
        found = [body for body in self.fake._events[stack['id']]
                 if resource_name is None or
                 body['resource_name'] == resource_name]
        if kwargs.get('sort_dir') == 'desc':
            found = list(reversed(found))
        if kwargs.get('limit'):
            found = found[:int(kwargs['limit'])]
        return [events.Event(self, dict(body, stack_name=stack[
            'stack_name']), loaded=True) for body in found]

    def get(self, stack_id, resource_name, event_id):
        stack = self.fake.find(stack_id)
        for body in self.fake._events[stack['id']]:
            if body['id'] == event_id:
                return events.Event(self, copy.deepcopy(body), loaded=True)
        raise exc.HTTPNotFound('The Event (%s) could not be found.'
                               % event_id)
