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
"""A hold is released even where a namesake of the resource is in the stack.

Heat finds a signal's resource by name. After an update whose replacement
of ``test1`` failed (rollback disabled), the manual rollback (the first
template again) cleans up the failed replacement while it updates the
original ``test1``: two rows named ``test1``. Held there, the original
must be released by ``continue``, not the namesake Heat would pick (which
refuses: ``Signal resource during DELETE is not supported``). Found by
Heat's own ``test_stack_update_replace_manual_rollback`` with every
resource held (``tools/heat_integration.py``).
"""

import copy

from heatclient_ext.v1 import manager as bp_v1
from tests.functional import utils

TEMPLATE = {
    'heat_template_version': 'pike',
    'resources': {'test1': {'type': 'OS::Heat::TestResource', 'properties': {
        'value': 'Test1', 'fail': False, 'update_replace_value': '1',
        'action_wait_secs': {'create': 1, 'delete': 3}}}},
}


def _with(**props):
    template = copy.deepcopy(TEMPLATE)
    template['resources']['test1']['properties'].update(props)
    return template


def test_continue_releases_the_held_one_not_its_namesake(heat, stack_name):
    heat.stacks.create(stack_name=stack_name, template=TEMPLATE)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    original = heat.resources.get(stack_name, 'test1').physical_resource_id
    heat.stacks.update(stack_name, template=_with(
        update_replace_value='2', fail=True), disable_rollback=True)
    utils.wait_stack(heat, stack_name, 'UPDATE_FAILED')

    heat.stacks.update(stack_name, template=TEMPLATE,
                       environment={'breakpoints': ['test1']})
    manager = bp_v1.BreakpointManager(heat)
    utils.wait_for(lambda: manager.held_now(stack_name)[1], 90,
                   what='test1 held')
    released = manager.continue_(stack_name)
    assert [row['resource'] for row in released] == ['test1']
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    final = heat.resources.get(stack_name, 'test1').physical_resource_id
    assert final == original
    assert not manager.held_now(stack_name)[1]
