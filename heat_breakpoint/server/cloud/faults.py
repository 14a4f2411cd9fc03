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
"""Faults on purpose: rules that make simulated resources fail or wait.

A rule matches a resource by name (nested paths and wildcards, as
breakpoints take them), by type (fnmatch), and by action, and has an
effect:

``fail``
    the action fails, with the message the real service gives for that
    type and action (or ``message``): by default the resource goes to
    an error status (Heat itself retries a create that fails so,
    ``action_retry_limit`` times, before the failure is final); with
    ``failure: refused`` the service refuses the request (a quota, a
    conflict), which Heat does not retry;
``delay``
    the action takes ``seconds`` (a number, or ``[low, high]`` drawn
    with the rule's ``seed``);
``hang``
    the action never finishes (try the stack timeout, or a cancel);
``agents-fail``
    on a server: its software deployments exit ``status`` (default 1)
    with ``stderr``, and its boot script signals FAILURE;
``agents-silent``
    on a server: nothing it runs ever signals.

How often: ``times: N`` (the first N attempts of each matching
resource), ``every: N`` (every Nth attempt of each), ``probability: P``
with ``seed: S`` (drawn from the seed and the resource's path, so a run
with the same seed fails the same resources), or always; attempts are
counted for each resource of each stack. Rules are
looked at in order and **the first that matches an action decides**; a
rule whose count says "not this time" lets the action succeed (it does
not fall through to later rules).
A rule on an ``OS::Heat::SoftwareDeployment`` (or its structured
kinds and groups' members) with ``fail`` makes its server's agent
report the failure for that deployment. Everything here is checked
before anything is applied, and a bad rule is one line that names it.
"""

import dataclasses
import fnmatch
import hashlib
import random
import string
import threading
import typing

from heat_breakpoint.model import breakpoints
from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import registry
from heat_breakpoint.server.cloud import user_files
from heat_breakpoint.server import config

EFFECTS = (FAIL, DELAY, HANG, AGENTS_FAIL, AGENTS_SILENT) = (
    'fail', 'delay', 'hang', 'agents-fail', 'agents-silent')
ACTIONS = models.ACTIONS
KEYS = ('resource', 'type', 'action', 'effect', 'failure', 'message',
        'times', 'every', 'probability', 'seed', 'seconds', 'status',
        'stderr')
FAILURES = (STATUS, REFUSED) = ('status', 'refused')
DEPLOYMENTS = ('OS::Heat::SoftwareDeployment',
               'OS::Heat::StructuredDeployment')
# Heat's own types run as shipped and call no cloud service, so no rule
# ever acts on them (but on the deployments, which the simulated agents
# answer).
HEAT_OWN = ('OS::Heat::', 'AWS::CloudFormation::')
APPLIES_TO = ("the simulated cloud's types (OS::Nova::*, OS::Neutron::*, "
              "OS::Cinder::*...) and %s" % ' and '.join(DEPLOYMENTS))

# What a service says when a type's class gives no words of its own.
DEFAULT_MESSAGE = ('The service of %(type)s failed to %(action)s it: '
                   'Internal Server Error (HTTP 500)')
DEFAULT_REFUSAL = ('BadRequest', 'The request to %(action)s %(type)s was '
                   'refused (HTTP 400)')


class FaultError(config.SetupError):
    """A rule that cannot be used; the message says why in one line."""


