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
"""The DAP wire (:mod:`heatclient_ext.dap.framing`)."""

import io

import pytest

from heatclient_ext.dap import framing


def test_round_trip_with_non_ascii_body():
    stream = io.BytesIO(framing.encode({'command': 'évaluer', 'n': 1}) +
                        framing.encode({'command': 'next'}))
    assert framing.read_message(stream) == {'command': 'évaluer', 'n': 1}
    assert framing.read_message(stream) == {'command': 'next'}
    assert framing.read_message(stream) is None


def test_length_counts_bytes_not_characters():
    data = framing.encode({'x': 'é'})
    head, body = data.split(b'\r\n\r\n')
    expected = len('{"x":"é"}'.encode('utf-8'))
    assert int(head.split(b': ')[1]) == len(body) == expected


def test_other_headers_are_ignored():
    body = b'{"a":1}'
    stream = io.BytesIO(b'Content-Type: application/json\r\n'
                        b'Content-Length: 7\r\n\r\n' + body)
    assert framing.read_message(stream) == {'a': 1}


def test_truncated_body_is_the_end():
    assert framing.read_message(io.BytesIO(
        b'Content-Length: 50\r\n\r\n{"a":')) is None


@pytest.mark.parametrize('data', [b'Content-Length: x\r\n\r\n',
                                  b'Content-Length: 3\r\n\r\nabc'])
def test_garbage_is_a_protocol_error(data):
    with pytest.raises(framing.ProtocolError):
        framing.read_message(io.BytesIO(data))


@pytest.mark.parametrize('data,why', [
    (b'Content-Length: 99999999999\r\n\r\n', 'out of range'),
    (b'Content-Length: -5\r\n\r\n', 'out of range'),
    (b'X' * 5000, 'header line longer than'),
])
def test_a_broken_frame_is_refused_before_it_is_read(data, why):
    with pytest.raises(framing.ProtocolError) as refused:
        framing.read_message(io.BytesIO(data))
    assert why in str(refused.value)
    assert not isinstance(refused.value, framing.BadMessage)


def test_a_header_line_is_read_no_further_than_its_bound():
    # Refused after MAX_HEADER_LINE bytes, not after the peer's whole
    # endless line: the rest of the stream is never read.
    stream = io.BytesIO(b'X' * (framing.MAX_HEADER_LINE * 64))
    with pytest.raises(framing.ProtocolError):
        framing.read_message(stream)
    assert stream.tell() == framing.MAX_HEADER_LINE


@pytest.mark.parametrize('data', [
    b'Content-Type: application/json\r\n\r\n{}',
    b'\r\nX-Other: 1\r\n\r\n',
])
def test_a_header_block_without_content_length_is_a_protocol_error(data):
    with pytest.raises(framing.ProtocolError) as refused:
        framing.read_message(io.BytesIO(data))
    assert str(refused.value) == 'a header block without Content-Length'
    assert not isinstance(refused.value, framing.BadMessage)


def test_blank_lines_between_messages_are_skipped():
    stream = io.BytesIO(b'\r\n\r\n' + framing.encode({'a': 1}))
    assert framing.read_message(stream) == {'a': 1}


@pytest.mark.parametrize('body', [b'[]', b'5', b'"x"', b'abc'])
def test_a_body_that_is_no_object_is_one_bad_message(body):
    stream = io.BytesIO(b'Content-Length: %d\r\n\r\n' % len(body) + body +
                        framing.encode({'command': 'next'}))
    with pytest.raises(framing.BadMessage):
        framing.read_message(stream)
    # The stream is still in step: the next message reads.
    assert framing.read_message(stream) == {'command': 'next'}


def _answers(out):
    out.seek(0)
    found = []
    while True:
        message = framing.read_message(out)
        if message is None:
            return found
        found.append(message)


def test_serve_says_why_it_skips_a_bad_message_and_answers_on():
    from heatclient_ext.dap import main as dap_main
    data = (b'Content-Length: 2\r\n\r\n[]' + framing.encode(
        {'seq': 1, 'type': 'request', 'command': 'initialize',
         'arguments': {}}))
    out = io.BytesIO()
    dap_main.serve(io.BytesIO(data), out)
    said, answer = _answers(out)
    assert said['event'] == 'output' and said['body']['output'] == (
        'ignored a message: a message is a JSON object, not list\n')
    assert (answer['command'], answer['success']) == ('initialize', True)


def test_serve_ends_a_session_whose_stream_breaks_and_says_why():
    from heatclient_ext.dap import main as dap_main
    out = io.BytesIO()
    with pytest.raises(framing.ProtocolError):
        dap_main.serve(io.BytesIO(b'Content-Length: 99999999999\r\n\r\n'),
                       out)
    [said] = _answers(out)
    assert said['body']['output'].startswith(
        'the session ends: Content-Length 99999999999 is out of range')


def test_writer_numbers_messages():
    out = io.BytesIO()
    writer = framing.Writer(out)
    writer.send({'type': 'event', 'event': 'initialized'})
    writer.send({'type': 'event', 'event': 'stopped'})
    out.seek(0)
    assert [framing.read_message(out)['seq'] for _i in range(2)] == [1, 2]


def test_serve_answers_until_disconnect():
    from heatclient_ext.dap import main as dap_main
    requests = b''.join(framing.encode(
        {'seq': seq, 'type': 'request', 'command': command,
         'arguments': {}})
        for seq, command in ((1, 'initialize'), (2, 'threads'),
                             (3, 'disconnect'), (4, 'threads')))
    out = io.BytesIO()
    dap_main.serve(io.BytesIO(requests), out)
    out.seek(0)
    answers = []
    while True:
        message = framing.read_message(out)
        if message is None:
            break
        answers.append(message)
    assert [(m['request_seq'], m['command'], m['success'])
            for m in answers] == [(1, 'initialize', True),
                                  (2, 'threads', True),
                                  (3, 'disconnect', True)]
    assert answers[0]['body']['exceptionBreakpointFilters'][0][
        'filter'] == 'failures'


def test_heat_breakpoint_dap_is_a_subcommand(capsys):
    from heatclient_ext import console  # the heat-breakpoint script's
    with pytest.raises(SystemExit) as done:
        console.main(['dap', '--help'])
    assert done.value.code == 0
    assert 'usage: heat-breakpoint dap' in capsys.readouterr().out
