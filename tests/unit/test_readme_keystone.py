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
"""The admin guide's Keystone configuration is what the code writes.

``doc/source/admin/install.rst``, "With Keystone": the paste pipeline
and heat.conf of a deployment with Keystone, as
:mod:`heat_breakpoint.server.config` writes them for the Keystone tier
and ``heat-breakpoint-server --keystone``, from the installed Heat's own
api-paste.ini. Not written by hand.
"""

import os

from heat_breakpoint.server import config

README = os.path.join(os.path.dirname(__file__), '..', '..', 'doc', 'source',
                      'admin', 'install.rst')
TITLE = 'With Keystone'
#: The guide's placeholders.
AUTH = config.KeystoneAuth(
    url='http://keystone.example.com:5000', username='heat',
    password='HEAT_PASSWORD', stack_user_domain='heat',
    stack_domain_admin='heat_domain_admin',
    stack_domain_admin_password='DOMAIN_ADMIN_PASSWORD')


def literal_blocks(title):
    """The literal blocks of one subsection of the page, dedented."""
    with open(README) as f:
        lines = f.read().splitlines()
    start = lines.index(title)
    assert set(lines[start + 1]) == {'-'}
    end = next((i for i in range(start + 2, len(lines) - 1)
                if lines[i] and set(lines[i + 1]) <= {'-', '='} and
                len(lines[i + 1]) >= len(lines[i]) and lines[i + 1].strip()),
               len(lines))
    blocks, current, inside = [], None, False
    for line in lines[start + 2:end]:
        if line.endswith('::'):
            current, inside = [], True
            blocks.append(current)
        elif inside and (line.startswith('    ') or not line):
            current.append(line[4:])
        elif inside:
            inside = False
    return ['\n'.join(block).strip('\n') for block in blocks]


def paste_snippet():
    lines = ['[filter:%s]' % config.FILTER,
             'paste.filter_factory = %s' % config.FILTER_FACTORY]
    for section, (flavor, pipeline) in config.keystone_pipelines().items():
        lines += ['', '[%s]' % section, '%s = %s' % (flavor, pipeline)]
    return '\n'.join(lines)


def conf_snippet():
    sections = []
    for section, values in config.keystone_options(AUTH).items():
        sections.append('\n'.join(['[%s]' % section] + [
            '%s = %s' % item for item in values.items()]))
    return '\n\n'.join(sections)


def test_the_admin_guide_shows_what_the_code_writes():
    assert literal_blocks(TITLE) == [paste_snippet(), conf_snippet()]


def test_the_written_paste_file_has_that_pipeline(tmp_path):
    import configparser
    paste = configparser.RawConfigParser()
    paste.optionxform = str
    paste.read(config.write_paste_file(str(tmp_path)))
    for section, (flavor, pipeline) in config.keystone_pipelines().items():
        assert paste.get(section, flavor) == pipeline
    assert paste.get('filter:%s' % config.FILTER,
                     'paste.filter_factory') == config.FILTER_FACTORY
