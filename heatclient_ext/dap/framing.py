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
it as a reusable piece, and one reader plus one locked writer is all a
single-session adapter needs.
"""

import json
import threading

HEADER = b'Content-Length: '


class ProtocolError(ValueError):
    """The peer sent something that is not a DAP message."""


def read_message(stream):
    """The next message (a dict) from a binary stream; None at its end."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.rstrip(b'\r\n')
        if not line:
            if length is None:
                continue  # stray blank lines between messages
            break
        if line.startswith(HEADER):
            try:
                length = int(line[len(HEADER):])
            except ValueError:
                raise ProtocolError('bad Content-Length: %r' % line)
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        return json.loads(body.decode('utf-8'))
    except ValueError as exc:
        raise ProtocolError('body is not JSON: %s' % exc)


def encode(message) -> bytes:
    body = json.dumps(message, separators=(',', ':'),
                      ensure_ascii=False).encode('utf-8')
    return HEADER + str(len(body)).encode('ascii') + b'\r\n\r\n' + body


class Writer:
    """Writes whole messages from any thread, numbering them."""

    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()
        self.seq = 0

    def send(self, message):
        with self.lock:
            self.seq += 1
            message = dict(message, seq=self.seq)
            try:
                self.stream.write(encode(message))
                self.stream.flush()
            except (OSError, ValueError):
                pass  # the editor went away; the reader sees the end
