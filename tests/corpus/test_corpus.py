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
"""The corpus tier: public templates on the local server's simulated cloud.

Every template of ``openstack/heat-templates`` (see :mod:`corpus`) is
created as an author would create it, each in a project of its own; each
has the outcome :mod:`expected` pins for it (CREATE_COMPLETE with
resources, or a failure for the reason given there).
``tools/corpus.py`` runs the same and prints the table.
"""

import concurrent.futures

import pytest

from heat_breakpoint.server import fixture
from tests.corpus import corpus
from tests.corpus import expected

ROOT = corpus.default_root()
pytestmark = pytest.mark.skipif(
    ROOT is None, reason='the corpus is not here: set HEAT_BREAKPOINT_CORPUS '
                         'to a checkout of openstack/heat-templates')


@pytest.fixture(scope='module')
def server():
    with fixture.local_heat('heat-breakpoint-corpus-',
                            '--no-leaf-sleep') as local:
        yield local


def test_each_template_has_its_pinned_outcome(server):
    templates = corpus.discover(ROOT)
    found = {t.path for t in templates}
    assert found == expected.PINNED, (
        'not pinned: %s; pinned, not in the corpus: %s' % (
            sorted(found - expected.PINNED),
            sorted(expected.PINNED - found)))

    def create(template):
        return corpus.create(corpus.client_for(server, template), template,
                             template.slug, timeout=120)

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(create, templates))
    report = expected.Report(outcomes)
    table = '\n'.join(report.lines())
    print(table)
    assert not report.unexpected, table
