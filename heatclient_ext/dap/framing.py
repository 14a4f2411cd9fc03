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
"""The DAP wire: ``Content-Length`` headers, then one JSON body.

Our own twenty lines rather than a library: the framing is the whole of
the base protocol, the maintained Python adapters (debugpy) do not offer
it as a reusable piece, and one reader plus one locked writer per
connection is all the adapter needs.
"""

import json
import threading

HEADER = b'Content-Length: '
#: The largest body read. An editor's requests are small (paths, lines,
#: names); a length beyond this is a broken or hostile peer, refused
#: before anything is allocated for it.
MAX_BODY = 4 * 1024 * 1024
#: The longest header line read, its end included.
MAX_HEADER_LINE = 1024


class ProtocolError(ValueError):
    """The peer sent something that is not a DAP message.

    The stream can no longer be trusted: the session ends.
    """


class BadMessage(ProtocolError):
    """One message was framed right but is no DAP message.

    The next message starts where this one ended: the session may say
    why and read on.
    """


def read_message(stream):
    """The next message (a dict) from a binary stream; None at its end.

    :class:`ProtocolError` for a broken frame (a bad or too large
    ``Content-Length``, a header line without end, a header block
    without ``Content-Length``); :class:`BadMessage` for a body that is
    not a JSON object.
    """
    length = None
    headers = False
    while True:
        line = stream.readline(MAX_HEADER_LINE)
        if not line:
            return None
        if not line.endswith(b'\n') and len(line) >= MAX_HEADER_LINE:
            raise ProtocolError('header line longer than %d bytes'
                                % MAX_HEADER_LINE)
        line = line.rstrip(b'\r\n')
        if not line:
            if length is not None:
                break
            if headers:
                # Where its body ends is unknown: nothing after it can
                # be read as a message.
                raise ProtocolError('a header block without '
                                    'Content-Length')
            continue  # stray blank lines between messages
        headers = True
        if line.startswith(HEADER):
            try:
                length = int(line[len(HEADER):])
            except ValueError:
                raise ProtocolError('bad Content-Length: %r' % line)
            if not 0 <= length <= MAX_BODY:
                raise ProtocolError('Content-Length %d is out of range '
                                    '(0 to %d)' % (length, MAX_BODY))
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        message = json.loads(body.decode('utf-8'))
    except ValueError as exc:
        raise BadMessage('body is not JSON: %s' % exc)
    if not isinstance(message, dict):
        raise BadMessage('a message is a JSON object, not %s'
                         % type(message).__name__)
    return message


def encode(message) -> bytes:
    body = json.dumps(message, separators=(',', ':'),
                      ensure_ascii=False).encode('utf-8')
    return HEADER + str(len(body)).encode('ascii') + b'\r\n\r\n' + body


class Writer:
    """Writes whole messages from any thread, numbering them."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.lock = threading.Lock()
        self.seq = 0

    def send(self, message) -> None:
        with self.lock:
            self.seq += 1
            message = dict(message, seq=self.seq)
            try:
                self.stream.write(encode(message))
                self.stream.flush()
            except (OSError, ValueError):
                pass  # the editor went away; the reader sees the end
