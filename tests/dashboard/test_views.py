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
"""The Breakpoints panel's views against a real local Heat.

Each test launches a stack with breakpoints in its own project of the
local Heat (heat-breakpoint-server, the real Heat engine) and drives the
panel through Django's test client as a member or a reader would: what
the pages show, each action, the policy, CSRF, a stale action and the
masking of hidden values.
"""

import re

from heatclient_ext.v1 import manager as bp_v1
from tests.functional import test_engine
from tests.functional import utils

SECRET = test_engine.SECRET
BASE = '/project/breakpoints/'


def stack_url(heat, name, tail=''):
    st = heat.stacks.get(name)
    return '%sstack/%s/%s/%s' % (BASE, name, st.id, tail)


def launch(heat, name, template, *bps):
    """Launch with breakpoints; the rows once the first one holds."""
    test_engine.create(heat, name, template, *bps)
    return held(heat, name)


def held(heat, name, count=1, timeout=90):
    manager = bp_v1.BreakpointManager(heat)
    return utils.wait_for(
        lambda: (lambda rows: len(rows) >= count and rows)(
            manager.held_now(name)[1]), timeout, what='holds of %s' % name)


def launch_env(heat, name, template, entries, count=1):
    """Launch with an environment holding ``breakpoints:`` (our filter)."""
    heat.stacks.create(stack_name=name, template=test_engine.template(
        template), environment={'breakpoints': entries})
    return held(heat, name, count)


def rows_of(page):
    """``(resource, state)`` of each row of a stack page's holds table."""
    return re.findall(r'<tr data-resource="([^"]+)" data-state="([^"]+)"',
                      page)


def held_since(heat, name, resource):
    [row] = [row for row in bp_v1.BreakpointManager(heat).held_now(name)[1]
             if row['resource'] == resource]
    return row['held_since']


def post(client, heat, name, **fields):
    return client.post(stack_url(heat, name, 'action/'), fields, follow=True)


def held_names(heat, name):
    return sorted(row['resource'] for row in
                  bp_v1.BreakpointManager(heat).held_now(name)[1])


def test_index_lists_the_running_stack_and_what_it_holds(
        login, heat, stack_name):
    launch(heat, stack_name, 'two_branches.yaml', 'a2')
    answer = login('reader').get(BASE)
    assert answer.status_code == 200, answer.content[:2000]
    page = answer.content.decode()
    assert 'data-stack="%s"' % stack_name in page
    assert 'a2 (CREATE)' in page


def test_stack_page_shows_the_holds_as_list_does_and_a_member_may_act(
        login, heat, stack_name):
    launch(heat, stack_name, 'two_branches.yaml', 'a2')
    answer = login('member').get(stack_url(heat, stack_name))
    assert answer.status_code == 200
    page = answer.content.decode()
    listed = bp_v1.BreakpointManager(heat).list(stack_name)
    assert rows_of(page) == [(row['resource'], row['state'])
                             for row in listed]
    assert ('a2', 'held') in rows_of(page)
    for title in ('Resource', 'Held Since', 'Timeout Remaining', 'Why'):
        assert '<th>%s</th>' % title in page
    assert 'Operation running (CREATE_IN_PROGRESS): 1 held.' in page
    for button in ('step-all', 'continue', 'continue-to', 'set', 'clear',
                   'cancel', 'step-one', 'clear-one'):
        assert 'name="%s"' % button in page, button
    assert 'csrfmiddlewaretoken' in page
    # A hold of a before-breakpoint is neither retried nor retained.
    assert 'name="retry-one"' not in page
    assert 'name="retain-one"' not in page


