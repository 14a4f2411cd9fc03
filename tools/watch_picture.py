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
"""Record the user guide's live session, doc/images/watch-session.svg.

Run it from the virtualenv that has the project installed, with tmux on
PATH: ``.venv/bin/python tools/watch_picture.py``. It starts
``heat-breakpoint-server`` on a free port with a throwaway state
directory, creates ``tests/functional/templates/nodes.yaml`` held at
``node_*``, runs ``openstack stack breakpoint watch -i nodes`` in a tmux
pane and answers as the guide's recording does (Enter, ``node_[34]``,
Enter, ``c``), capturing the screen after each answer. The screens
become one SVG that shows them in turn (a CSS animation; a viewer that
does not animate shows the first) and are printed too.
"""

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from xml.sax import saxutils

from heat_breakpoint.server import fixture

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_picture  # noqa: E402  (its openstack helper)

ROOT = graph_picture.ROOT
BIN = graph_picture.BIN
PICTURE = os.path.join(ROOT, 'doc', 'images', 'watch-session.svg')
TEMPLATE = os.path.join(ROOT, 'tests', 'functional', 'templates',
                        'nodes.yaml')
STACK = 'nodes'
COLUMNS, LINES = 100, 30
#: (what to type, what the screen shows once it has been taken).
ANSWERS = [
    (None, ['Release node_1?']),
    ('', ['released node_1 (step)', 'Release node_2?']),
    ('node_[34]', ['released node_3, node_4 (clear)', 'Release node_2?']),
    ('', ['released node_2 (step)', 'Release final?']),
    ('c', ['Stack nodes CREATE_COMPLETE']),
]
SECONDS_PER_SCREEN = 3
CHAR_WIDTH, LINE_HEIGHT, FONT_SIZE = 8.4, 17, 14


class Pane:
    """One command in a detached tmux session of its own."""

    def __init__(self, env, argv):
        self.socket = 'heatbp-record-%s' % uuid.uuid4().hex[:8]
        command = 'env %s %s; sleep 600' % (
            ' '.join('%s=%s' % (key, shlex.quote(value))
                     for key, value in sorted(env.items())
                     if key.startswith(('OS_', 'PATH', 'PYTHON'))),
            ' '.join(shlex.quote(arg) for arg in argv))
        self.tmux('new-session', '-d', '-s', 'watch', '-x', str(COLUMNS),
                  '-y', str(LINES), command)

    def tmux(self, *args):
        return subprocess.run(['tmux', '-L', self.socket] + list(args),
                              check=True, capture_output=True,
                              text=True).stdout

    def screen(self):
        return self.tmux('capture-pane', '-p', '-t', 'watch')

    def answer(self, text):
        if text:
            self.tmux('send-keys', '-t', 'watch', '-l', text)
        self.tmux('send-keys', '-t', 'watch', 'Enter')

    def wait(self, texts, timeout=90):
        """The screen once it shows every one of ``texts``."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screen = self.screen()
            if all(text in screen for text in texts):
                # let the redraw finish
                time.sleep(1)
                return self.screen()
            time.sleep(0.3)
        raise SystemExit('%r never showed:\n%s' % (texts, self.screen()))

    def close(self):
        subprocess.run(['tmux', '-L', self.socket, 'kill-server'],
                       capture_output=True)


def record(env):
    graph_picture.openstack(env, 'stack', 'create', STACK, '-t', TEMPLATE,
                            '--breakpoint', 'node_*')
    pane = Pane(dict(env, TERM='xterm'),
                [os.path.join(BIN, 'openstack'), 'stack', 'breakpoint',
                 'watch', '-i', STACK])
    screens = []
    try:
        for typed, shows in ANSWERS:
            if typed is not None:
                pane.answer(typed)
            screens.append(pane.wait(shows).rstrip('\n'))
    finally:
        pane.close()
    return screens


def svg(screens):
    width = int(COLUMNS * CHAR_WIDTH) + 20
    height = LINES * LINE_HEIGHT + 20
    total = SECONDS_PER_SCREEN * len(screens)
    share = 100.0 / len(screens)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d">' % (width, height, width, height),
           '<title>openstack stack breakpoint watch -i nodes: a recorded '
           'session</title>',
           '<style>',
           'text { font-family: "DejaVu Sans Mono", Menlo, Consolas, '
           'monospace; font-size: %dpx; fill: #e8e8e8; '
           'white-space: pre; }' % FONT_SIZE,
           '.screen { opacity: 0; animation: show %ds infinite; }' % total,
           '.screen:first-of-type { opacity: 1; }',
           '@keyframes show { 0%% { opacity: 1; } %.2f%% { opacity: 1; } '
           '%.2f%% { opacity: 0; } 100%% { opacity: 0; } }' % (
               share - 0.01, share),
           '</style>',
           '<rect width="100%" height="100%" rx="6" fill="#1e1e1e"/>']
    for number, screen in enumerate(screens):
        out.append('<g class="screen" style="animation-delay: %ds">' % (
            number * SECONDS_PER_SCREEN))
        for row, line in enumerate(screen.splitlines()[:LINES]):
            if line.strip():
                out.append('<text x="10" y="%d" xml:space="preserve">%s'
                           '</text>' % (10 + (row + 1) * LINE_HEIGHT - 4,
                                        saxutils.escape(line)))
        out.append('</g>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def main():
    if not shutil.which('tmux'):
        raise SystemExit('needs tmux: apt-get install tmux')
    with fixture.local_heat('heat-breakpoint-watch-') as server:
        env = dict(os.environ, PYTHONWARNINGS='ignore',
                   PATH='%s:%s' % (BIN, os.environ.get('PATH', '')),
                   **server.env)
        screens = record(env)
        for screen in screens:
            print(screen, end='\n\n')
        with open(PICTURE, 'w', encoding='utf-8') as out:
            out.write(svg(screens))
        print('Wrote %s' % os.path.relpath(PICTURE))


if __name__ == '__main__':
    main()
