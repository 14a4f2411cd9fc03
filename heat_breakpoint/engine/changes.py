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
"""Holds that depend on what an update will do: ``when: changed|replaced``.

Such a breakpoint holds a resource before its UPDATE only if Heat's own
update decision says the resource will change (``changed``: in place or
replaced) or will be replaced (``replaced``). The decision is Heat's, not
a copy of it, and it is taken once:

* the hold sits inside Heat's ``Resource.update`` exactly where Heat
  decides, its call of ``Resource._needs_update`` (wrapped in
  :mod:`seam` only for convergence update checks). A resource that does
  not need an update returns from there untouched: no breakpoint lookup,
  no extra work;
* for a resource that needs one, whether it is replaced is Heat's own
  ``update_template_diff`` / ``needs_replace_with_tmpl_diff`` /
  ``update_template_diff_properties`` (which raises ``UpdateReplace``),
  the side-effect-free functions Heat's own ``preview_update`` uses. Heat
  calls the last one again later in the same check; it then gets the
  remembered result (:func:`diff_properties`) instead;
* a held resource's check ends (:mod:`parking`); the outcome is kept in
  its data (:data:`PLAN_KEY`) and the check that resumes after the release
  goes on with it, without deciding again (:func:`needs_update`).

Resources an update adds hold before their CREATE under ``changed``
(planned change ``add``), resources it removes before their DELETE
(``remove``); ``replaced`` holds neither.
"""

import json
import types

from heat.engine import resource as heat_resource
from heat.engine import template as heat_template

from heat_breakpoint import breakpoints
from heat_breakpoint.engine import decision
from heat_breakpoint.engine import inputs
from heat_breakpoint.engine import parking
from heat_breakpoint.engine import secrecy

IN_PLACE, REPLACE, ADD, REMOVE = 'in-place', 'replace', 'add', 'remove'
KINDS = (IN_PLACE, REPLACE, ADD, REMOVE)

# Resource data: the planned change of a held resource, with the traversal
# it belongs to, for the check that goes on after the release.
PLAN_KEY = 'breakpoint_planned'

# Heat's methods this module wraps on the resource object of one update
# check (an instance attribute: the resource type's own override, if any,
# is what gets wrapped, and no other use of the class is affected).
_NEEDS_UPDATE = '_needs_update'
_DIFF = 'update_template_diff_properties'


def begin_update(rsrc, new_stack) -> None:
    """Called by a convergence update check before Heat's own update.

    On a stack with breakpoints, wraps Heat's update decision on this
    resource object (:func:`needs_update`); otherwise does nothing.
    """
    if not decision.enabled() or not decision.operation_breakpoints(
            rsrc.stack):
        return
    stock = getattr(rsrc, _NEEDS_UPDATE)

    def wrapped(after, before, after_props, before_props, prev_resource,
                check_init_complete=True):
        # Once per check: Heat's decision is taken here.
        rsrc.__dict__.pop(_NEEDS_UPDATE, None)
        return needs_update(rsrc, stock, new_stack, after, before,
                            after_props, before_props, prev_resource,
                            check_init_complete)
    rsrc.__dict__[_NEEDS_UPDATE] = wrapped


# ---------------------------------------------------------------------------
# The planned change, as shown at the hold (pure)

def property_changes(before, after, masking) -> dict:
    """``{name: {'old': .., 'new': ..}}`` of the properties that differ.

    ``before`` and ``after`` are plain mappings of resolved values;
    ``masking`` (:class:`inputs.Masking`) masks secrets in both.
    """
    changes = {}
    for key in sorted(set(before) | set(after), key=str):
        old, new = before.get(key), after.get(key)
        if old != new:
            changes[str(key)] = {'old': masking.property(key, old),
                                 'new': masking.property(key, new)}
    return changes


def change(kind: str, properties=None, forced_by=(), why: str = '') -> dict:
    """The planned change of a hold, as the view and the hit event show it."""
    found = {'kind': kind, 'properties': properties or {},
             'forced_by': sorted(forced_by)}
    if why:
        found['why'] = why
    return found


# ---------------------------------------------------------------------------
# Heat's decision, without side effects

def _values(props, masking) -> dict:
    found = {}
    for key in props:
        try:
            found[key] = props.get(key)
        except Exception as exc:  # unresolvable yet: say so, do not fail
            found[key] = '<unresolved: %s>' % masking.text(str(exc))
    return found


