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
"""What a simulated server's agents do: boot scripts and deployments.

A real server runs its ``user_data`` at boot, and the signals in it (the
``curl_cli`` of a Heat wait condition handle, the ``cfn-signal`` of a
CloudFormation one) reach Heat; its config agent polls its metadata and
signals each software deployment with the outputs of the config it ran.
A simulated server does the same over the local server's own APIs: it
sends each signal its boot script would send (a line's own JSON body, or
a success), except those on error paths (a non-zero ``cfn-signal -e``, a
``FAILURE`` body, a comment); and it answers each deployment to it with
status 0 and outputs that say they are simulated.
"""

import json
import re
import shlex
import threading
import time

from oslo_log import log as logging

from heat_breakpoint.server.cloud import faults
from heat_breakpoint.server.cloud import paths
from heat_breakpoint.server.cloud import zaqar

LOG = logging.getLogger(__name__)

BOOT_SECONDS = 0.05
DEPLOY_SECONDS = 0.05
# At most this long for Heat to take one signal in before the next.
SIGNAL_TAKEN_SECONDS = 10.0
_URL = re.compile(r'''https?://[^\s'"\\]+''')
_TOKEN = re.compile(r'''X-Auth-Token:\s*([^\s'"]+)''')


def _logical_lines(script: str):
    """The script's commands: continuations joined, comments dropped."""
    joined = re.sub(r'\\\r?\n', ' ', script or '')
    for line in joined.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(('#', 'REM ', 'rem ')):
            yield stripped


def _json_body(line: str):
    try:
        words = shlex.split(line, posix=True)
    except ValueError:
        words = line.split()
    for flag, value in zip(words, words[1:]):
        if flag in ('--data-binary', '--data', '-d', '--data-raw'):
            try:
                body = json.loads(value)
            except ValueError:
                return None
            return body if isinstance(body, dict) else None
    return None


def _exit_code(line: str):
    match = re.search(r'(?:-e|--exit-code)\s+(\S+)', line)
    return match.group(1).strip('"\'') if match else None


def boot_signals(script: str, base_url: str, failing: bool = False) -> list:
    """(method, url, body, token) of each signal a healthy boot sends.

    With ``failing``, those the same script sends when what it runs
    fails: each success becomes a FAILURE.
    """
    from heat_breakpoint.server.cloud import swift

    signals = []
    for line in _logical_lines(script):
        for url in _URL.findall(line):
            if url.startswith(swift.URL % ''):
                body = _json_body(line) or {'status': 'SUCCESS'}
                if str(body.get('status', '')).upper() != 'FAILURE':
                    body.setdefault('reason', 'Signal from a simulated '
                                    'server')
                    if failing:
                        body['status'] = 'FAILURE'
                    signals.append(('PUT', url, body, None))
                continue
            if not url.startswith(base_url):
                continue
            method = 'POST'
            if '/waitcondition/' in url or '/cfn/v1/signal/' in url:
                # cfn-signal PUTs to a wait condition, POSTs a signal.
                method = 'PUT' if '/waitcondition/' in url else 'POST'
                code = _exit_code(line)
                if code not in (None, '0') and not code.startswith('$'):
                    continue
                body = {'Status': 'FAILURE' if failing else 'SUCCESS',
                        'UniqueId': str(len(signals) + 1),
                        'Data': 'simulated',
                        'Reason': 'Signal from a simulated server'}
            elif url.rstrip('/').endswith('/signal'):
                body = _json_body(line) or {'status': 'SUCCESS'}
                if str(body.get('status', '')).upper() == 'FAILURE':
                    continue
                body.setdefault('reason', 'Signal from a simulated server')
                if failing:
                    body.update(status='FAILURE',
                                reason='The simulated server failed')
            else:
                continue
            token = _TOKEN.search(line)
            signals.append((method, url, body,
                            token.group(1) if token else None))
    return signals


def _events_url(url: str):
    """The events of the resource a native Heat signal URL names."""
    path = url.split('?', 1)[0].rstrip('/')
    if '/cfn/' in path or '/resources/' not in path or \
            not path.endswith('/signal'):
        return None
    return path[:-len('/signal')] + '/events'


def _signals_seen(events_url: str, headers: dict):
    """How many signals the resource's events show, or None."""
    import requests
    try:
        answer = requests.get(events_url, headers=headers, timeout=10)
        found = answer.json().get('events') or []
    except Exception:
        return None
    # The API joins an event's action to its status: SIGNAL_COMPLETE.
    return sum(1 for e in found if str(e.get('resource_status') or '')
               .startswith('SIGNAL_'))


