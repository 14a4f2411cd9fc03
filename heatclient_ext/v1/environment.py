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
"""The environment files a create or update sends, breakpoints included.

heatclient sends the ``-e`` files twice: merged into ``environment`` and
one by one as ``environment_files``. As soon as ``environment_files`` is
present heat-api drops ``environment`` and merges the files itself, so
breakpoints must travel inside a file, and where they go decides whether
they survive Heat's merge (``heat.common.environment_util``):

- the first file with ``parameter_defaults`` keeps every key; later files
  keep only the template's parameters, so the marker goes into that first
  file;
- a later file's ``resource_registry.resources`` replaces an earlier one's,
  so hooks go into the last file that has one.

Files that need a change, and those with a ``breakpoints`` section (which
both heatclient and heat-api reject), are rewritten to temporary copies
with their registry URLs made absolute; whatever has no home goes into one
generated file appended to the list. Nothing is written when no breakpoint
is involved.

A PATCH update (``--existing``) merges the files into the stored
environment key by key, so removing a hook means sending ``hooks: []``
(``null`` crashes heatclient's URL resolution) and the marker is sent whole.
"""

import copy
import logging
import os
import shutil
import tempfile
import typing
from urllib import error as url_error
from urllib import request

from heatclient.common import template_utils
from heatclient.common import utils as heat_utils
from heatclient import exc as heat_exc
from oslo_serialization import jsonutils

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import envfile
from heat_breakpoint.model import nesting
from heat_breakpoint.model import registry
from heat_breakpoint.model import section as env_section
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import nested_names

LOG = logging.getLogger(__name__)

RESOURCE_REGISTRY = 'resource_registry'
RESOURCES = 'resources'
PARAMETER_DEFAULTS = 'parameter_defaults'
HOOKS = 'hooks'
GENERATED_NAME = 'breakpoints.yaml'
PRE_HOOKS = tuple('pre-' + action for action in breakpoints.ACTIONS)


class Prepared:
    """The environment paths to send, and the temporary files behind them."""

    def __init__(self, paths, tmpdir, breakpoints_) -> None:
        self.paths = paths
        self.tmpdir = tmpdir
        #: The breakpoints the stack will have (those of a PATCH included).
        self.breakpoints = breakpoints_

    def cleanup(self) -> None:
        if self.tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


def read_environment(path: str) -> dict:
    """Load one ``-e`` file, ``breakpoints`` section allowed."""
    url = heat_utils.normalise_file_path_to_url(path)
    try:
        raw = request.urlopen(url).read()
    except (url_error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, 'reason', exc)
        raise exceptions.BreakpointCommandError(
            _('Cannot read environment file %(path)s: %(reason)s') %
            {'path': path, 'reason': exceptions.one_line(reason)})
    if isinstance(raw, bytes):
        raw = raw.decode('utf-8', 'replace')
    try:
        env = envfile.load_environment_text(raw)
    except ValueError as exc:  # BreakpointError is one
        raise exceptions.BreakpointCommandError(
            _('Malformed environment file %(path)s: %(reason)s') %
            {'path': path, 'reason': exceptions.one_line(exc)})
    return env


def hooks_tree(env: dict | None) -> dict:
    """Map each registry resource path (a tuple) to its hooks (a list)."""
    return {path: list(hooks)
            for path, hooks in registry.native_hooks(env or {})}


def _set_hooks(env: dict, path: tuple, hooks: list) -> None:
    node = env.setdefault(RESOURCE_REGISTRY, {}).setdefault(RESOURCES, {})
    for segment in path:
        child = node.get(segment)
        if not isinstance(child, dict):
            child = node[segment] = {}
        node = child
    node[HOOKS] = list(hooks)


def _marker(env: dict) -> list:
    return list((env.get(PARAMETER_DEFAULTS) or {}).get(
        registry.MARKER) or [])


def _has_resources(env: dict) -> bool:
    return bool((env.get(RESOURCE_REGISTRY) or {}).get(RESOURCES))


def _drop_pre_hooks(env: dict, names) -> bool:
    """Drop the pre-* hooks at the named paths of one env; True if changed."""
    changed = False
    for path, hooks in hooks_tree(env).items():
        if '/'.join(path) in names:
            kept = [hook for hook in hooks if hook not in PRE_HOOKS]
            if kept != hooks:
                _set_hooks(env, path, kept)
                changed = True
    return changed


def _parse_added(add) -> list:
    """``--breakpoint`` names, or breakpoints already parsed (other kinds).

    One breakpoint of each kind per name: given twice is an error.
    """
    added = []
    seen = set()
    for item in add or []:
        bp = item if isinstance(item, breakpoints.Breakpoint) else \
            breakpoints.parse_name(item)
        if bp.key in seen:
            raise exceptions.BreakpointCommandError(
                _('breakpoint %r is given twice') % bp.label)
        seen.add(bp.key)
        added.append(bp)
    if len(added) > breakpoints.MAX_BREAKPOINTS:
        breakpoints.parse_names([bp.name for bp in added])  # says so
    return added


