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
"""heat-breakpoint-server with a Keystone: what it configures and says.

The Keystone tier runs it against a real Keystone
(``tests/distributed/test_9_keystone_server.py``); this checks the
configuration it writes and the lines it prints, without one.
"""

import pytest

from heat_breakpoint.server import cli
from heat_breakpoint.server import config
from tests import policy_roles

ENV = {'OS_USERNAME': 'heat', 'OS_PASSWORD': 'secret'}


read = policy_roles.read_paste


def test_heat_conf_with_keystone(tmp_path):
    auth = cli.keystone_auth('http://keystone.example:5000', ENV)
    paste = config.write_paste_file(str(tmp_path))
    conf = read(config.write_heat_conf(str(tmp_path), paste, 8004, auth))
    assert conf['paste_deploy']['flavor'] == config.KEYSTONE_FLAVOR
    assert conf['DEFAULT']['deferred_auth_method'] == 'trusts'
    assert conf['DEFAULT']['reauthentication_auth_method'] == 'trusts'
    assert not conf.has_section('noauth')  # no simulated token
    for section in ('keystone_authtoken', 'trustee'):
        assert conf[section]['auth_url'] == 'http://keystone.example:5000'
        assert conf[section]['username'] == 'heat'
        assert conf[section]['password'] == 'secret'
    assert conf['keystone_authtoken']['project_name'] == 'service'
    assert conf.get('oslo_policy', 'enforce_new_defaults') == 'true'
    assert conf.get('oslo_policy', 'enforce_scope') == 'true'
    pipeline = read(paste).get('composite:api', config.KEYSTONE_FLAVOR)
    assert 'authtoken' in pipeline.split()
    assert pipeline.split()[-2:] == [config.FILTER, 'apiv1app']


def test_without_keystone_noauth_as_before(tmp_path):
    paste = config.write_paste_file(str(tmp_path))
    conf = read(config.write_heat_conf(str(tmp_path), paste, 8004))
    assert conf['paste_deploy']['flavor'] == config.FLAVOR
    assert conf['DEFAULT']['deferred_auth_method'] == 'password'
    assert conf.has_section('noauth')
    assert not conf.has_section('keystone_authtoken')


def test_the_account_comes_from_the_environment():
    auth = cli.keystone_auth('http://k/v3', dict(
        ENV, OS_PROJECT_NAME='services', OS_USER_DOMAIN_NAME='heat'))
    assert (auth.username, auth.project, auth.user_domain,
            auth.project_domain) == ('heat', 'services', 'heat', 'Default')
    with pytest.raises(config.SetupError,
                       match='OS_USERNAME and OS_PASSWORD$'):
        cli.keystone_auth('http://k/v3', {})


def test_the_banner_says_which_auth():
    auth = cli.keystone_auth('http://k:5000', ENV)
    assert cli.client_settings(8004, auth) == {
        'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': 'http://k:5000'}
    said = cli.auth_line(8004, auth)
    assert said.startswith('Auth: Keystone at http://k:5000: ')
    assert 'http://127.0.0.1:8004/v1/%(project_id)s' in said
    assert cli.auth_line(8004).startswith('Auth: none (noauth)')
    assert cli.client_settings(8004)['OS_AUTH_TYPE'] == 'none'


def test_keystone_is_an_option():
    args = cli.build_parser().parse_args(['--keystone', 'http://k:5000'])
    assert args.keystone == 'http://k:5000'
    assert cli.build_parser().parse_args([]).keystone is None


def _conf(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize('flavor', [config.KEYSTONE_FLAVOR, 'default', ''])
def test_a_keystone_pipeline_without_keystone_is_refused(tmp_path, flavor):
    conf = _conf(tmp_path, 'heat.conf',
                 '[paste_deploy]\nflavor = %s\n' % flavor)
    with pytest.raises(config.SetupError) as caught:
        cli.refuse_keystone_pipeline([conf])
    assert str(caught.value) == (
        '--config-file selects a Keystone pipeline (paste_deploy flavor '
        '%s) but no Keystone was given: run with --keystone <url> '
        "(Heat's account there in OS_USERNAME, OS_PASSWORD), or leave the "
        'flavor to the server' % (flavor or 'default'))


@pytest.mark.parametrize('text', [
    '', '[DEFAULT]\ndebug = true\n',
    '[paste_deploy]\nflavor = %s\n' % config.FLAVOR,
    '[paste_deploy]\nflavor = noauth\n',
    # The last file wins, as in oslo.config.
    '[paste_deploy]\nflavor = default\n[x]\n'])
def test_noauth_pipelines_are_left_alone(tmp_path, text):
    confs = [_conf(tmp_path, 'a.conf', text)]
    if '[x]' in text:
        confs.append(_conf(tmp_path, 'b.conf',
                           '[paste_deploy]\nflavor = noauth\n'))
    cli.refuse_keystone_pipeline(confs)


def test_a_paste_file_of_one_s_own_is_read(tmp_path):
    paste = _conf(tmp_path, 'api-paste.ini',
                  '[composite:api]\nmine = authtoken context apiv1app\n'
                  'open = noauth context apiv1app\n')
    refused = _conf(tmp_path, 'a.conf', '[paste_deploy]\nflavor = mine\n'
                    'api_paste_config = %s\n' % paste)
    with pytest.raises(config.SetupError):
        cli.refuse_keystone_pipeline([refused])
    cli.refuse_keystone_pipeline([_conf(
        tmp_path, 'b.conf', '[paste_deploy]\nflavor = open\n'
        'api_paste_config = %s\n' % paste)])
