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
"""Fixtures the unit tests of the server half share."""

from unittest import mock

import pytest


@pytest.fixture
def enforcer():
    """Heat's policy enforcer under the new defaults (a module may override).

    No heat.conf, no policy file: Heat's defaults in code, ours added.
    """
    from heat.common import policy as heat_policy
    from oslo_config import cfg
    cfg.CONF([], project='heat', default_config_files=[],
             default_config_dirs=[])
    made = heat_policy.Enforcer()
    cfg.CONF.set_override('enforce_new_defaults', True, group='oslo_policy')
    try:
        yield made
    finally:
        cfg.CONF.clear_override('enforce_new_defaults', group='oslo_policy')


@pytest.fixture
def db():
    """An in-memory SQLite database as Heat's, with our tables in it.

    (Imported here, not at the top: the client half's tests and the
    decision's, ``tox -e decision``, run where Heat is not installed.)
    """
    import sqlalchemy as sa

    from heat_breakpoint.db import tables
    engine = sa.create_engine('sqlite://')
    with mock.patch.object(tables.db_api, 'get_engine',
                           return_value=engine), \
            mock.patch.object(tables, '_ready_engines', set()):
        tables.engine()  # the tables, before queries are counted
        yield engine
