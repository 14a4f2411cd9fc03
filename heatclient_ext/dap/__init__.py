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
"""``heat-breakpoint dap``: the editor's front end, over the DAP.

An editor (VS Code, Neovim's nvim-dap, Emacs' dape) talks the Debug
Adapter Protocol to this package; the package talks to Heat only through
:class:`heatclient_ext.v1.manager.BreakpointManager` and the watch's
one-request refresh (:func:`heatclient_ext.v1.live.fetch`), like
every other front end. Modules: :mod:`.framing` (the wire), :mod:`.arguments`
(the requests' arguments, checked), :mod:`.lines`
(template lines to resource paths), :mod:`.heat` (where Heat is, and the
operation launched), :mod:`.variables` (what the Variables pane shows),
:mod:`.session` (the requests), :mod:`.main` (the command).
"""
