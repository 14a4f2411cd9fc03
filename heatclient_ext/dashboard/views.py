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
"""The Breakpoints panel's pages: read through the breakpoint manager.

Every page reads Heat with the logged-in user's token (heat-dashboard's
``heatclient(request)``), through :class:`heatclient_ext.v1.manager.
BreakpointManager`'s public calls, as the OSC commands do. A stack's page
and its refresh cost one request to Heat where it has the breakpoints
view; the graph is its own request, drawn only when the holds change.
"""

import shutil
import subprocess

from django import http
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import generic
from heat_dashboard.api import heat as heat_api
from horizon import messages
from openstack_auth import policy

from heatclient_ext.dashboard import actions
from heatclient_ext import exceptions
from heatclient_ext.v1 import changes as bp_changes
from heatclient_ext.v1 import dependency_graph
from heatclient_ext.v1 import manager as bp_v1

#: The columns of ``openstack stack breakpoint list``, in its words.
COLUMNS = tuple(zip(bp_v1.COLUMNS, map(gettext_lazy, (
    'Resource', 'Action', 'When', 'State', 'Why', 'Source', 'Held Since',
    'Timeout Remaining'))))
GRAPH_TIMEOUT = 30


def manager_for(request) -> bp_v1.BreakpointManager:
    """The manager over a heatclient with the user's own token."""
    return bp_v1.BreakpointManager(heat_api.heatclient(request))


def allowed(request, action) -> bool:
    return policy.check((actions.RULES[action],), request)


def _not_found(exc) -> bool:
    return str(exc).startswith('Stack not found')


class _Stack(object):
    """A view of one stack, named ``name/id`` by the URL."""

    kwargs: dict  # the URL's arguments, set by Django's View

    def ident(self) -> str:
        return '%s/%s' % (self.kwargs['stack_name'], self.kwargs['stack_id'])

    def url(self, name, *more) -> str:
        return reverse('horizon:project:breakpoints:' + name, args=(
            self.kwargs['stack_name'], self.kwargs['stack_id']) + more)


def _row(row) -> dict:
    return {'cells': [bp_v1.row_value(row, key) for key, _title in COLUMNS],
            'resource': row['resource'], 'state': row['state'],
            'held': row['state'] == bp_v1.HELD,
            'when': bp_v1.row_value(row, 'when'),
            'action': row.get('action') or '',
            'held_since': row.get('held_since') or '',
            'seen': actions.seen_key(row),
            'plugin': row.get('form') != 'hook'}


class HoldsView(_Stack, generic.TemplateView):
    """The stack's holds and commands: the part of its page that refreshes.

    One read of the breakpoints view.
    """

    template_name = 'breakpoints/_holds.html'

    def holds(self) -> dict:
        try:
            st, rows = manager_for(self.request).current(self.ident())
        except exceptions.USER_ERRORS as exc:
            if _not_found(exc):
                raise http.Http404(str(exc))
            messages.error(self.request, str(exc))
            return {'rows': [], 'held': [], 'running': False}
        rows = [_row(row) for row in rows]
        held = [row for row in rows if row['held']]
        running = (st.stack_status or '').endswith('_IN_PROGRESS')
        can = {action: running and allowed(self.request, action)
               for action in actions.RULES}
        return {'stack': st, 'rows': rows, 'held': held, 'running': running,
                'columns': [title for _key, title in COLUMNS], 'can': can,
                'any_action': any(can.values()), 'whens': actions.WHENS,
                'held_key': ' '.join(row['seen'] for row in held),
                'action_url': self.url('action'),
                'hold_url': self.url('stack') + 'hold/'}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(self.holds())
        return context


class StackView(HoldsView):
    """A stack's holds, its graph and its commands; refreshes itself."""

    template_name = 'breakpoints/stack.html'

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update({'stack_name': self.kwargs['stack_name'],
                        'page_title': self.kwargs['stack_name'],
                        'graph_url': self.url('graph'),
                        'holds_url': self.url('holds'),
                        'index_url': reverse(
                            'horizon:project:breakpoints:index'),
                        'stacks_url': reverse(
                            'horizon:project:stacks:detail',
                            args=(self.kwargs['stack_id'],))})
        return context


def _shown(value) -> str:
    """A field of ``show`` in one line: lists joined, nothing as ''."""
    if isinstance(value, (list, tuple)):
        return ', '.join(map(str, value))
    return '' if value is None else str(value)