def _wait_taken(events_url: str, headers: dict, seen: int) -> None:
    """Wait until Heat has taken a signal in, as a script's next line does.

    Heat's API hands a signal to a thread of the engine and answers at
    once; a script's commands each take a while, a simulated agent's
    none: its next signal could be handled first. A wait condition
    handle numbers a signal without an ID by those it has, so that the
    order changes the IDs, and two signals may take one ID.
    """
    deadline = time.monotonic() + SIGNAL_TAKEN_SECONDS
    while time.monotonic() < deadline:
        now = _signals_seen(events_url, headers)
        if now is None or now > seen:
            return
        time.sleep(0.05)


class Agents(object):
    """The agents of every simulated server of one cloud."""

    def __init__(self, cloud):
        self.cloud = cloud
        self.base_url = None

    def _later(self, seconds: float, func, *args) -> None:
        def run():
            time.sleep(seconds)
            try:
                func(*args)
            except Exception:
                LOG.exception('simulated agent: %s failed', func.__name__)
        threading.Thread(target=run, daemon=True,
                         name='simulated-agent').start()

    def _server_rule(self, where: tuple, type_name: str):
        root, path = where
        return self.cloud.faults.decide(path, type_name, 'CREATE', effects=(
            faults.AGENTS_FAIL, faults.AGENTS_SILENT), scope=root)

    # Boot ------------------------------------------------------------------
    def boot(self, server_name: str, script: str, where: tuple = None,
             type_name: str = '') -> None:
        """Run a server's boot script as far as its signals go.

        ``where`` is the server's (root stack ID, path), for fault rules.
        """
        if not self.base_url or not script:
            return
        rule = self._server_rule(where, type_name) if where else None
        if rule is not None and rule.effect == faults.AGENTS_SILENT:
            LOG.info('simulated server %s: its agents are silent (%s)',
                     server_name, rule.rule.label)
            return
        signals = boot_signals(script, self.base_url,
                               failing=rule is not None)
        if signals:
            self._later(BOOT_SECONDS, self._send, server_name, signals)

    def _send(self, server_name, signals) -> None:
        import requests

        from heat_breakpoint.server.cloud import swift
        for method, url, body, token in signals:
            if swift.SimulatedSwift(self.cloud.store, '').put_url(
                    url, json.dumps(body)):
                LOG.info('simulated server %s signalled %s', server_name,
                         url.split('?', 1)[0])
                continue
            headers = {'Content-Type': 'application/json',
                       'Accept': 'application/json'}
            if token:
                headers['X-Auth-Token'] = token
            events = _events_url(url)
            seen = _signals_seen(events, headers) if events else None
            answer = requests.request(method, url, data=json.dumps(body),
                                      headers=headers, timeout=60)
            LOG.info('simulated server %s signalled %s: %s', server_name,
                     url, answer.status_code)
            if seen is not None and answer.ok:
                _wait_taken(events, headers, seen)

    # Deployments -------------------------------------------------------------
    def deployments_changed(self, cnxt, server_id: str) -> None:
        """The server's metadata changed: its config agent will notice."""
        server = self.cloud.store.get(server_id)
        if server is None or server.kind != 'server':
            return
        self._later(DEPLOY_SECONDS, self._deploy, cnxt.project_id,
                    server_id)

    def _deploy(self, project_id, server_id) -> None:
        from heat.common import context
        from heat.objects import software_deployment as sd_object
        from heat.rpc import api as rpc_api

        admin = context.RequestContext(project_id=project_id,
                                       is_admin=True, roles=['admin'],
                                       user_id='simulated-agent')
        for sd in sd_object.SoftwareDeployment.get_all(admin, server_id):
            if sd.status != rpc_api.SOFTWARE_DEPLOYMENT_IN_PROGRESS:
                continue
            self._signal_deployment(admin, sd)

    def _signal_deployment(self, cnxt, sd) -> None:
        from heat.db import api as db_api

        config = sd.config.config if sd.config else {}
        details = deployment_outputs(config, sd)
        rsrc = db_api.resource_get_by_physical_resource_id(cnxt, sd.id)
        if rsrc is None:
            return
        decision = self._deployment_rule(cnxt, sd, rsrc)
        seconds = 0.0
        if decision is not None:
            label = decision.rule.label
            if decision.effect in (faults.HANG, faults.AGENTS_SILENT):
                LOG.info('simulated agent on server %s: deployment %s never '
                         'answers (%s)', sd.server_id, sd.id, label)
                return
            if decision.effect == faults.DELAY:
                seconds = decision.rule.delay_for(rsrc.name,
                                                  decision.attempt)
            else:
                details = failed_outputs(config, sd, decision.rule)
        if seconds:
            self._later(seconds, self._answer, cnxt, sd, rsrc, details)
        else:
            self._answer(cnxt, sd, rsrc, details)

    def _deployment_rule(self, cnxt, sd, rsrc):
        """The deployment's own rule, else its server's agents rule."""
        from heat.db import api as db_api

        if not self.cloud.faults.rules:
            return None
        root, path = paths.resource_path(cnxt, rsrc.stack_id, rsrc.name)
        decision = self.cloud.faults.decide(
            path, _template_type(cnxt, rsrc), sd.action,
            effects=(faults.FAIL, faults.DELAY, faults.HANG), scope=root)
        if decision is not None:
            return decision
        server = db_api.resource_get_by_physical_resource_id(cnxt,
                                                             sd.server_id)
        if server is None:
            return None
        return self._server_rule(
            paths.resource_path(cnxt, server.stack_id, server.name),
            _template_type(cnxt, server))

    def _answer(self, cnxt, sd, rsrc, details) -> None:
        from heat.db import api as db_api
        from heat.rpc import client as rpc_client

        queue_id = zaqar_queue(sd)
        if queue_id:
            # As the agent's heat-config-notify does: Heat pops it when
            # it next polls the deployment.
            zaqar.SimulatedQueue(self.cloud.store, sd.stack_user_project_id,
                                 queue_id).post({'body': details,
                                                 'ttl': 3600})
            LOG.info('simulated agent on server %s: deployment %s posted '
                     'to its queue (status %s)', sd.server_id, sd.id,
                     details['deploy_status_code'])
            return
        stack = db_api.stack_get(cnxt, rsrc.stack_id, show_deleted=True)
        identity = {'tenant': stack.tenant, 'stack_name': stack.name,
                    'stack_id': stack.id, 'path': ''}
        rpc_client.EngineClient().resource_signal(
            cnxt, identity, rsrc.name, details, sync_call=True)
        LOG.info('simulated agent on server %s: deployment %s done (status '
                 '%s)', sd.server_id, sd.id, details['deploy_status_code'])