def _merged(requested, removed_names) -> list:
    """The requested breakpoints by name and kind, later ones winning."""
    by_key = {}
    for bp in requested:
        by_key[bp.key] = bp
    for key in list(by_key):
        if key[0] in removed_names:
            del by_key[key]
    return list(by_key.values())


def _read_files(env_paths) -> tuple:
    files, from_files = [], []
    for path in env_paths:
        env = read_environment(path)
        has_section = breakpoints.SECTION in env
        try:
            # The same checks (and words) as the API filter: the section,
            # an existing marker, and room in the registry for the hooks.
            registry.rewrite_environment(env)
            registry.from_environment(env)
        except breakpoints.BreakpointError as exc:
            raise exceptions.BreakpointCommandError(
                _('Malformed environment file %(path)s: %(reason)s') %
                {'path': path, 'reason': exceptions.one_line(exc)})
        section = env.pop(breakpoints.SECTION, None)
        from_files.extend(env_section.parse_section(section))
        files.append({'path': path, 'env': env, 'changed': has_section})
    return files, from_files


def _add_hooks(env: dict, extra_hooks) -> bool:
    """Add hand-set hooks (``--pre-create`` ...); True if any was new."""
    present = hooks_tree(env)
    changed = False
    for name, hook in extra_hooks:
        path = tuple(name.split(breakpoints.SEPARATOR))
        hooks = present.setdefault(path, [])
        if hook not in hooks:
            hooks.append(hook)
            _set_hooks(env, path, hooks)
            changed = True
    return changed


def _patched(client, stack, requested, removed, extra_hooks=()) -> tuple:
    """Hooks to change and the whole marker for a PATCH update.

    Returns ``(overlay, marker, final)``: ``overlay`` maps each registry
    path whose hooks change to its new hooks (``[]`` removes them).
    """
    stored = _stored_environment(client, stack)
    marked = {bp.name for bp in registry.from_environment(stored)}
    hooked = {'/'.join(path) for path, hooks in hooks_tree(stored).items()
              if set(hooks) & set(PRE_HOOKS)}
    wanted = {bp.name for bp in requested}
    _check_removed(stack, removed, marked | hooked | wanted)
    target = registry.remove_from_environment(
        stored, [name for name in removed if name in marked])
    # Hooks set by hand (--pre-create) are breakpoints to the user too.
    _drop_pre_hooks(target, {name for name in removed
                             if name not in marked})
    target = registry.apply_to_environment(
        target, _merged(requested, removed))
    _add_hooks(target, extra_hooks)
    old_hooks, new_hooks = hooks_tree(stored), hooks_tree(target)
    overlay = {path: new_hooks.get(path, [])
               for path in set(old_hooks) | set(new_hooks)
               if old_hooks.get(path, []) != new_hooks.get(path, [])}
    return overlay, _marker(target), registry.from_environment(target)


def _check_removed(stack, removed, known) -> None:
    """Refuse ``--no-breakpoint`` names the stack will not have.

    ``known``: the stack's stored breakpoints and those being added.
    """
    unknown = [name for name in removed if name not in known]
    if not unknown:
        return
    message = _('Stack %(stack)s has no breakpoint %(names)s') % {
        'stack': stack, 'names': ', '.join(unknown)}
    names = sorted(known)
    closest = breakpoints.closest_names(unknown[0], names, n=3, cutoff=0.4)
    if closest:
        message = '%s; %s' % (message,
                              _('closest: %s') % ', '.join(closest))
    message = '%s (%s)' % (message, _('breakpoints: %s') % (
        ', '.join(names) if names else _('none')))
    raise exceptions.BreakpointCommandError(message)


def _check_nested(client, stack, existing, files, final, types) -> None:
    """Refuse ``outer/inner`` where ``outer`` is surely no nested stack."""
    if not any(len(bp.segments) > 1 for bp in final):
        return
    envs = [entry['env'] for entry in files]
    if existing and stack is not None:
        envs.append(_stored_environment(client, stack))
    nesting.check_nested(final, types, envs)