class HoldView(_Stack, generic.TemplateView):
    """One hold in full, as ``openstack stack breakpoint show`` gives it."""

    template_name = 'breakpoints/hold.html'

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        resource = self.kwargs['resource']
        try:
            shown = manager_for(self.request).show(self.ident(), resource)
        except exceptions.USER_ERRORS as exc:
            # No such stack, or no hold there (released meanwhile).
            raise http.Http404(str(exc))
        change = shown.pop('change', None)
        fields = [(key, _shown(shown.get(key))) for key in bp_v1.SHOW_KEYS
                  if key not in ('inputs', 'attributes', 'change')]
        context.update({
            'resource': resource, 'stack_name': self.kwargs['stack_name'],
            'page_title': resource,
            'fields': fields,
            'inputs': sorted((shown.get('inputs') or {}).items()),
            'attributes': sorted((shown.get('attributes') or {}).items()),
            'change': bp_changes.text(change) if change else '',
            'stack_url': self.url('stack')})
        return context


def _svg(graph) -> bytes:
    """The graph drawn by Graphviz; its text tree where there is no dot."""
    dot = shutil.which('dot')
    if dot is None:
        from django.utils import html
        lines = dependency_graph.text(graph).splitlines()
        body = ''.join('<text x="4" y="%d">%s</text>' % (
            16 * (n + 1), html.escape(line)) for n, line in enumerate(lines))
        return ('<svg xmlns="http://www.w3.org/2000/svg" font-family='
                '"monospace" font-size="13" width="900" height="%d">%s'
                '</svg>' % (16 * len(lines) + 8, body)).encode()
    return subprocess.run([dot, '-Tsvg'], input=dependency_graph.dot(
        graph).encode(), stdout=subprocess.PIPE, check=True,
        timeout=GRAPH_TIMEOUT).stdout


class GraphView(_Stack, generic.View):
    """The dependency graph of ``graph``, held resources marked, as SVG."""

    def get(self, request, *args, **kwargs):
        try:
            graph = dependency_graph.fetch(heat_api.heatclient(request),
                                           self.ident())
        except exceptions.USER_ERRORS as exc:
            raise http.Http404(str(exc))
        return http.HttpResponse(_svg(graph), content_type='image/svg+xml')


class ActionView(_Stack, generic.View):
    """A command from the page (POST, with Django's CSRF token)."""

    def post(self, request, *args, **kwargs):
        req = actions.Request.of(request.POST)
        if req.action not in actions.RULES:
            return http.HttpResponseBadRequest(
                _('Unknown action: %s') % req.action)
        if not allowed(request, req.action):
            return http.HttpResponseForbidden(
                _('You are not allowed to %(action)s in this project '
                  '(policy %(rule)s)') % {
                    'action': req.action,
                    'rule': actions.RULES[req.action][1]})
        manager = manager_for(request)
        try:
            held = manager.held_now(self.ident())[1]
            actions.check_fresh(req, held)
            level, text = actions.perform(manager, self.ident(), req, held)
        except actions.Stale as exc:
            messages.warning(request, str(exc))
        except exceptions.USER_ERRORS as exc:
            if _not_found(exc):
                raise http.Http404(str(exc))
            messages.error(request, str(exc))
        else:
            getattr(messages, level)(request, text)
        return http.HttpResponseRedirect(self.url('stack'))


class IndexView(generic.TemplateView):
    """The project's stacks with a running operation, and what they hold."""

    template_name = 'breakpoints/index.html'

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        manager = manager_for(self.request)
        stacks = []
        for st in heat_api.stacks_list(self.request)[0]:
            if not (st.stack_status or '').endswith('_IN_PROGRESS'):
                continue
            ident = bp_v1.ident(st)
            try:
                held = manager.held_now(ident)[1]
            except exceptions.USER_ERRORS as exc:
                messages.error(self.request, str(exc))
                held = []
            stacks.append({
                'name': st.stack_name, 'id': st.id,
                'status': st.stack_status, 'held': bp_v1.held_text(held),
                'count': len(held),
                'url': reverse('horizon:project:breakpoints:stack',
                               args=(st.stack_name, st.id))})
        stacks.sort(key=lambda found: (-found['count'], found['name']))
        context['stacks'] = stacks
        context['page_title'] = _('Breakpoints')
        return context
