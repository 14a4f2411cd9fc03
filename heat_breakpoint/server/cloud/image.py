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
"""Simulated Glance: the images Heat looks up by name or ID.

No template's image is modelled (an image resource is served from its
schemas); what Heat asks of Glance is whether an image exists, which
the inventory answers.
"""

from heat_breakpoint.server.cloud import models


class Image(models.SimulatedType):
    kind = 'image'
    lookups = {'find_image_by_name_or_id': True, 'get_image': False}
    section = 'images'

    @classmethod
    def inventory_fields(cls, name):
        return {'status': 'active', 'min_disk': 0, 'min_ram': 0,
                'disk_format': 'qcow2', 'container_format': 'bare',
                'size': 21430272}
