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
"""``heat-breakpoint dap`` driven by a DAP client nobody here wrote.

Each ``tests/functional/dap/*.test.js`` file runs under mocha with the
``DebugClient`` of ``@vscode/debugadapter-testsupport`` (pinned in
``tests/functional/dap/package.json``, installed by ``npm ci`` there),
against the real local Heat of the ``heat_server`` fixture; the one that
launches without an endpoint starts its own. node and the installed
packages are required: a missing one fails with what to run.
"""

import glob
import os
import shutil
import socket
import subprocess
import sys

import pytest
import yaml

from heatclient_ext.dap import framing
from tests.functional import conftest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dap')
MOCHA = os.path.join(HERE, 'node_modules', '.bin', 'mocha')
TESTSUPPORT = os.path.join(HERE, 'node_modules', '@vscode',
                           'debugadapter-testsupport')
FILES = sorted(os.path.basename(path)
               for path in glob.glob(os.path.join(HERE, '*.test.js')))
RUN_TIMEOUT = 600
CORPUS_TEMPLATE = 'hot/servers_in_new_neutron_net.yaml'


def adapter_command():
    """The ``heat-breakpoint`` script of the Python running the tests."""
    found = os.path.join(os.path.dirname(sys.executable), 'heat-breakpoint')
    return found if os.path.exists(found) else shutil.which(
        'heat-breakpoint')


def _require_node():
    node = shutil.which('node')
    if node is None:
        pytest.fail('node is not installed: the DAP tests need node 20 and '
                    'npm, then (cd tests/functional/dap && npm ci)')
    if not (os.path.exists(MOCHA) and os.path.isdir(TESTSUPPORT)):
        pytest.fail('the DAP test client is not installed: run '
                    '(cd tests/functional/dap && npm ci)')
    return node


def test_every_dap_test_file_is_collected():
    assert set(FILES) >= {
        'attach.test.js', 'breakpoints.test.js', 'failures.test.js',
        'groups.test.js', 'server.test.js', 'stop.test.js',
        'local.test.js', 'stepping.test.js', 'update.test.js'}


def _corpus_template(folder):
    """A public template with servers and the env of its parameters."""
    from tests.corpus import corpus
    root = corpus.default_root()
    if root is None:
        return {}
    template = corpus.Template(root, CORPUS_TEMPLATE, None)
    env = os.path.join(folder, 'corpus-parameters.yaml')
    with open(env, 'w') as out:
        yaml.safe_dump({'parameters': corpus.parameters(template)}, out)
    return {'HEAT_CORPUS_TEMPLATE': template.abspath,
            'HEAT_CORPUS_ENVIRONMENT': env}


@pytest.mark.parametrize('test_file', FILES)
def test_dap_client(heat_server, test_file, tmp_path):
    node = _require_node()
    env = dict(os.environ, HEAT_ENDPOINT=heat_server.endpoint,
               HEAT_BREAKPOINT=adapter_command(), OS_AUTH_TYPE='none',
               OS_ENDPOINT=heat_server.endpoint,
               **_corpus_template(str(tmp_path)))
    proc = subprocess.run(
        [node, MOCHA, '--timeout', '180000', '--exit', test_file],
        cwd=HERE, env=env, capture_output=True, text=True,
        timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, '%s\n%s' % (proc.stdout[-10000:],
                                             proc.stderr[-3000:])
    assert ' passing' in proc.stdout and ' failing' not in proc.stdout


def _session_over_tcp(port, endpoint, stack):
    """initialize, attach, threads, disconnect on one connection."""
    with socket.create_connection(('127.0.0.1', port), timeout=30) as conn:
        reader, writer = conn.makefile('rb'), conn.makefile('wb')
        for seq, command, args in (
                (1, 'initialize', {'adapterID': 'heat'}),
                (2, 'attach', {'stack': stack, 'endpoint': endpoint}),
                (3, 'configurationDone', {})):
            writer.write(framing.encode({'seq': seq, 'type': 'request',
                                         'command': command,
                                         'arguments': args}))
        writer.flush()
        answers = {}
        while 2 not in answers:
            message = framing.read_message(reader)
            assert message is not None, answers
            if message['type'] == 'response':
                answers[message['request_seq']] = message
        writer.write(framing.encode({'seq': 4, 'type': 'request',
                                     'command': 'disconnect',
                                     'arguments': {}}))
        writer.flush()
        return answers


def test_port_serves_one_session_after_another(heat_server, heat,
                                               stack_name):
    heat.stacks.create(stack_name=stack_name, template={
        'heat_template_version': '2018-08-31',
        'resources': {'a': {'type': 'OS::Heat::None'}}})
    port = conftest.free_port()
    proc = subprocess.Popen([adapter_command(), 'dap', '--port', str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr.readline().strip() == (
            'heat-breakpoint dap listening on 127.0.0.1:%d' % port)
        for _attempt in range(2):
            answers = _session_over_tcp(port, heat_server.endpoint,
                                        stack_name)
            assert answers[1]['body']['supportsConfigurationDoneRequest']
            assert answers[2]['success'], answers[2]
        missing = _session_over_tcp(port, heat_server.endpoint, 'no-such')
        assert missing[2]['success'] is False
        assert missing[2]['message'] == 'Stack not found: no-such'
    finally:
        proc.terminate()
        proc.wait(30)