@dataclasses.dataclass(frozen=True)
class Rule:
    """One fault rule, checked."""

    number: int
    resource: breakpoints.Breakpoint
    type: str
    actions: tuple
    effect: str
    message: typing.Optional[str] = None
    times: typing.Optional[int] = None
    every: typing.Optional[int] = None
    probability: typing.Optional[float] = None
    seed: int = 0
    seconds: tuple = (0.0, 0.0)
    status: int = 1
    stderr: typing.Optional[str] = None
    failure: str = STATUS

    @property
    def label(self) -> str:
        return 'rule %d (%s %s%s%s)' % (
            self.number, self.effect, self.resource.name,
            '' if self.type == '*' else ' of %s' % self.type,
            '' if len(self.actions) == len(ACTIONS) else
            ' on %s' % ','.join(self.actions))

    def to_dict(self) -> dict:
        found = {'number': self.number, 'resource': self.resource.name,
                 'type': self.type, 'action': list(self.actions),
                 'effect': self.effect}
        if self.failure != STATUS:
            found['failure'] = self.failure
        for key in ('message', 'times', 'every', 'probability', 'stderr'):
            if getattr(self, key) is not None:
                found[key] = getattr(self, key)
        if self.probability is not None or self.seconds[0] != \
                self.seconds[1]:
            found['seed'] = self.seed
        if self.effect == DELAY:
            found['seconds'] = list(self.seconds)
        if self.effect == AGENTS_FAIL or self.type in DEPLOYMENTS:
            found['status'] = self.status
        return found

    def matches(self, path: str, type_name: str, action: str) -> bool:
        return (action in self.actions and
                fnmatch.fnmatchcase(type_name, self.type) and
                self.resource.matches(path))

    def draw(self, path: str, attempt: int) -> float:
        """A number in [0, 1) from the seed, the path and the attempt."""
        digest = hashlib.sha256(('%s|%d|%s|%d' % (
            self.seed, self.number, path, attempt)).encode()).hexdigest()
        return int(digest[:13], 16) / float(16 ** 13)

    def fires(self, path: str, attempt: int) -> bool:
        """Does the rule act on this (1-based) attempt of this resource?"""
        if self.times is not None:
            return attempt <= self.times
        if self.every is not None:
            return attempt % self.every == 0
        if self.probability is not None:
            return self.draw(path, attempt) < self.probability
        return True

    def delay_for(self, path: str, attempt: int) -> float:
        low, high = self.seconds
        if low == high:
            return low
        return low + (high - low) * random.Random(
            '%s|%s|%d' % (self.seed, path, attempt)).random()

    def failure_message(self, type_name: str, action: str) -> str:
        if self.failure == REFUSED:
            text = self.refusal(type_name, action)[1]
        else:
            text = self.message or registry.REGISTRY.failure(
                type_name, action) or DEFAULT_MESSAGE % {
                    'type': type_name, 'action': action.lower()}
        return '%s (simulated fault: %s)' % (text, self.label)

    def refusal(self, type_name: str, action: str) -> tuple:
        """The error class's name and its message, for a refusal."""
        kind, text = registry.REGISTRY.refusal(type_name, action) or \
            DEFAULT_REFUSAL
        return kind, self.message or text % {'type': type_name,
                                             'action': action.lower()}


def _number(rule, key, kind, low=None, high=None):
    value = rule.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            kind is int and not isinstance(value, int)):
        raise FaultError('fault %s: %s must be %s, got %r' % (
            _where(rule), key, 'a whole number' if kind is int else
            'a number', value))
    if (low is not None and value < low) or (high is not None and
                                             value > high):
        raise FaultError('fault %s: %s must be between %s and %s, got %r'
                         % (_where(rule), key, low, high if high is not None
                            else 'any', value))
    return kind(value)


def _where(rule) -> str:
    return repr(rule.get('resource', '*')) if isinstance(rule, dict) else \
        repr(rule)


def _heat_own(type_name: str) -> bool:
    """Does the type pattern match Heat's own types only (no deployment)?

    A pattern that may match another namespace (``*``, ``OS::*``) is not
    refused: it acts on the types of it that the cloud runs.
    """
    literal = type_name
    for special in '*?[':
        literal = literal.split(special, 1)[0]
    return (any(literal.startswith(own) for own in HEAT_OWN) and
            not any(fnmatch.fnmatchcase(deployment, type_name)
                    for deployment in DEPLOYMENTS))


