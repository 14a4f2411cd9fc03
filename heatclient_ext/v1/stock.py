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
"""What the client works out from Heat's stock API alone.

Against a Heat without the breakpoints view (stock Heat, or an older
plugin) the commands still work, more slowly: the armed breakpoints come
from the stored environment's marker, the held ones from the resource list
(the engine plugin puts a held resource in ``<ACTION>_IN_PROGRESS`` with a
reason naming the breakpoint) and, for a stock Heat hook hold (the
resource keeps its old state; only an event says it is paused), the
latest event of each resource a breakpoint names; ``show`` reads the hit
event's inputs. :class:`StockListing` is what the reader
(:class:`heatclient_ext.v1.viewing.Reader`) falls back on; the module's
functions give a nested resource listing its paths and mask inputs read
from events.
"""

import datetime
import re
import typing

from heatclient import exc as heat_exc
from oslo_utils import timeutils

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heat_breakpoint.model import secrets
from heatclient_ext._i18n import _
from heatclient_ext import exceptions

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


def _error(message, **values):
    return exceptions.BreakpointCommandError(message % values)


def _ident(stack) -> str:
    return '%s/%s' % (stack.stack_name, stack.id)


def link_ident(resource, rel) -> typing.Optional[str]:
    """``name/id`` of the stack a resource link points to, or None."""
    for link in getattr(resource, 'links', None) or []:
        if link.get('rel') == rel:
            tail = link.get('href', '').split('/stacks/', 1)
            if len(tail) == 2:
                parts = tail[1].split('/')
                if len(parts) >= 2:
                    return '%s/%s' % (parts[0], parts[1])
    return None


def _parse_time(value) -> typing.Optional[datetime.datetime]:
    if not value:
        return None
    try:
        parsed = timeutils.parse_isotime(value)
    except ValueError:
        return None
    return timeutils.normalize_time(parsed)


class _Resource:
    """A resource of the listed tree, with its path and owning stack."""

    def __init__(self, raw, path, stack) -> None:
        self.raw = raw
        self.name = raw.resource_name
        self.path = path
        self.stack = stack
        self.status = raw.resource_status or ''
        self.reason = getattr(raw, 'resource_status_reason', '') or ''

    @property
    def path_name(self) -> str:
        return breakpoints.SEPARATOR.join(self.path)


def tree(root_ident, resources) -> list:
    """Give each resource of a nested listing its full path."""
    root_id = root_ident.split('/')[-1]
    owner = {}
    parent = {}
    for res in resources:
        owner[id(res)] = link_ident(res, 'stack') or root_ident
        nested = link_ident(res, 'nested')
        if nested:
            parent[nested.split('/')[-1]] = (owner[id(res)],
                                             res.resource_name)

    def prefix(stack_ident: str, seen=()):
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


def _references(snippet, names) -> bool:
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


def hit_inputs(properties, template, resource_name: str):
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


class StockListing:
    """Held and armed rows, and ``show``, from Heat's stock API."""

    def __init__(self, client) -> None:
        self.client = client

    def resource_tree(self, stack_ident: str, depth):
        kwargs = {'nested_depth': depth} if depth else {}
        try:
            listed = self.client.resources.list(stack_ident, **kwargs)
        except heat_exc.HTTPNotFound:
            raise _error(_('Stack not found: %(stack)s'), stack=stack_ident)
        return tree(stack_ident, listed)

    @staticmethod
    def search_depth(armed, nested_depth: typing.Optional[int] = None):
        # A step can hold deeper than any breakpoint names (stepping into
        # a nested stack): look as deep as Heat nests by default.
        if nested_depth is not None:
            return nested_depth
        deepest = max((len(bp.segments) - 1 for bp in armed), default=0)
        return max(deepest, HELD_SEARCH_DEPTH)

    def operation_start(self, stack) -> typing.Optional[datetime.datetime]:
        action = (stack.stack_status or '').split('_', 1)[0]
        when = stack.updated_time if action != 'CREATE' else None
        return _parse_time(when or stack.creation_time)

    def timeout_remaining(self, stack) -> str:
        if not (stack.stack_status or '').endswith('_IN_PROGRESS'):
            return ''
        # Without timeout_mins Heat uses its stack_action_timeout, which no
        # API exposes: assume the default.
        minutes = getattr(stack, 'timeout_mins', None) or DEFAULT_TIMEOUT_MINS
        started = self.operation_start(stack)
        if started is None:
            return ''
        left = started + datetime.timedelta(minutes=int(minutes)) - \
            timeutils.utcnow()
        seconds = max(0, int(left.total_seconds()))
        return '%d:%02d:%02d' % (seconds // 3600, seconds // 60 % 60,
                                 seconds % 60)

    def _stock_hold(self, stack, res, action, since) -> typing.Optional[dict]:
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

    def held(self, stack, armed, nested_depth=None, tree=None) -> list:
        """The held resources of a stack, as rows."""
        ident = _ident(stack)
        if tree is None:
            tree = self.resource_tree(
                ident, self.search_depth(armed, nested_depth))
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
        since = self.operation_start(stack)
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
             breakpoint=None, since=None) -> dict:
        return {
            'resource': res.path_name, 'action': action, 'state': state,
            'held_since': since or '',
            'timeout_remaining': self.timeout_remaining(stack),
            'hook': hook, 'form': form, 'breakpoint': breakpoint,
            'stack': res.stack, 'resource_name': res.name,
        }

    def armed_rows(self, st, armed, held_rows) -> list:
        held_names = {row['resource'] for row in held_rows}
        return [{
            'resource': bp.name, 'action': ','.join(
                action.upper() for action in bp.actions),
            'state': ARMED, 'held_since': '',
            'timeout_remaining': self.timeout_remaining(st),
            'hook': None, 'form': None, 'breakpoint': bp.name,
            'stack': _ident(st), 'resource_name': bp.pattern,
        } for bp in armed if bp.name not in held_names]

    def find_resource(self, stack_ident, name, armed, nested_depth=None):
        bp = breakpoints.parse_name(name)
        if any(c in name for c in '*?['):
            raise _error(_('%(name)s is a pattern: give one resource path'),
                         name=name)
        tree = self.resource_tree(stack_ident, len(bp.segments) - 1
                                  if nested_depth is None else nested_depth)
        for res in tree:
            if res.path == bp.segments:
                return res, tree
        raise _error(_('Resource %(name)s not found in stack %(stack)s'),
                     name=name, stack=stack_ident.split('/')[0])

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

    def _template(self, stack_ident: str):
        try:
            return self.client.stacks.template(stack_ident)
        except heat_exc.HTTPException:
            return {}

    def show(self, st, armed, name, nested_depth=None) -> dict:
        """``show`` worked out from the resource and event lists.

        ``st``: the stack as Heat gives it; ``armed``: the breakpoints of
        its stored environment.
        """
        ident = _ident(st)
        res, tree = self.find_resource(ident, name, armed, nested_depth)
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
            'timeout_remaining': self.timeout_remaining(st),
            'resource_status': res.status,
            'resource_status_reason': res.reason,
            'requires': sorted(other.name for other in siblings
                               if res.name in (getattr(
                                   other.raw, 'required_by', None) or [])),
            'required_by': sorted(getattr(res.raw, 'required_by', None)
                                  or []),
            'inputs': None, 'attributes': None, 'error': '',
            'event': '',
            'change': None, 'simulated': '',
        }
        if row:
            event = self._hit_event(res)
            if event is not None:
                result['event'] = event.id
                result['inputs'] = hit_inputs(
                    getattr(event, 'resource_properties', None),
                    lambda: self._template(res.stack), res.name)
        return result
