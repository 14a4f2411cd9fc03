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
"""The browser tier: headless Chromium against the whole web console.

Skipped as a whole without Horizon, selenium or Chromium and its driver
(Debian's ``chromium`` and ``chromium-driver``). The console is
``tools/web_console.py``'s: a real Keystone, ``heat-breakpoint-server
--keystone``, Horizon with heat-dashboard and the Breakpoints panel.
"""

import importlib.util
import os
import shutil
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
DRIVER = shutil.which('chromedriver') or '/usr/bin/chromedriver'
MISSING = [name for name in ('horizon', 'heat_dashboard', 'selenium')
           if importlib.util.find_spec(name) is None] + [
    path for path in (CHROMIUM, DRIVER) if not os.path.exists(path)]
if MISSING:
    collect_ignore_glob = ['test_*.py']


def pytest_report_header(config):
    if MISSING:
        return 'browser tests skipped: missing %s' % ', '.join(MISSING)


def _console_module():
    spec = importlib.util.spec_from_file_location(
        'web_console', os.path.join(ROOT, 'tools', 'web_console.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='session')
def console():
    web_console = _console_module()
    state = tempfile.mkdtemp(prefix='heat-breakpoint-browser-')
    found = web_console.WebConsole(state).start(say=lambda text: None)
    yield found
    found.stop()
    shutil.rmtree(state, ignore_errors=True)


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for argument in ('--headless=new', '--no-sandbox',
                     '--disable-dev-shm-usage', '--window-size=1400,1000'):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(180)
    yield driver
    driver.quit()