def _config_field(config: dict, sd, field: str):
    """A field of the config: Heat keeps its group beside its body."""
    found = config.get(field)
    if not found and sd.config is not None:
        found = getattr(sd.config, field, None)
    return found


def zaqar_queue(sd):
    """The queue a ``ZAQAR_SIGNAL`` deployment is signalled on, or None."""
    config = sd.config.config if sd.config else {}
    inputs = dict((i.get('name'), i.get('value'))
                  for i in config.get('inputs') or [] if i.get('name'))
    if inputs.get('deploy_signal_transport') != 'ZAQAR_SIGNAL':
        return None
    return inputs.get('deploy_queue_id')


def deployment_outputs(config: dict, sd) -> dict:
    """What the agent reports: status 0 and simulated outputs."""
    name = config.get('name') or sd.config_id
    details = {
        'deploy_stdout': 'simulated: %s config %s ran on server %s' % (
            _config_field(config, sd, 'group') or 'Heat::Ungrouped', name,
            sd.server_id),
        'deploy_stderr': '',
        'deploy_status_code': 0,
    }
    for output in config.get('outputs') or []:
        if output.get('error_output'):
            continue
        details[output['name']] = 'simulated: output %s of %s' % (
            output['name'], name)
    return details


def failed_outputs(config: dict, sd, rule) -> dict:
    """What the agent reports when the rule makes the config fail."""
    name = config.get('name') or sd.config_id
    inputs = dict((i.get('name'), i.get('value'))
                  for i in config.get('inputs') or [] if i.get('name'))
    inputs.update(sd.input_values or {})
    stderr = faults.render_stderr(rule.stderr, inputs) if rule.stderr \
        else '%s: %s exited with status %d' % (
            _config_field(config, sd, 'group') or 'script', name,
            rule.status)
    return {'deploy_stdout': '',
            'deploy_stderr': '%s (simulated fault: %s)' % (stderr,
                                                           rule.label),
            'deploy_status_code': rule.status}


def _template_type(cnxt, rsrc) -> str:
    """The resource's type, as its stack's template names it."""
    from heat.db import api as db_api
    stack = db_api.stack_get(cnxt, rsrc.stack_id, show_deleted=True)
    template = db_api.raw_template_get(cnxt, stack.raw_template_id)
    definitions = template.template.get('resources') or \
        template.template.get('Resources') or {}
    found = definitions.get(rsrc.name) or {}
    return found.get('type') or found.get('Type') or ''


def install(cloud) -> None:
    """Give the cloud its agents; hear Heat push a server's deployments."""
    from heat.engine import service_software_config

    cloud.agents = Agents(cloud)
    cls = service_software_config.SoftwareConfigService
    push = cls._push_metadata_software_deployments
    if getattr(push, 'simulated', False):
        return

    def _push_metadata_software_deployments(self, cnxt, server_id,
                                            stack_user_project_id):
        result = push(self, cnxt, server_id, stack_user_project_id)
        cloud.agents.deployments_changed(cnxt, server_id)
        return result

    _push_metadata_software_deployments.simulated = True
    cls._push_metadata_software_deployments = \
        _push_metadata_software_deployments