def parse_rule(rule, number: int) -> Rule:
    """One rule from its YAML/JSON mapping; FaultError if it is wrong."""
    if not isinstance(rule, dict):
        raise FaultError('fault %d must be a mapping (resource, type, '
                         'action, effect...), got %r' % (number, rule))
    unknown = sorted(set(rule) - set(KEYS))
    if unknown:
        raise FaultError('fault %s: unknown keys %s (known: %s)' % (
            _where(rule), ', '.join(map(str, unknown)), ', '.join(KEYS)))
    effect = rule.get('effect', FAIL)
    if effect not in EFFECTS:
        raise FaultError('fault %s: unknown effect %r (one of %s)' % (
            _where(rule), effect, ', '.join(EFFECTS)))
    name = rule.get('resource', '*')
    try:
        resource = breakpoints.parse_pattern(name)
    except breakpoints.BreakpointError as exc:
        raise FaultError('fault %s: %s' % (_where(rule), exc))
    type_name = rule.get('type', '*')
    if not isinstance(type_name, str) or not type_name:
        raise FaultError('fault %s: type must be a type name or pattern, '
                         'got %r' % (_where(rule), type_name))
    if _heat_own(type_name):
        raise FaultError('fault %s: type %s is one of Heat\'s own types, '
                         'which call no cloud service: fault rules act on '
                         '%s' % (_where(rule), type_name, APPLIES_TO))
    actions = rule.get('action', list(ACTIONS))
    actions = [actions] if isinstance(actions, str) else actions
    if not isinstance(actions, list) or not actions or not all(
            isinstance(a, str) for a in actions):
        raise FaultError('fault %s: action must be one of %s, or a list of '
                         'them' % (_where(rule), ', '.join(ACTIONS)))
    wrong = [a for a in actions if a.upper() not in ACTIONS]
    if wrong:
        raise FaultError('fault %s: unknown action %s (one of %s)' % (
            _where(rule), ', '.join(map(repr, wrong)), ', '.join(ACTIONS)))
    how_often = [k for k in ('times', 'every', 'probability') if k in rule]
    if len(how_often) > 1:
        raise FaultError('fault %s: give one of times, every and '
                         'probability, not %s' % (_where(rule),
                                                  ' and '.join(how_often)))
    seconds = rule.get('seconds', 0)
    if isinstance(seconds, list) and len(seconds) == 2:
        low, high = (_number({'resource': name, 'seconds': s}, 'seconds',
                             float, 0) for s in seconds)
        if low > high:
            raise FaultError('fault %s: seconds [low, high] has low > high'
                             % _where(rule))
    else:
        low = high = _number(rule, 'seconds', float, 0) or 0.0
    if effect == DELAY and high <= 0:
        raise FaultError('fault %s: a delay needs seconds (a number, or '
                         '[low, high])' % _where(rule))
    failure = rule.get('failure', STATUS)
    if failure not in FAILURES:
        raise FaultError('fault %s: unknown failure %r (status: the '
                         'resource goes to an error status; refused: the '
                         'service refuses the request)' % (_where(rule),
                                                           failure))
    for key in ('message', 'stderr'):
        if key in rule and not isinstance(rule[key], str):
            raise FaultError('fault %s: %s must be text' % (_where(rule),
                                                            key))
    return Rule(number=number, resource=resource, type=type_name,
                actions=tuple(a.upper() for a in actions), effect=effect,
                message=rule.get('message'),
                times=_number(rule, 'times', int, 1),
                every=_number(rule, 'every', int, 1),
                probability=_number(rule, 'probability', float, 0, 1),
                seed=_number(rule, 'seed', int) or 0,
                seconds=(low, high),
                status=_number(rule, 'status', int, 1, 255) or 1,
                stderr=rule.get('stderr'), failure=failure)


def parse_rules(rules, first: int = 1) -> list:
    """Every rule of a list, or FaultError for the first that is wrong."""
    if isinstance(rules, dict) and set(rules) == {'faults'}:
        rules = rules['faults']
    if not isinstance(rules, list):
        raise FaultError('faults must be a list of rules (or a mapping '
                         'with one key, faults), got %s'
                         % type(rules).__name__)
    return [parse_rule(rule, first + i) for i, rule in enumerate(rules)]


def load_file(path: str) -> list:
    doc = user_files.load_yaml(path, 'faults', FaultError)
    try:
        return parse_rules(doc or [])
    except FaultError as exc:
        raise FaultError('%s: %s' % (path, exc))


def render_stderr(text: str, inputs: dict) -> str:
    """``${name}`` of the deployment's inputs in a rule's stderr."""
    return string.Template(text).safe_substitute(
        {k: '' if v is None else v for k, v in (inputs or {}).items()})


@dataclasses.dataclass
class Decision:
    """What a rule decided for one action of one resource."""

    rule: Rule
    attempt: int

    @property
    def effect(self) -> str:
        return self.rule.effect


class FaultBook(object):
    """The rules in force and how many times each resource was tried."""

    def __init__(self, rules=()):
        self._lock = threading.Lock()
        self.rules = list(rules)
        self._attempts = {}

    def add(self, rules) -> list:
        """Check all, then add all, numbered after the existing ones."""
        with self._lock:
            first = max([r.number for r in self.rules] or [0]) + 1
            added = parse_rules(rules, first)
            self.rules.extend(added)
            return added

    def remove(self, number: int) -> Rule:
        with self._lock:
            for rule in self.rules:
                if rule.number == number:
                    self.rules.remove(rule)
                    return rule
        raise FaultError('no fault rule %s (rules: %s)' % (
            number, ', '.join(str(r.number) for r in self.rules) or 'none'))

    def decide(self, path: str, type_name: str, action: str,
               effects=None, scope=None) -> typing.Optional[Decision]:
        """The first rule matching this attempt, if it acts this time.

        Attempts are counted per resource of one stack tree (``scope``,
        its root stack): a new stack starts again from its first.
        """
        if not self.rules:
            return None
        with self._lock:
            for rule in self.rules:
                if effects is not None and rule.effect not in effects:
                    continue
                if not rule.matches(path, type_name, action):
                    continue
                key = (rule.number, scope, path, action)
                attempt = self._attempts.get(key, 0) + 1
                self._attempts[key] = attempt
                if rule.fires(path, attempt):
                    return Decision(rule, attempt)
                return None
        return None
