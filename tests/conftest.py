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
"""Test-wide set-up.

Heat must see oslo.service's threading backend before it is first
imported (heat-engine selects it the same way), so select it here, before
any test module imports Heat. Reports are made sendable by pytest-xdist's
workers (:func:`pytest_runtest_makereport`).
"""

import pytest

try:
    from oslo_service import backend
except ImportError:  # the client-only install has no oslo.service
    backend = None

if backend is not None:
    try:
        backend.init_backend(backend.BackendType.THREADING)
    except Exception:  # already selected by an earlier import
        pass


def _encodable(text):
    """Text a worker of pytest-xdist can send: lone surrogates escaped."""
    if isinstance(text, str):
        return text.encode('utf-8', 'backslashreplace').decode('utf-8')
    return text


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # The bad-input tests log names with lone surrogates on purpose; a
    # report carries the captured log, and pytest-xdist sends reports to
    # the controller as UTF-8.
    outcome = yield
    report = outcome.get_result()
    report.sections = [(_encodable(title), _encodable(text))
                       for title, text in report.sections]
    if isinstance(report.longrepr, str):
        report.longrepr = _encodable(report.longrepr)


@pytest.fixture(autouse=True)
def _no_lazy_translation():
    """Each test starts with oslo.i18n's lazy translation off.

    Importing Heat in a test process turns it on for good, and then OSC
    plugins run in-process later (troveclient's commands) cannot load:
    "Message objects do not support addition" on every command's stderr.
    """
    try:
        import oslo_i18n
    except ImportError:
        yield
        return
    oslo_i18n.enable_lazy(False)
    yield
