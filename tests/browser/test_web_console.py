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
"""The web console end to end, in headless Chromium.

A member launches a stack through heat-dashboard's own Launch Stack form
with an environment that sets a breakpoint, sees it held in the
Breakpoints view and on the graph, opens the hold (the hidden parameter
masked), steps, continues and sees the operation end. A reader sees the
holds and no action, and a POST of an action is refused, by the panel
and by heat-api. A member of another project does not find the stack.
The screenshots are the user guide's pictures
(``doc/source/user/images/web-console-*.png``).
"""

import os

import pytest
from selenium.webdriver.common.by import By

from heatclient_ext import exceptions
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import utils

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'doc',
                      'source', 'user', 'images')
SECRET = 'opensesame-browser-only'
TEMPLATE = '''heat_template_version: 2018-08-31
description: Three resources; b takes a hidden parameter.
parameters:
  secret: {type: string, hidden: true, default: %s}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: a}
  b:
    type: OS::Heat::RandomString
    properties:
      length: 8
      salt: {list_join: ['-', [{get_attr: [a, output]}, {get_param: secret}]]}
  c:
    type: OS::Heat::TestResource
    depends_on: b
    properties: {value: c}
''' % SECRET
ENVIRONMENT = 'breakpoints:\n  - {resource: b}\n'


def wait_until(predicate, timeout=120, what='condition'):
    """The functional tier's wait, at a page's pace."""
    return utils.wait_for(predicate, timeout, 0.5, what)


def shot(browser, name):
    os.makedirs(IMAGES, exist_ok=True)
    browser.save_screenshot(os.path.join(IMAGES, 'web-console-%s.png'
                                         % name))


def log_in(browser, console, user):
    browser.delete_all_cookies()
    browser.get(console.url + '/auth/login/')
    browser.find_element(By.ID, 'id_username').send_keys(user)
    password = browser.find_element(By.ID, 'id_password')
    password.send_keys(console.keystone_password)
    password.submit()
    wait_until(lambda: '/auth/login' not in browser.current_url, 120,
               'the login of %s' % user)


def submit_form_of(browser, element_id):
    form = browser.find_element(By.ID, element_id).find_element(
        By.XPATH, './ancestor::form')
    form.find_element(By.CSS_SELECTOR,
                      'input[type=submit], button[type=submit]').click()


def launch_in_the_stacks_panel(browser, console, name):
    browser.get(console.url + '/project/stacks/select_template')
    browser.execute_script(
        "$('#id_template_source').val('raw').change();"
        "$('#id_environment_source').val('raw').change();")
    browser.find_element(By.ID, 'id_template_data').send_keys(TEMPLATE)
    browser.find_element(By.ID, 'id_environment_data').send_keys(
        ENVIRONMENT)
    submit_form_of(browser, 'id_template_data')
    stack_name = wait_until(
        lambda: browser.find_elements(By.ID, 'id_stack_name'), 60,
        'the Launch Stack form')[0]
    stack_name.send_keys(name)
    submit_form_of(browser, 'id_stack_name')
    # The launch's answer is a redirect to the Stacks page: until it has
    # landed, a page asked for next can be overtaken by it.
    wait_until(lambda: browser.current_url.rstrip('/').endswith(
        '/project/stacks') and browser.execute_script(
            'return document.readyState') == 'complete', 60,
        'the stack launched')


def rows(browser):
    return [(row.get_attribute('data-resource'),
             row.get_attribute('data-state'))
            for row in browser.find_elements(By.CSS_SELECTOR,
                                             '#bp-rows tr[data-resource]')]


def click(browser, name):
    browser.find_element(By.CSS_SELECTOR,
                         'button[name="%s"]' % name).click()


def alpha_heat(console, user):
    from heatclient import client as heat_client
    return heat_client.Client(
        '1', session=console.keystone.session(user),
        endpoint_override='%s/v1/%s' % (console.heat.url,
                                        console.keystone.ids['alpha']))


