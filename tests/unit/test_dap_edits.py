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
"""What the editor saved or set while stopped, as the edit to apply."""

from heatclient_ext.dap import edits
from heatclient_ext.dap import lines

ROOT = """\
heat_template_version: 2018-08-31
parameters:
  size: {type: string}
resources:
  vol:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: size}
      fail: {get_param: [size, 0]}
      wait_secs: 1
  tier:
    type: tier.yaml
"""
TIER = """\
heat_template_version: 2018-08-31
resources:
  web: {type: OS::Heat::TestResource}
"""


def files(tmp_path):
    (tmp_path / 'app.yaml').write_text(ROOT)
    (tmp_path / 'tier.yaml').write_text(TIER)
    (tmp_path / 'env.yaml').write_text('parameters: {size: "1"}\n')
    root = str(tmp_path / 'app.yaml')
    tmap = lines.TemplateMap(root)
    return root, tmap


def test_nothing_saved_or_set_is_no_edit(tmp_path):
    root, tmap = files(tmp_path)
    saved = edits.SavedEdits(root, [str(tmp_path / 'env.yaml')], tmap)
    assert saved.pending() is None


def test_a_nested_file_saved_resends_the_template_and_environment(tmp_path):
    root, tmap = files(tmp_path)
    env = str(tmp_path / 'env.yaml')
    saved = edits.SavedEdits(root, [env], tmap)
    (tmp_path / 'tier.yaml').write_text(
        TIER + '  db: {type: OS::Heat::None}\n')
    edit = saved.pending()
    assert (edit.template, edit.environment_files, edit.parameters) == (
        root, (env,), ())
    saved.applied(tmap)
    assert saved.pending() is None


def test_a_parameter_set_is_sent_alone(tmp_path):
    root, tmap = files(tmp_path)
    saved = edits.SavedEdits(root, (), tmap)
    saved.parameters['size'] = '5'
    edit = saved.pending()
    assert (edit.template, edit.parameters) == (None, ('size=5',))
    saved.applied(tmap)
    assert saved.pending() is None and saved.parameters == {}


def test_only_a_plain_get_param_can_be_set(tmp_path):
    root, tmap = files(tmp_path)
    assert edits.parameter_inputs(tmap.location('vol')) == {'value': 'size'}
    assert edits.parameter_inputs(tmap.location('tier')) == {}