def prepare(client, env_paths, add=(), remove=(), stack=None,
            existing=False, template_names=None,
            extra_hooks=()) -> Prepared | None:
    """Return the environment paths to send, or None to send them as given.

    ``add`` and ``remove`` are the ``--breakpoint`` / ``--no-breakpoint``
    names; ``stack`` and ``existing`` describe an update (the stored
    environment is read only for a PATCH); ``template_names`` are the
    top-level resource names of the template being sent, if known (a
    mapping of names to types also lets nested names be checked).
    ``extra_hooks`` are ``(name, hook)`` pairs of heatclient's own
    ``--pre-create`` / ``--pre-update``: heatclient puts them in the merged
    environment, which Heat ignores once files are sent, so they travel in
    the files too.
    """
    added = _parse_added(add)
    removed = [bp.name for bp in breakpoints.parse_names(list(remove or []))]
    both = sorted({bp.name for bp in added} & set(removed))
    if both:
        raise exceptions.BreakpointCommandError(
            _('Breakpoint %s is both added and removed') % ', '.join(both))
    files, from_files = _read_files(list(env_paths or []))
    if not (added or removed or any(f['changed'] for f in files)):
        return None

    requested = from_files + added
    # hand-set hooks (--pre-update, or in the files) are removable too
    sent_hooks = {name for name, _hook in extra_hooks} | {
        '/'.join(path) for f in files
        for path, hooks in hooks_tree(f['env']).items()
        if set(hooks) & set(PRE_HOOKS)}
    if template_names is None and existing and stack is not None:
        template_names = _stored_resource_names(client, stack)
    if template_names is not None:
        breakpoints.check_resource_names(_merged(requested, removed),
                                         template_names)
    if isinstance(template_names, dict):
        _check_nested(client, stack, existing, files,
                      _merged(requested, removed), template_names)
        nested_names.check(_merged(requested, removed), template_names,
                           files)
    for entry in files:
        if _drop_pre_hooks(entry['env'], set(removed)):
            entry['changed'] = True

    generated: dict = {}
    hook_home = next((f for f in reversed(files)
                      if _has_resources(f['env'])), None)
    hook_env = hook_home['env'] if hook_home else generated
    if existing:
        overlay, marker, final = _patched(client, stack, requested, removed,
                                          extra_hooks)
        for path, hooks in sorted(overlay.items()):
            _set_hooks(hook_env, path, hooks)
        send_marker = True
    else:
        if removed:
            # A full update replaces the environment: a removal can only
            # mean a breakpoint the stack has or one being added.
            _check_removed(stack, removed, {
                bp.name for bp in registry.armed(
                    _stored_environment(client, stack))} | {
                bp.name for bp in requested} | sent_hooks)
        final = _merged(requested, removed)
        # Applied where the hooks will live, so the marker records the
        # user's own hooks on the same entries and removal gives them back.
        applied = registry.apply_to_environment(hook_env, final)
        overlay = hooks_tree(applied) != hooks_tree(hook_env)
        marker = _marker(applied)
        if overlay:
            hook_env[RESOURCE_REGISTRY] = applied[RESOURCE_REGISTRY]
        overlay = _add_hooks(hook_env, extra_hooks) or overlay
        send_marker = bool(marker)
    if overlay and hook_home is not None:
        hook_home['changed'] = True

    if send_marker:
        marker_home = next((f for f in files
                            if f['env'].get(PARAMETER_DEFAULTS)), None)
        marker_env = marker_home['env'] if marker_home else generated
        marker_env.setdefault(PARAMETER_DEFAULTS, {})[
            registry.MARKER] = marker
        if marker_home is not None:
            marker_home['changed'] = True

    return Prepared(*_write_all(files, generated), final)


def _write_all(files, generated) -> tuple[list, str]:
    tmpdir = tempfile.mkdtemp(prefix='heat-breakpoint-')
    paths = []
    try:
        for index, entry in enumerate(files):
            if entry['changed']:
                paths.append(_write_copy(tmpdir, index, entry))
            else:
                paths.append(entry['path'])
        if generated:
            name = os.path.join(tmpdir, GENERATED_NAME)
            _write(name, generated)
            paths.append(name)
    except BaseException:
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    return paths, tmpdir


def hook_pairs(names, hook) -> list:
    """``[(name, hook)]`` for heatclient's ``--pre-<action>`` values."""
    return [(name, hook) for name in names or []]


# Kept here for the commands that read a template's names before prepare().
template_resource_names = nested_names.template_resource_names


def _write(name: str, env: dict) -> None:
    with open(name, 'w', encoding='utf-8') as out:
        out.write(jsonutils.dumps(env, indent=2, sort_keys=True))
        out.write('\n')


def _write_copy(tmpdir: str, index: int, entry: dict) -> str:
    """Write a user file's rewritten copy, its relative URLs made absolute."""
    url = heat_utils.normalise_file_path_to_url(entry['path'])
    env = copy.deepcopy(entry['env'])
    try:
        template_utils.resolve_environment_urls(
            env.get(RESOURCE_REGISTRY), {}, heat_utils.base_url_for_url(url))
    except (heat_exc.CommandError, url_error.URLError, OSError) as exc:
        raise exceptions.BreakpointCommandError(
            _('Cannot resolve the files of environment %(path)s: %(reason)s')
            % {'path': entry['path'], 'reason': exceptions.one_line(exc)})
    folder = os.path.join(tmpdir, str(index))
    os.mkdir(folder)
    name = os.path.join(folder, os.path.basename(entry['path']) or 'env.yaml')
    _write(name, env)
    return name


def _stored_environment(client, stack) -> dict:
    try:
        return client.stacks.environment(stack)
    except heat_exc.HTTPNotFound:
        raise exceptions.BreakpointCommandError(
            _('Stack not found: %s') % stack)


def _stored_resource_names(client, stack) -> typing.Optional[dict]:
    """``{name: type}`` of the stack's stored template, if any."""
    try:
        template = client.stacks.template(stack)
    except Exception:  # checked again by Heat; not worth failing here
        return None
    if not isinstance(template, dict) or not isinstance(
            template.get('resources', template.get('Resources')), dict):
        return None
    return nesting.resource_types(template)
