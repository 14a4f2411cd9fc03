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
"""The seam's signature checks: exact lists, and prefixes for methods
whose later parameters differ between Heat releases."""

import pytest

from heat_breakpoint.engine import seam


class Heat24Stack:
    def converge_stack(self, template, action='UPDATE', new_stack=None,
                       pre_converge=None):
        pass


class Heat27Stack:
    def converge_stack(self, template, action='UPDATE', new_stack=None,
                       pre_converge=None, new_traversal_id=None,
                       abandon=False):
        pass


class Renamed:
    def converge_stack(self, tmpl, action='UPDATE', new_stack=None,
                       pre_converge=None):
        pass


EXPECTED = {'converge_stack': seam.EXPECTED_STACK['converge_stack']}


@pytest.mark.parametrize('cls', [Heat24Stack, Heat27Stack])
def test_a_prefix_accepts_the_releases_we_support(cls):
    seam._check_methods(cls, EXPECTED)


def test_a_prefix_still_checks_what_it_names():
    with pytest.raises(seam.IncompatibleHeat, match='converge_stack'):
        seam._check_methods(Renamed, EXPECTED)


def test_exact_lists_stay_exact():
    with pytest.raises(seam.IncompatibleHeat):
        seam._check_methods(Heat27Stack, {
            'converge_stack': ('self', 'template', 'action', 'new_stack',
                               'pre_converge')})


class Resource:
    def __init__(self):
        self._data = None
        self._atomic_key = None
        self._stored_properties_data = None


class RenamedCache(Resource):
    def __init__(self):
        self._cached_data = None
        self._atomic_key = None
        self._stored_properties_data = None


def test_heats_private_attributes_are_checked_at_install():
    from heat_breakpoint.engine import heat_internals
    assert heat_internals.missing_attributes(Resource) == []
    assert heat_internals.missing_attributes(RenamedCache) == [
        'RenamedCache._data']
    with pytest.raises(seam.IncompatibleHeat, match='RenamedCache._data'):
        seam._check_internals(RenamedCache)


def test_heats_private_methods_are_checked_at_install(monkeypatch):
    from heat.engine import resource

    def renamed(self, key):
        pass
    monkeypatch.setattr(resource.Resource, '_incr_atomic_key', renamed)
    with pytest.raises(seam.IncompatibleHeat, match='_incr_atomic_key'):
        seam._check_internals(resource.Resource)
