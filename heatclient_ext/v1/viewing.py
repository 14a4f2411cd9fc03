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
"""Reading the breakpoints of a stack: the view, and waiting on it.

One request to ``GET /stacks/{stack}/breakpoints`` answers list, show and
what the commands read; a refresh of a live session reads it with
``?progress=1``. Against a Heat without the view the rows are worked out
from the stock API (:class:`.stock.StockListing`, which the reader is
given).
"""

import time
import typing
import urllib.parse

from heatclient import exc as heat_exc

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import stock
from heatclient_ext.v1 import terms


def view_path(stack: str, nested_depth=None, resource=None,
              progress=False) -> str:
    """The view's path for a stack, with the query asked for."""
    path = '/stacks/%s/breakpoints' % urllib.parse.quote(stack, safe='/')
    query: dict[str, typing.Union[int, str]] = (
        {'progress': 1} if progress else {})
    if nested_depth is not None:
        query['nested_depth'] = str(nested_depth)
    if resource is not None:
        query['resource'] = resource
    if query:
        path += '?' + urllib.parse.urlencode(query)
    return path


class Reader:
    """What a stack's operation holds and arms, read, never changed.

    ``listing`` works the rows out where the server has no view.
    """

    def __init__(self, client, listing: stock.StockListing) -> None:
        self.client = client
        self.stock = listing

    def get_stack(self, stack):
        try:
            return self.client.stacks.get(stack, resolve_outputs=False)
        except heat_exc.HTTPNotFound:
            raise terms.error(_('Stack not found: %(stack)s'), stack=stack)

    def armed(self, stack_ident: str):
        """Breakpoints of the stored environment, hand-set pre-hooks too."""
        return registry.armed(self.client.stacks.environment(stack_ident))

    def view_body(self, stack, nested_depth=None, resource=None,
                  progress=False):
        """The view's answer as it came (heatclient's errors go up).

        ``progress`` asks for the operation's counts and latest events
        too, as a live session's refresh reads them.
        """
        return self.client.http_client.get(view_path(
            stack, nested_depth, resource, progress)).json()

    def latest_events(self, stack_ident: str, limit: int, depth=None):
        """The stack's latest events, newest first; [] if Heat refuses."""
        kwargs = {'nested_depth': depth} if depth else {}
        try:
            return list(self.client.events.list(
                stack_ident, sort_dir='desc', limit=limit, **kwargs))
        except heat_exc.HTTPException:
            return []

    def resource_summary(self, stack_ident: str, resource_name: str) -> dict:
        """Type and physical id, which the view does not say: one GET.

        Empty when Heat cannot say (the resource gone meanwhile).
        """
        try:
            rsrc = self.client.resources.get(stack_ident, resource_name)
        except heat_exc.HTTPException:
            return {}
        return {'type': getattr(rsrc, 'resource_type', ''),
                'physical_resource_id': getattr(
                    rsrc, 'physical_resource_id', '') or ''}

    def view(self, stack, nested_depth=None, resource=None, full=False):
        """``(stack, rows)`` from the server's breakpoints view, or None.

        None when the server has no such view (stock Heat, or heat-api
        without our filter): the caller then works the rows out itself.
        With ``resource`` (a path), ``full`` gives ``(stack, rows,
        described resource)``; the server refuses a path that cannot
        name a resource of the stack's tree, with the closest names.
        """
        try:
            body = self.view_body(stack, nested_depth, resource)
        except heat_exc.HTTPNotFound:
            # A missing stack, or no view here: the fallback tells which.
            return None
        except heat_exc.HTTPBadRequest as exc:
            if resource is None:
                raise terms.error(_('Cannot list breakpoints of %(stack)s: '
                                    '%(reason)s'), stack=stack,
                                  reason=terms.server_words(exc))
            raise terms.error('%(reason)s', reason=terms.server_words(exc))
        except heat_exc.HTTPException as exc:
            raise terms.error(_('Cannot list breakpoints of %(stack)s: '
                                '%(reason)s'), stack=stack,
                              reason=exceptions.one_line(exc))
        except ValueError:
            return None
        if not isinstance(body, dict) or 'breakpoints' not in body:
            return None
        found = body.get('stack') or {}
        summary = terms.StackSummary(found.get('id'), found.get('stack_name'),
                                     found.get('stack_status'))
        if full:
            return summary, list(body['breakpoints']), body.get('resource')
        return summary, list(body['breakpoints'])

    def describe(self, stack, name) -> typing.Optional[tuple]:
        """``(stack, rows, resource)`` from the view, or None without it.

        ``resource`` says what the running operation does at ``name``:
        its ``state`` (held, armed, disarmed, done, waiting), the rule
        that decides it, its inputs if held, its neighbours.
        """
        breakpoints.parse_name(name)  # the model's words for a bad name
        if terms.is_pattern(name):
            raise terms.error(
                _('%(name)s is a pattern: give one resource path'),
                name=name)
        found = self.view(stack, resource=name, full=True)
        if found is None or found[2] is None:
            return None
        return found

    def current(self, stack, nested_depth: typing.Optional[int] = None):
        """``(stack, rows)``: held rows first, then armed ones."""
        found = self.view(stack, nested_depth)
        if found is not None:
            return found
        st = self.get_stack(stack)
        armed = self.armed(terms.ident(st))
        rows = self.stock.held(st, armed, nested_depth)
        return st, rows + self.stock.armed_rows(st, armed, rows)

    def list(self, stack, nested_depth: typing.Optional[int] = None):
        """Armed and held breakpoints of a stack, as rows (dicts).

        A held row names the resource; an armed row names the breakpoint
        (possibly a pattern) and its actions.
        """
        return self.current(stack, nested_depth)[1]

    def held_now(self, stack, nested_depth: typing.Optional[int] = None):
        """``(stack, held rows)``."""
        st, rows = self.current(stack, nested_depth)
        return st, [row for row in rows if row['state'] == terms.HELD]

    def show(self, stack, name, nested_depth: typing.Optional[int] = None):
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
            if found['state'] == terms.WAITING:
                raise terms.error(_('No breakpoint on %(name)s in stack '
                                    '%(stack)s'), name=name,
                                  stack=st.stack_name)
            return {key: found.get(key) for key in terms.SHOW_KEYS}
        return self.stock_show(stack, name, nested_depth)

    def stock_show(self, stack, name, nested_depth=None) -> dict:
        """``show`` worked out from the resource and event lists."""
        st = self.get_stack(stack)
        return self.stock.show(st, self.armed(terms.ident(st)), name,
                               nested_depth)

    def wait(self, stack, poll=5, sleep=time.sleep) -> tuple:
        """Wait until the stack is held at a breakpoint or finished.

        Returns ``(stack, held_rows)``; ``held_rows`` is empty when the
        operation finished.
        """
        st = self.get_stack(stack)
        while True:
            if not (st.stack_status or '').endswith('_IN_PROGRESS'):
                return st, []
            rows = self.held_now(terms.ident(st))[1]
            if rows:
                return st, rows
            sleep(poll)
            st = self.get_stack(terms.ident(st))
