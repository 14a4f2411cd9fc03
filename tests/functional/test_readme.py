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
"""The user guide's commands, run as written against a local Heat.

The pages are ``README.rst`` and the user guide (``doc/source/user/``,
in the order of its table of contents). The convention (the guide's
index states it too): in a page's literal blocks, a line is a command
when, after an optional ``$ `` prompt, it starts with ``openstack ``,
``heat-breakpoint `` or ``heat-breakpoint-server faults ``; `` # ``
starts a comment. Every other line is shown output, a file's content, or
the server start and ``export`` (which the fixture stands for). A block
whose lines are no commands but a YAML stream with a ``breakpoints``
section is an environment-file example: each document is sent with
``openstack stack create --dry-run`` against ``examples/app.yaml``.

"Using it" (``walkthrough.rst``) runs in order, in-process through the
real shells (``openstack``: OSC's shell; ``heat-breakpoint``:
``heatclient_ext.shell``; ``heat-breakpoint-server faults``: the real
command in a subprocess) from the repository's top, so ``examples/...``
resolve, with ``OS_AUTH_TYPE=none`` and ``OS_ENDPOINT`` of a local Heat
of this module's own (the pages use fixed stack names). Between commands
the test does what a reader does: it waits until every stack is held at
a breakpoint or has no operation running, and after a command that
releases, until that has shown (the held resources changed). Each
command must exit 0.

The other sections of the user guide run the same way, in their own
local Heat (their stacks are their own), a pipe into another program
(``| dot``) through the shell in a scratch directory. "When a resource
fails" (``failures.rst``) runs in a local Heat of its own started with
the fault rules it shows (``--faults examples/faults.yaml``). A line
that looks like a command anywhere in these pages (``$ ``, or a
program's name first) is run, or is marked ``# not run by
test_readme.py: <why>`` (the server start and ``export`` of "Using it"
are the fixture's).
"""

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

import pytest
import yaml

from heatclient_ext import shell as legacy_shell
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
README = os.path.join(ROOT, 'README.rst')
USER_GUIDE = os.path.join(ROOT, 'doc', 'source', 'user')
#: The user guide's pages, in the order of its table of contents.
USER_PAGES = ['concepts', 'walkthrough', 'failures', 'live-session',
              'editor', 'web-console', 'local-server', 'simulated-cloud']
WALKTHROUGH = os.path.join(USER_GUIDE, 'walkthrough.rst')
FAILURES = os.path.join(USER_GUIDE, 'failures.rst')
FAULTS_FILE = 'examples/faults.yaml'
SECTION = 'Using it'
COMMAND = re.compile(r'^(?:\$ )?((?:openstack|heat-breakpoint|'
                     r'heat-breakpoint-server faults) .*)$')
RELEASING = re.compile(r'breakpoint[ -](step|continue|clear)\b')
RETRY = re.compile(r'breakpoint retry (\S+) (\S+)')
SETTLE_TIMEOUT = 90
# What looks like a command: a prompt, or a program's name first.
CANDIDATE = re.compile(r'^(?:\$ |(?:openstack|heat-breakpoint[\w-]*|pip|'
                       r'bash|tox|python3?|export|dot|printf|echo) )')
NOT_RUN = re.compile(r'#\s*not run by test_readme\.py:')
FIXTURE = ('heat-breakpoint-server', 'export ')


def _is_title(line, under):
    # not a table's border, which has spaces between its runs of '='
    return (bool(line.strip()) and not line.startswith(' ') and
            set(under) == {'='} and len(under) >= len(line))


def section_titles(text):
    """The titles of the top-level sections, in order."""
    lines = text.splitlines()
    return [line for line, under in zip(lines, lines[1:])
            if _is_title(line, under)]


