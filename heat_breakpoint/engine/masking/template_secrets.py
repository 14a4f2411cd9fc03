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
"""What in a stack is secret, decided from the template's structure.

A value is secret when its definition is derived, through any intrinsic
function, from a hidden parameter: Heat's parsed function tree (the
``heat.engine.function`` objects of a resource definition) is walked, not
the resolved values searched for strings, so a secret stays masked however
it was transformed on the way (``str_replace``, ``yaql``, ``str_split``
then ``list_join``, a number or a list) and a short secret does not mask
unrelated text.

The walk follows the data: ``get_attr`` of a resource whose relevant
values are secret (an ``OS::Heat::Value`` fed from a hidden parameter, the
output of a nested stack derived from one) is secret, and a nested stack
whose parent resource feeds it a secret treats what it is fed as hidden:
a template resource's parameter, every member of a ``ResourceGroup``,
``ResourceChain`` or ``AutoScalingGroup`` (whose definitions Heat copies
into the child as plain values), at any depth. Where this module does not
know how a type passes its inputs on, it assumes all of them flow
everywhere (an unknown resource's attributes are secret when any of its
inputs is; an unknown nested stack's members are secret whole).

Worked out only when something is shown (a hold, ``show``), never on the
path of every check.
"""

import collections.abc
import functools

from oslo_log import log as logging

from heat.engine.cfn import functions as cfn_functions
from heat.engine import function
from heat.engine.hot import functions as hot_functions
from heat.engine import stack as parser
from heat.objects import resource as resource_objects

from heat_breakpoint.engine import heat_internals

LOG = logging.getLogger(__name__)

#: The path of a whole value.
WHOLE = ()

_PARAM_FUNCTIONS = (hot_functions.GetParam, cfn_functions.ParamRef)


@functools.lru_cache(maxsize=None)
def _types():
    """The resource types whose way of passing values on is known.

    Imported when first asked (a hold), not when the plugin loads, so
    the plugin never imports Heat's resource modules ahead of Heat.
    Returns (template resource class, {group class: where it keeps the
    properties of every member}, {class: {attribute: property path it
    echoes}}).
    """
    from heat.engine.resources.openstack.heat import autoscaling_group
    from heat.engine.resources.openstack.heat import resource_chain
    from heat.engine.resources.openstack.heat import resource_group
    from heat.engine.resources.openstack.heat import value
    from heat.engine.resources import template_resource
    return (template_resource.TemplateResource, {
        resource_group.ResourceGroup: ('resource_def', 'properties'),
        resource_chain.ResourceChain: ('resource_properties',),
        autoscaling_group.AutoScalingResourceGroup: ('resource',
                                                     'properties'),
    }, {value.Value: {'value': ('value',)}})


@functools.lru_cache(maxsize=None)
def _agent_reports():
    """{class: attributes that are what a server's agent reported}.

    A deployment's exit status and the text its script wrote: not a
    value of the template's, so not secret whole when the deployment
    takes a secret input; the text net masks a secret value written in
    them (a failed script's stderr that echoes a password). Stock Heat
    shows them unmasked (``software deployment output show``).
    """
    from heat.engine.resources.openstack.heat import software_deployment
    return {
        software_deployment.SoftwareDeployment: frozenset((
            'deploy_stdout', 'deploy_stderr', 'deploy_status_code')),
        software_deployment.SoftwareDeploymentGroup: frozenset((
            'deploy_stdouts', 'deploy_stderrs', 'deploy_status_codes')),
    }


# Attributes of a nested stack that say nothing of its values.
_PLAIN_NESTED_ATTRIBUTES = frozenset(('OS::stack_id',))


def _overlaps(paths, path) -> bool:
    """Whether a secret path covers ``path`` or lies inside it."""
    return any(p[:len(path)] == path or path[:len(p)] == p for p in paths)


def definition_tree(defn):
    """A resource definition's properties, as Heat parsed them."""
    return getattr(defn, '_properties', None) or {}


