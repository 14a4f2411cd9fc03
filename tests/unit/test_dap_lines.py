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
"""Template lines to resource paths (:mod:`heatclient_ext.dap.lines`)."""

import os
import textwrap

import pytest

from heatclient_ext.dap import lines

ROOT = '''\
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}}

  tier_1:
    type: tier.yaml
    depends_on: a
  tier_2:
    type: tier.yaml
    properties:
      v: {get_attr: [tier_1, out]}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: member.yaml
outputs:
  o: {value: {get_attr: [a, output]}}
'''
TIER = '''\
heat_template_version: 2018-08-31
resources:
  inner:
    type: OS::Heat::TestResource
    properties:
      value: |
        two lines
        of text
  after:
    type: OS::Heat::TestResource
    properties: {value: {get_resource: inner}}
'''
MEMBER = '''\
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Heat::TestResource
'''
UNUSED = '''\
heat_template_version: 2018-08-31
resources:
  lonely:
    type: OS::Heat::TestResource
'''


@pytest.fixture
def tree(tmp_path):
    for name, text in (('app.yaml', ROOT), ('tier.yaml', TIER),
                       ('member.yaml', MEMBER), ('unused.yaml', UNUSED)):
        (tmp_path / name).write_text(text)
    return tmp_path


def _map(tree):
    return lines.TemplateMap(str(tree / 'app.yaml'))


def test_top_level_line_maps_to_its_resource(tree):
    found, paths, why = _map(tree).resource_at(str(tree / 'app.yaml'), 7)
    assert (found.name, found.line, found.end, why) == ('a', 5, 7, None)
    assert paths == ['a']


def test_key_line_and_last_body_line_belong_to_the_resource(tree):
    tmap = _map(tree)
    assert tmap.resource_at(str(tree / 'app.yaml'), 12)[0].name == 'tier_2'
    assert tmap.resource_at(str(tree / 'app.yaml'), 15)[0].name == 'tier_2'
    assert tmap.resource_at(str(tree / 'app.yaml'), 16)[0].name == 'group'


def test_line_outside_any_resource_says_why(tree):
    tmap = _map(tree)
    for line in (1, 3, 8, 22):  # header, parameters, a blank, outputs
        found, paths, why = tmap.resource_at(str(tree / 'app.yaml'), line)
        assert found is None and paths == []
        assert 'line %d is outside any resource of app.yaml' % line in why
        assert 'a, tier_1, tier_2, group' in why


def test_nested_file_used_twice_maps_to_both_paths(tree):
    found, paths, why = _map(tree).resource_at(str(tree / 'tier.yaml'), 7)
    assert (found.name, found.line, why) == ('inner', 3, None)
    assert paths == ['tier_1/inner', 'tier_2/inner']


def test_block_scalar_ends_with_its_last_line(tree):
    tmap = _map(tree)
    assert tmap.resource_at(str(tree / 'tier.yaml'), 8)[0].name == 'inner'
    assert tmap.resource_at(str(tree / 'tier.yaml'), 9)[0].name == 'after'


def test_group_member_file_maps_to_every_member(tree):
    tmap = _map(tree)
    found, paths, why = tmap.resource_at(str(tree / 'member.yaml'), 4)
    assert (found.name, found.line) == ('server', 3)
    assert paths == ['group/*/server']
    # And back: a held member resource finds its line and its parents.
    frames = tmap.frames('group/1/server')
    assert [(p, d.file.rsplit('/', 1)[-1], d.line) for p, d in frames] == [
        ('group/1/server', 'member.yaml', 3), ('group/1', 'app.yaml', 20),
        ('group', 'app.yaml', 16)]


def test_nested_frames_go_up_to_the_root(tree):
    frames = _map(tree).frames('tier_2/after')
    assert [(p, os.path.basename(d.file), d.line) for p, d in frames] == [
        ('tier_2/after', 'tier.yaml', 9), ('tier_2', 'app.yaml', 12)]


def test_file_not_used_by_the_launched_template(tree):
    found, paths, why = _map(tree).resource_at(str(tree / 'unused.yaml'), 3)
    assert found is None and paths == []
    assert why == 'unused.yaml is not used by app.yaml'


def test_unknown_path_has_no_location(tree):
    assert _map(tree).location('nothing/here') is None


def test_requires_and_successors(tree):
    tmap = _map(tree)
    assert tmap.paths['tier_1'].requires == ('a',)
    assert tmap.paths['tier_2'].requires == ('tier_1',)
    assert tmap.paths['tier_1/after'].requires == ('inner',)
    assert tmap.successors('a') == ['tier_1']
    assert tmap.successors('tier_2/inner') == ['tier_2/after']
    assert tmap.first_resources() == ['a', 'group']
    assert tmap.first_resources('tier_1') == ['tier_1/inner']


def test_environment_maps_a_type_to_a_file(tmp_path):
    (tmp_path / 'app.yaml').write_text(textwrap.dedent('''\
        heat_template_version: 2018-08-31
        resources:
          web:
            type: My::Web
        '''))
    (tmp_path / 'lib').mkdir()
    (tmp_path / 'lib' / 'web.yaml').write_text(MEMBER)
    (tmp_path / 'env.yaml').write_text(
        'resource_registry:\n  My::Web: lib/web.yaml\n')
    tmap = lines.TemplateMap(str(tmp_path / 'app.yaml'),
                             [str(tmp_path / 'env.yaml')])
    assert tmap.resource_at(str(tmp_path / 'lib' / 'web.yaml'), 4)[1] == [
        'web/server']


def test_a_file_that_includes_itself_stops(tmp_path):
    (tmp_path / 'loop.yaml').write_text(
        'heat_template_version: 2018-08-31\nresources:\n'
        '  me:\n    type: loop.yaml\n')
    tmap = lines.TemplateMap(str(tmp_path / 'loop.yaml'))
    assert sorted(tmap.paths) == ['me']


def test_bad_yaml_is_a_template_error(tmp_path):
    (tmp_path / 'bad.yaml').write_text('resources: [unclosed\n')
    with pytest.raises(lines.TemplateError) as err:
        lines.TemplateMap(str(tmp_path / 'bad.yaml'))
    assert 'bad.yaml is not valid YAML' in str(err.value)


def test_missing_file_is_a_template_error(tmp_path):
    with pytest.raises(lines.TemplateError) as err:
        lines.TemplateMap(str(tmp_path / 'none.yaml'))
    assert 'Cannot read template' in str(err.value)
