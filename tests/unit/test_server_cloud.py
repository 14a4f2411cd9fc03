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
"""The simulated cloud's pure parts.

Values, the store and the inventory, what a boot script signals, the
notice's words, the object store.
"""

import ipaddress
import types

import pytest

from heat_breakpoint.server.cloud import agents
from heat_breakpoint.server.cloud import inventory
from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import notice
from heat_breakpoint.server.cloud import store as cloud_store
from heat_breakpoint.server.cloud import swift
from heat_breakpoint.server.cloud import values

BASE = 'http://127.0.0.1:8004'


@pytest.fixture
def store(tmp_path):
    found = cloud_store.Store(str(tmp_path / 'cloud.sqlite'))
    yield found
    found.close()


def test_ids_are_the_same_for_the_same_seed_and_shaped_as_the_cloud_s():
    assert values.object_id('server', 's/r#0') == \
        values.object_id('server', 's/r#0')
    assert values.object_id('server', 's/r#0') != \
        values.object_id('server', 's/r#1')
    assert values.looks_like_uuid(values.object_id('port', 'x'))
    keystone_id = values.object_id('project', 'x')
    assert len(keystone_id) == 32 and '-' not in keystone_id
    assert values.mac_address('x').startswith('fa:16:3e:')


def test_addresses_come_from_the_pools_lowest_free_first():
    pools = [{'start': '10.0.0.10', 'end': '10.0.0.11'}]
    assert values.first_free('10.0.0.0/24', pools, []) == '10.0.0.10'
    assert values.first_free('10.0.0.0/24', pools,
                             ['10.0.0.10']) == '10.0.0.11'
    with pytest.raises(ValueError, match='No more IP addresses'):
        values.first_free('10.0.0.0/24', pools, ['10.0.0.10', '10.0.0.11'])
    # Without pools, after the gateway.
    assert values.first_free('10.1.0.0/24', None, []) == '10.1.0.2'


@pytest.mark.parametrize('kind, expected', [
    ('String', str), ('Map', dict), ('List', list), ('Integer', int),
    ('Boolean', bool), (None, str)])
def test_an_unmodelled_attribute_has_its_declared_type(kind, expected):
    value = values.by_schema(kind, 'foo', 'r')
    assert isinstance(value, expected)
    if expected in (str, list, dict):
        assert 'simulated' in str(value)


def test_a_scalar_declared_a_string_is_given_as_one():
    assert models.as_declared(True, 'String') == 'True'
    assert models.as_declared(4, 'String') == '4'
    assert models.as_declared(4, 'Integer') == 4
    assert models.fits(4, 'Integer') and not models.fits(True, 'Integer')


def test_names_are_assumed_and_noted_unless_the_inventory_is_strict(store):
    lenient = inventory.Inventory(store)
    with lenient.noting_assumptions() as noted:
        flavor = lenient.find('flavor', 'm1.large')
        again = lenient.find('flavor', 'm1.large')
    assert flavor.id == again.id
    assert (flavor['vcpus'], flavor['ram'], flavor['disk']) == (4, 8192, 80)
    assert noted == [('flavor', 'm1.large')]
    public = lenient.find('network', 'public')
    assert public['router:external'] is True
    subnet = store.get(public['subnets'][0])
    assert ipaddress.ip_network(subnet['cidr']) == ipaddress.ip_network(
        '203.0.113.0/24')
    assert subnet['network_id'] == public.id

    strict = inventory.Inventory(store, strict=True)
    with pytest.raises(inventory.NotFound):
        strict.find('image', 'nope')
    assert strict.find('flavor', 'm1.large').id == flavor.id


