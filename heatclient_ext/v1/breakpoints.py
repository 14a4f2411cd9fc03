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
"""The breakpoint API both CLIs call: one manager over a heatclient Client.

Listing is cheap on purpose. A Heat with heat-breakpoint answers
``GET /stacks/{stack}/breakpoints`` (what is held and armed, at any depth)
in one request; that is what list, step, continue, clear and wait read.
Against a Heat without that view (stock Heat, or an older plugin) the
manager works it out itself: armed breakpoints from the stored
environment's marker, held ones from the resource list (the engine plugin
puts a held resource in ``<ACTION>_IN_PROGRESS`` with a reason naming the
breakpoint) and, for a stock Heat hook hold (the resource keeps its old
state; only an event says it is paused), the latest event of each resource
a breakpoint names. ``show`` reads the resource list and the hit event's
inputs either way.
"""

import argparse
import collections
import datetime
import re
import time
import urllib.parse

from heatclient.common import template_utils
from heatclient import exc as heat_exc
from oslo_utils import timeutils

from heat_breakpoint import breakpoints
from heat_breakpoint import reasons
from heat_breakpoint import registry
from heat_breakpoint import secrets
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import environment

ARMED = 'armed'
HELD = 'held'
MASK = secrets.MASK

# Stock Heat's event when a hook holds a resource, and the hook per action.
_NATIVE_PAUSED = re.compile(
    '^' + reasons.NATIVE_PAUSED % {'action': '(?P<action>[A-Z]+)',
                                   'hook': '(?P<hook>pre-[a-z]+)'} + '$')
_HOOK_OF = {action.upper(): 'pre-' + action
            for action in breakpoints.ACTIONS}
# How many of a resource's latest events show() looks through for the hit.
_HIT_EVENT_WINDOW = 20

# Heat's default stack_action_timeout (3600 s), for stacks without one.
DEFAULT_TIMEOUT_MINS = 60
# Heat's default max_nested_stack_depth.
HELD_SEARCH_DEPTH = 5

COLUMNS = ('resource', 'action', 'when', 'state', 'why', 'source',
           'held_since', 'timeout_remaining')
SHOW_KEYS = ('resource', 'stack', 'breakpoint', 'actions', 'when', 'state',
             'why', 'source', 'action', 'held_since', 'timeout_remaining',
             'resource_status', 'resource_status_reason', 'inputs',
             'attributes', 'error', 'requires', 'required_by', 'next', 'event',
             'change')
# What the view's rows and resources may say besides held and armed.
DISARMED = 'disarmed'
DONE = 'done'
WAITING = 'waiting'
# What set and clear report when there was nothing to change.
ALREADY_HELD = 'already held'
ALREADY_ARMED = 'already armed'
ALREADY_DISARMED = 'already disarmed'


def row_value(row, key):
    """A row's value; rows of an older server lack the newer keys."""
    if key == 'when':
        return row.get(key) or breakpoints.BEFORE
    return row.get(key) or ''


#: What ``set`` suggests for a stack with no operation running.
NEXT_OPERATION = ('openstack stack update --existing --breakpoint %(name)s '
                  '%(stack)s')


def depth_argument(text):
    """argparse type of ``--nested-depth``: a whole number from 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            _('must be a whole number from 0, got %r') % text)
    return value


def held_text(rows):
    """``'a (CREATE), outer/b (CREATE)'``: what a wait stopped at."""
    return ', '.join('%s (%s)' % (row['resource'], row['action'])
                     for row in rows)


# The stack as the breakpoints view describes it: enough for the commands.
StackSummary = collections.namedtuple('StackSummary',
                                      ('id', 'stack_name', 'stack_status'))


def _error(message, **values):
    return exceptions.BreakpointCommandError(message % values)


def _server_words(exc):
    """What the server said, without heatclient's ``ERROR:`` prefix."""
    text = exceptions.one_line(exc)
    return text[len('ERROR: '):] if text.startswith('ERROR: ') else text


def _is_pattern(name):
    return any(c in name for c in '*?[')


def _running(stack):
    return (stack.stack_status or '').endswith('_IN_PROGRESS')


def _ident(stack):
    return '%s/%s' % (stack.stack_name, stack.id)


