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
"""The message queues behind Heat's own signals over Zaqar.

A software deployment with ``signal_transport: ZAQAR_SIGNAL`` gets a
queue of its own (Heat makes it with the deployment's stack user, keeps
a signed URL to it), its server's agent posts the deployment's outputs
there, and Heat pops them when it polls the deployment; a server with
``software_config_transport: ZAQAR_MESSAGE`` gets its metadata posted
to a queue the same way. This is the part of python-zaqarclient's v2
``Client`` and ``Queue`` Heat uses (``create_for_tenant``,
``create_from_signed_url``, ``queue``, ``signed_url``, ``post``, ``pop``,
``delete``), over the simulated cloud's store: a queue is a row, its
messages a list in it.
"""

import hashlib
import time

from heat_breakpoint.server.cloud import values

#: How long a signed URL is valid, as Zaqar's default.
SIGNED_URL_SECONDS = 86400


class Message(object):
    """What ``Queue.pop`` yields: Heat reads its ``body``."""

    def __init__(self, body):
        self.body = body


class SimulatedQueue(object):
    """zaqarclient's ``Queue`` of one project."""

    def __init__(self, store, project: str, name: str):
        self.store = store
        self.project = project
        self.name = name
        self.id = values.object_id('zaqar_queue', '%s:%s' % (project, name))

    def _row(self):
        found = self.store.get(self.id)
        if found is None:
            found = self.store.add('zaqar_queue', self.id, self.name,
                                   'created', {'messages': []},
                                   project=self.project)
        return found

    @property
    def exists(self) -> bool:
        return self.store.get(self.id) is not None

    def signed_url(self, paths=None, ttl_seconds=None, methods=None):
        self._row()
        expires = time.strftime(
            '%Y-%m-%dT%H:%M:%S', time.gmtime(
                time.time() + (ttl_seconds or SIGNED_URL_SECONDS)))
        paths = ['/v2/queues/%s/%s' % (self.name, path)
                 for path in (paths or ['messages'])]
        methods = list(methods or ['GET'])
        signature = hashlib.sha256(repr(
            (self.project, paths, methods, expires)).encode()).hexdigest()
        return {'paths': paths, 'expires': expires, 'methods': methods,
                'signature': signature, 'project': self.project}

    def post(self, messages):
        if isinstance(messages, dict):
            messages = [messages]
        queued = list(self._row()['messages'])
        queued.extend(message.get('body') for message in messages)
        self.store.update(self.id, messages=queued)

    def pop(self, count=10):
        found = self.store.get(self.id)
        if found is None:
            return []
        queued = list(found['messages'])
        taken, left = queued[:count], queued[count:]
        self.store.update(self.id, messages=left)
        return [Message(body) for body in taken]

    def delete(self):
        self.store.delete(self.id)


class SimulatedZaqar(object):
    """zaqarclient's v2 ``Client``, for one project."""

    def __init__(self, store, project: str):
        self.store = store
        self.project = project

    def queue(self, name, auto_create=True, force_create=False):
        return SimulatedQueue(self.store, self.project, name)


def create_for_tenant(plugin, tenant_id, token):
    """Heat's ``ZaqarClientPlugin.create_for_tenant``: a project's queues."""
    return SimulatedZaqar(plugin.cloud.store, tenant_id)


def create_from_signed_url(plugin, project_id, paths, expires, methods,
                           signature):
    """Heat's ``ZaqarClientPlugin.create_from_signed_url``."""
    return SimulatedZaqar(plugin.cloud.store, project_id)
