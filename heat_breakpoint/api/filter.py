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
"""A heat-api paste filter that lets requests carry a ``breakpoints`` section.

Heat's API refuses environment sections it does not know, so a stack request
whose environment (or environment file) holds breakpoints is rewritten into
native hooks plus the breakpoint marker (see
``heat_breakpoint.model.breakpoints``) before Heat parses it, and
breakpoints naming no resource of the template (or of a nested template
sent with it in ``files``) are answered with an HTTP 400 in Heat's fault
format. It also serves the read-only
``GET .../stacks/{stack}[/{id}]/breakpoints`` view (see
:mod:`heat_breakpoint.api.view`). Before any of that work, the caller is
held to Heat's own rule for the request, and a resource signal carrying
one of our commands to our rule for the command
(:mod:`heat_breakpoint.api.request_policy`). Every other request passes
through untouched; a stack request whose raw body does not even contain
the word ``breakpoints`` is not parsed at all.

Wire it right before ``apiv1app`` in heat-api's pipeline; see
``etc/api-paste-breakpoint.ini``.
"""

import copy
import io
import json
import re
import typing

from oslo_log import log as logging
import webob
import webob.exc

from heat_breakpoint.api import request_policy
from heat_breakpoint.api import view
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import envfile
from heat_breakpoint.model import nested_paths
from heat_breakpoint.model import nesting
from heat_breakpoint.model import registry

LOG = logging.getLogger(__name__)

#: Used when Heat's own ``max_json_body_size`` cannot be read.
DEFAULT_MAX_BODY_SIZE = 1024 * 1024

# Both the section and the marker (``heat_breakpoints``) contain this, so a
# body without it cannot hold breakpoints. One substring scan of the raw
# body (~7 us for 20 KB) is the whole cost of the filter for such requests.
_TEXT_NEEDLE = breakpoints.SECTION
_NEEDLE = _TEXT_NEEDLE.encode('ascii')

# Heat's version negotiation strips ``/v1`` before apiv1app; accept it anyway
# so the filter also works when placed earlier in the pipeline.
_CREATE_PATH = re.compile(
    r'^(?:/v1)?/(?P<tenant>[^/]+)/(?P<what>stacks(?:/preview)?|validate)/?$')
_UPDATE_PATH = re.compile(
    r'^(?:/v1)?/(?P<tenant>[^/]+)/stacks/[^/]+/[^/]+(?P<what>/preview)?/?$')
_ROUTES = {'POST': _CREATE_PATH, 'PUT': _UPDATE_PATH, 'PATCH': _UPDATE_PATH}
# Heat's policy rule (``stacks:<action>``) for each route, by what the
# path ends with; the filter enforces it before reading any breakpoint.
_HEAT_ACTIONS = {
    ('POST', 'stacks'): 'create',
    ('POST', 'stacks/preview'): 'preview',
    ('POST', 'validate'): 'validate_template',
    ('PUT', None): 'update',
    ('PUT', '/preview'): 'preview_update',
    ('PATCH', None): 'update_patch',
    ('PATCH', '/preview'): 'preview_update_patch',
}
# Any resource signal (whatever names the stack): our commands travel so.
_SIGNAL_PATH = re.compile(
    r'^(?:/v1)?/(?P<tenant>[^/]+)/stacks/.+/resources/[^/]+/signal/?$')
# Both keys of our signals (see ``reasons``) contain this.
_SIGNAL_NEEDLE = b'breakpoint_'

_ENVIRONMENT = 'environment'
_ENVIRONMENT_FILES = 'environment_files'
_FILES = 'files'
_TEMPLATE = 'template'


def _heat_body_limit() -> int:
    """Heat's own request-size limit: larger bodies get its 413 anyway."""
    try:
        from oslo_config import cfg
        return int(cfg.CONF.max_json_body_size)
    except Exception:  # not registered outside heat-api (tests, tools)
        return DEFAULT_MAX_BODY_SIZE


