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
"""A typo below a nested stack, refused before the stack is created.

``breakpoint set`` checks ``outer/inner`` in the engine, against the
nested templates Heat loads. A create has no stack yet, so the client
follows the same path through the local files Heat will be sent: a
resource whose type is a template file beside its parent, or a type the
``-e`` files' ``resource_registry`` maps to a local template (as
heatclient resolves it: relative to the environment file). Whatever only
Heat can resolve (a URL, a group's members, a type its global
environment maps) is given the benefit of the doubt.
"""

import logging
import os
import typing

from heatclient.common import template_utils

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import nested_paths
from heat_breakpoint.model import nesting
from heatclient_ext import exceptions

LOG = logging.getLogger(__name__)

_TEMPLATE_SUFFIXES = ('.yaml', '.yml', '.template', '.json')


class TemplateNames(dict):
    """``{name: type}`` of a template's top-level resources, and its path.

    The path lets a nested breakpoint be checked against the nested
    templates beside it (:func:`check`).
    """

    path: typing.Optional[str] = None


def template_resource_names(path) -> typing.Optional[dict]:
    """``{name: type}`` of a local template's top-level resources.

    None if unreadable. Iterating it gives the names.
    """
    if not path:
        return None
    try:
        template = template_utils.get_template_contents(
            template_file=path, fetch_child=False)[1]
    except Exception:  # heatclient reports a bad template itself, later
        LOG.debug('Cannot read template %s for name checks', path)
        return None
    types = nesting.resource_types(template)
    if types is None:
        return None
    found = TemplateNames(types)
    found.path = path
    return found


def _local_file(base: typing.Optional[str],
                target) -> typing.Optional[str]:
    """The local template ``target`` names, relative to ``base``'s folder.

    None when it is no template file, or one only Heat can fetch.
    """
    if not isinstance(target, str) or not target.endswith(
            _TEMPLATE_SUFFIXES):
        return None
    if '://' in target:
        return target[len('file://'):] if target.startswith('file://') \
            else None
    # Without a base (a template of no file) it is relative to here.
    return os.path.join(os.path.dirname(base or ''), target)


def check(found, types, files: typing.Iterable[dict] = ()) -> None:
    """Refuse ``outer/inner`` where ``outer``'s template has no ``inner``.

    ``types`` is :func:`template_resource_names` of the root template;
    ``files`` the ``-e`` files (``{'path', 'env'}``). The walk is the
    API filter's (:mod:`heat_breakpoint.model.nested_paths`), here among
    local files.
    """
    path = getattr(types, 'path', None)
    if path is None:
        return
    try:
        nested_paths.check(found, path, types, files, _local_file,
                           template_resource_names)
    except breakpoints.BreakpointError as exc:
        # the shells' one-line error for a command that cannot be done
        raise exceptions.BreakpointCommandError(str(exc)) from None