def _link_ident(resource, rel):
    """``name/id`` of the stack a resource link points to, or None."""
    for link in getattr(resource, 'links', None) or []:
        if link.get('rel') == rel:
            tail = link.get('href', '').split('/stacks/', 1)
            if len(tail) == 2:
                parts = tail[1].split('/')
                if len(parts) >= 2:
                    return '%s/%s' % (parts[0], parts[1])
    return None


def _parse_time(value):
    if not value:
        return None
    try:
        parsed = timeutils.parse_isotime(value)
    except ValueError:
        return None
    return timeutils.normalize_time(parsed)


class _Resource:
    """A resource of the listed tree, with its path and owning stack."""

    def __init__(self, raw, path, stack):
        self.raw = raw
        self.name = raw.resource_name
        self.path = path
        self.stack = stack
        self.status = raw.resource_status or ''
        self.reason = getattr(raw, 'resource_status_reason', '') or ''

    @property
    def path_name(self):
        return breakpoints.SEPARATOR.join(self.path)


def _tree(root_ident, resources):
    """Give each resource of a nested listing its full path."""
    root_id = root_ident.split('/')[-1]
    owner = {}
    parent = {}
    for res in resources:
        owner[id(res)] = _link_ident(res, 'stack') or root_ident
        nested = _link_ident(res, 'nested')
        if nested:
            parent[nested.split('/')[-1]] = (owner[id(res)],
                                             res.resource_name)

    def prefix(stack_ident, seen=()):
        stack_id = stack_ident.split('/')[-1]
        if stack_id == root_id or stack_id not in parent or \
                stack_id in seen:
            return ()
        up_ident, name = parent[stack_id]
        return prefix(up_ident, seen + (stack_id,)) + (name,)

    return [_Resource(res, prefix(owner[id(res)]) + (res.resource_name,),
                      owner[id(res)])
            for res in resources]


