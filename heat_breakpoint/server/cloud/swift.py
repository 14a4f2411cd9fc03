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
"""The object store behind Heat's own signals over Swift.

Heat's ``OS::Heat::SwiftSignal``, deployments with ``TEMP_URL_SIGNAL``
and servers polling a temporary URL keep their signals in Swift: Heat
makes a container and an object with a temporary URL, the server PUTs to
it, Heat reads it back. This is the part of python-swiftclient's
``Connection`` those resources use, over the simulated cloud's store:
containers and objects are rows, a missing one raises swiftclient's own
404.
"""

import email.utils
import hashlib
import time

from heat_breakpoint.server.cloud import values

URL = 'http://swift.simulated.invalid:8080/v1/AUTH_%s'


def _not_found(what: str):
    from swiftclient import exceptions
    return exceptions.ClientException('%s not found' % what,
                                      http_status=404, http_reason='Not Found')


class SimulatedSwift(object):
    """swiftclient's ``Connection``, for one project."""

    def __init__(self, store, project_id: str):
        self.store = store
        self.project = project_id
        self.url = URL % project_id

    def _id(self, kind, name):
        return values.object_id(kind, '%s:%s' % (self.project, name))

    # Account -------------------------------------------------------------
    def head_account(self):
        account = self.store.get(self._id('swift_account', ''))
        return dict(account.get('headers', {})) if account else {}

    def post_account(self, headers):
        merged = self.head_account()
        merged.update({k.lower(): v for k, v in headers.items()})
        self.store.add('swift_account', self._id('swift_account', ''),
                       self.project, 'created', {'headers': merged},
                       project=self.project)

    # Containers ----------------------------------------------------------
    def put_container(self, container, headers=None):
        if self.store.get(self._id('swift_container', container)) is None:
            self.store.add('swift_container',
                           self._id('swift_container', container),
                           container, 'created', {}, project=self.project)

    def get_container(self, container, **kwargs):
        if self.store.get(self._id('swift_container', container)) is None:
            raise _not_found('Container %s' % container)
        prefix = '%s/' % container
        listing = []
        for obj in self.store.all('swift_object', container=container):
            if obj.project == self.project and obj.name.startswith(prefix):
                listing.append({'name': obj.name[len(prefix):],
                                'bytes': len(obj['content']),
                                'hash': obj['etag'],
                                'last_modified': obj['iso_modified']})
        return {'x-container-object-count': str(len(listing))}, listing

    def head_container(self, container, **kwargs):
        return self.get_container(container)[0]

    def delete_container(self, container, **kwargs):
        if not self.store.delete(self._id('swift_container', container)):
            raise _not_found('Container %s' % container)

    # Objects -------------------------------------------------------------
    def put_object(self, container, obj, contents=None, **kwargs):
        if self.store.get(self._id('swift_container', container)) is None:
            raise _not_found('Container %s' % container)
        if hasattr(contents, 'read'):
            contents = contents.read()
        if isinstance(contents, bytes):
            contents = contents.decode('utf-8', 'replace')
        contents = contents or ''
        now = time.time()
        etag = hashlib.md5(contents.encode(),
                           usedforsecurity=False).hexdigest()
        name = '%s/%s' % (container, obj)
        self.store.add('swift_object', self._id('swift_object', name), name,
                       'created', {
                           'container': container, 'content': contents,
                           'etag': etag,
                           'last_modified': email.utils.formatdate(
                               now, usegmt=True),
                           'iso_modified': time.strftime(
                               '%Y-%m-%dT%H:%M:%S', time.gmtime(now))},
                       project=self.project)
        return etag

    def _object(self, container, obj):
        found = self.store.get(self._id('swift_object',
                                        '%s/%s' % (container, obj)))
        if found is None:
            raise _not_found('Object %s/%s' % (container, obj))
        return found

    def head_object(self, container, obj, **kwargs):
        found = self._object(container, obj)
        return {'last-modified': found['last_modified'],
                'etag': found['etag'],
                'content-length': str(len(found['content']))}

    def get_object(self, container, obj, **kwargs):
        found = self._object(container, obj)
        return self.head_object(container, obj), found['content']

    def delete_object(self, container, obj, **kwargs):
        self._object(container, obj)
        self.store.delete(self._id('swift_object', '%s/%s' % (container,
                                                              obj)))

    # What the agents of a simulated server do with a temporary URL --------
    def put_url(self, url: str, contents: str) -> bool:
        """PUT to a temporary URL of this store; False if it is not one."""
        prefix = URL % ''
        path = url.split('?', 1)[0]
        if not path.startswith(prefix):
            return False
        parts = path[len(prefix):].split('/', 2)
        if len(parts) != 3:
            return False
        project, container, obj = parts
        SimulatedSwift(self.store, project).put_object(container, obj,
                                                       contents)
        return True
