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
"""Sphinx configuration of heat-breakpoint's documentation.

Build: ``tox -e docs``, or ``sphinx-build -W -b html doc/source
doc/build/html`` in an environment with the package and
``doc/requirements.txt`` installed. The configuration and policy
references are generated from the package's ``oslo.config.opts`` and
``oslo.policy.policies`` entry points; the release notes from
``releasenotes/notes`` by reno.
"""

project = 'heat-breakpoint'
copyright = 'heat-breakpoint developers'
author = 'heat-breakpoint developers'

extensions = [
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
    'oslo_policy.sphinxext',
    'oslo_policy.sphinxpolicygen',
    'reno.sphinxext',
]

# The samples are written into the source tree at build time, from the
# same generator configurations as ``tox -e genconfig`` and ``genpolicy``.
config_generator_config_file = [
    ('../../etc/oslo-config-generator/heat_breakpoint.conf',
     '_static/heat_breakpoint'),
]
policy_generator_config_file = [
    ('../../etc/oslo-policy-generator/heat_breakpoint.conf',
     '_static/heat_breakpoint'),
]

root_doc = 'index'
exclude_patterns = ['_build']
templates_path = []
html_theme = 'alabaster'
html_static_path = ['_static']
html_theme_options = {'description': 'Stack breakpoints for OpenStack Heat'}
