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
"""Simulated Cinder: volumes and their attachments to servers.

A volume is ``available`` until an attachment makes it ``in-use``; its
``attachments`` name the server and the device, as Cinder's do. Each
type is one class here (an EC2 type, a class of its own on the same
behaviour), as are the kinds Heat looks up in Cinder (volume types,
snapshots, backups, QoS specs).
"""

import datetime
import json

from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import values


def _attachments(store, volume_id) -> list:
    return [{'id': a.id, 'attachment_id': a.id, 'volume_id': volume_id,
             'server_id': a['server_id'], 'device': a['device'],
             'host_name': None}
            for a in store.all('volume_attachment', volume_id=volume_id)]


def _status(store, volume_id) -> str:
    return 'in-use' if _attachments(store, volume_id) else 'available'


class _Volume(models.SimulatedType):
    kind = 'volume'
    build_times = {'CREATE': (5.0, 10.0)}

    def create(self, sim):
        fields = super().create(sim)
        props = sim.props
        size = props.get('size', props.get('Size'))
        fields.update({
            'size': int(size) if size is not None else 1,
            'availability_zone': props.get('availability_zone',
                                           props.get('AvailabilityZone',
                                                     'nova')),
            'volume_type': props.get('volume_type') or '__DEFAULT__',
            'bootable': 'true' if props.get('image') else 'false',
            'encrypted': False, 'multiattach': False,
            'metadata': props.get('metadata') or {},
            'created_at': datetime.datetime.now(
                datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000000'),
            'status': 'available'})
        return fields

    def attribute(self, sim, obj, name):
        attachments = _attachments(sim.store, obj.id)
        if name == 'status':
            return _status(sim.store, obj.id)
        if name == 'attachments':
            return json.dumps(attachments)
        if name == 'attachments_list':
            return attachments
        if name in ('display_name',):
            return obj.name or ''
        if name == 'display_description':
            return obj.get('description') or ''
        if name == 'metadata':
            return json.dumps(obj.get('metadata') or {})
        if name == 'metadata_values':
            return obj.get('metadata') or {}
        if name in ('snapshot_id', 'source_volid'):
            return obj.get(name) or ''
        if name == 'size':
            return str(obj.get('size'))
        if name == 'encrypted':
            return 'false'
        return models.NOTHING

    def show(self, sim, obj):
        shown = super().show(sim, obj)
        shown.update(status=_status(sim.store, obj.id),
                     attachments=_attachments(sim.store, obj.id))
        return shown


class Volume(_Volume):
    type_name = 'OS::Cinder::Volume'
    failures = {'CREATE': 'Went to status error due to "Unknown"'}
    refusals = {'CREATE': (
        'OverLimit', "VolumeLimitExceeded: Maximum number of volumes "
        "allowed (10) exceeded for quota 'volumes'. (HTTP 413)")}
    lookups = {'get_volume': False}
    section = 'volumes'


class Ec2Volume(_Volume):
    type_name = 'AWS::EC2::Volume'


class _VolumeAttachment(models.SimulatedType):
    kind = 'volume_attachment'
    build_times = {'CREATE': (3.0, 6.0)}

    def create(self, sim):
        props = sim.props
        server = props.get('instance_uuid', props.get('InstanceId'))
        volume = props.get('volume_id', props.get('VolumeId'))
        device = props.get('mountpoint', props.get('Device')) or '/dev/vdb'
        return {'server_id': server, 'volume_id': volume, 'device': device,
                'status': 'attached',
                'attachment_id': values.object_id('attachment', sim.seed)}

    def update(self, sim, obj, prop_diff):
        changes = {}
        for key, field in (('instance_uuid', 'server_id'),
                           ('InstanceId', 'server_id'),
                           ('volume_id', 'volume_id'),
                           ('VolumeId', 'volume_id'),
                           ('mountpoint', 'device'), ('Device', 'device')):
            if key in prop_diff:
                changes[field] = prop_diff[key]
        return changes


class VolumeAttachment(_VolumeAttachment):
    type_name = 'OS::Cinder::VolumeAttachment'
    failures = {'CREATE': 'Failed to attach volume to server: Went to '
                          'status error due to "Unknown"'}


class Ec2VolumeAttachment(_VolumeAttachment):
    type_name = 'AWS::EC2::VolumeAttachment'


class VolumeType(models.SimulatedType):
    kind = 'volume_type'
    entity = 'VolumeType'
    lookups = {'get_volume_type': True}
    constraints = ('cinder.vtype',)
    section = 'volume_types'

    @classmethod
    def inventory_fields(cls, name):
        return {'is_public': True}


class VolumeSnapshot(models.SimulatedType):
    kind = 'volume_snapshot'
    entity = 'VolumeSnapshot'
    lookups = {'get_volume_snapshot': False}
    constraints = ('cinder.snapshot',)


class VolumeBackup(models.SimulatedType):
    kind = 'volume_backup'
    entity = 'Volume backup'
    lookups = {'get_volume_backup': False}
    constraints = ('cinder.backup',)


class QosSpecs(models.SimulatedType):
    kind = 'qos_specs'
    entity = 'QoSSpecs'
    lookups = {'get_qos_specs': True}
