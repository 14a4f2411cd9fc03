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
"""The options for each kind of breakpoint, shared by both shells.

``--breakpoint R`` holds before R's action; the other kinds hold after it,
on its failure, or before an update that changes or replaces R. Both
``openstack stack create/update`` and ``heat-breakpoint stack-create/
update`` offer the same options and read them here into the model's
breakpoints.
"""

import collections

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds as model_kinds
from heatclient_ext._i18n import _
from heatclient_ext import exceptions

Kind = collections.namedtuple('Kind', ('option', 'dest', 'when', 'help'))

# Every kind but before, whose --breakpoint is the hooks' own (with its
# --no-breakpoint), as the model declares it.
KINDS = tuple(Kind(kind.option, kind.dest, kind.when,
                   _(kind.option_help or ''))
              for kind in model_kinds.KINDS if kind.flag)
_COMMON_HELP = _(' Nested resources are named nested_stack/resource; '
                 'wildcards as in --breakpoint (\'*\': every resource). '
                 'Can be specified multiple times.')


def add_options(parser, action, metavar='<resource>') -> None:
    """Add every kind's option to a parser (argparse or heatclient's)."""
    for kind in KINDS:
        parser.add_argument(
            kind.option, metavar=metavar, action='append', dest=kind.dest,
            help='%s%s' % (kind.help % {'action': action}, _COMMON_HELP))


def arguments(action, metavar='<RESOURCE>'):
    """The same options as heatclient's legacy ``(args, kwargs)`` pairs."""
    found = []
    for kind in KINDS:
        text = '%s%s' % (kind.help % {'action': action}, _COMMON_HELP)
        found.append(((kind.option,), {
            'metavar': metavar, 'action': 'append', 'dest': kind.dest,
            'help': text}))
    return found


def requested(args, action) -> list:
    """The breakpoints of the kinds other than before, from parsed args.

    Refuses a kind that cannot apply to the action (on a create, nothing
    changes or is replaced).
    """
    found = []
    for kind in KINDS:
        names = getattr(args, kind.dest, None) or []
        if not names:
            continue
        if action not in breakpoints.WHEN_ACTIONS[kind.when]:
            raise exceptions.BreakpointCommandError(
                _('%(option)s applies to stack update only: a stack '
                  '%(action)s has nothing to change or replace') %
                {'option': kind.option, 'action': action})
        found.extend(breakpoints.parse_names(names, when=kind.when))
    return found