def section_lines(text, title):
    """The lines of one top-level section (underlined with ``=``)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line == title and lines[i + 1].startswith('='))
    end = next((i for i in range(start + 2, len(lines) - 1)
                if _is_title(lines[i], lines[i + 1])), len(lines))
    return lines[start + 2:end]


def literal_blocks(lines):
    """The literal blocks (after a ``::`` paragraph), dedented."""
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip().endswith('::'):
            i += 1
            block = []
            while i < len(lines) and (not lines[i].strip() or
                                      lines[i].startswith(' ')):
                block.append(lines[i])
                i += 1
            text = '\n'.join(block).strip('\n')
            indent = min(len(line) - len(line.lstrip())
                         for line in text.splitlines() if line.strip())
            blocks.append('\n'.join(line[indent:]
                                    for line in text.splitlines()))
        else:
            i += 1
    return blocks


def block_lines(block):
    """The block's lines, a line ending in a backslash joined to the next."""
    joined = []
    for line in block.splitlines():
        if joined and joined[-1].endswith('\\'):
            joined[-1] = joined[-1][:-1] + ' ' + line.strip()
        else:
            joined.append(line)
    return joined


def commands(block):
    found = []
    for line in block_lines(block):
        match = COMMAND.match(line.strip())
        if match and not NOT_RUN.search(line):
            found.append(shlex.split(match.group(1), comments=True))
    return found


def env_documents(block):
    try:
        docs = list(yaml.safe_load_all(block))
    except yaml.YAMLError:
        return []
    if docs and all(isinstance(doc, dict) and 'breakpoints' in doc
                    for doc in docs):
        return docs
    return []


def page_path(page):
    return os.path.join(USER_GUIDE, page + '.rst')


def user_pages():
    """The user guide's pages, checked against its table of contents."""
    with open(page_path('index'), encoding='utf-8') as index:
        listed = re.findall(r'^   ([\w-]+)$', index.read(), re.M)
    assert listed == USER_PAGES, listed
    return [page_path(page) for page in USER_PAGES]


def page_blocks(path, title):
    with open(path, encoding='utf-8') as page:
        return literal_blocks(section_lines(page.read(), title))


def readme_blocks(title=SECTION):
    """The blocks of a section of "Using it"'s page."""
    return page_blocks(WALKTHROUGH, title)


def page_titles(path):
    with open(path, encoding='utf-8') as page:
        return section_titles(page.read())


def other_sections():
    """(page, title) of the user guide but "Using it" and the failures."""
    return [(path, title) for path in user_pages() if path != FAILURES
            for title in page_titles(path) if title != SECTION]


@pytest.fixture(scope='module')
def server():
    with conftest.local_heat('heat-breakpoint-readme-') as local:
        yield local


def run(server, argv, monkeypatch):
    if argv[0] == 'openstack':
        return conftest.run_openstack(server, *argv[1:])
    if argv[0] == 'heat-breakpoint-server':
        result = subprocess.run(
            [sys.executable, '-m', 'heat_breakpoint.server'] + argv[1:],
            env=dict(os.environ, **server.env), capture_output=True,
            text=True, timeout=60)
        return result.returncode, result.stdout, result.stderr
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = legacy_shell.main(argv[1:])
    return code, out.getvalue(), err.getvalue()


def held_state(hc):
    """``{stack: (in progress, frozenset of (resource, held since))}``."""
    manager = bp_v1.BreakpointManager(hc)
    state = {}
    for stack in hc.stacks.list():
        in_progress = stack.stack_status.endswith('_IN_PROGRESS')
        held = frozenset()
        if in_progress:
            held = frozenset((row['resource'], row['held_since'])
                             for row in manager.held_now(stack.id)[1])
        state[stack.stack_name] = (in_progress, held)
    return state


