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
"""Where a debug session's Heat is (:mod:`heatclient_ext.dap.heat`)."""

import contextlib
import http.server
import os
import threading

import pytest

from heat_breakpoint.server import fixture
from heat_breakpoint.server import lifeline
from heatclient_ext.dap import heat
from heatclient_ext.dap import local_process
from heatclient_ext import exceptions


@contextlib.contextmanager
def _answering():
    """Something that answers HTTP on a port of 127.0.0.1."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_local_heat_names_the_running_server_by_its_port():
    with _answering() as port:
        assert heat.running_local(port) == (
            'http://127.0.0.1:%d/v1/admin' % port)


def test_local_heat_that_does_not_answer_is_one_line():
    port = fixture.free_port()
    with pytest.raises(exceptions.BreakpointCommandError) as refused:
        heat.running_local(port)
    assert str(refused.value) == (
        'No local Heat answers on 127.0.0.1:%d: start one '
        '(heat-breakpoint-server --port %d), or leave out localHeat to '
        'have one started' % (port, port))


@pytest.mark.parametrize('port', [0, 65536, -1])
def test_local_heat_must_be_a_port(port):
    with pytest.raises(exceptions.BreakpointCommandError) as refused:
        heat.running_local(port)
    assert str(refused.value) == (
        'localHeat must be a port (1 to 65535), not %d' % port)


@pytest.mark.parametrize('where', [{'endpoint': 'http://x/v1/a'},
                                   {'cloud': 'mycloud'}])
def test_local_heat_with_another_place_is_refused(where):
    with pytest.raises(exceptions.BreakpointCommandError) as refused:
        heat.check_launch(dict(where, stack='s', template='t.yaml',
                               localHeat=8004))
    assert str(refused.value) == (
        'launch takes one of localHeat, endpoint and cloud')


def test_a_delete_needs_no_template():
    heat.check_launch({'stack': 's', 'action': 'delete'})
    with pytest.raises(exceptions.BreakpointCommandError):
        heat.check_launch({'stack': 's'})


def test_a_stopped_local_heat_never_starts():
    local = heat.LocalHeat()
    local.stop()  # the editor left before the start came
    with pytest.raises(exceptions.BreakpointCommandError):
        local.launch()
    assert local.process.proc is None


def test_the_lifeline_ends_when_its_writer_is_closed():
    read_end, write_end = os.pipe()
    ended = threading.Event()
    lifeline.watch(read_end, ended.set)
    os.write(write_end, b'x')  # not an end
    assert not ended.wait(0.2)
    os.close(write_end)
    assert ended.wait(5)


class _Process:
    def __init__(self):
        self.launched = self.removed = False

    def launch(self):
        self.launched = True
        return self

    def remove(self, timeout):
        self.removed = True


@pytest.fixture
def early(monkeypatch):
    made = []

    def new_process():
        made.append(_Process())
        return made[-1]
    monkeypatch.setattr(local_process, 'new_process', new_process)
    monkeypatch.setattr(local_process, '_early', None)
    monkeypatch.setattr(local_process, '_closed', False)
    return made


def test_the_early_local_heat_is_taken_once(early):
    local_process.launch_early()
    local_process.launch_early()  # one process, however often asked
    [process] = early
    assert process.launched
    taken = heat.LocalHeat(local_process.take_early())
    assert taken.process is process and taken.launched
    taken.launch()  # nothing launched twice
    assert local_process.take_early() is None
    local_process.discard_early()  # the session's, not discarded
    assert not process.removed


def test_an_early_local_heat_nobody_took_is_removed(early):
    local_process.launch_early()
    local_process.discard_early()
    [process] = early
    assert process.removed
    assert local_process.take_early() is None
    local_process.launch_early()  # the adapter is ending: no new one
    assert len(early) == 1


class _Local:
    def __init__(self, launched=None):
        self.launched = launched is not None
        self.stopped = False

    def launch(self):
        self.launched = True

    def stop(self):
        self.stopped = True


def test_a_session_heat_after_the_end_is_stopped_at_once(early, monkeypatch):
    monkeypatch.setattr(heat, 'LocalHeat', _Local)
    own = heat.OwnHeat()
    own.prestart()
    first = own.local
    assert first.launched and not first.stopped
    own.close()
    assert first.stopped and own.local is None
    own.prestart()  # the launch's thread, late: nothing kept
    assert own.local is None
    with pytest.raises(exceptions.BreakpointCommandError) as refused:
        own.start(lambda text: None)
    assert str(refused.value) == 'the editor has left'


def test_a_launch_on_another_heat_drops_the_early_one(early, monkeypatch):
    monkeypatch.setattr(heat, 'LocalHeat', _Local)
    own = heat.OwnHeat()
    own.prestart()
    started = own.local
    own.drop()
    assert started.stopped and own.local is None
