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
"""The fault rules of a running local server, over HTTP.

``/simulated/faults``, beside Heat's API on the local server only (a real
Heat has no such path): ``GET`` lists the rules, ``POST`` adds rules (a
list, or ``{"faults": [...]}``: all of them or, if one is wrong, none,
with a one-line error naming it), ``DELETE /simulated/faults/N`` removes
rule N. ``heat-breakpoint-server faults`` and the DAP adapter's
``faults`` use it.
"""

import json

from heat_breakpoint.server.cloud import faults

PREFIX = '/simulated/faults'
MAX_BODY = 1024 * 1024


class FaultAPI(object):
    """The WSGI app of ``/simulated/faults``."""

    def __init__(self, book: faults.FaultBook):
        self.book = book

    def __call__(self, environ, start_response):
        method = environ.get('REQUEST_METHOD')
        path = environ.get('PATH_INFO', '').strip('/')
        try:
            if method == 'GET' and not path:
                return _json(start_response, '200 OK', {'faults': [
                    rule.to_dict() for rule in self.book.rules]})
            if method == 'POST' and not path:
                added = self.book.add(_body(environ))
                return _json(start_response, '201 Created', {
                    'faults': [rule.to_dict() for rule in added]})
            if method == 'DELETE' and path:
                try:
                    number = int(path)
                except ValueError:
                    raise faults.FaultError('a fault rule is named by its '
                                            'number, got %r' % path)
                removed = self.book.remove(number)
                return _json(start_response, '200 OK',
                             {'removed': removed.to_dict()})
        except faults.FaultError as exc:
            status = '404 Not Found' if str(exc).startswith(
                'no fault rule') else '400 Bad Request'
            return _json(start_response, status, {'error': str(exc)})
        return _json(start_response, '405 Method Not Allowed', {
            'error': '%s %s%s is not a request of the fault rules' % (
                method, PREFIX, '/' + path if path else '')})


def _body(environ):
    try:
        size = int(environ.get('CONTENT_LENGTH') or 0)
    except ValueError:
        raise faults.FaultError('bad Content-Length')
    if size > MAX_BODY:
        raise faults.FaultError('the rules are larger than %d bytes'
                                % MAX_BODY)
    try:
        return json.loads(environ['wsgi.input'].read(size) or b'null')
    except ValueError as exc:
        raise faults.FaultError('the rules are not JSON: %s' % exc)


def _json(start_response, status, body):
    data = json.dumps(body).encode()
    start_response(status, [('Content-Type', 'application/json'),
                            ('Content-Length', str(len(data)))])
    return [data]