def settle(hc, before, released):
    """Wait until a reader would type the next command."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        now = held_state(hc)
        quiet = all(held or not busy for busy, held in now.values())
        moved = not released or all(
            not busy or held != before.get(name, (None, None))[1]
            for name, (busy, held) in now.items())
        if quiet and moved:
            return now
        if time.monotonic() > deadline:
            raise AssertionError('stacks did not settle: %r' % (now,))
        time.sleep(0.3)


def test_readme_convention_finds_the_commands():
    blocks = readme_blocks()
    found = [' '.join(argv[:4]) for block in blocks
             for argv in commands(block)]
    assert 'openstack stack create app' in found
    assert 'heat-breakpoint stack-create app2 -f' in found
    assert sum(bool(env_documents(block)) for block in blocks) == 1
    # the server start is the fixture's, not a command
    assert not any(cmd.startswith('heat-breakpoint-server')
                   for cmd in found)


def test_using_it_says_a_plain_update_drops_breakpoints():
    with open(WALKTHROUGH, encoding='utf-8') as readme:
        text = ' '.join(' '.join(section_lines(readme.read(),
                                               SECTION)).split())
    assert ('Without ``--existing`` Heat *replaces* the stack\'s '
            'environment with the one sent, so a plain ``openstack stack '
            'update S -t T`` drops every breakpoint the stack had') in text


def test_using_it_runs_as_written(server, monkeypatch):
    monkeypatch.chdir(ROOT)
    hc = server.client()
    ran = 0
    for block in readme_blocks():
        for index, doc in enumerate(env_documents(block)):
            path = os.path.join(server.state_dir, 'env-%d.yaml' % index)
            with open(path, 'w') as env_file:
                yaml.safe_dump(doc, env_file)
            code, out, err = conftest.run_openstack(
                server, 'stack', 'create', 'env-%d' % index, '-t',
                'examples/app.yaml', '-e', path, '--dry-run')
            assert code == 0, (doc, err)
            ran += 1
        for argv in commands(block):
            before = held_state(hc)
            code, out, err = run(server, argv, monkeypatch)
            assert code == 0, '%s\n%s%s' % (' '.join(argv), out, err)
            settle(hc, before, RELEASING.search(' '.join(argv)))
            ran += 1
    assert ran >= 25
    # where the README's story ends
    assert {stack.stack_name: stack.stack_status
            for stack in hc.stacks.list()} == {
        'app': 'UPDATE_COMPLETE', 'app2': 'UPDATE_COMPLETE',
        'demo': 'CREATE_COMPLETE'}


def test_every_command_in_the_pages_runs_or_is_marked():
    titles = {path: page_titles(path) for path in [README] + user_pages()}
    assert SECTION in titles[WALKTHROUGH]
    assert 'A live session' in titles[page_path('live-session')]
    looked = 0
    for path, page_titles_ in titles.items():
        for title in page_titles_:
            for block in page_blocks(path, title):
                for line in block_lines(block):
                    if not CANDIDATE.match(line):
                        continue
                    looked += 1
                    if NOT_RUN.search(line):
                        continue
                    if title == SECTION and line.startswith(FIXTURE):
                        continue
                    assert COMMAND.match(line), (
                        '%s, section %r: %r is neither run by this test '
                        'nor marked "# not run by test_readme.py: <why>"'
                        % (os.path.relpath(path, ROOT), title, line))
    assert looked >= 40


def test_the_readme_points_at_each_guide():
    with open(README, encoding='utf-8') as readme:
        text = readme.read()
    for guide in ('user', 'admin', 'configuration', 'contributor'):
        assert 'doc/source/%s/index.rst' % guide in text, guide
    # its two set-up commands, unchanged
    assert '    bash tools/demo.sh ' in text
    assert '    bash tools/test.sh ' in text


@pytest.fixture(scope='module')
def other_server():
    with conftest.local_heat('heat-breakpoint-readme-more-') as local:
        yield local


def run_line(server, argv, monkeypatch, scratch):
    """Run one command; a pipe's other side through the shell."""
    if '|' not in argv:
        return run(server, argv, monkeypatch)
    cut = argv.index('|')
    code, out, err = run(server, argv[:cut], monkeypatch)
    if code:
        return code, out, err
    piped = subprocess.run(' '.join(shlex.quote(arg) if arg != '>' else arg
                                    for arg in argv[cut + 1:]),
                           shell=True, input=out, cwd=scratch, text=True,
                           capture_output=True)
    return piped.returncode, piped.stdout, err + piped.stderr


def failure_hits(hc, stack, name):
    return sum(1 for event in hc.events.list(stack, resource_name=name)
               if ' failure' in (event.resource_status_reason or '') and
               (event.resource_status_reason or '').startswith(
                   'Breakpoint '))