def _masking(rsrc, after_props=None, new_stack=None):
    """What is secret in the resource's properties, before and after.

    A property secret in the definition the resource has now or in the
    one it is updated to is masked in both its old and its new value.
    """
    before = secrecy.for_stack(rsrc.stack)
    paths = before.property_paths(secrecy.definition_tree(rsrc.t))
    texts = inputs.secret_texts(before) | _old_hidden(rsrc)
    if after_props is not None:
        after = before
        if new_stack is not None and new_stack is not rsrc.stack:
            after = secrecy.for_stack(new_stack)
            texts |= inputs.secret_texts(after)
        paths |= after.property_paths(getattr(after_props, 'data', None)
                                      or {})
    return inputs.Masking(paths, texts)


def _old_hidden(rsrc) -> frozenset:
    """Hidden parameter values of the template the resource has now.

    The check's stacks may both carry the new parameters; the old value
    shown as ``old`` must be masked all the same.
    """
    if rsrc.current_template_id is None:
        return frozenset()
    try:
        tmpl = heat_template.Template.load(rsrc.context,
                                           rsrc.current_template_id)
        params = tmpl.parameters(None, tmpl.env.params,
                                 param_defaults=tmpl.env.param_defaults)
    except Exception:  # nothing to add: mask what is known
        return frozenset()
    return inputs.hidden_values(types.SimpleNamespace(parameters=params))


def _forced_by(rsrc, changed, after_props, before_props) -> list:
    """Which changed properties make Heat replace rather than update.

    Heat's ``UpdateReplace`` does not say; its own two reasons are asked
    one property at a time: not ``update_allowed``, or the resource
    type's ``needs_replace_with_prop_diff``.
    """
    allowed = rsrc.calc_update_allowed(after_props)
    forced = [key for key in changed if key not in allowed]
    if forced:
        return forced
    for key in sorted(changed):
        try:
            if rsrc.needs_replace_with_prop_diff({key}, after_props,
                                                 before_props):
                forced.append(key)
        except Exception:  # a type that only answers for the whole set
            continue
    return forced or sorted(changed)


def plan(rsrc, after, before, after_props, before_props,
         new_stack=None) -> dict:
    """The change Heat will make, for a resource that needs an update.

    Calls the functions Heat's own ``preview_update`` calls. Heat calls
    ``update_template_diff_properties`` again later in this check, with
    the same objects; that call gets the result worked out here
    (:func:`_remember_diff`). None: Heat updates the resource only to
    pass the update on (a nested stack's resource whose inputs are the
    same: the resources inside decide for themselves).
    """
    masking = _masking(rsrc, after_props, new_stack)
    props = property_changes(_values(before_props, masking),
                             _values(after_props, masking), masking)
    tmpl_diff = rsrc.update_template_diff(after.freeze(), before)
    if tmpl_diff and rsrc.needs_replace_with_tmpl_diff(tmpl_diff):
        return change(REPLACE, props, sorted(tmpl_diff))
    try:
        result = rsrc.update_template_diff_properties(after_props,
                                                      before_props)
    except heat_resource.UpdateReplace as exc:
        _remember_diff(rsrc, after_props, before_props, exc)
        return change(REPLACE, props, _forced_by(
            rsrc, set(props) & set(after_props), after_props,
            before_props))
    except Exception as exc:  # Heat will fail the update with it
        _remember_diff(rsrc, after_props, before_props, exc)
        return change(IN_PLACE, props, why=str(exc))
    _remember_diff(rsrc, after_props, before_props, result)
    if not props and not tmpl_diff:
        return None
    return change(IN_PLACE, props)


def _remember_diff(rsrc, after_props, before_props, result) -> None:
    """Heat's next call with these objects gets ``result`` (once)."""
    stock = getattr(rsrc, _DIFF)

    def wrapped(after, before):
        rsrc.__dict__.pop(_DIFF, None)
        if after is not after_props or before is not before_props:
            return stock(after, before)
        if isinstance(result, BaseException):
            raise result
        return result
    rsrc.__dict__[_DIFF] = wrapped


# ---------------------------------------------------------------------------
# The hold

def _rules(rsrc):
    """The rules that would hold ``rsrc`` for a change and a replacement."""
    return (decision.hold_rule(rsrc, 'UPDATE', breakpoints.CHANGED),
            decision.hold_rule(rsrc, 'UPDATE', breakpoints.REPLACED))


def choose(changed_rule, replaced_rule, kind: str):
    """The rule that holds a resource planned to change by ``kind``.

    ``(rule, when)`` or ``(None, None)``. A replacement is held by a
    ``replaced`` rule first, the more particular one.
    """
    if kind == REPLACE and replaced_rule is not None:
        return replaced_rule, breakpoints.REPLACED
    if changed_rule is not None:
        return changed_rule, breakpoints.CHANGED
    return None, None


