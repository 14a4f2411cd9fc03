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
"""Heat's private names, the few the plugin needs, in one place.

The seam (:mod:`.seam`) is where the plugin reaches into Heat; these are
the names below Heat's public surface it must read or write besides the
methods it wraps: a resource's cached data, its row's version
(``atomic_key``), its stored property values, its refusal of a signal, a
nested stack parsed before it exists, a resource object for one row, a
parent resource's stack. Nothing else in the plugin names them (a
package rule scans for it), and :func:`.seam.install` checks
:data:`METHODS` (their parameters) and :data:`ATTRIBUTES`, so a Heat
release that renames one disables the plugin at start (stacks then run
as stock), not at the first hold.
"""

import inspect

#: Heat's private methods used here, as seam.install checks the rest:
#: ``{class path: {name: parameters}}``.
METHODS = {
    'heat.engine.resource.Resource': {
        '_incr_atomic_key': ('self', 'last_key'),
        '_signal_check_action': ('self',)},
    'heat.engine.stack.Stack': {
        '_resource_from_db_resource': ('self', 'db_res', 'stk_def_cache')},
    'heat.engine.resources.stack_resource.StackResource': {
        '_parse_nested_stack': ('self', 'stack_name', 'child_template',
                                'child_params', 'timeout_mins',
                                'adopt_data')},
    'heat.engine.parent_rsrc.ParentResourceProxy': {'_stack': ('self',)},
}
#: The private attributes a Resource sets in its ``__init__``.
ATTRIBUTES = ('_data', '_atomic_key', '_stored_properties_data')


def missing_attributes(resource_cls) -> list:
    """The :data:`ATTRIBUTES` ``resource_cls.__init__`` no longer sets."""
    try:
        source = inspect.getsource(resource_cls.__init__)
    except (OSError, TypeError):
        return list(ATTRIBUTES)
    return ['%s.%s' % (resource_cls.__name__, name) for name in ATTRIBUTES
            if 'self.%s = ' % name not in source]


def cached_data(rsrc):
    """The data Heat keeps of a resource's rows (None: not read yet)."""
    return rsrc._data


def keep_data(rsrc, data) -> None:
    """What Heat keeps of the resource's data (None: read it again)."""
    rsrc._data = data


def row_version(rsrc) -> int:
    """The resource row's version Heat compares on an atomic write."""
    return rsrc._atomic_key


def row_written(rsrc, version) -> None:
    """An atomic write went through: the row's version moved on."""
    rsrc._incr_atomic_key(version)


def check_signal_action(rsrc) -> None:
    """Heat's own refusal of a signal in the resource's state, if any."""
    rsrc._signal_check_action()


def stored_properties(rsrc):
    """The property values stored with the resource (None: none yet)."""
    return rsrc._stored_properties_data


def parse_nested_stack(rsrc, name, template, params):
    """The nested stack ``rsrc`` would make, parsed, not stored."""
    return rsrc._parse_nested_stack(name, template, params)


def resource_of_row(stack, db_resource):
    """A resource object of ``stack`` for one row (a namesake's too)."""
    return stack._resource_from_db_resource(db_resource)


def stack_of(parent):
    """The stack a parent resource (Heat's proxy of it) is in."""
    return parent._stack()