def wait_held_at(hc, stack, name):
    manager = bp_v1.BreakpointManager(hc)
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while name not in {row['resource']
                       for row in manager.held_now(stack)[1]}:
        if time.monotonic() > deadline:
            raise AssertionError('%s not held in %s' % (name, stack))
        time.sleep(0.3)


def test_the_other_sections_run_as_written(other_server, monkeypatch,
                                           tmp_path):
    monkeypatch.chdir(ROOT)
    hc = other_server.client()
    ran = []
    for path, title in other_sections():
        for block in page_blocks(path, title):
            for argv in commands(block):
                retry = RETRY.search(' '.join(argv))
                if retry:
                    # A reader retries once the failure shows as held.
                    wait_held_at(hc, *retry.groups())
                    hits = failure_hits(hc, *retry.groups())
                before = held_state(hc)
                code, out, err = run_line(other_server, argv, monkeypatch,
                                          str(tmp_path))
                assert code == 0, '%s: %s\n%s%s' % (
                    title, ' '.join(argv), out, err)
                settle(hc, before, RELEASING.search(' '.join(argv)))
                if retry:
                    # ... and sees it fail and hold again.
                    deadline = time.monotonic() + SETTLE_TIMEOUT
                    while failure_hits(hc, *retry.groups()) <= hits:
                        assert time.monotonic() < deadline, 'not again'
                        time.sleep(0.3)
                    wait_held_at(hc, *retry.groups())
                ran.append(' '.join(argv[:4]))
    assert 'openstack stack breakpoint retry' in ran
    assert (tmp_path / 'tiers.svg').read_text().lstrip().startswith('<')
    assert {stack.stack_name: stack.stack_status
            for stack in hc.stacks.list()} == {
        'app3': 'UPDATE_COMPLETE', 'app4': 'UPDATE_COMPLETE',
        'tiers': 'CREATE_IN_PROGRESS', 'nodes': 'CREATE_IN_PROGRESS'}


@pytest.fixture(scope='module')
def faults_server():
    state_dir = tempfile.mkdtemp(prefix='heat-breakpoint-readme-faults-')
    local = conftest.LocalHeatProcess(
        state_dir, extra_args=['--faults', os.path.join(ROOT, FAULTS_FILE)])
    local.start(reset=True)
    yield local
    local.remove()


def test_when_a_resource_fails_runs_as_written(faults_server, monkeypatch,
                                               tmp_path):
    """The failures walk-through, on a server with its fault rules."""
    with open(FAILURES, encoding='utf-8') as page:
        text = page.read()
    # the rules the page shows are the ones this server runs with
    with open(os.path.join(ROOT, FAULTS_FILE), encoding='utf-8') as rules:
        shown = yaml.safe_load(literal_blocks(text.splitlines())[0])
        assert shown == yaml.safe_load(rules)
    assert 'heat-breakpoint-server --faults %s' % FAULTS_FILE in text
    monkeypatch.chdir(ROOT)
    hc = faults_server.client()
    ran = []
    for title in page_titles(FAILURES):
        for block in page_blocks(FAILURES, title):
            for argv in commands(block):
                line = ' '.join(argv)
                retry = RETRY.search(line)
                if retry:
                    wait_held_at(hc, *retry.groups())
                before = held_state(hc)
                code, out, err = run_line(faults_server, argv, monkeypatch,
                                          str(tmp_path))
                assert code == 0, '%s: %s\n%s%s' % (title, line, out, err)
                if argv[:2] == ['heat-breakpoint-server', 'faults']:
                    assert 'volume_attachment' in out, out
                if ' breakpoint show ' in ' %s ' % line:
                    assert 'simulated fault: rule' in out, out
                    assert 'Sup3rS3cretPw' not in out
                # A retry that works ends the hold: wait for it as for
                # any release.
                settle(hc, before, retry or RELEASING.search(line))
                ran.append(' '.join(argv[:4]))
    assert 'openstack stack breakpoint retry' in ran
    assert {stack.stack_name: stack.stack_status
            for stack in hc.stacks.list()} == {
        'fails-once': 'CREATE_COMPLETE',
        'fix-it': 'UPDATE_COMPLETE',
        'attach-fails': 'ROLLBACK_COMPLETE',
        'deploy-fails': 'CREATE_FAILED'}