def test_a_reader_sees_the_holds_and_no_action_and_a_post_is_refused(
        login, heat, stack_name):
    launch(heat, stack_name, 'two_branches.yaml', 'a2')
    reader = login('reader')
    page = reader.get(stack_url(heat, stack_name)).content.decode()
    assert ('a2', 'held') in rows_of(page)
    assert 'class="bp-action' not in page
    assert '<th>Actions</th>' not in page
    for action in ('step', 'continue', 'clear', 'cancel', 'set'):
        answer = reader.post(stack_url(heat, stack_name, 'action/'),
                             {'action': action, 'resource': 'a2'})
        assert answer.status_code == 403, action
        assert ('breakpoints:%s' % action in answer.content.decode() or
                action == 'cancel')
    assert held_names(heat, stack_name) == ['a2']


def test_hold_detail_is_show_with_hidden_values_masked(
        login, heat, stack_name):
    launch(heat, stack_name, 'two_branches.yaml', 'a2')
    client = login('member')
    answer = client.get(stack_url(heat, stack_name, 'hold/a2/'))
    assert answer.status_code == 200
    page = answer.content.decode()
    shown = bp_v1.BreakpointManager(heat).show(stack_name, 'a2')
    assert '<dd data-key="state">held</dd>' in page
    assert '<dd data-key="requires">a1</dd>' in page
    assert '<dd data-key="required_by">a3</dd>' in page
    assert '<dd data-key="salt">' in page
    assert bp_v1.MASK in shown['inputs']['salt']
    assert bp_v1.MASK in page
    # Nowhere in what the panel serves: the page, its refresh, the graph.
    for tail in ('', 'holds/', 'graph.svg', 'hold/a2/'):
        body = client.get(stack_url(heat, stack_name, tail)).content
        assert SECRET.encode() not in body, tail
    # a3 waits for a2: no hold there to show.
    assert client.get(stack_url(heat, stack_name, 'hold/a3/')
                      ).status_code == 404


def test_graph_marks_the_held_resource(login, heat, stack_name):
    launch(heat, stack_name, 'chain.yaml', 'B')
    answer = login('reader').get(stack_url(heat, stack_name, 'graph.svg'))
    assert answer.status_code == 200
    assert answer['Content-Type'] == 'image/svg+xml'
    svg = answer.content.decode()
    assert '<svg' in svg
    # The held resource is filled as the graph command fills it.
    from heatclient_ext.v1 import dependency_graph
    fills = dict((name, fill) for fill, name in re.findall(
        r'fill="([^"]+)"[^>]*>\s*<text[^>]*>(\w+)</text>', svg))
    assert fills['B'] == dependency_graph.HELD_FILL
    assert fills['A'] != dependency_graph.HELD_FILL
    assert 'held: before CREATE' in svg


def test_step_from_one_hold_then_the_same_click_again_releases_once(
        login, heat, stack_name):
    launch(heat, stack_name, 'chain.yaml', 'A')
    client = login('member')
    form = {'action': 'step', 'resource': 'A',
            'held_since': held_since(heat, stack_name, 'A')}
    answer = post(client, heat, stack_name, **form)
    assert answer.status_code == 200
    assert 'Stepped: A (CREATE)' in answer.content.decode()
    held(heat, stack_name)
    utils.wait_for(lambda: held_names(heat, stack_name) == ['B'], 60,
                   what='held at B')
    # The double click: the same form again finds A's hold gone.
    answer = post(client, heat, stack_name, **form)
    assert answer.status_code == 200
    assert 'A is no longer held as this page showed it' in \
        answer.content.decode()
    assert held_names(heat, stack_name) == ['B']


def test_a_hold_released_elsewhere_gives_a_message(login, heat, stack_name):
    launch(heat, stack_name, 'chain.yaml', 'A')
    client = login('member')
    page = client.get(stack_url(heat, stack_name)).content.decode()
    seen = set(re.findall(r'name="seen" value="([^"]+)"', page))
    assert seen == {'A@%s' % held_since(heat, stack_name, 'A')}
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    answer = post(client, heat, stack_name, action='continue', seen=list(seen))
    assert answer.status_code == 200
    page = answer.content.decode()
    assert 'The holds this page showed were released meanwhile' in page
    assert 'The operation ended: CREATE_COMPLETE.' in page


