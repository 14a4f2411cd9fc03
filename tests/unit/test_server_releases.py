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
"""The local server's per-release differences, as pure logic.

The servers themselves run per release in ``tools/heat_matrix.sh``; here
the paste file built from each release's layout, and the linked threads
that stand in for Heat 24's green threads.
"""

import configparser
import threading

import pytest

from heat_breakpoint.server import config
from heat_breakpoint.server import green_heat

# Heat 24's api-paste.ini names its root app per flavor.
HEAT_24_PASTE = """
[composite:heat-api]
paste.composite_factory = heat.api:root_app_factory
/: api
/healthcheck: healthcheck

[composite:heat-api-noauth]
paste.composite_factory = heat.api:root_app_factory
/: api
/healthcheck: healthcheck

[composite:api]
paste.composite_factory = heat.api:pipeline_factory
default = cors request_id faultwrap authurl authtoken context apiv1app
noauth = cors request_id faultwrap noauth context apiv1app
"""

# From Heat 25 on: one root app, which every flavor falls back to.
HEAT_25_PASTE = """
[composite:heat-api]
use = egg:Paste#urlmap
/: api
/healthcheck: healthcheck

[composite:api]
paste.composite_factory = heat.api:pipeline_factory
noauth = cors request_id faultwrap noauth context apiv1app
"""


def write(tmp_path, monkeypatch, heat_paste):
    source = tmp_path / 'heat-api-paste.ini'
    source.write_text(heat_paste)
    monkeypatch.setattr(config, 'heat_paste_file', lambda: str(source))
    paste = configparser.RawConfigParser()
    paste.optionxform = str
    paste.read(config.write_paste_file(str(tmp_path)))
    return paste


def test_heat_24_gets_a_root_app_for_our_flavor(tmp_path, monkeypatch):
    paste = write(tmp_path, monkeypatch, HEAT_24_PASTE)
    for flavor in (config.FLAVOR, config.KEYSTONE_FLAVOR):
        ours = 'composite:heat-api-%s' % flavor
        assert dict(paste.items(ours)) == dict(
            paste.items('composite:heat-api-noauth'))
        assert paste.get('composite:api', flavor).split()[-2:] == [
            config.FILTER, 'apiv1app']
    assert paste.get('composite:api', config.KEYSTONE_FLAVOR) == (
        'cors request_id faultwrap authurl authtoken context breakpoint '
        'apiv1app')


def test_later_heat_gets_no_extra_root_app(tmp_path, monkeypatch):
    paste = write(tmp_path, monkeypatch, HEAT_25_PASTE)
    assert not paste.has_section('composite:heat-api-%s' % config.FLAVOR)
    assert paste.get('composite:api', config.FLAVOR).split()[-2:] == [
        config.FILTER, 'apiv1app']


def run(linked, func, *args):
    thread = threading.Thread(target=linked.run, args=(func,) + args)
    thread.start()
    return thread


def test_links_run_when_the_thread_ends():
    linked = green_heat._LinkedThread()
    gate = threading.Event()
    seen = []
    thread = run(linked, lambda: gate.wait(5) and 'done')
    linked.link(lambda gt, tag: seen.append((tag, gt.wait())), 'release')
    assert seen == []
    gate.set()
    thread.join(5)
    assert seen == [('release', 'done')]
    # Linked after the end: runs at once, as eventlet's link does.
    linked.link(lambda gt: seen.append(('late', gt.wait())))
    assert seen[-1] == ('late', 'done')


def test_wait_raises_what_the_thread_raised():
    linked = green_heat._LinkedThread()
    seen = []

    def fail():
        raise ValueError('boom')

    linked.link(lambda gt: seen.append('released'))
    run(linked, fail).join(5)
    assert seen == ['released']
    with pytest.raises(ValueError):
        linked.wait()


def test_no_threading_backend_is_a_one_line_setup_error(monkeypatch):
    from oslo_service import backend

    from heat_breakpoint.server import local_heat

    def missing(type_):
        raise ValueError("Unknown backend: 'threading'")

    monkeypatch.setattr(backend, 'init_backend', missing)
    with pytest.raises(config.SetupError) as err:
        local_heat.LocalHeat('/nonexistent').start()
    assert "'oslo.service[threading]>=4.2.2'" in str(err.value)
    assert '\n' not in str(err.value)
