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
"""A simulated Keystone, for the credentials Heat stores with a stack.

Heat goes on with a stack's work on the credentials it stored at create
(``deferred_auth_method``): a signal to a software deployment, a nested
stack, a wait condition all load the stack's stored context, which asks
Keystone for a token. The local server has no Keystone, and ``noauth``
tells Heat the Keystone URL is the word ``url``. This is the one call
Heat makes there, answered as Keystone would: version discovery and
``POST /v3/auth/tokens``, whose token carries the same catalog as the
requests' own (:func:`heat_breakpoint.server.config.write_token_response`).
A paste filter after ``noauth`` points the requests' Keystone URL here.
"""

import json

PREFIX = '/identity'


def _discovery(url: str) -> dict:
    return {'version': {
        'id': 'v3.14', 'status': 'stable',
        'updated': '2020-04-07T00:00:00Z',
        'links': [{'rel': 'self', 'href': url + '/v3/'}],
        'media-types': [{'base': 'application/json',
                         'type': 'application/vnd.openstack.identity-v3+json'
                         }]}}


def _requested(body: dict, fallback: dict) -> dict:
    """The user and project a password or token request names."""
    auth = body.get('auth') or {}
    password = (auth.get('identity') or {}).get('password') or {}
    user = password.get('user') or {}
    scope = (auth.get('scope') or {}).get('project') or {}
    token = json.loads(json.dumps(fallback))
    name = user.get('name') or user.get('id')
    if name:
        token['token']['user'].update(id=user.get('id') or name, name=name)
    project = scope.get('id') or scope.get('name')
    if project:
        token['token']['project'].update(id=project, name=project)
    return token


class Identity(object):
    """The WSGI app of ``/identity``: discovery and token issue."""

    def __init__(self, base_url: str, token_file: str):
        self.url = base_url + PREFIX
        self.token_file = token_file

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '').rstrip('/')
        method = environ.get('REQUEST_METHOD')
        if method == 'GET' and path in ('', '/v3'):
            return self._json(start_response, '200 OK',
                              _discovery(self.url))
        if method == 'POST' and path == '/v3/auth/tokens':
            size = int(environ.get('CONTENT_LENGTH') or 0)
            try:
                body = json.loads(environ['wsgi.input'].read(size) or '{}')
            except ValueError:
                body = {}
            with open(self.token_file) as f:
                token = _requested(body, json.load(f))
            return self._json(start_response, '201 Created', token,
                              [('X-Subject-Token', 'gAAAAAsimulated')])
        return self._json(start_response, '404 Not Found',
                          {'error': {'code': 404, 'message': 'not found',
                                     'title': 'Not Found'}})

    @staticmethod
    def _json(start_response, status, body, headers=()):
        data = json.dumps(body).encode()
        start_response(status, [('Content-Type', 'application/json'),
                                ('Content-Length', str(len(data)))] +
                       list(headers))
        return [data]


def auth_url_filter_factory(global_conf, **local_conf):
    """Paste filter: requests name the simulated Keystone as theirs."""
    url = local_conf['auth_url']

    def make(app):
        def filtered(environ, start_response):
            environ['HTTP_X_AUTH_URL'] = url
            return app(environ, start_response)
        return filtered
    return make