class Secrecy:
    """What is secret in one stack.

    ``hidden``: names of parameters treated as hidden besides those the
    template declares ``hidden: true`` (a parent fed them a secret);
    ``all_hidden``: every parameter is (the parent fed this stack a
    secret in a way not known here); ``member_paths``: property paths
    secret in every resource of the stack (a group's members).
    """

    def __init__(self, stack, hidden=frozenset(), all_hidden=False,
                 member_paths=frozenset()):
        self.stack = stack
        self.hidden = frozenset(hidden)
        self.all_hidden = all_hidden
        self.member_paths = frozenset(member_paths)
        self._attributes = {}
        self._children = {}
        self._visiting = set()

    # -- parameters --------------------------------------------------------

    def param_hidden(self, name, parameters=None) -> bool:
        """Whether parameter ``name`` holds a secret."""
        if self.all_hidden or name in self.hidden:
            return True
        params = parameters if parameters is not None else getattr(
            self.stack, 'parameters', None)
        try:  # Parameters gives values; its ``params`` the parameters
            return bool(params.params[name].hidden())
        except (KeyError, TypeError, AttributeError):
            return False

    def hidden_names(self) -> list:
        """The names of all parameters that hold a secret."""
        params = getattr(getattr(self.stack, 'parameters', None), 'params',
                         None) or {}
        return sorted(name for name in params
                      if self.param_hidden(name))

    # -- the function tree -------------------------------------------------

    def derived(self, snippet) -> bool:
        """Whether a parsed snippet's value is derived from a secret."""
        if isinstance(snippet, function.Function):
            return self._function_derived(snippet)
        if isinstance(snippet, collections.abc.Mapping):
            return any(self.derived(v) for v in snippet.values())
        if (isinstance(snippet, collections.abc.Iterable) and
                not isinstance(snippet, (str, bytes))):
            return any(self.derived(v) for v in snippet)
        return False

    def _function_derived(self, fn) -> bool:
        if isinstance(fn, _PARAM_FUNCTIONS):
            return self._param_derived(fn)
        if isinstance(fn, hot_functions.GetAttThenSelect):
            if self.derived(fn.args):  # a computed name
                return True
            try:
                name = fn._res_name()
                attr = function.resolve(fn._attribute)
            except Exception:  # cannot tell which: assume the worst
                return True
            return self.attribute(name, attr)
        if isinstance(fn, function.Macro):
            return self.derived(fn.parsed)
        return self.derived(fn.args)

    def _param_derived(self, fn) -> bool:
        try:
            args = function.resolve(fn.args)
        except Exception:
            args = None
        if (isinstance(args, collections.abc.Sequence) and
                not isinstance(args, str) and args):
            args = args[0]
        if not isinstance(args, str):  # a computed name: any of them
            return self.derived(fn.args) or bool(self.hidden_names())
        return self.param_hidden(args, getattr(fn, 'parameters', None))

    def paths(self, snippet, prefix=WHOLE) -> set:
        """The paths of the largest secret parts of a parsed snippet.

        A function derived from a secret is secret whole; a literal
        mapping or list only where its items are (a list with an item
        that may vanish, an ``if`` without else, is secret whole).
        """
        if isinstance(snippet, function.Function):
            return {prefix} if self.derived(snippet) else set()
        found = set()
        if isinstance(snippet, collections.abc.Mapping):
            for key, item in snippet.items():
                found |= self.paths(item, prefix + (key,))
        elif (isinstance(snippet, collections.abc.Iterable) and
                not isinstance(snippet, (str, bytes))):
            items = list(snippet)
            for index, item in enumerate(items):
                found |= self.paths(item, prefix + (index,))
            if found and any(isinstance(i, function.Macro) for i in items):
                return {prefix}
        return found

    def property_paths(self, tree) -> set:
        """The secret paths of a resource's properties (parsed ``tree``)."""
        return self.paths(tree) | self.member_paths

    # -- resources of this stack -------------------------------------------

    def _definition(self, name):
        try:
            return self.stack.defn.resource_definition(name)
        except Exception:
            return None

    def _class(self, defn):
        try:
            return self.stack.env.registry.get_class_to_instantiate(
                defn.resource_type, resource_name=defn.name)
        except Exception:
            return None

    def resource_paths(self, name) -> set:
        """The secret property paths of resource ``name`` of this stack."""
        defn = self._definition(name)
        if defn is None:
            return set(self.member_paths)
        return self.property_paths(definition_tree(defn))

    def attribute(self, name, attr, rsrc=None) -> bool:
        """Whether attribute ``attr`` (None: all) of ``name`` is secret."""
        key = (name, attr if not isinstance(attr, list) else tuple(attr))
        if key in self._attributes:
            return self._attributes[key]
        if key in self._visiting:  # a loop Heat would refuse anyway
            return False
        self._visiting.add(key)
        try:
            found = self._attribute(name, attr, rsrc)
        finally:
            self._visiting.discard(key)
        self._attributes[key] = found
        return found

    def _attribute(self, name, attr, rsrc) -> bool:
        defn = self._definition(name)
        paths = self.resource_paths(name)
        cls = self._class(defn) if defn is not None else None
        top = attr[0] if isinstance(attr, (list, tuple)) and attr else attr
        template_kind, _groups, all_echoes = _types()
        if cls is not None and top is not None and any(
                issubclass(cls, kind) and top in reports
                for kind, reports in _agent_reports().items()):
            return False
        if cls is not None:
            for kind, echoes in all_echoes.items():
                if issubclass(cls, kind):
                    if top is None:
                        return bool(paths)
                    path = echoes.get(top)
                    return path is not None and _overlaps(paths, path)
            if issubclass(cls, template_kind):
                return self._nested_attribute(name, top, attr, rsrc)
        return bool(paths)

    def _nested_attribute(self, name, top, attr, rsrc) -> bool:
        if top in _PLAIN_NESTED_ATTRIBUTES:
            return False
        child = self.child(name, rsrc)
        if child is None:  # cannot look inside: its own secrets may show
            return True
        try:
            if top is None:
                return any(child.output(out) for out in
                           child.stack.defn.enabled_output_names())
            if isinstance(top, str) and top.startswith('resource.'):
                parts = top.split('.', 2)
                inner = parts[2] if len(parts) > 2 else None
                if isinstance(attr, (list, tuple)) and len(attr) > 1:
                    inner = (inner,) + tuple(attr[1:])
                return child.attribute(parts[1], inner)
            return child.output(top)
        except Exception as exc:
            LOG.debug('Masking %s of %s: %s', top, name, exc)
            return True

    def output(self, name) -> bool:
        """Whether this stack's output ``name`` is secret."""
        try:
            defn = self.stack.defn.output_definition(name)
        except KeyError:
            return False
        return self.derived(getattr(defn, '_value', None))

    # -- nested stacks -----------------------------------------------------

    def child(self, name, rsrc=None):
        """The secrecy of the stack resource ``name`` leads to, or None."""
        if name in self._children:
            return self._children[name]
        nested = None
        try:
            if rsrc is None:
                rsrc = self.stack[name]
            nested = _nested(rsrc)
        except Exception as exc:
            LOG.debug('No nested stack of %s to look into: %s', name, exc)
        found = self.inherited(name, nested) if nested is not None else None
        self._children[name] = found
        return found

    def inherited(self, name, nested):
        """The secrecy of ``nested``, the stack of this stack's ``name``."""
        defn = self._definition(name)
        if defn is None:
            return Secrecy(nested)
        paths = self.property_paths(definition_tree(defn))
        if not paths:
            return Secrecy(nested)
        cls = self._class(defn)
        template_kind, groups, _echoes = _types()
        if cls is not None and issubclass(cls, template_kind):
            if WHOLE in paths:
                return Secrecy(nested, all_hidden=True)
            return Secrecy(nested, hidden={p[0] for p in paths})
        for kind, prefix in groups.items():
            if cls is not None and issubclass(cls, kind):
                members = set()
                for path in paths:
                    if path[:len(prefix)] == prefix:
                        members.add(path[len(prefix):])
                    elif prefix[:len(path)] == path:
                        members.add(WHOLE)
                return Secrecy(nested, member_paths=members)
        # A nested stack fed in a way not known here: all of it.
        return Secrecy(nested, all_hidden=True, member_paths={WHOLE})


def _nested(rsrc):
    """The nested stack of a stack resource, or None.

    A convergence check builds the other resources of its stack from the
    traversal's cache, without their physical ids: read it then.
    """
    nested = rsrc.nested()
    if nested is not None or rsrc.id is None:
        return nested
    row = resource_objects.Resource.get_obj(rsrc.context, rsrc.id)
    if not row.physical_resource_id:
        return None
    return parser.Stack.load(rsrc.context,
                             stack_id=row.physical_resource_id)


def for_stack(stack) -> Secrecy:
    """The secrecy of ``stack``, with what its parents feed it.

    Walks up through the parent resources (one load of each parent
    stack): called when a hold or a view shows values, not per check.
    """
    try:
        parent = getattr(stack, 'parent_resource', None)
    except Exception:
        parent = None
    if parent is None or stack is None:
        return Secrecy(stack)
    try:
        outer = for_stack(heat_internals.stack_of(parent))
        return outer.inherited(parent.name, stack)
    except Exception as exc:  # the parent is gone: all of it
        LOG.debug('Masking all of stack %s: its parent cannot be read: %s',
                  getattr(stack, 'id', None), exc)
        return Secrecy(stack, all_hidden=True, member_paths={WHOLE})
