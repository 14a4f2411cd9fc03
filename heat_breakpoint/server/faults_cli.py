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
"""``heat-breakpoint-server faults``: the rules of a running local server.

``list``, ``add`` (one rule from options, or every rule of a YAML file)
and ``remove N``, over ``/simulated/faults``
(:mod:`heat_breakpoint.server.cloud.fault_api`). The server is the one
``OS_ENDPOINT`` names, or ``--url``. A Heat that is not a local server
has no fault rules: that is said in one line.
"""

import argparse
import json
import os
import sys
import urllib.parse

import requests
import yaml

from heat_breakpoint.server.cloud import fault_api
from heat_breakpoint.server.cloud import faults

DEFAULT_URL = 'http://127.0.0.1:8004'


def default_url() -> str:
    endpoint = os.environ.get('OS_ENDPOINT')
    if endpoint:
        parts = urllib.parse.urlsplit(endpoint)
        return '%s://%s' % (parts.scheme, parts.netloc)
    return DEFAULT_URL


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='heat-breakpoint-server faults',
        description='List, add and remove the fault rules of a running '
                    'heat-breakpoint-server.')
    parser.add_argument('--url', default=default_url(), metavar='<url>',
                        help='the local server (default: from OS_ENDPOINT, '
                             'else %s)' % DEFAULT_URL)
    sub = parser.add_subparsers(dest='command', required=True)
    sub.add_parser('list', help='the rules in force, in the order they '
                                'are matched (the first match decides)')
    add = sub.add_parser('add', help='add rules, after the others')
    add.add_argument('--file', metavar='<file>',
                     help='a YAML list of rules (as --faults takes)')
    add.add_argument('--resource', metavar='<name>',
                     help="resource name or pattern ('web*', "
                          "'group/*'); default every resource")
    add.add_argument('--type', metavar='<type>',
                     help="resource type or pattern ('OS::Nova::*')")
    add.add_argument('--action', action='append', metavar='<action>',
                     help='CREATE, UPDATE, DELETE... (repeatable; default '
                          'all)')
    add.add_argument('--effect', choices=faults.EFFECTS,
                     help='default: fail')
    add.add_argument('--failure', choices=faults.FAILURES,
                     help='status (default: the resource goes to an error '
                          'status, Heat may retry it) or refused (the '
                          'service refuses the request: a quota...)')
    add.add_argument('--message', metavar='<text>',
                     help="the failure's message (default: the real "
                          "service's for the type and action)")
    add.add_argument('--times', type=int, metavar='<n>',
                     help='only the first N attempts of each resource')
    add.add_argument('--every', type=int, metavar='<n>',
                     help='every Nth attempt of each resource')
    add.add_argument('--probability', type=float, metavar='<p>',
                     help='with this probability (see --seed)')
    add.add_argument('--seed', type=int, metavar='<n>')
    add.add_argument('--seconds', metavar='<s|low,high>',
                     help='how long a delay takes')
    add.add_argument('--status', type=int, metavar='<n>',
                     help="a failing deployment's exit status")
    add.add_argument('--stderr', metavar='<text>',
                     help="a failing deployment's stderr (${input} names "
                          "an input)")
    remove = sub.add_parser('remove', help='remove a rule by its number')
    remove.add_argument('number', metavar='<number>')
    return parser


class CommandError(Exception):
    pass


def _rule_from(args) -> dict:
    rule = {}
    for key in ('resource', 'type', 'effect', 'failure', 'message',
                'times', 'every', 'probability', 'seed', 'status', 'stderr'):
        value = getattr(args, key)
        if value is not None:
            rule[key] = value
    if args.action:
        rule['action'] = args.action
    if args.seconds is not None:
        try:
            parts = [float(p) for p in args.seconds.split(',')]
        except ValueError:
            raise CommandError('--seconds takes a number, or low,high: %r'
                               % args.seconds)
        rule['seconds'] = parts[0] if len(parts) == 1 else parts
    return rule


def _request(method, url, body=None):
    try:
        answer = requests.request(method, url, json=body, timeout=30)
    except requests.RequestException as exc:
        raise CommandError('cannot reach %s: %s' % (
            url, str(exc).splitlines()[0]))
    try:
        found = answer.json()
    except ValueError:
        found = None
    if answer.status_code == 404 and not (found or {}).get('error'):
        raise CommandError('%s has no fault rules: they exist only on '
                           'heat-breakpoint-server with its simulated cloud'
                           % url.split(fault_api.PREFIX)[0])
    if answer.status_code >= 400:
        raise CommandError((found or {}).get('error') or
                           'HTTP %d' % answer.status_code)
    return found


def _print(rules) -> None:
    if not rules:
        print('no fault rules')
        return
    for rule in rules:
        extra = ', '.join('%s=%s' % (k, json.dumps(v)) for k, v in
                          sorted(rule.items()) if k not in (
                              'number', 'resource', 'type', 'action',
                              'effect'))
        print('%3d  %-14s %-24s %-24s %-16s %s' % (
            rule['number'], rule['effect'], rule['resource'], rule['type'],
            ','.join(rule['action']) if len(rule['action']) < len(
                faults.ACTIONS) else 'any action', extra))


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    url = args.url.rstrip('/') + fault_api.PREFIX
    try:
        if args.command == 'list':
            _print(_request('GET', url)['faults'])
        elif args.command == 'add':
            if args.file:
                try:
                    with open(args.file) as f:
                        rules = yaml.safe_load(f)
                except (OSError, yaml.YAMLError) as exc:
                    raise CommandError('cannot read %s: %s' % (
                        args.file, str(exc).splitlines()[0]))
            else:
                rules = [_rule_from(args)]
            _print(_request('POST', url, rules)['faults'])
        else:
            removed = _request('DELETE', '%s/%s' % (url, args.number))
            print('removed rule %d' % removed['removed']['number'])
    except CommandError as exc:
        print('heat-breakpoint-server faults: error: %s' % exc,
              file=sys.stderr)
        return 1
    return 0
