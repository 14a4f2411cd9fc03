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
"""Every "closest:" suggestion comes most alike first, in natural order.

The engine's refusal of an unknown command target and the client's
refusal of an unknown ``--no-breakpoint`` both suggest names through
:func:`heat_breakpoint.model.breakpoints.closest_names`.
"""

from heat.common import exception
import pytest

from heat_breakpoint.engine.commands import commands
from heatclient_ext import exceptions
from heatclient_ext.v1 import environment

NODES = ['node_%d' % index for index in (1, 2, 3, 4)]


def test_engine_refusal_offers_the_closest_first():
    with pytest.raises(exception.InvalidBreakPointHook) as caught:
        commands._not_found('s', 'node_9', 'node_9', NODES)
    assert 'closest: node_1, node_2, node_3 (resources: ' in str(
        caught.value)


def test_engine_refusal_puts_the_most_alike_before_the_rest():
    with pytest.raises(exception.InvalidBreakPointHook) as caught:
        commands._not_found('s', 'nod_3', 'nod_3', NODES)
    assert 'closest: node_3, node_1, node_2 (' in str(caught.value)


def test_client_refusal_offers_the_closest_first():
    with pytest.raises(exceptions.BreakpointCommandError) as caught:
        environment._check_removed('s', ['node_9'], set(NODES))
    assert 'closest: node_1, node_2, node_3 (breakpoints: ' in str(
        caught.value)


def test_client_refusal_natural_order_beats_text_order():
    names = {'node_%d' % index for index in (10, 2, 1)}
    with pytest.raises(exceptions.BreakpointCommandError) as caught:
        environment._check_removed('s', ['node_9'], names)
    assert 'closest: node_1, node_2, node_10 (' in str(caught.value)