def _fault(error: breakpoints.BreakpointError) -> webob.Response:
    """An HTTP 400 shaped like the faults of Heat's faultwrap filter."""
    body = {
        'code': 400,
        'title': 'Bad Request',
        'explanation': webob.exc.HTTPBadRequest.explanation,
        'error': {'type': 'BreakpointError',
                  'message': error.message,
                  'traceback': None},
    }
    return webob.Response(status=400, json_body=body)


def _where(prefix: str, error: breakpoints.BreakpointError):
    return breakpoints.BreakpointError('%s: %s' % (prefix, error.message))


def _to_json(env: dict, where: str) -> str:
    try:
        return json.dumps(env)
    except (TypeError, ValueError, RecursionError):
        raise breakpoints.BreakpointError(
            '%s: holds values JSON cannot represent (binary data, sets?)'
            % where) from None


class _Rewrite(object):
    """The rewrite of one parsed request body; ``changed`` says if any."""

    def __init__(self, body: dict):
        self.body = body
        self.changed = False

    def environment(self) -> typing.Optional[dict]:
        """Rewrite the ``environment`` field; return it parsed, if it is.

        Heat accepts the field as a mapping or as YAML/JSON text; text is
        only parsed when it mentions breakpoints, and written back as JSON.
        """
        env = self.body.get(_ENVIRONMENT)
        if isinstance(env, str) and _TEXT_NEEDLE in env:
            parsed = _environment(_ENVIRONMENT, env)
            new_env = _rewrite_env(_ENVIRONMENT, parsed)
            if new_env is not parsed:
                self.body[_ENVIRONMENT] = _to_json(new_env, _ENVIRONMENT)
                self.changed = True
            return new_env
        if isinstance(env, dict):
            new_env = _rewrite_env(_ENVIRONMENT, env)
            if new_env is not env:
                self.body[_ENVIRONMENT] = new_env
                self.changed = True
            return new_env
        return None

    def environment_files(self) -> list[dict]:
        """Rewrite the environment files; return them parsed, in order.

        Files that do not mention breakpoints and do not parse are Heat's to
        report; they are left as sent.
        """
        names = self.body.get(_ENVIRONMENT_FILES)
        files = self.body.get(_FILES)
        if not isinstance(names, list) or not isinstance(files, dict):
            return []
        names = [name for name in dict.fromkeys(
            n for n in names if isinstance(n, str))
            if isinstance(files.get(name), str)]
        if not any(_TEXT_NEEDLE in files[name] for name in names):
            return []
        parsed = {}
        for name in names:
            try:
                parsed[name] = _environment(_file_label(name), files[name])
            except breakpoints.BreakpointError:
                if _TEXT_NEEDLE in files[name]:
                    raise
        names = [name for name in names if name in parsed]
        rewritten = dict((name, _rewrite_env(_file_label(name), env))
                         for name, env in parsed.items())
        if len(names) > 1:
            _carry_across_files(names, rewritten)
        for name in names:
            if rewritten[name] is not parsed[name]:
                files[name] = _to_json(rewritten[name], _file_label(name))
                self.changed = True
        return [rewritten[name] for name in names]


def _file_label(name: str) -> str:
    return 'environment file %r' % name


def _environment(label: str, text: str) -> dict:
    try:
        return envfile.load_environment_text(text)
    except breakpoints.BreakpointError as error:
        raise _where(label, error) from None


def _rewrite_env(label: str, env: dict) -> dict:
    try:
        return registry.rewrite_environment(env)
    except breakpoints.BreakpointError as error:
        raise _where(label, error) from None


def _resources_of(env: dict) -> object:
    registry = env.get('resource_registry')
    return registry.get('resources') if isinstance(registry, dict) else None


def _has_parameter_defaults(env: dict) -> bool:
    defaults = env.get('parameter_defaults')
    return isinstance(defaults, dict) and bool(defaults)


