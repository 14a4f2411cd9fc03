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
"""A line typed at the prompt, waited for without stopping the screen.

``stdin.readline()`` blocks until Enter, so a screen that waits on it
freezes (elapsed, counts) and goes on asking about a resource someone
else released. :class:`LineReader` waits at most a given time and says
``None`` when nothing was entered, so that the session refreshes between
keys. On a terminal it reads key by key (cbreak mode: Ctrl-C still
interrupts) and keeps what is typed so far, which the redrawn screen
shows again after the prompt; from a pipe it reads what has come; from
anything without a file descriptor (a test's ``StringIO``) it reads a
line as before.

No key is lost: what is typed after Enter in the same read (keys typed
while the session was busy redrawing arrive together) is kept for the
next line, a character split between two reads is put together again,
and keys typed before the session switched the terminal to cbreak mode
are not flushed.
"""

import codecs
import contextlib
import os
import select

BACKSPACES = ('\x7f', '\b')
ERASE_LINE = '\x15'  # Ctrl-U
END = '\x04'  # Ctrl-D


def _fileno(stream):
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _isatty(fd):
    try:
        return os.isatty(fd)
    except OSError:
        return False


class LineReader:
    """Lines from ``stdin``, each waited for at most a given time."""

    def __init__(self, stdin, echo=None) -> None:
        self.stdin = stdin
        self.echo = echo
        self.fd = _fileno(stdin)
        self.terminal = self.fd is not None and _isatty(self.fd)
        self.typed = ''  # a terminal's line so far
        self._keys = ''  # a terminal's keys read, not yet taken
        self._decoder = codecs.getincrementaldecoder('utf-8')('replace')
        self._data = b''  # a pipe's bytes not yet split into lines
        self._ended = False

    @contextlib.contextmanager
    def keys(self):
        """Key by key on a terminal while in this block (cbreak mode)."""
        if not self.terminal:
            yield self
            return
        import termios
        import tty
        saved = termios.tcgetattr(self.fd)
        try:
            # TCSANOW: what was typed ahead stays to be read.
            tty.setcbreak(self.fd, termios.TCSANOW)
            yield self
        finally:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, saved)

    def read(self, timeout: float):
        """A line without its end, None if none came, EOFError at the end."""
        if self.fd is None:
            line = self.stdin.readline()
            if not line:
                raise EOFError()
            return line.rstrip('\r\n')
        if self.terminal:
            return self._read_keys(timeout)
        return self._read_pipe(timeout)

    def _ready(self, timeout: float) -> bool:
        try:
            readable, _w, _x = select.select([self.fd], [], [],
                                             max(0, timeout))
        except InterruptedError:
            return False
        return bool(readable)

    def _read_pipe(self, timeout: float):
        while b'\n' not in self._data:
            if self._ended:
                if self._data:
                    line, self._data = self._data, b''
                    return line.decode('utf-8', 'replace')
                raise EOFError()
            if not self._ready(timeout):
                return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                self._ended = True
            self._data += chunk
            timeout = 0
        line, _nl, self._data = self._data.partition(b'\n')
        return line.decode('utf-8', 'replace').rstrip('\r')

    def _read_keys(self, timeout: float):
        while True:
            while self._keys:
                char, self._keys = self._keys[0], self._keys[1:]
                line = self._key(char)
                if line is not None:
                    return line  # the keys after it wait for the next
            if not self._ready(timeout):
                return None
            timeout = 0
            chunk = os.read(self.fd, 1024)
            if not chunk:
                raise EOFError()
            self._keys += self._decoder.decode(chunk)

    def _key(self, char):
        """One key; the line when it ends one."""
        if char in ('\r', '\n'):
            line, self.typed = self.typed, ''
            self._say('\n')
            return line
        if char == END:
            if not self.typed:
                raise EOFError()
        elif char in BACKSPACES:
            if self.typed:
                self.typed = self.typed[:-1]
                self._say('\b \b')
        elif char == ERASE_LINE:
            self._say('\b \b' * len(self.typed))
            self.typed = ''
        elif char.isprintable():
            self.typed += char
            self._say(char)
        return None

    def _say(self, text) -> None:
        if self.echo is not None:
            self.echo(text)
