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
  decides, its call of ``Resource._needs_update``: the seam wraps that
  method where the resource types define it (:func:`deciding`), and the
  wrapper decides here only for the one resource object whose
  convergence update check the seam's pipeline armed (:func:`before`).
  A resource that does not need an update returns from there untouched:
  no breakpoint lookup, no extra work;
* for a resource that needs one, whether it is replaced is Heat's own
  ``update_template_diff`` / ``needs_replace_with_tmpl_diff`` /
  ``update_template_diff_properties`` (which raises ``UpdateReplace``),
  the side-effect-free functions Heat's own ``preview_update`` uses. Heat
  calls the last one again later in the same check; it then gets the
  remembered result instead (:func:`remembering`);
* a held resource's check ends (:mod:`parking`); the outcome is kept in
  its data (``resource_data.PLANNED_KEY``) and the check that resumes
  after the release goes on with it, without deciding again
  (:func:`needs_update`).

Resources an update adds hold before their CREATE under ``changed``
(planned change ``add``), resources it removes before their DELETE
(``remove``); ``replaced`` holds neither.
"""

import contextvars
import functools
import json
import types
import weakref

from heat.engine import resource as heat_resource
from heat.engine import template as heat_template

from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import parking
from heat_breakpoint.engine import heat_internals
from heat_breakpoint.engine.masking import inputs
from heat_breakpoint.engine.masking import template_secrets
from heat_breakpoint.model import breakpoints

IN_PLACE, REPLACE, ADD, REMOVE = 'in-place', 'replace', 'add', 'remove'
KINDS = (IN_PLACE, REPLACE, ADD, REMOVE)

# The update decision armed in this thread: (a weak reference to the one
# resource object whose check armed it, the check's facts, the stack it
# is updated to). Taken by the first call of Heat's decision on it.
# ContextVar: Heat's Resource.update makes that call, with its arguments.
_armed = contextvars.ContextVar('breakpoint_update_decision', default=None)
# Heat's property diff worked out by :func:`plan`: (a weak reference to
# the resource object, the two Properties, the result or what it raised).
# Taken by Heat's next call on that object.
# ContextVar: Heat's Resource.update makes that call, with its arguments.
_diff = contextvars.ContextVar('breakpoint_property_diff', default=None)


def before(rsrc, check: decision.Check, template_id=None,
           new_stack=None) -> None:
    """Called by the seam's pipeline before Heat's action on ``rsrc``.

    A resource the update adds holds before its CREATE, one it removes
    before its DELETE; an update check of a stack with breakpoints arms
    Heat's own update decision for this resource object
    (:func:`needs_update`).
    """
    if check.action == 'CREATE':
        _hold_added(rsrc, check)
    elif check.action == 'DELETE':
        _hold_removed(rsrc, check, template_id)
    elif check.breakpoints:
        _armed.set((weakref.ref(rsrc), check, new_stack))


def after() -> None:
    """Called by the seam's pipeline when Heat's action returned or raised.

    What :func:`before` and :func:`plan` left for Heat's calls is not
    kept past the check.
    """
    _armed.set(None)
    _diff.set(None)


def deciding(stock):
    """Heat's ``_needs_update`` (``stock``), holding where a rule says so.

    The seam puts this wrapper where a resource type defines its update
    decision; it decides for the resource object of an armed update check
    (once: a type's decision that calls its base class's decides there
    as Heat does), and is Heat's own for everything else.
    """
    @functools.wraps(stock)
    def _needs_update(self, after, before, after_props, before_props,
                      prev_resource, check_init_complete=True):
        armed = _armed.get()
        if armed is None or armed[0]() is not self:
            return stock(self, after, before, after_props, before_props,
                         prev_resource, check_init_complete)
        _armed.set(None)
        return needs_update(self, armed[1], functools.partial(stock, self),
                            armed[2], after, before, after_props,
                            before_props, prev_resource,
                            check_init_complete)
    return _needs_update


def remembering(stock):
    """Heat's ``update_template_diff_properties`` (``stock``), remembered.

    The call Heat makes with the very objects :func:`plan` asked about
    gets :func:`plan`'s result, once; any other call is Heat's own.
    """
    @functools.wraps(stock)
    def update_template_diff_properties(self, after_props, before_props):
        kept = _diff.get()
        if kept is None or kept[0]() is not self:
            return stock(self, after_props, before_props)
        _diff.set(None)
        if after_props is not kept[1] or before_props is not kept[2]:
            return stock(self, after_props, before_props)
        if isinstance(kept[3], BaseException):
            raise kept[3]
        return kept[3]
    return update_template_diff_properties


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
    before = template_secrets.for_stack(rsrc.stack)
    paths = before.property_paths(template_secrets.definition_tree(rsrc.t))
    texts = inputs.secret_texts(before) | _old_hidden(rsrc)
    if after_props is not None:
        after = before
        if new_stack is not None and new_stack is not rsrc.stack:
            after = template_secrets.for_stack(new_stack)
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
    _diff.set((weakref.ref(rsrc), after_props, before_props, result))


# ---------------------------------------------------------------------------
# The hold

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
    return (rsrc.data().get(resource_data.RELEASED_KEY) ==
            rsrc.stack.current_traversal)


def _park(rsrc, check, action, rule, when, planned, properties) -> None:
    if action == 'UPDATE':
        rsrc.data_set(resource_data.PLANNED_KEY, json.dumps({
            'traversal': rsrc.stack.current_traversal,
            'kind': planned['kind']}))
    parking.park(rsrc, check, rule, action, properties, when=when,
                 details={'change': planned}, change=planned)


def _replay(rsrc):
    """The outcome a released hold decided, for the check that goes on."""
    raw = rsrc.data().get(resource_data.PLANNED_KEY)
    if not raw:
        return None
    rsrc.data_delete(resource_data.PLANNED_KEY)
    try:
        planned = json.loads(raw)
    except ValueError:
        return None
    if planned.get('traversal') != rsrc.stack.current_traversal:
        return None
    return planned.get('kind')


def needs_update(rsrc, check, stock, new_stack, after, before, after_props,
                 before_props, prev_resource, check_init_complete):
    """Heat's ``_needs_update`` (``stock``), holding where a rule says so.

    A resource that needs no update returns at once. One whose hold was
    released goes on with the outcome decided at the hold.
    """
    args = (after, before, after_props, before_props, prev_resource,
            check_init_complete)
    if not decision.eligible(check, 'UPDATE', breakpoints.CHANGED):
        return stock(*args)
    if _released(rsrc):
        # What the hold decided is Heat's decision now: a cancel asked
        # since this re-dispatched check began ends it instead.
        parking.end_if_cancelled_since(rsrc, check)
        kind = _replay(rsrc)
        if kind == REPLACE:
            raise heat_resource.UpdateReplace(rsrc)
        if kind == IN_PLACE:
            return True
        return stock(*args)
    try:
        needed = stock(*args)
    except heat_resource.UpdateReplace:
        _hold_if_required(rsrc, check, after_props, new_stack,
                          lambda: _failed(rsrc, after_props, before_props,
                                          new_stack))
        raise
    if needed:
        _hold_if_required(rsrc, check, after_props, new_stack, lambda: plan(
            rsrc, after, before, after_props, before_props, new_stack))
    return needed


def _failed(rsrc, after_props, before_props, new_stack) -> dict:
    """The replacement of a resource Heat replaces for its state."""
    masking = _masking(rsrc, after_props, new_stack)
    return change(REPLACE, property_changes(
        _values(before_props, masking), _values(after_props, masking),
        masking), why='the resource is %s_%s' % rsrc.state)


def _hold_if_required(rsrc, check, after_props, new_stack,
                      planned) -> None:
    check = facts.fresh(rsrc, check)
    # After the facts the hold is decided on: a cancel noted while they
    # were read again (they disarm every rule then) ends the check, and
    # one not noted by now was not noted when they were read.
    parking.end_if_cancelled_since(rsrc, check)
    changed_rule = decision.hold(check, 'UPDATE', breakpoints.CHANGED)
    replaced_rule = decision.hold(check, 'UPDATE', breakpoints.REPLACED)
    if changed_rule is None and replaced_rule is None:
        return
    found = planned()
    if found is None:
        return
    rule, when = choose(changed_rule, replaced_rule, found['kind'])
    if rule is None:
        return
    masking = _masking(rsrc, after_props, new_stack)
    _park(rsrc, check, 'UPDATE', rule, when, found,
          lambda: masking.values(_values(after_props, masking)))


def _hold_added(rsrc, check) -> None:
    """Before CREATE of a resource the running update adds."""
    if not decision.eligible(check, 'CREATE', breakpoints.CHANGED) or \
            _released(rsrc):
        return
    rule = decision.hold(check, 'UPDATE', breakpoints.CHANGED)
    if rule is None:
        return
    values = inputs.resolved_inputs(rsrc.properties, rsrc.stack)
    props = {key: {'old': None, 'new': value}
             for key, value in sorted(values.items())}
    _park(rsrc, check, 'CREATE', rule, breakpoints.CHANGED,
          change(ADD, props), lambda: rsrc.properties)


def _removed(rsrc, template_id) -> bool:
    if rsrc.replaced_by is not None or rsrc.replaces is not None:
        return False
    tmpl = heat_template.Template.load(rsrc.context, template_id)
    return rsrc.name not in (tmpl.get(tmpl.RESOURCES) or {})


def _hold_removed(rsrc, check, template_id) -> None:
    """Before DELETE of a resource the running update removes."""
    if not decision.eligible(check, 'DELETE', breakpoints.CHANGED) or \
            _released(rsrc):
        return
    rule = decision.hold(check, 'UPDATE', breakpoints.CHANGED)
    if rule is None or not _removed(rsrc, template_id):
        return
    values = _masking(rsrc).values(
        heat_internals.stored_properties(rsrc) or {})
    planned = change(REMOVE, {key: {'old': value, 'new': None}
                              for key, value in sorted(values.items())})
    _park(rsrc, check, 'DELETE', rule, breakpoints.CHANGED, planned,
          lambda: values)