def _carry_across_files(names: list[str], rewritten: dict) -> None:
    """Make every file's breakpoints survive Heat's merge of the files.

    heat-engine merges environment files shallowly: the last file with a
    ``resource_registry: resources`` mapping replaces the others' wholesale,
    and ``parameter_defaults`` keys other than template parameters are kept
    only from the first file that has any. So all breakpoints go into the
    last file with resources, and its marker is copied into the first file
    with parameter defaults.
    """
    found = {}
    for name in names:
        for breakpoint in registry.from_environment(rewritten[name]):
            found[breakpoint.name] = breakpoint
    if not found:
        return
    with_resources = [n for n in names if _resources_of(rewritten[n])]
    last = with_resources[-1] if with_resources else names[-1]
    try:
        rewritten[last] = registry.apply_to_environment(
            rewritten[last], found.values())
    except breakpoints.BreakpointError as error:
        raise _where(_file_label(last), error) from None
    marker = rewritten[last]['parameter_defaults'][registry.MARKER]
    first = [n for n in names if _has_parameter_defaults(rewritten[n])][0]
    if first != last:
        env = copy.deepcopy(rewritten[first])
        env['parameter_defaults'][registry.MARKER] = copy.deepcopy(marker)
        rewritten[first] = env


def _template_resource_types(template: object) -> typing.Optional[dict]:
    """``{name: type}`` of an inline template's resources, if readable."""
    if isinstance(template, str):
        try:
            template = envfile.load_environment_text(template)
        except breakpoints.BreakpointError:
            return None  # Heat reports a broken template better than we do
    return nesting.resource_types(template)


def _sent_templates(body: dict):
    """How the nested walk finds and reads the templates sent with it.

    heatclient (and heat-dashboard) put each nested template in
    ``files`` under the absolute URL the parent's ``type`` (or the
    registry) names it by; one not sent is Heat's to fetch.
    """
    files = body.get(_FILES)
    files = files if isinstance(files, dict) else {}

    def resolve(_base, target):
        return target if isinstance(target, str) and isinstance(
            files.get(target), str) else None

    def load(ref):
        return _template_resource_types(files[ref])
    return resolve, load


def _registries(body: dict, envs: list[dict]) -> list[dict]:
    """Every environment sent, breakpoints or not: their registries."""
    names = body.get(_ENVIRONMENT_FILES)
    files = body.get(_FILES)
    if not isinstance(names, list) or not isinstance(files, dict):
        return [{'path': None, 'env': env} for env in envs]
    found = []
    for name in names:
        try:
            found.append({'path': None, 'env': envfile.load_environment_text(
                files[name])})
        except (breakpoints.BreakpointError, KeyError, TypeError):
            continue  # Heat reports an environment it cannot read
    return found


def _check_names(body: dict, envs: list[dict]) -> None:
    if _TEMPLATE not in body:
        return  # template_url, or a PATCH keeping the stored template
    types = _template_resource_types(body[_TEMPLATE])
    if types is None:
        return
    found = {}
    for env in envs:
        for breakpoint in registry.from_environment(env):
            found[breakpoint.name] = breakpoint
    breakpoints.check_resource_names(found.values(), types)
    nesting.check_nested(found.values(), types, envs)
    nested_paths.check(found.values(), None, types,
                       _registries(body, envs), *_sent_templates(body))


def rewrite_body(raw: bytes) -> typing.Optional[bytes]:
    """The request body with breakpoints rewritten, or None if unchanged.

    Raises BreakpointError for anything the user must fix.
    """
    try:
        body = json.loads(raw)
    except ValueError:
        return None  # Heat answers malformed JSON itself
    except RecursionError:
        # Heat would fail on it with a 500; the user can fix it.
        raise breakpoints.BreakpointError(
            'request body: JSON nested too deeply to read')
    if not isinstance(body, dict):
        return None
    rewrite = _Rewrite(body)
    env = rewrite.environment()
    env_files = rewrite.environment_files()
    # heat-api ignores ``environment`` when environment files are given.
    effective = env_files if body.get(_ENVIRONMENT_FILES) else [env]
    _check_names(body, [e for e in effective if isinstance(e, dict)])
    if not rewrite.changed:
        return None
    return json.dumps(body).encode('utf-8')


