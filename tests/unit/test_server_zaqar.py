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
"""The simulated Zaqar queues Heat's ZAQAR_SIGNAL deployments use.

(A deployment signalled through one, on the real local Heat:
``tests/functional/test_released_signals.py``.)
"""

import inspect

import pytest

from heat.engine.clients.os import zaqar as heat_zaqar

from heat_breakpoint.server.cloud import store as cloud_store
from heat_breakpoint.server.cloud import zaqar


@pytest.fixture
def store(tmp_path):
    found = cloud_store.Store(str(tmp_path / 'cloud.sqlite'))
    yield found
    found.close()


def test_what_heat_keeps_of_a_signed_url_makes_a_client_again(store):
    # Heat stores signed_url()'s answer, pops 'project' and passes the
    # rest to create_from_signed_url as keywords.
    data = zaqar.SimulatedZaqar(store, 'p1').queue('q').signed_url(
        ['messages'], methods=['GET', 'DELETE'])
    assert data.pop('project') == 'p1'
    assert set(data) == set(inspect.signature(
        heat_zaqar.ZaqarClientPlugin.create_from_signed_url).parameters) - {
            'self', 'project_id'}
    assert data['methods'] == ['GET', 'DELETE']


def test_messages_are_popped_once_in_order_per_project(store):
    queue = zaqar.SimulatedZaqar(store, 'p1').queue('q')
    queue.post({'body': {'n': 1}, 'ttl': 3600})
    queue.post([{'body': {'n': 2}}, {'body': {'n': 3}}])
    assert zaqar.SimulatedZaqar(store, 'p2').queue('q').pop() == []
    assert [m.body for m in queue.pop(count=2)] == [{'n': 1}, {'n': 2}]
    assert [m.body for m in queue.pop()] == [{'n': 3}]
    assert queue.pop() == []


def test_a_deleted_queue_has_nothing_to_pop(store):
    queue = zaqar.SimulatedZaqar(store, 'p1').queue('q')
    queue.post({'body': 'x'})
    queue.delete()
    assert not queue.exists
    assert queue.pop() == []
