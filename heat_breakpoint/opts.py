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
"""Configuration options of the plugin, in the ``[breakpoint]`` group.

They live in Heat's own configuration file (``heat.conf``); the sample is
generated with ``oslo-config-generator --config-file
etc/oslo-config-generator/heat_breakpoint.conf``.
"""

from oslo_config import cfg

from heat_breakpoint._i18n import _

GROUP = 'breakpoint'

breakpoint_group = cfg.OptGroup(
    GROUP, title=_('Stack breakpoints'),
    help=_('Options of the heat-breakpoint engine plugin and API filter.'))

breakpoint_opts = [
    cfg.BoolOpt('enabled', default=True,
                help=_('Hold resources at stack breakpoints. When false, '
                       'breakpoints behave exactly like native Heat hooks.')),
    cfg.BoolOpt('pause_counts_against_timeout', default=False,
                help=_('Whether time spent held at a breakpoint counts '
                       'against the stack timeout.')),
    cfg.IntOpt('purge_interval', default=300, min=1,
               help=_('Seconds between two sweeps, in each heat-engine, for '
                      'breakpoint state the end of its operation did not '
                      'remove (an engine killed at that moment).')),
]


def register_opts(conf=cfg.CONF):
    conf.register_group(breakpoint_group)
    conf.register_opts(breakpoint_opts, group=breakpoint_group)


def list_opts():
    """Entry point of ``oslo.config.opts`` for the sample generator."""
    return [(breakpoint_group, breakpoint_opts)]