class BreakpointFilter(object):
    """WSGI middleware: rewrite breakpoints in stack requests for Heat."""

    def __init__(self, app, max_body_size: typing.Optional[int] = None):
        self.app = app
        self.max_body_size = (_heat_body_limit() if max_body_size is None
                              else max_body_size)
        self.view = view.BreakpointsView()

    def __call__(self, environ, start_response):
        method = environ.get('REQUEST_METHOD')
        route = _ROUTES.get(method)
        found = route.match(environ.get('PATH_INFO', '')) if route else None
        if found is None:
            if method == 'POST':
                signal = _SIGNAL_PATH.match(environ.get('PATH_INFO', ''))
                if signal is not None:
                    self._authorize_signal(environ, signal.group('tenant'))
                    return self.app(environ, start_response)
            parts = view.match(environ)
            if parts is not None:
                answer = self.view(environ, start_response, parts)
                if answer is not None:
                    return answer
            return self.app(environ, start_response)
        raw = self._read_body(environ)
        if raw is None or _NEEDLE not in raw:
            return self.app(environ, start_response)
        cnxt = request_policy.context_of(environ)
        if cnxt is not None:
            # Heat's own rule first: a caller Heat refuses costs no more
            # than in stock (no parsing, no name checks).
            request_policy.heat_rule(
                cnxt, found.group('tenant'),
                _HEAT_ACTIONS[method, found.group('what')])
        return self._rewrite(environ, raw)(environ, start_response)

    def _authorize_signal(self, environ, tenant: str) -> None:
        """Refuse a signal carrying a command the caller may not give.

        Only a body that mentions our keys is parsed; Heat judges the
        rest (and the engine checks our commands again).
        """
        cnxt = request_policy.context_of(environ)
        if cnxt is None:
            return
        raw = self._read_body(environ)
        if raw is None or _SIGNAL_NEEDLE not in raw:
            return
        try:
            details = json.loads(raw)
        except (ValueError, RecursionError):
            return  # Heat answers malformed JSON itself
        request_policy.signal(cnxt, tenant, details)

    def _read_body(self, environ) -> typing.Optional[bytes]:
        """Read the body and leave a fresh copy for Heat to read again.

        Plain reads, not webob's ``Request.body``: webob spools bodies over
        10 KB through a temporary file, which would cost more than all the
        rest of the filter.
        """
        try:
            length = int(environ.get('CONTENT_LENGTH') or 0)
        except ValueError:
            return None
        if length <= 0 or length > self.max_body_size:
            return None  # chunked, empty or too big: Heat decides
        stream = environ['wsgi.input']
        chunks = []
        remaining = length
        while remaining > 0:
            chunk = stream.read(remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        raw = b''.join(chunks)
        environ['wsgi.input'] = io.BytesIO(raw)
        return raw

    def _rewrite(self, environ, raw: bytes):
        """The app to answer with: Heat on a rewritten body, or a 400."""
        where = {'method': environ.get('REQUEST_METHOD'),
                 'path': environ.get('PATH_INFO')}
        try:
            new_body = rewrite_body(raw)
        except breakpoints.BreakpointError as error:
            LOG.info('Refused breakpoints in %(method)s %(path)s: %(error)s',
                     dict(where, error=error.message))
            return _fault(error)
        except Exception:
            # A bug here must not take stack operations down with it: Heat
            # then sees the request as sent and judges it by its own rules.
            LOG.exception('Could not rewrite breakpoints in %(method)s '
                          '%(path)s; passing the request on unchanged',
                          where)
            return self.app
        if new_body is not None:
            environ['wsgi.input'] = io.BytesIO(new_body)
            environ['CONTENT_LENGTH'] = str(len(new_body))
            LOG.debug('Rewrote breakpoints into hooks for %(method)s '
                      '%(path)s', where)
        return self.app


def filter_factory(global_conf, **local_conf):
    """Paste entry point (``paste.filter_factory``).

    ``max_body_size`` in the filter section overrides Heat's
    ``max_json_body_size`` as the largest body the filter will read.
    """
    conf = dict(global_conf)
    conf.update(local_conf)
    limit = conf.get('max_body_size')
    limit = int(limit) if limit else None

    def _filter(app):
        return BreakpointFilter(app, max_body_size=limit)
    return _filter