def test_a_member_launches_steps_and_continues(console, browser):
    log_in(browser, console, 'alpha-member')
    launch_in_the_stacks_panel(browser, console, 'web-demo')

    browser.get(console.url + '/project/breakpoints/')
    wait_until(lambda: browser.refresh() or 'b (CREATE)' in
               browser.page_source, 120, 'web-demo held at b')
    shot(browser, 'index')
    browser.find_element(By.LINK_TEXT, 'web-demo').click()
    assert ('b', 'held') in rows(browser)
    graph = wait_until(lambda: browser.execute_script(
        "var i = document.getElementById('bp-graph-img');"
        "return i.complete && i.naturalWidth > 0 && i;"), 60, 'the graph')
    assert graph
    shot(browser, 'stack')

    browser.find_element(By.LINK_TEXT, 'b').click()
    wait_until(lambda: browser.find_elements(By.ID, 'bp-inputs'), 60,
               'the hold page')
    salt = browser.find_element(By.CSS_SELECTOR,
                                '#bp-inputs dd[data-key="salt"]').text
    assert bp_v1.MASK in salt
    assert SECRET not in browser.page_source
    shot(browser, 'hold')
    browser.back()

    click(browser, 'step-one')
    wait_until(lambda: 'Stepped: b (CREATE)' in browser.page_source, 60,
               'the step message')
    # Stepped from b: the operation holds at what waits for it, c.
    wait_until(lambda: browser.refresh() or ('c', 'held') in rows(browser),
               120, 'held at c')
    shot(browser, 'stepped')
    click(browser, 'continue')
    wait_until(lambda: 'Continued; released: c (CREATE)' in
               browser.page_source, 60, 'the continue message')
    # The page follows the operation by itself until it ends.
    wait_until(lambda: 'The operation ended: CREATE_COMPLETE.' in
               browser.page_source, 120, 'the end of the operation')
    shot(browser, 'ended')
    # Nor in Horizon's log of the whole session.
    with open(os.path.join(console.dir, 'horizon.log'), 'rb') as log:
        assert SECRET.encode() not in log.read()


def test_a_reader_sees_the_holds_and_cannot_act(console, browser):
    member = alpha_heat(console, 'alpha-member')
    member.stacks.create(stack_name='web-read', template=TEMPLATE,
                         environment={'breakpoints': [{'resource': 'b'}]})
    wait_until(lambda: bp_v1.BreakpointManager(member).held_now(
        'web-read')[1], 120, 'web-read held')
    stack = member.stacks.get('web-read')
    log_in(browser, console, 'alpha-reader')
    url = '%s/project/breakpoints/stack/web-read/%s/' % (console.url,
                                                         stack.id)
    browser.get(url)
    assert ('b', 'held') in rows(browser)
    assert not browser.find_elements(By.CSS_SELECTOR, 'form.bp-action')
    shot(browser, 'reader')
    status = browser.execute_script(
        "var token = document.cookie.match(/csrftoken=([^;]+)/)[1];"
        "var body = new URLSearchParams({action: 'continue'});"
        "var answer = await fetch(arguments[0] + 'action/', {method: 'POST',"
        " body: body, credentials: 'same-origin',"
        " headers: {'X-CSRFToken': token}});"
        "return answer.status;", url)
    assert status == 403
    # heat-api refuses the reader's own token too, by our policy rules.
    reader = bp_v1.BreakpointManager(alpha_heat(console, 'alpha-reader'))
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='not authorized to use breakpoints:continue'):
        reader.continue_('web-read')
    assert [row['resource'] for row in bp_v1.BreakpointManager(
        member).held_now('web-read')[1]] == ['b']

    log_in(browser, console, 'beta-member')
    browser.get(url)
    assert 'not found' in browser.page_source.lower()
    assert not rows(browser)
    browser.get(console.url + '/project/breakpoints/')
    assert 'web-read' not in browser.page_source