def _mask(value, key=''):
    if key and secrets.is_secret_name(key) and value not in (None, ''):
        return MASK
    if isinstance(value, dict):
        return {k: _mask(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def _references(snippet, names):
    """Whether a template snippet reads one of the named parameters."""
    if isinstance(snippet, dict):
        for fn, arg in snippet.items():
            if fn in ('get_param', 'Ref'):
                first = arg[0] if isinstance(arg, list) and arg else arg
                if isinstance(first, str) and first in names:
                    return True
            if _references(arg, names):
                return True
    elif isinstance(snippet, list):
        return any(_references(item, names) for item in snippet)
    return False


def mask_inputs(properties, template=None, resource_name=None):
    """Mask secret-looking keys and inputs fed by hidden parameters."""
    masked = _mask(dict(properties or {}))
    template = template or {}
    params = template.get('parameters') or template.get('Parameters') or {}
    hidden = {name for name, schema in params.items()
              if isinstance(schema, dict) and (
                  schema.get('hidden') in (True, 'true', 'True') or
                  str(schema.get('NoEcho', '')).lower() == 'true')}
    resources = template.get('resources') or template.get('Resources') or {}
    definition = resources.get(resource_name) or {}
    props = (definition.get('properties') or definition.get('Properties')
             or {}) if isinstance(definition, dict) else {}
    for key, snippet in props.items():
        if key in masked and _references(snippet, hidden):
            masked[key] = MASK
    return masked


def update_note(stack_name, name, rows):
    """What removing ``name`` from an idle stack's environment will do.

    Heat stores an environment only with a stack update, and that update
    walks the stack's resources: the other breakpoints armed for updates
    hold it.
    """
    meets = sorted({row['breakpoint'] for row in rows
                    if row['state'] == ARMED and row['breakpoint'] != name
                    and 'UPDATE' in (row['action'] or '').split(',')})
    text = _('Stack %(stack)s has no operation running: removing breakpoint '
             '%(name)s from its stored environment runs a stack update '
             '(--existing) now') % {'stack': stack_name, 'name': name}
    if meets:
        return '%s; %s' % (text, _('it will hold at: %s') % ', '.join(meets))
    return '%s; %s' % (text, _('no other breakpoint will hold it'))


def hit_inputs(properties, template, resource_name):
    """The inputs a hit event shows, masked by the one secret rule.

    The plugin's hit event carries inputs the engine has masked already,
    hidden parameters replaced *inside* the values they feed
    (``database:app:******``): they are shown as they are. A stock Heat's
    event carries them unmasked, and the client does not know the hidden
    values: there each input fed by a hidden parameter is masked whole.
    ``template`` is called for the stack's template only when needed.
    """
    properties = properties or {}
    if isinstance(properties.get('properties'), dict) and \
            'breakpoint' in properties:
        return _mask(dict(properties['properties']))
    return mask_inputs(properties, template(), resource_name)


class BreakpointManager:
    """Breakpoints of stacks, over a heatclient v1 ``Client``."""

    def __init__(self, client):
        self.client = client

    # -- look-ups -----------------------------------------------------------

    def get_stack(self, stack):
        try:
            return self.client.stacks.get(stack, resolve_outputs=False)
        except heat_exc.HTTPNotFound:
            raise _error(_('Stack not found: %(stack)s'), stack=stack)

    def armed(self, stack_ident):
        """Breakpoints of the stored environment, hand-set pre-hooks too."""
        return registry.armed(self.client.stacks.environment(stack_ident))

    def view(self, stack, nested_depth=None, resource=None, full=False):
        """``(stack, rows)`` from the server's breakpoints view, or None.

        None when the server has no such view (stock Heat, or heat-api
        without our filter): the caller then works the rows out itself.
        With ``resource`` (a path), ``full`` gives ``(stack, rows,
        described resource)``; the server refuses a path that cannot
        name a resource of the stack's tree, with the closest names.
        """
        path = '/stacks/%s/breakpoints' % urllib.parse.quote(stack, safe='/')
        query = {}
        if nested_depth is not None:
            query['nested_depth'] = str(nested_depth)
        if resource is not None:
            query['resource'] = resource
        if query:
            path += '?' + urllib.parse.urlencode(query)
        try:
            body = self.client.http_client.get(path).json()
        except heat_exc.HTTPNotFound:
            # A missing stack, or no view here: the fallback tells which.
            return None
        except heat_exc.HTTPBadRequest as exc:
            if resource is None:
                raise _error(_('Cannot list breakpoints of %(stack)s: '
                               '%(reason)s'), stack=stack,
                             reason=_server_words(exc))
            raise _error('%(reason)s', reason=_server_words(exc))
        except heat_exc.HTTPException as exc:
            raise _error(_('Cannot list breakpoints of %(stack)s: '
                           '%(reason)s'), stack=stack,
                         reason=exceptions.one_line(exc))
        except ValueError:
            return None
        if not isinstance(body, dict) or 'breakpoints' not in body:
            return None
        found = body.get('stack') or {}
        summary = StackSummary(found.get('id'), found.get('stack_name'),
                               found.get('stack_status'))
        if full:
            return summary, list(body['breakpoints']), body.get('resource')
        return summary, list(body['breakpoints'])

    def describe(self, stack, name):
        """``(stack, rows, resource)`` from the view, or None without it.

        ``resource`` says what the running operation does at ``name``:
        its ``state`` (held, armed, disarmed, done, waiting), the rule
        that decides it, its inputs if held, its neighbours.
        """
        breakpoints.parse_name(name)  # the model's words for a bad name
        if _is_pattern(name):
            raise _error(_('%(name)s is a pattern: give one resource path'),
                         name=name)
        found = self.view(stack, resource=name, full=True)
        if found is None or found[2] is None:
            return None
        return found

    def current(self, stack, nested_depth=None):
        """``(stack, rows)``: held rows first, then armed ones."""
        found = self.view(stack, nested_depth)
        if found is not None:
            return found
        st = self.get_stack(stack)
        armed = self.armed(_ident(st))
        rows = self.held(st, armed, nested_depth)
        return st, rows + self._armed_rows(st, armed, rows)

    def _resources(self, stack_ident, depth):
        kwargs = {'nested_depth': depth} if depth else {}
        try:
            listed = self.client.resources.list(stack_ident, **kwargs)
        except heat_exc.HTTPNotFound:
            raise _error(_('Stack not found: %(stack)s'), stack=stack_ident)
        return _tree(stack_ident, listed)

    @staticmethod
    def _depth(armed, nested_depth=None):
        # A step can hold deeper than any breakpoint names (stepping into
        # a nested stack): look as deep as Heat nests by default.
        if nested_depth is not None:
            return nested_depth
        deepest = max((len(bp.segments) - 1 for bp in armed), default=0)
        return max(deepest, HELD_SEARCH_DEPTH)

    def _operation_start(self, stack):
        action = (stack.stack_status or '').split('_', 1)[0]
        when = stack.updated_time if action != 'CREATE' else None
        return _parse_time(when or stack.creation_time)

    def _timeout_remaining(self, stack):
        if not (stack.stack_status or '').endswith('_IN_PROGRESS'):
            return ''
        # Without timeout_mins Heat uses its stack_action_timeout, which no
        # API exposes: assume the default.
        minutes = getattr(stack, 'timeout_mins', None) or DEFAULT_TIMEOUT_MINS
        started = self._operation_start(stack)
        if started is None:
            return ''
        left = started + datetime.timedelta(minutes=int(minutes)) - \
            timeutils.utcnow()
        seconds = max(0, int(left.total_seconds()))
        return '%d:%02d:%02d' % (seconds // 3600, seconds // 60 % 60,
                                 seconds % 60)

    def _stock_hold(self, stack, res, action, since):
        """The latest event of a resource, if it is a stock hook pause."""
        try:
            events = self.client.events.list(
                res.stack, resource_name=res.name, sort_dir='desc',
                limit=1)
        except heat_exc.HTTPNotFound:
            return None
        for event in events:
            match = _NATIVE_PAUSED.match(
                getattr(event, 'resource_status_reason', '') or '')
            when = _parse_time(getattr(event, 'event_time', None))
            if (match and match.group('action') == action and
                    (since is None or when is None or when >= since)):
                return {'hook': match.group('hook'),
                        'held_since': event.event_time, 'form': 'hook'}
        return None

    def held(self, stack, armed, nested_depth=None, tree=None):
        """The held resources of a stack, as rows."""
        ident = _ident(stack)
        if tree is None:
            tree = self._resources(ident, self._depth(armed, nested_depth))
        status = stack.stack_status or ''
        action = status.split('_', 1)[0]
        in_progress = status.endswith('_IN_PROGRESS')
        rows = []
        for res in tree:
            info = reasons.parse_held(res.reason)
            if info and res.status.endswith('_IN_PROGRESS'):
                rows.append(self._row(stack, res, HELD, info['action'],
                                      hook=info['hook'], form='plugin',
                                      breakpoint=info['name'],
                                      since=res.raw.updated_time))
        if rows or not in_progress or action not in _HOOK_OF:
            return rows
        # No plugin-form hold: maybe stock Heat, whose hooks leave no trace
        # but an event. Ask only about resources an armed breakpoint holds.
        since = self._operation_start(stack)
        for res in tree:
            if res.status.endswith('_IN_PROGRESS') or not any(
                    bp.matches(res.path, action) for bp in armed):
                continue
            if action == 'CREATE' and res.status != 'INIT_COMPLETE':
                continue
            if action == 'DELETE' and res.status.startswith('DELETE'):
                continue
            hold = self._stock_hold(stack, res, action, since)
            if hold:
                rows.append(self._row(stack, res, HELD, action,
                                      hook=hold['hook'], form='hook',
                                      breakpoint=res.path_name,
                                      since=hold['held_since']))
        return rows

    def _row(self, stack, res, state, action, hook=None, form=None,
             breakpoint=None, since=None):
        return {
            'resource': res.path_name, 'action': action, 'state': state,
            'held_since': since or '',
            'timeout_remaining': self._timeout_remaining(stack),
            'hook': hook, 'form': form, 'breakpoint': breakpoint,
            'stack': res.stack, 'resource_name': res.name,
        }

    # -- the commands -------------------------------------------------------

    def list(self, stack, nested_depth=None):
        """Armed and held breakpoints of a stack, as rows (dicts).

        A held row names the resource; an armed row names the breakpoint
        (possibly a pattern) and its actions.
        """
        return self.current(stack, nested_depth)[1]

    def _armed_rows(self, st, armed, held_rows):
        held_names = {row['resource'] for row in held_rows}
        return [{
            'resource': bp.name, 'action': ','.join(
                action.upper() for action in bp.actions),
            'state': ARMED, 'held_since': '',
            'timeout_remaining': self._timeout_remaining(st),
            'hook': None, 'form': None, 'breakpoint': bp.name,
            'stack': _ident(st), 'resource_name': bp.pattern,
        } for bp in armed if bp.name not in held_names]

    def held_now(self, stack, nested_depth=None):
        """``(stack, held rows)``."""
        st, rows = self.current(stack, nested_depth)
        return st, [row for row in rows if row['state'] == HELD]

    def _find(self, stack_ident, name, armed, nested_depth=None):
        bp = breakpoints.parse_name(name)
        if any(c in name for c in '*?['):
            raise _error(_('%(name)s is a pattern: give one resource path'),
                         name=name)
        tree = self._resources(stack_ident, len(bp.segments) - 1
                               if nested_depth is None else nested_depth)
        for res in tree:
            if res.path == bp.segments:
                return res, tree
        raise _error(_('Resource %(name)s not found in stack %(stack)s'),
                     name=name, stack=stack_ident.split('/')[0])

    def show(self, stack, name, nested_depth=None):
        """One resource: what the operation does there, inputs, neighbours.

        The view describes it (held, armed, disarmed, done; the rule that
        decides it; the hit's inputs as the engine masked them). Without
        the view it is worked out from the resource and event lists;
        there ``nested_depth`` limits how deep the resource is looked for
        (default: the depth its path names).
        """
        described = self.describe(stack, name)
        if described is not None:
            st, _rows, found = described
            if found['state'] == WAITING:
                raise _error(_('No breakpoint on %(name)s in stack '
                               '%(stack)s'), name=name,
                             stack=st.stack_name)
            return {key: found.get(key) for key in SHOW_KEYS}
        st = self.get_stack(stack)
        ident = _ident(st)
        armed = self.armed(ident)
        res, tree = self._find(ident, name, armed, nested_depth)
        held = [row for row in self.held(st, armed, tree=tree)
                if row['resource'] == res.path_name]
        matching = [bp for bp in armed if bp.matches(res.path)]
        if not held and not matching:
            raise _error(_('No breakpoint on %(name)s in stack %(stack)s'),
                         name=name, stack=st.stack_name)
        row = held[0] if held else None
        siblings = [other for other in tree if other.stack == res.stack]
        result = {
            'resource': res.path_name,
            'stack': res.stack,
            'source': '', 'why': '', 'when': '', 'next': [],
            'breakpoint': (row and row['breakpoint']) or (
                matching[0].name if matching else ''),
            'actions': ','.join(action.upper() for bp in matching[:1]
                                for action in bp.actions),
            'state': HELD if row else ARMED,
            'action': row['action'] if row else '',
            'held_since': row['held_since'] if row else '',
            'timeout_remaining': self._timeout_remaining(st),
            'resource_status': res.status,
            'resource_status_reason': res.reason,
            'requires': sorted(other.name for other in siblings
                               if res.name in (getattr(
                                   other.raw, 'required_by', None) or [])),
            'required_by': sorted(getattr(res.raw, 'required_by', None)
                                  or []),
            'inputs': None, 'attributes': None, 'error': '',
            'event': '',
            'change': None,
        }
        if row:
            event = self._hit_event(res)
            if event is not None:
                result['event'] = event.id
                result['inputs'] = hit_inputs(
                    getattr(event, 'resource_properties', None),
                    lambda: self._template(res.stack), res.name)
        return result

    def _hit_event(self, res):
        try:
            events = self.client.events.list(
                res.stack, resource_name=res.name, sort_dir='desc',
                limit=_HIT_EVENT_WINDOW)
        except heat_exc.HTTPNotFound:
            return None
        # The plugin's hit event carries the inputs; stock Heat only has
        # its "paused until Hook" event.
        for match in (reasons.parse_held, _NATIVE_PAUSED.match):
            for event in events:
                if match(getattr(event, 'resource_status_reason', '') or ''):
                    return self.client.events.get(res.stack, res.name,
                                                  event.id)
        return None

    def _template(self, stack_ident):
        try:
            return self.client.stacks.template(stack_ident)
        except heat_exc.HTTPException:
            return {}

    def release(self, stack, name=None, how=reasons.RELEASE_CONTINUE,
                rows=None):
        """Release held resources (all, or the one at ``name``)."""
        if rows is None:
            rows = self.held_now(stack)[1]
        held = [row['resource'] for row in rows]
        if name is not None:
            rows = [row for row in rows if row['resource'] == name]
        if not rows:
            if name is None:
                raise _error(_('Nothing is held in stack %(stack)s'),
                             stack=stack)
            self.describe(stack, name)  # a name that cannot exist: say so
            raise _error(_('Nothing is held at %(name)s in stack %(stack)s'
                           ' (held: %(held)s)'), name=name, stack=stack,
                         held=', '.join(held) or _('nothing'))
        for row in rows:
            self._signal(row, how)
        return rows

    def _signal(self, row, how):
        try:
            self.client.resources.signal(
                stack_id=row['stack'], resource_name=row['resource_name'],
                data={'unset_hook': row['hook'], reasons.SIGNAL_KEY: how})
        except heat_exc.HTTPException as exc:
            raise _error(_('Cannot release %(name)s: %(reason)s'),
                         name=row['resource'],
                         reason=exceptions.one_line(exc))

    def continue_(self, stack, nested_depth=None, to=None):
        """Release every held resource, nested ones too.

        With the engine plugin the rest of the operation ignores its
        breakpoints (all but ``to``, when given); stock Heat still holds
        at them (rows say ``form``).
        """
        st, rows = self.held_now(stack, nested_depth)
        if to is None:
            return self.release(stack, how=reasons.RELEASE_CONTINUE,
                                rows=rows)
        self._require_plugin(rows, 'continue --to')
        found = self._runtime_state(stack, to, 'continue --to')
        if found is not None and found['state'] == DONE:
            raise _error(_('%(name)s is already done in this operation: '
                           'nothing released'), name=to)
        self.command(st, to, 'to')
        rows = [row for row in rows if row['resource'] != to]
        for row in rows:
            self._signal(row, reasons.RELEASE_RUN_TO)
        return rows

    def _runtime_state(self, stack, name, what):
        """What the running operation does at ``name`` (the view's word).

        Refuses when nothing is running, or when ``name`` cannot name a
        resource of the stack's tree. None without the view.
        """
        described = self.describe(stack, name)
        if described is None:
            # No view: the resource must exist now, as stock Heat needs.
            self._find(_ident(self.get_stack(stack)), name, None)
            return None
        st, _rows, found = described
        if not _running(st):
            raise _error(_('Nothing is running in stack %(stack)s '
                           '(%(status)s): %(what)s applies to a running '
                           'operation'), stack=st.stack_name,
                         status=st.stack_status, what=what)
        return found

    def command(self, stack, name, kind, when=breakpoints.BEFORE):
        """Change the running operation at ``name``: set, clear or to.

        Sent to the stack the user named with the resource's path, which
        may reach into nested stacks the operation has not reached yet.
        """
        st = stack if hasattr(stack, 'stack_status') else \
            self.get_stack(stack)
        bp = breakpoints.parse_name(name)
        if _is_pattern(name) and kind != 'clear':
            raise _error(_('%(name)s is a pattern: give one resource path'),
                         name=name)
        data = {reasons.COMMAND_KEY: kind, reasons.COMMAND_PATH_KEY: name}
        if when != breakpoints.BEFORE:
            data[reasons.COMMAND_WHEN_KEY] = when
        try:
            self.client.resources.signal(
                stack_id=_ident(st), resource_name=bp.segments[0],
                data=data)
        except heat_exc.HTTPException as exc:
            raise _error('%(reason)s', reason=_server_words(exc))

    def set(self, stack, name, when=breakpoints.BEFORE,
            next_operation=NEXT_OPERATION):
        """Arm a breakpoint at ``name`` in the running operation.

        ``when``: hold before the resource's action (default), after it,
        on its failure, or before an update that changes or replaces it.
        ``next_operation`` is the command (with ``%(name)s`` and
        ``%(stack)s``) suggested for a stack with no operation running, in
        the calling shell's spelling.

        Returns ``'armed'``, or ``'already held'`` / ``'already armed'``
        when there was nothing to do; refuses a resource already done.
        """
        st = self.get_stack(stack)
        if not _running(st):
            raise _error(_('Stack %(stack)s has no operation in progress: '
                           'use "%(command)s" for the next one'),
                         stack=st.stack_name, command=next_operation % {
                             'name': name, 'stack': st.stack_name})
        found = self._runtime_state(_ident(st), name, 'set')
        if found is not None:
            if found['state'] == DONE:
                raise _error(_('%(name)s is already done in this '
                               'operation: a breakpoint there would never '
                               'hold'), name=name)
            if found['state'] == HELD or (
                    found['state'] == ARMED and
                    found.get('when', breakpoints.BEFORE) == when):
                return 'already ' + found['state']
        self.command(st, name, 'set', when)
        return ARMED

    def clear(self, stack, name, announce=None):
        """Release the resource held at ``name``, or disarm ``name``.

        Returns ``(rows, result)`` with result ``'released'``,
        ``'disarmed'`` (for the rest of the running operation) or
        ``'removed'`` (from the stored environment, by a stack update,
        which ``announce(text)`` is told of before it starts).
        """
        st, found = self.current(stack)
        ident = _ident(st)
        rows = [row for row in found
                if row['state'] == HELD and row['resource'] == name]
        if rows:
            return self.release(stack, name, reasons.RELEASE_CLEAR,
                                rows), 'released'
        if _running(st) and not _is_pattern(name):
            described = self.describe(ident, name)
            if described is not None:
                state = described[2]['state']
                if state == DISARMED:
                    return [], ALREADY_DISARMED
                if state == DONE:
                    raise _error(_('%(name)s is already done in this '
                                   'operation: nothing to clear'),
                                 name=name)
                if state != ARMED:
                    raise _error(_('No breakpoint on %(name)s in stack '
                                   '%(stack)s'), name=name,
                                 stack=st.stack_name)
                self.command(st, name, 'clear')
                return [], 'disarmed'
        if name not in {row['breakpoint'] for row in found
                        if row['state'] == ARMED}:
            raise _error(_('No breakpoint %(name)s in stack %(stack)s'),
                         name=name, stack=st.stack_name)
        if _running(st):
            self.command(st, name, 'clear')
            return [], 'disarmed'
        if announce is not None:
            announce(update_note(st.stack_name, name, found))
        self.update_environment(ident, remove=[name])
        return [], 'removed'

    def step(self, stack, name=None):
        """Release held resources and hold at the next ones.

        The next ones are the resources that wait for them in the same
        operation (for a delete, the resources they require).
        """
        rows = self.held_now(stack)[1]
        self._require_plugin(rows, 'step')
        if name is None:
            # A held failure is not stepped from (retry, continue, clear).
            rows = [row for row in rows if row_value(row, 'when') !=
                    breakpoints.FAILED] or rows
        return self.release(stack, name, reasons.RELEASE_STEP, rows)

    def retry(self, stack, name):
        """Run the failed action of the resource held at ``name`` again.

        In the same operation; if it fails again, it holds again.
        """
        rows = [row for row in self.held_now(stack)[1]
                if row['resource'] == name]
        for row in rows:
            when = row_value(row, 'when') or breakpoints.BEFORE
            if when != breakpoints.FAILED:
                raise _error(_('%(name)s is held %(when)s %(action)s, not '
                               'on its failure: retry applies to a '
                               'resource held on failure'), name=name,
                             when=when, action=row['action'])
        return self.release(stack, name, reasons.RELEASE_RETRY, rows or None)

    @staticmethod
    def _require_plugin(rows, what):
        if any(row['form'] == 'hook' for row in rows):
            raise _error(_('%(what)s needs the heat-breakpoint engine plugin'
                           '; this Heat holds at native hooks only: use '
                           '"continue" or "clear"'), what=what)

    # -- environment ----------------------------------------------------------

    def prepare_environment(self, env_paths, add=(), remove=(), stack=None,
                            existing=False, template_names=None,
                            extra_hooks=()):
        """The environment files to send; see :mod:`.environment`."""
        return environment.prepare(self.client, env_paths, add, remove,
                                   stack, existing, template_names,
                                   extra_hooks)

    def update_environment(self, stack_ident, add=(), remove=()):
        """PATCH the stored environment: the stack's template is kept."""
        prepared = self.prepare_environment([], add, remove, stack_ident,
                                            existing=True)
        try:
            tracker = []
            files, env = (
                template_utils.process_multiple_environments_and_files(
                    env_paths=prepared.paths, env_list_tracker=tracker))
            self.client.stacks.update(
                stack_id=stack_ident, existing=True, template=None,
                parameters={}, files=files, environment=env,
                environment_files=tracker)
        finally:
            prepared.cleanup()

    # -- waiting --------------------------------------------------------------

    def wait(self, stack, poll=5, sleep=time.sleep):
        """Wait until the stack is held at a breakpoint or finished.

        Returns ``(stack, held_rows)``; ``held_rows`` is empty when the
        operation finished.
        """
        st = self.get_stack(stack)
        while True:
            if not (st.stack_status or '').endswith('_IN_PROGRESS'):
                return st, []
            rows = self.held_now(_ident(st))[1]
            if rows:
                return st, rows
            sleep(poll)
            st = self.get_stack(_ident(st))
