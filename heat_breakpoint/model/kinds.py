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
"""Each kind of hold and each way out of one, declared once.

A kind of hold (before an action, after it, on its failure, before an
update that changes or replaces the resource) and a way out of a hold
(step, continue, retry, retain) mean something to the engine (when it
holds, which stock hook flag releases it, what a release may do), to
every spelling a user writes (the command line, an environment file,
``breakpoint set``, an editor's condition) and to every front end's
words. This table says all of it; the engine's, the model's and the
client's tables are read from it, so a new kind or a new exit is one
entry here plus what it does.

It imports nothing (the model is shared by client and server). Its words
are plain English: the client passes them through its ``_()`` where it
shows them.
"""

import dataclasses
import typing

ACTIONS = ('create', 'update', 'delete')
DEFAULT_ACTIONS = ('create', 'update')

#: Phases: a hold before the action (too late once it runs; a pre-* hook
#: flag releases it), or once the action is over (the resource keeps the
#: state it reached; a post-* hook flag releases it).
BEFORE_ACTION, ACTION_DONE = 'before the action', 'action done'
_HOOK_FLAG = {BEFORE_ACTION: 'pre-', ACTION_DONE: 'post-'}


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of hold: when it holds, and how it is written and said.

    ``when``: the kind's name, as the environment file (``when:``), the
    engine's records, the breakpoints view and an editor's condition
    spell it. ``flag``: its option of ``breakpoint set`` (``--after``);
    ``stack create/update`` spell it ``--breakpoint-after`` (None:
    ``--breakpoint`` itself). ``stock_hook``: whether Heat has the kind
    itself (pre-* and post-* hooks), so that it is also written as those.
    ``planned``: it holds only where a stack update plans to change the
    resource (Heat's own decision). ``failure``: it holds a failed action
    (the resource keeps Heat's error).
    Words: ``reason`` the held resource's status reason (parsed back by
    :mod:`.reasons`), ``when_text`` around its action in a list or a
    graph, ``option_help`` and ``flag_help`` the options' help (None for
    before: ``--breakpoint`` is the hooks' own, with its ``--no-``), and
    what a prompt says of it (``screen``, ``question``, ``enter_words``;
    ``enter`` is the exit Enter takes).
    """

    when: str
    phase: str
    screen: str
    actions: tuple = ACTIONS
    default_actions: tuple = DEFAULT_ACTIONS
    flag: typing.Optional[str] = None
    reason: str = ''
    when_text: str = ''
    option_help: typing.Optional[str] = None
    flag_help: typing.Optional[str] = None
    enter: str = 'step'
    enter_words: str = 'step it'
    question: str = 'Release %(name)s?'
    stock_hook: bool = False
    planned: bool = False
    failure: bool = False

    def __post_init__(self) -> None:
        # A kind that holds where its name says (before, after) is said
        # so: its status reason and its words around the action.
        if not self.reason:
            object.__setattr__(
                self, 'reason',
                'Breakpoint %%(name)s reached %s %%(action)s (%%(hook)s)'
                % self.when)
        if not self.when_text:
            object.__setattr__(self, 'when_text', self.when + ' %s')

    @property
    def option(self) -> str:
        """Its option of ``stack create/update`` (``--breakpoint-after``)."""
        return '--breakpoint' + (self.flag[1:] if self.flag else '')

    @property
    def dest(self) -> str:
        """Where argparse keeps that option's names."""
        return 'breakpoints' + (self.flag[1:].replace('-', '_')
                                if self.flag else '')

    @property
    def condition(self) -> str:
        """How an editor's breakpoint condition names it."""
        return self.when

    @property
    def hook_prefix(self) -> typing.Optional[str]:
        """The prefix of the stock hooks it is written as, if any."""
        return _HOOK_FLAG[self.phase] if self.stock_hook else None

    @property
    def flag_prefix(self) -> str:
        """The prefix of the hook flag that releases a hold of it."""
        return _HOOK_FLAG[self.phase]


#: An exit's refusal of a hold it does not apply to, unless it says more.
_REFUSED = '%(name)s is held %(when)s %(action)s: %(what)s does not apply'


@dataclasses.dataclass(frozen=True)
class Exit:
    """One way out of a hold that only some holds allow.

    ``name``: the release a signal carries (``breakpoint_release``), the
    command (``breakpoint retry``), the policy rule's last word and the
    prompt's answer. ``whens``/``actions``: the holds it ends (None:
    every one). ``policy_help``: its policy rule's description;
    ``signals``: what the rule covers besides the release of its name;
    ``prompt_help``: its line of the prompt's help, with ``name_optional``
    saying whether the prompt's answer may leave out the resource (then
    the one held where it applies; ``which`` names that one in the
    prompt's error). None: the prompt has no answer of its own for it,
    nor a command of its own in every front end (step and continue have
    theirs): an exit with it is taken the same way everywhere
    (:func:`own_exits`).

    What it does to the running operation: ``holds_again``, the resource
    may hold again where it was (a debugger shows it stopped by a step);
    ``fix_first``, it takes a fix first (``--template``, ``-e``,
    ``--parameter``), whose update does what it does itself.

    Its words: ``summary`` (its command's help), ``details`` (OSC's
    help goes on with them), ``shell_details`` (the legacy ``heat``
    shell's), ``resource_help`` (that shell's help of the resource);
    ``doing`` (what a front end says it does, e.g. ``retrying %s``),
    ``done`` (the result of a released row) and ``said`` (what a live
    session says once it is sent); ``refused_when`` and
    ``refused_action``, a hold it does not apply to (``%(name)s``,
    ``%(when)s``, ``%(action)s``, ``%(what)s`` its name); ``event``,
    the event the engine records when it was taken, if any
    (``%(name)s``, ``%(physical)s``).
    """

    name: str
    policy_help: str
    whens: typing.Optional[tuple] = None
    actions: typing.Optional[tuple] = None
    prompt_help: typing.Optional[str] = None
    name_optional: bool = False
    which: str = 'the resource'
    signals: str = ''
    holds_again: bool = False
    fix_first: bool = False
    summary: str = ''
    details: str = ''
    shell_details: str = ''
    resource_help: str = 'Resource path of the held resource.'
    doing: str = '%s'
    done: str = 'released'
    said: str = '%s'
    refused_when: str = _REFUSED
    refused_action: str = _REFUSED
    event: typing.Optional[str] = None

    @property
    def policy_payload(self) -> str:
        """The signals its policy rule covers, as the sample names them."""
        return 'breakpoint_release: %s%s' % (self.name, self.signals)

    def applies(self, when: str, action: str) -> bool:
        """Whether it may end a hold ``when`` of ``action``."""
        return ((self.whens is None or when in self.whens) and
                (self.actions is None or action.lower() in self.actions))


BEFORE = Kind(
    when='before', phase=BEFORE_ACTION, stock_hook=True,
    screen='at breakpoint %(name)s')
AFTER = Kind(
    when='after', phase=ACTION_DONE, flag='--after', stock_hook=True,
    option_help='Hold right after this resource\'s %(action)s completed, '
                'before what depends on it starts.',
    flag_help='Hold right after the resource\'s action completed',
    screen='done, held after it at breakpoint %(name)s',
    enter_words='step on (hold at what waits for it)')
FAILED = Kind(
    when='failed', phase=ACTION_DONE, flag='--on-failure', failure=True,
    reason='Breakpoint %(name)s reached on %(action)s failure',
    when_text='on %s failure',
    option_help='Hold this resource if its %(action)s fails, instead of '
                'failing the stack.',
    flag_help='Hold the resource if its action fails',
    screen='failed, held on failure',
    enter='retry', enter_words='retry it',
    question='%(name)s failed. Retry it?')
# What an update plans names the change instead of the hook.
_PLANNED_REASON = 'Breakpoint %(name)s reached before %(action)s (%(change)s)'


def _planned(when: str, verb: str, more: str = '') -> Kind:
    """A hold before an update only where Heat plans to ``verb`` it."""
    return Kind(
        when=when, phase=BEFORE_ACTION, actions=('update',),
        default_actions=('update',), flag='--on-' + verb, planned=True,
        reason=_PLANNED_REASON, when_text='before %s if ' + when,
        option_help='Hold before this resource\'s update only if the '
                    'update %ss it%s. Update only.' % (verb, more),
        flag_help='Hold before its update only if the update %ss it' % verb,
        screen='held before it is %s at breakpoint %%(name)s' % when)


CHANGED = _planned('changed', 'change', ' (in place or by replacement)')
REPLACED = _planned('replaced', 'replace')

#: Every kind, in the order lists and option groups show them.
KINDS = (BEFORE, AFTER, FAILED, CHANGED, REPLACED)
BY_WHEN = {kind.when: kind for kind in KINDS}


def whens(test=lambda kind: True) -> tuple:
    """The names of the kinds ``test`` accepts, in :data:`KINDS` order."""
    return tuple(kind.when for kind in KINDS if test(kind))


#: The kinds of each phase, and those that hold on what an update plans.
BEFORE_ACTION_WHENS = whens(lambda kind: kind.phase == BEFORE_ACTION)
DONE_WHENS = whens(lambda kind: kind.phase == ACTION_DONE)
PLANNED_WHENS = whens(lambda kind: kind.planned)

STEP = Exit(
    name='step',
    whens=tuple(kind.when for kind in KINDS if not kind.failure),
    policy_help='Release a held resource and hold at the next ones '
                '(breakpoint step). Default: as stacks:update.')
CONTINUE = Exit(
    name='continue',
    policy_help='Release held resources and run on without breakpoints, '
                'or to one (breakpoint continue [--to]). Default: as '
                'stacks:update.',
    signals=', run to; breakpoint_command: to')
# A retry or a retain of a hold that is not a failure's.
_NOT_FAILED = ('%(name)s is held %(when)s %(action)s, not on its failure: '
               '%(what)s applies to a resource held on failure')
RETRY = Exit(
    name='retry', whens=(FAILED.when,),
    policy_help='Run the failed action of a resource held on failure '
                'again (breakpoint retry). Default: as stacks:update.',
    prompt_help='retry [R]  run the failed action of R (held on failure) '
                'again',
    name_optional=True, which='the failed resource',
    holds_again=True, fix_first=True,
    summary='Run the failed action of a resource held on failure again.',
    details='In the same operation: if it fails again, it holds again.',
    shell_details='With a fix, the fix\'s update runs it again, with the '
                  'new definition.',
    resource_help='Resource path of the resource held on failure.',
    doing='retrying %s', done='retried',
    said='retrying %s (if it fails again, it holds again)',
    refused_when=_NOT_FAILED)
RETAIN = Exit(
    name='retain', whens=(FAILED.when,), actions=('delete',),
    policy_help='Have Heat forget a resource held on the failure of its '
                'delete, left in the cloud, and let the delete go on '
                '(breakpoint retain). Default: as stacks:delete.',
    prompt_help='retain R   leave R, whose delete failed, in the cloud; '
                'the delete goes on',
    summary='Leave a resource whose delete failed in the cloud, and go on.',
    details='For a resource held on the failure of its delete: Heat '
            'forgets it, as DeletionPolicy Retain does (the physical '
            'resource stays in the cloud, a stack event names it) and the '
            'delete goes on.',
    shell_details='Heat forgets it, as DeletionPolicy Retain does; the '
                  'delete goes on.',
    resource_help='Resource path of the resource held on the failure of '
                  'its delete.',
    doing='retained %s', done='retained',
    said='retained %s: Heat forgets it, the delete goes on',
    refused_when=_NOT_FAILED,
    refused_action='%(name)s is held on the failure of its %(action)s: '
                   'retain applies to a resource whose delete failed '
                   '(use retry or continue)',
    event='Retained %(name)s: Heat forgets it, physical resource '
          '%(physical)s is left in the cloud')

#: Every exit, in the order help and policy show them.
EXITS = (STEP, CONTINUE, RETRY, RETAIN)
BY_NAME = {way.name: way for way in EXITS}


def own_exits() -> tuple:
    """The exits each front end takes the same way (retry, retain).

    Those with an answer of their own at the prompt: a command each
    (``breakpoint retry``), a request of the DAP adapter, an answer of
    ``watch -i`` and the Debug Console. Read from :data:`EXITS` when
    called, so that what is added there counts everywhere.
    """
    return tuple(way for way in EXITS if way.prompt_help)


def own_exit(name) -> typing.Optional[Exit]:
    """The exit of :func:`own_exits` named ``name``, or None."""
    return next((way for way in own_exits() if way.name == name), None)


def of(when: typing.Optional[str]) -> Kind:
    """The kind named ``when``; before for None or a name it does not know.

    A newer engine's kind reads as the spec's breakpoint (before) does.
    """
    if when is None:
        return BEFORE
    return BY_WHEN.get(when, BEFORE)
