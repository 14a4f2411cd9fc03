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
"""The ``openstack stack breakpoint`` commands run on a fake Heat.

Each command class is run as OSC would (parser, then ``run``), with the
app's orchestration client the fake and its output captured, so that a unit
test reads what the user would read.
"""

import io
from unittest import mock

from heatclient_ext.osc import breakpoint as osc_bp

COMMANDS = {
    'list': osc_bp.ListBreakpoint, 'show': osc_bp.ShowBreakpoint,
    'step': osc_bp.StepBreakpoint, 'continue': osc_bp.ContinueBreakpoint,
    'clear': osc_bp.ClearBreakpoint, 'set': osc_bp.SetBreakpoint,
}


def run(heat, verb, *argv):
    """``openstack stack breakpoint VERB ARGV...``: (stdout, stderr)."""
    app = mock.Mock()
    app.command_manager.namespace = 'openstack.cli'
    app.client_manager.orchestration = heat
    app.stdout, app.stderr = io.StringIO(), io.StringIO()
    cmd = COMMANDS[verb](app, None, cmd_name='stack breakpoint ' + verb)
    args = cmd.get_parser('openstack stack breakpoint ' + verb).parse_args(
        list(argv))
    cmd.run(args)
    return app.stdout.getvalue(), app.stderr.getvalue()
