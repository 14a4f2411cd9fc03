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
"""The plugin's events reach the stack's event sinks as Heat's do."""

import types

import pytest

from heat_breakpoint.engine.check import events


class Stack:
    def __init__(self, sinks):
        self.env = types.SimpleNamespace(get_event_sinks=lambda: sinks)
        self.dispatched = []

    def dispatch_event(self, ev):
        self.dispatched.append(ev)


@pytest.mark.parametrize('sinks, sent', [([], 0), (['zaqar sink'], 1)])
def test_an_event_goes_to_the_sinks_there_are(sinks, sent):
    stack = Stack(sinks)
    events._dispatch(stack, 'the event')
    assert stack.dispatched == ['the event'] * sent
