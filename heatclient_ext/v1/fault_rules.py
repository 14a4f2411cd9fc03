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
"""Fault rules of a local server's simulated cloud, from a front end.

``heat-breakpoint-server`` answers ``/simulated/faults`` beside Heat's API
(a real Heat has no such path). The DAP adapter's ``faults`` launch
argument adds rules there for its session and removes them when the
session ends. A rule that is wrong is refused whole, in one line.
"""

import typing
import urllib.parse

import requests

from heatclient_ext._i18n import _
from heatclient_ext import exceptions

PATH = '/simulated/faults'


def _url(endpoint: str) -> str:
    parts = urllib.parse.urlsplit(endpoint)
    return '%s://%s%s' % (parts.scheme, parts.netloc, PATH)


def _answer(method: str, url: str, body=None) -> dict:
    try:
        answer = requests.request(method, url, json=body, timeout=30)
    except requests.RequestException as exc:
        raise exceptions.BreakpointCommandError(
            _('cannot reach %(url)s: %(why)s') % {
                'url': url, 'why': exceptions.one_line(exc)})
    try:
        found = answer.json()
    except ValueError:
        found = {}
    if answer.status_code == 404 and not found.get('error'):
        raise exceptions.BreakpointCommandError(
            _('faults need heat-breakpoint-server: %s has no simulated '
              'cloud') % url.split(PATH)[0])
    if answer.status_code >= 400:
        raise exceptions.BreakpointCommandError(
            _('faults: %s') % (found.get('error') or
                               'HTTP %d' % answer.status_code))
    return found


def add(endpoint: str, rules: typing.List[dict]) -> typing.List[int]:
    """Add rules (all or none); the numbers the server gave them."""
    found = _answer('POST', _url(endpoint), rules)
    return [rule['number'] for rule in found.get('faults') or []]


def remove(endpoint: str, numbers: typing.Iterable[int]) -> None:
    """Remove rules, those already gone included."""
    for number in numbers:
        try:
            _answer('DELETE', '%s/%d' % (_url(endpoint), number))
        except exceptions.BreakpointCommandError:
            pass
