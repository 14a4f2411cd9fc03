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
"""The arguments of an editor's request, checked before they are used.

A ``launch.json`` is written by hand: ``"template": 5`` or
``"environment": "env.yaml"`` must come back as one line naming the
argument and what it should be, not as a ``TypeError`` from deep inside
heatclient after a local Heat was started for nothing. Each request
names the arguments it reads and their kinds; nothing else is looked at.
"""

import json
import typing

from heatclient_ext._i18n import _
from heatclient_ext import exceptions

# The kinds an argument may be, as the editor's JSON gives them.
TEXT = 'text'
FLAG = 'flag'
TEXTS = 'texts'
NUMBER = 'number'
MAPPING = 'mapping'
LIST = 'list'
OBJECT = 'object'

_WORDS = {TEXT: _('a string'), FLAG: _('true or false'),
          TEXTS: _('a list of strings'), NUMBER: _('a whole number'),
          MAPPING: _('an object of names to values'),
          LIST: _('a list'), OBJECT: _('an object')}

#: What each request reads, and of which kind.
LAUNCH = {'template': TEXT, 'stack': TEXT, 'action': TEXT,
          'environment': TEXTS, 'parameters': MAPPING, 'existing': FLAG,
          'stopOnEntry': FLAG, 'cloud': TEXT, 'endpoint': TEXT,
          'localHeat': NUMBER, 'faults': LIST}
ATTACH = {'template': TEXT, 'stack': TEXT, 'environment': TEXTS,
          'cloud': TEXT, 'endpoint': TEXT, 'localHeat': NUMBER}
DISCONNECT = {'terminateDebuggee': FLAG, 'suspendDebuggee': FLAG,
              'restart': FLAG}
EXCEPTION_BREAKPOINTS = {'filters': TEXTS, 'filterOptions': LIST}
FILTER_OPTION = {'filterId': TEXT}
BREAKPOINTS = {'source': OBJECT, 'breakpoints': LIST, 'lines': LIST}
LINE = {'line': NUMBER, 'condition': TEXT}
FUNCTION_BREAKPOINTS = {'breakpoints': LIST}
FUNCTION = {'name': TEXT, 'condition': TEXT}


class RequestError(exceptions.BreakpointCommandError):
    """A request that cannot be done: its message goes back to the editor."""


class ArgumentError(RequestError):
    """An argument of the wrong kind (said to the editor in one line)."""


def _fits(value, kind: str) -> bool:
    if kind == TEXT:
        return isinstance(value, str)
    if kind == FLAG:
        return isinstance(value, bool)
    if kind == NUMBER:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == TEXTS:
        return isinstance(value, list) and all(
            isinstance(item, str) for item in value)
    if kind == MAPPING:
        return isinstance(value, dict) and all(
            isinstance(item, (str, int, float, bool))
            for item in value.values())
    if kind == LIST:
        return isinstance(value, list)
    return isinstance(value, dict)


def check(command: str, args: typing.Any, kinds: dict,
          what: typing.Optional[str] = None) -> dict:
    """``args`` when each argument named in ``kinds`` is of its kind.

    ``what`` names ``args`` in the error (the arguments, or one item of
    a list argument). A missing or ``null`` argument is left to the
    request to judge.
    """
    if not isinstance(args, dict):
        raise ArgumentError(_('%(command)s: %(what)s must be an object, '
                              'not %(value)s') % {
                                  'command': command,
                                  'what': what or _('the arguments'),
                                  'value': _shown(args)})
    for name, kind in kinds.items():
        value = args.get(name)
        if value is not None and not _fits(value, kind):
            raise ArgumentError(_('%(command)s: "%(name)s" must be '
                                  '%(kind)s, not %(value)s') % {
                                      'command': command, 'name': name,
                                      'kind': _WORDS[kind],
                                      'value': _shown(value)})
    return args


def _shown(value) -> str:
    """A value as JSON would write it, cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    text = exceptions.one_line(text)
    return text if len(text) <= 60 else text[:57] + '...'