def test_continue_runs_the_operation_to_its_end(login, heat, stack_name):
    launch(heat, stack_name, 'chain.yaml', 'A', 'C')
    client = login('member')
    answer = post(client, heat, stack_name, action='continue',
                  seen='A@%s' % held_since(heat, stack_name, 'A'))
    assert 'Continued; released: A (CREATE)' in answer.content.decode()
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    page = client.get(stack_url(heat, stack_name, 'holds/')).content.decode()
    assert 'data-running="0"' in page
    assert 'The operation ended: CREATE_COMPLETE.' in page


def test_continue_to_set_and_clear(login, heat, stack_name):
    launch(heat, stack_name, 'chain.yaml', 'A')
    client = login('member')
    page = post(client, heat, stack_name, action='set', resource='D',
                when='after').content.decode()
    assert 'Breakpoint D (after): armed' in page
    assert ('D', 'armed') in rows_of(page)
    page = post(client, heat, stack_name, action='clear',
                resource='D').content.decode()
    assert 'Cleared D: disarmed' in page
    page = post(client, heat, stack_name, action='set', resource='Z'
                ).content.decode()
    assert 'alert-danger' in page and 'Z' in page
    page = post(client, heat, stack_name, action='continue',
                to='C').content.decode()
    assert 'Running to C; released: A (CREATE)' in page
    utils.wait_for(lambda: held_names(heat, stack_name) == ['C'], 60,
                   what='held at C')


def test_retry_a_failure_hold_and_retain_is_refused_in_words(
        login, heat, stack_name):
    launch_env(heat, stack_name, 'fail_pair.yaml',
               [{'resource': 'd', 'when': 'failed'}])
    client = login('member')
    page = client.get(stack_url(heat, stack_name)).content.decode()
    assert 'name="retry-one"' in page and 'name="step-one"' not in page
    since = held_since(heat, stack_name, 'd')
    page = post(client, heat, stack_name, action='retain', resource='d',
                held_since=since).content.decode()
    assert 'alert-danger' in page and 'retain' in page
    page = post(client, heat, stack_name, action='retry', resource='d',
                held_since=since).content.decode()
    assert 'Retried: d (CREATE)' in page
    utils.wait_for(lambda: held_since(heat, stack_name, 'd') != since, 60,
                   what='d held again')


def test_cancel_stops_the_create_and_deletes_the_stack(
        login, heat, stack_name):
    launch(heat, stack_name, 'chain.yaml', 'B')
    page = post(login('member'), heat, stack_name,
                action='cancel').content.decode()
    assert 'Cancelled: the create stopped' in page

    def gone():
        try:
            return heat.stacks.get(stack_name).stack_status in (
                'DELETE_COMPLETE',)
        except Exception:
            return True
    utils.wait_for(gone, 90, what='the stack deleted')


def test_an_action_without_the_csrf_token_is_refused(login, heat,
                                                     stack_name):
    launch(heat, stack_name, 'chain.yaml', 'A')
    client = login('member', csrf=True)
    answer = client.post(stack_url(heat, stack_name, 'action/'),
                         {'action': 'continue'})
    assert answer.status_code == 403
    assert b'CSRF' in answer.content
    assert held_names(heat, stack_name) == ['A']


def test_heat_dashboards_stack_page_links_to_the_holds(login, heat,
                                                       stack_name):
    launch(heat, stack_name, 'chain.yaml', 'A')
    client = login('reader')
    detail = '/project/stacks/stack/%s/' % heat.stacks.get(stack_name).id
    page = client.get(detail).content.decode()
    assert 'id="bp-stack-tab"' in page
    assert 'holds at a breakpoint: A (CREATE)' in page
    assert 'href="%s"' % stack_url(heat, stack_name) in page
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert 'id="bp-stack-tab"' not in client.get(detail).content.decode()
