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
"""``GET /v1/{project}/stacks/{stack}[/{id}]/breakpoints``: one stack's view.

What a debugging user asks most ("what is held, what is armed?") in one
request: the filter routes it here, before Heat's router, and the engine
answers it from its database (:mod:`heat_breakpoint.engine.view.listing`)
through one RPC call, instead of the client listing every resource of a
nested tree or reading every event. ``?nested_depth=N`` limits how deep
held resources are looked for (default: all the way down);
``?resource=PATH`` adds one resource described in full (``show``).
``?progress=1`` adds the operation's progress (counts by state, latest
events; see :mod:`heat_breakpoint.engine.view.progress`).

Access is Heat's: the request's project must own the stack (or be admin),
and the caller needs the ``breakpoints:index`` policy (by default, what
``resource:index`` allows, as to list resources).
Errors are Heat's faults (via Heat's ``faultwrap`` filter). An engine
without the plugin's RPC method (an older plugin, or none) makes the
request Heat's to answer (a 404), which clients take as "no view here".
An engine that cannot reach its database (MariaDB restarting) gets a 503
in Heat's fault format that says so, where Heat's own requests answer an
anonymous 500 ("Internal Error"): the user learns to try again later.
"""

import json
import re
import typing
import urllib.parse

from oslo_log import log as logging
import webob
import webob.exc

from heat_breakpoint._i18n import _
from heat_breakpoint.api import request_policy

LOG = logging.getLogger(__name__)

PATH = re.compile(
    r'^(?:/v1)?/(?P<tenant>[^/]+)/stacks/(?P<stack>[^/]+)'
    r'(?:/(?P<stack_id>[^/]+))?/breakpoints/?$')
RPC_METHOD = 'breakpoint_list'
NESTED_DEPTH = 'nested_depth'
RESOURCE = 'resource'
_MAX_PATH = 2600
PROGRESS = 'progress'


def match(environ) -> typing.Optional[dict]:
    """The path's parts if this is a breakpoints view request."""
    if environ.get('REQUEST_METHOD') != 'GET':
        return None
    found = PATH.match(environ.get('PATH_INFO', ''))
    return found.groupdict() if found else None


def _nested_depth(query: str) -> typing.Optional[int]:
    from heat.common import exception
    values = urllib.parse.parse_qs(query).get(NESTED_DEPTH)
    if not values:
        return None
    text = values[-1]
    if not text.isdigit() or len(text) > 4:
        raise exception.Invalid(
            reason='%s must be a whole number from 0, got %r'
                   % (NESTED_DEPTH, text[:40]))
    return int(text)


def _resource(query: str) -> typing.Optional[str]:
    from heat.common import exception
    values = urllib.parse.parse_qs(query).get(RESOURCE)
    if not values:
        return None
    text = values[-1]
    if len(text) > _MAX_PATH or not text.isprintable():
        raise exception.Invalid(reason='%s must be a resource path'
                                % RESOURCE)
    return text


def _engine_lacks_the_view(exc: Exception) -> bool:
    """An RPC error saying the engine has no ``breakpoint_list``."""
    names = {type(exc).__name__, getattr(exc, 'exc_type', None)}
    return any(str(name).split('_Remote')[0] in (
        'NoSuchMethod', 'UnsupportedVersion') for name in names if name)


# What oslo.db raises in heat-engine when the database cannot be reached.
_DATABASE_DOWN = ('DBConnectionError',)


def _database_unreachable(exc: Exception) -> bool:
    """An RPC error saying the engine could not reach its database."""
    names = {type(exc).__name__, getattr(exc, 'exc_type', None)}
    return any(str(name).split('_Remote')[0] in _DATABASE_DOWN
               for name in names if name)


def _unavailable(exc_type: str) -> webob.Response:
    """A 503 in Heat's fault format, safe to show (no traceback)."""
    body = {
        'code': 503,
        'title': 'Service Unavailable',
        'explanation': webob.exc.HTTPServiceUnavailable.explanation,
        'error': {'type': exc_type,
                  'message': _('heat-engine cannot reach its database: '
                               'try again when the database is back'),
                  'traceback': None},
    }
    return webob.Response(status=503, json_body=body)


class BreakpointsView(object):
    """Answers the breakpoints route with one engine RPC call."""

    def __init__(self):
        self._engine = None

    def _rpc(self):
        if self._engine is None:
            from heat.rpc import client as rpc_client
            self._engine = rpc_client.EngineClient()
        return self._engine

    def __call__(self, environ, start_response, parts: dict):
        request = webob.Request(environ)
        cnxt = getattr(request, 'context', None)
        if cnxt is None:
            # Not behind Heat's context filter: let Heat answer (404).
            return None
        request_policy.view(cnxt, parts['tenant'])
        query = environ.get('QUERY_STRING', '')
        kwargs = {'nested_depth': _nested_depth(query)}
        resource = _resource(query)
        if resource is not None:
            kwargs['resource'] = resource
        if parts['stack_id']:
            from heat.common import identifier
            kwargs['stack_identity'] = dict(identifier.HeatIdentifier(
                cnxt.project_id, parts['stack'], parts['stack_id']))
        else:
            kwargs['stack_name'] = parts['stack']
        if urllib.parse.parse_qs(environ.get('QUERY_STRING', '')).get(
                PROGRESS, ['0'])[-1] not in ('0', '', 'false'):
            kwargs[PROGRESS] = True
        engine = self._rpc()
        try:
            result = engine.call(cnxt, engine.make_msg(RPC_METHOD, **kwargs))
        except Exception as exc:
            if _database_unreachable(exc):
                LOG.warning('Breakpoints view of %(stack)s unavailable: '
                            'heat-engine cannot reach its database',
                            {'stack': parts['stack']})
                return _unavailable('DBConnectionError')(environ,
                                                         start_response)
            if not _engine_lacks_the_view(exc):
                raise
            LOG.warning('heat-engine has no %s (plugin missing or older '
                        'than this filter): breakpoints view unavailable',
                        RPC_METHOD)
            return None
        response = webob.Response(
            body=json.dumps(result).encode('utf-8'),
            content_type='application/json', charset='UTF-8')
        return response(environ, start_response)