def _released(rsrc) -> bool:
    return (rsrc.data().get(parking.RELEASED_KEY) ==
            rsrc.stack.current_traversal)


def _park(rsrc, action, rule, when, planned, properties) -> None:
    if action == 'UPDATE':
        rsrc.data_set(PLAN_KEY, json.dumps({
            'traversal': rsrc.stack.current_traversal,
            'kind': planned['kind']}))
    parking.park(rsrc, rule, action, properties, when=when,
                 details={'change': planned}, change=planned)


def _replay(rsrc):
    """The outcome a released hold decided, for the check that goes on."""
    raw = rsrc.data().get(PLAN_KEY)
    if not raw:
        return None
    rsrc.data_delete(PLAN_KEY)
    try:
        planned = json.loads(raw)
    except ValueError:
        return None
    if planned.get('traversal') != rsrc.stack.current_traversal:
        return None
    return planned.get('kind')


def needs_update(rsrc, stock, new_stack, after, before, after_props,
                 before_props, prev_resource, check_init_complete):
    """Heat's ``_needs_update`` (``stock``), holding where a rule says so.

    A resource that needs no update returns at once. One whose hold was
    released goes on with the outcome decided at the hold.
    """
    args = (after, before, after_props, before_props, prev_resource,
            check_init_complete)
    if not decision.applies(rsrc, 'UPDATE'):
        return stock(*args)
    if _released(rsrc):
        kind = _replay(rsrc)
        if kind == REPLACE:
            raise heat_resource.UpdateReplace(rsrc)
        if kind == IN_PLACE:
            return True
        return stock(*args)
    try:
        needed = stock(*args)
    except heat_resource.UpdateReplace:
        _hold_if_required(rsrc, after_props, new_stack, lambda: _failed(
            rsrc, after_props, before_props, new_stack))
        raise
    if needed:
        _hold_if_required(rsrc, after_props, new_stack, lambda: plan(
            rsrc, after, before, after_props, before_props, new_stack))
    return needed


def _failed(rsrc, after_props, before_props, new_stack) -> dict:
    """The replacement of a resource Heat replaces for its state."""
    masking = _masking(rsrc, after_props, new_stack)
    return change(REPLACE, property_changes(
        _values(before_props, masking), _values(after_props, masking),
        masking), why='the resource is %s_%s' % rsrc.state)


def _hold_if_required(rsrc, after_props, new_stack, planned) -> None:
    changed_rule, replaced_rule = _rules(rsrc)
    if changed_rule is None and replaced_rule is None:
        return
    found = planned()
    if found is None:
        return
    rule, when = choose(changed_rule, replaced_rule, found['kind'])
    if rule is None:
        return
    masking = _masking(rsrc, after_props, new_stack)
    _park(rsrc, 'UPDATE', rule, when, found,
          lambda: masking.values(_values(after_props, masking)))


def park_added(rsrc) -> None:
    """Before CREATE of a resource the running update adds."""
    stack = rsrc.stack
    if (stack.action != stack.UPDATE or rsrc.replaces is not None or
            not decision.applies(rsrc, 'CREATE') or _released(rsrc)):
        return
    rule = decision.hold_rule(rsrc, 'UPDATE', breakpoints.CHANGED)
    if rule is None:
        return
    values = inputs.resolved_inputs(rsrc.properties, stack)
    props = {key: {'old': None, 'new': value}
             for key, value in sorted(values.items())}
    _park(rsrc, 'CREATE', rule, breakpoints.CHANGED, change(ADD, props),
          lambda: rsrc.properties)


def _removed(rsrc, template_id) -> bool:
    if rsrc.replaced_by is not None or rsrc.replaces is not None:
        return False
    tmpl = heat_template.Template.load(rsrc.context, template_id)
    return rsrc.name not in (tmpl.get(tmpl.RESOURCES) or {})


def park_removed(rsrc, template_id) -> None:
    """Before DELETE of a resource the running update removes."""
    stack = rsrc.stack
    if (stack.action != stack.UPDATE or stack.adopt_stack_data or
            rsrc.action == rsrc.INIT or
            rsrc.state == (rsrc.DELETE, rsrc.COMPLETE) or
            rsrc.current_template_id == template_id or _released(rsrc)):
        return
    rule = decision.hold_rule(rsrc, 'UPDATE', breakpoints.CHANGED)
    if rule is None or not _removed(rsrc, template_id):
        return
    values = _masking(rsrc).values(rsrc._stored_properties_data or {})
    planned = change(REMOVE, {key: {'old': value, 'new': None}
                              for key, value in sorted(values.items())})
    _park(rsrc, 'DELETE', rule, breakpoints.CHANGED, planned,
          lambda: values)