def test_the_cloud_file_is_checked_and_loaded(store, tmp_path):
    path = tmp_path / 'cloud.yaml'
    path.write_text('flavors:\n  - {name: big, vcpus: 64}\n'
                    'networks: [{name: ext, external: true, '
                    'cidr: 198.51.100.0/24}]\nkeypairs: [mykey]\n')
    cloud = inventory.Inventory.from_file(store, str(path))
    assert cloud.strict
    assert cloud.find('flavor', 'big')['vcpus'] == 64
    ext = cloud.find('network', 'ext')
    assert store.get(ext['subnets'][0])['cidr'] == '198.51.100.0/24'
    with pytest.raises(inventory.NotFound):
        cloud.find('keypair', 'otherkey')


@pytest.mark.parametrize('text, words', [
    ('flavours: []\n', 'unknown sections: flavours'),
    ('flavors: m1.small\n', 'flavors in'),
    ('- a\n', 'must be a mapping'),
    ('flavors: [{vcpus: 1}]\n', 'needs a name'),
    ('flavors: [\n', 'is not YAML'),
])
def test_a_bad_cloud_file_is_one_line_naming_the_problem(store, tmp_path,
                                                         text, words):
    path = tmp_path / 'cloud.yaml'
    path.write_text(text)
    with pytest.raises(inventory.InventoryError) as caught:
        inventory.Inventory.from_file(store, str(path))
    assert words in str(caught.value)
    assert '\n' not in str(caught.value)


def test_a_missing_cloud_file_is_named(store, tmp_path):
    with pytest.raises(inventory.InventoryError, match='cannot read'):
        inventory.Inventory.from_file(store, str(tmp_path / 'none.yaml'))


def test_a_boot_script_sends_the_signals_of_its_healthy_path():
    url = BASE + '/v1/admin/stacks/s/1/resources/h/signal'
    cfn = BASE + '/cfn/v1/waitcondition/arn%3Ax?Signature=y'
    script = '\n'.join([
        '#!/bin/sh',
        'function error_exit { cfn-signal -e 1 -r "$1" \'%s\'; }' % cfn,
        "curl -i -X POST -H 'X-Auth-Token: tok' %s "
        "--data-binary '{\"status\": \"SUCCESS\", \"id\": \"5\"}'" % url,
        '# curl %s --data-binary \'{"status": "SUCCESS"}\'' % url,
        "curl %s --data-binary '{\"status\": \"FAILURE\"}'" % url,
        'cfn-signal -e 0 -r "done" \\\n  \'%s\'' % cfn,
        'curl http://example.com/signal',
    ])
    signals = agents.boot_signals(script, BASE)
    assert [(m, u) for m, u, _, _ in signals] == [('POST', url),
                                                  ('PUT', cfn)]
    assert signals[0][2]['id'] == '5' and signals[0][3] == 'tok'
    assert signals[1][2]['Status'] == 'SUCCESS'


def test_each_native_signal_is_taken_in_before_the_next_is_sent(
        monkeypatch):
    # Heat's API hands a signal to an engine thread and answers at once;
    # sent back to back, the handle could number them out of order (an
    # explicit id 5 taken before the fourth signal without one, which
    # then takes id 5 too: the count is never reached).
    import requests

    url = BASE + '/v1/admin/stacks/s/1/resources/h/signal'
    events = BASE + '/v1/admin/stacks/s/1/resources/h/events'
    calls, handled = [], []

    class Answer:
        def __init__(self, doc=None):
            self.ok, self.status_code, self.doc = True, 200, doc

        def json(self):
            return self.doc

    def get(where, headers=None, timeout=None):
        calls.append(('GET', where))
        # The engine takes a signal in after two looks.
        if len([c for c in calls if c[0] == 'GET']) % 2 == 0 and \
                len(handled) < len([c for c in calls if c[0] == 'POST']):
            handled.append(True)
        return Answer({'events': [{'resource_status': 'CREATE_COMPLETE'}] +
                       [{'resource_status': 'SIGNAL_COMPLETE'}] *
                       len(handled)})

    def request(method, where, data=None, headers=None, timeout=None):
        assert len(handled) == len([c for c in calls if c[0] == 'POST']), \
            'a signal sent before the one before it was taken in'
        calls.append(('POST', where))
        return Answer()

    monkeypatch.setattr(requests, 'get', get)
    monkeypatch.setattr(requests, 'request', request)
    monkeypatch.setattr(agents, 'SIGNAL_TAKEN_SECONDS', 5.0)
    cloud = types.SimpleNamespace(store=None)
    signals = [('POST', url, {'status': 'SUCCESS'}, 'tok')] * 3
    monkeypatch.setattr(swift.SimulatedSwift, 'put_url',
                        lambda self, u, body: False)
    monkeypatch.setattr(swift.SimulatedSwift, '__init__',
                        lambda self, *args: None)
    agents.Agents(cloud)._send('web', signals)
    assert [c for c in calls if c[0] == 'POST'] == [('POST', url)] * 3
    assert {c[1] for c in calls if c[0] == 'GET'} == {events}


def test_deployment_outputs_say_they_are_simulated():
    class Deployment:
        config_id = 'c1'
        server_id = 's1'
    config = {'name': 'cfg', 'group': 'script',
              'outputs': [{'name': 'result'},
                          {'name': 'oops', 'error_output': True}]}
    details = agents.deployment_outputs(config, Deployment())
    assert details['deploy_status_code'] == 0
    assert 'simulated' in details['result']
    assert 'oops' not in details


def test_the_notice_names_types_and_assumptions():
    text = notice.describe({'OS::Nova::Server': 2},
                           [('flavor', 'm1.small'), ('volume_type', 'ssd')])
    assert text == ('Simulated cloud: 2 OS::Nova::Server simulated; '
                    'assumed to exist: flavor m1.small, volume type ssd')


def test_a_long_notice_is_several_events_within_heats_limit():
    assumed = [('flavor', 'm1.small')] + [
        ('network', 'tenant-network-%02d' % i) for i in range(30)]
    types = {'OS::Nova::Server': 2, 'OS::Neutron::Port': 30}
    found = notice.reasons(types, assumed)
    assert len(found) > 2
    assert all(len(text) <= notice.REASON_LIMIT for text in found)
    assert found[0] == ('Simulated cloud: 30 OS::Neutron::Port, '
                        '2 OS::Nova::Server simulated')
    assert found[1].startswith('Simulated cloud: assumed to exist: '
                               'flavor m1.small, network tenant-network-00')
    assert all(text.startswith('Simulated cloud (continued): assumed to '
                               'exist: network ') for text in found[2:])
    # Every name, once, in the order assumed.
    listed = [item for text in found[1:]
              for item in text.split('assumed to exist: ', 1)[1].split(', ')]
    assert listed == ['%s %s' % pair for pair in assumed]
    # What fits stays one event, as before.
    assert notice.reasons({'OS::Nova::Server': 2}, assumed[:3]) == [
        notice.describe({'OS::Nova::Server': 2}, assumed[:3])]
    # A name longer than an event is cut there, not dropped silently.
    cut = notice.reasons({}, [('image', 'x' * 300)])
    assert len(cut) == 1 and len(cut[0]) == notice.REASON_LIMIT


def test_objects_of_the_simulated_swift(store):
    from swiftclient import exceptions
    account = swift.SimulatedSwift(store, 'p1')
    account.put_container('c')
    account.put_object('c', 'o', '')
    assert account.get_object('c', 'o')[1] == ''
    assert account.put_url(swift.URL % 'p1' + '/c/o?temp_url_sig=x',
                           '{"status": "SUCCESS"}')
    assert account.get_object('c', 'o')[1] == '{"status": "SUCCESS"}'
    assert [o['name'] for o in account.get_container('c')[1]] == ['o']
    assert not account.put_url('http://example.com/c/o', 'x')
    with pytest.raises(exceptions.ClientException) as caught:
        account.get_object('c', 'missing')
    assert caught.value.http_status == 404
    assert swift.SimulatedSwift(store, 'p2').head_account() == {}
