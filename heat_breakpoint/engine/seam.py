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
"""The one place where heat-breakpoint reaches into Heat's engine.

Under the convergence engine Heat never calls lifecycle plugins for
create, update or delete, so the plugin installs its hold here. Each
resource's ``create_convergence``, ``update_convergence`` and
``delete_convergence`` runs one pipeline (``check``, in
:func:`_wrap_checks`): the check's facts gathered once
(:mod:`heat_breakpoint.engine.check.facts`), then

* *before*: hold before the action, or go on (:mod:`.check.parking`);
* *change*: hold where an update adds, removes or changes a resource
  (:mod:`.check.planned_changes`; a change sits inside Heat's own update
  decision, ``Resource._needs_update``, wrapped where a resource type
  defines it);
* *run*: Heat's own method, unless a released hold after the action
  only hands the resource on (:mod:`.check.outcomes`);
* *after* or *failure*: hold once the action completed or failed
  (:mod:`.check.outcomes`).

:mod:`.check.decision` says, from the facts alone, what holds at each step.
The same modules answer Heat's own hook check
(``Resource._break_if_required``) for breakpoints, hear releases on
Heat's resource-signal channel (``Resource._unset_hook``,
:mod:`.commands.releases`, with the caller's context taken from
``EngineService.resource_signal``, which also carries our commands:
every signal of ours passes
:func:`heat_breakpoint.engine.commands.signals.take`),
note a cancel before Heat starts its rollback
(``EngineService.stack_cancel_update``, so that no release resumes a
cancelled operation), and take time held at breakpoints off the stack's
clock (``Stack.time_elapsed``, :mod:`.commands.deadlines`), and give a remote
stack (``OS::Heat::Stack``) its parent's environment without the parent's
breakpoints (:mod:`.check.remote_stacks`). When a root stack's
operation ends (``Stack.state_set`` to COMPLETE or FAILED) or a newer one
replaces it (``Stack.converge_stack``), the rows kept for it go
(:mod:`heat_breakpoint.db.purge`). A check that parks ends as Heat ends
a cancelled one, but without loading its stack again when nothing newer
can wait on it (``CheckResource._retrigger_new_traversal``, wrapped where
present). It also adds one engine RPC method, ``breakpoint_list``, which
answers the API's breakpoints view (:mod:`.view.listing`). On stacks with
breakpoints it masks hidden parameter values in resource events
(``Resource._add_event``), since those events are what users read while
debugging.

Nothing is set on Heat's objects: the seam wraps methods of Heat's
classes, and what a check worked out travels in its arguments.

:func:`install` first checks that the installed Heat has exactly the
methods and signatures we wrap. If not, it logs one error and leaves Heat
untouched: stacks then run as in stock Heat (breakpoints are native hooks
there, so they still pause, the stock way). So does a heat-engine that
starts before ``heat-breakpoint-manage db_sync`` migrated our tables
(:func:`schema_ready`).
"""

import functools
import inspect

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# Where Heat makes a remote stack's environment from its parent's
# (:mod:`.check.remote_stacks`): the module ``remote_stack`` calls it through.
EXPECTED_CHILD_ENVIRONMENT = ('parent_env', 'child_params',
                              'item_to_remove', 'child_resource_name')

# What we wrap, with the parameters we rely on.
EXPECTED = {
    'create_convergence': ('self', 'template_id', 'requires', 'engine_id',
                           'timeout', 'progress_callback'),
    'update_convergence': ('self', 'template_id', 'new_requires',
                           'engine_id', 'timeout', 'new_stack',
                           'progress_callback'),
    'delete_convergence': ('self', 'template_id', 'engine_id', 'timeout',
                           'progress_callback'),
    '_break_if_required': ('self', 'action', 'hook'),
    '_unset_hook': ('self', 'details'),
    '_signal_check_action': ('self',),
    '_signal_check_hook': ('self', 'details'),
    '_add_event': ('self', 'action', 'status', 'reason'),
}
# Ends a parameter list the wrapper takes as a prefix (later parameters,
# which some Heat releases add, are passed on as they come).
MORE = '...'

# Where Heat decides an update (``when: changed|replaced``): the decision
# is wrapped where a resource type defines it, the property diff on
# Resource; :mod:`.check.planned_changes` calls the rest.
EXPECTED_CHANGES = {
    '_needs_update': ('self', 'after', 'before', 'after_props',
                      'before_props', 'prev_resource', 'check_init_complete'),
    'update_template_diff_properties': ('self', 'after_props',
                                        'before_props'),
    'update_template_diff': ('self', 'after', 'before'),
    'needs_replace_with_tmpl_diff': ('self', 'tmpl_diff'),
    'needs_replace_with_prop_diff': ('self', 'changed_properties_set',
                                     'after_props', 'before_props'),
    'calc_update_allowed': ('self', 'props'),
}
EXPECTED_STACK = {
    'time_elapsed': ('self',),
    'state_set': ('self', 'action', 'status', 'reason'),
    # Heat 25 added new_traversal_id and abandon; the wrapper passes on
    # whatever follows the template.
    'converge_stack': ('self', 'template', 'action', 'new_stack',
                       'pre_converge', MORE),
}
EXPECTED_SERVICE = {
    'start': ('self',),
    'resource_signal': ('self', 'cnxt', 'stack_identity', 'resource_name',
                        'details', 'sync_call'),
    'stack_cancel_update': ('self', 'cnxt', 'stack_identity',
                            'cancel_with_rollback'),
    '_get_stack': ('self', 'cnxt', 'stack_identity', 'show_deleted'),
}
# Wrapped when present as expected (it only saves work, see
# :func:`_wrap_parked_end`); a Heat without it runs the plugin all the same.
OPTIONAL_CHECK = {
    '_retrigger_new_traversal': ('self', 'cnxt', 'current_traversal',
                                 'is_update', 'stack_id', 'rsrc_id'),
}
# The engine RPC method we add (served to the API filter's breakpoints
# route); Heat must not have one of that name.
LIST_METHOD = 'breakpoint_list'

# Heat's update decision and property diff, wrapped for
# :mod:`.check.planned_changes`.
_DECISION = '_needs_update'
_DIFF = 'update_template_diff_properties'

_installed = False
# What install() replaced: (class, name, the class's own attribute or
# None when it had none), so that uninstall() can give Heat back.
_replaced = []
# Our wrappers of Heat's update decision, where they are installed.
_deciders = set()


class IncompatibleHeat(Exception):
    pass


def _check_methods(cls, expected) -> None:
    for name, params in expected.items():
        method = getattr(cls, name, None)
        if method is None:
            raise IncompatibleHeat('%s.%s is missing' % (cls.__name__, name))
        found = tuple(inspect.signature(method).parameters)
        if params[-1] == MORE:
            found, params = found[:len(params) - 1], params[:-1]
        if found != params:
            raise IncompatibleHeat('%s.%s%s, expected %s'
                                   % (cls.__name__, name, found, params))


def _check_heat(resource_cls, stack_cls, service_cls,
                check_resource) -> None:
    _check_methods(resource_cls, EXPECTED)
    _check_methods(resource_cls, EXPECTED_CHANGES)
    _check_methods(stack_cls, EXPECTED_STACK)
    _check_methods(service_cls, EXPECTED_SERVICE)
    if hasattr(service_cls, LIST_METHOD):
        raise IncompatibleHeat('EngineService.%s exists already'
                               % LIST_METHOD)
    if not issubclass(getattr(check_resource, 'CancelOperation', type),
                      BaseException):
        raise IncompatibleHeat('check_resource.CancelOperation is missing')
    # A held failure is let go by raising Heat's own failure again.
    if not issubclass(getattr(check_resource.exception, 'ResourceFailure',
                              type), Exception):
        raise IncompatibleHeat('exception.ResourceFailure is missing')
    if not callable(getattr(check_resource.CheckResource,
                            'retrigger_check_resource', None)):
        raise IncompatibleHeat(
            'CheckResource.retrigger_check_resource is missing')
    _check_remote_stack()
    _check_internals(resource_cls)


def _check_internals(resource_cls) -> None:
    """Heat's private names the plugin uses (:mod:`.heat_internals`)."""
    import importlib

    from heat_breakpoint.engine import heat_internals
    for path, methods in heat_internals.METHODS.items():
        module, name = path.rsplit('.', 1)
        _check_methods(getattr(importlib.import_module(module), name),
                       methods)
    missing = heat_internals.missing_attributes(resource_cls)
    if missing:
        raise IncompatibleHeat('%s no longer set' % ', '.join(missing))


def _check_remote_stack() -> None:
    from heat.engine import environment
    from heat.engine.resources.openstack.heat import remote_stack
    if getattr(remote_stack, 'environment', None) is not environment:
        raise IncompatibleHeat('remote_stack.environment is not '
                               'heat.engine.environment')
    found = tuple(inspect.signature(
        environment.get_child_environment).parameters)
    if found != EXPECTED_CHILD_ENVIRONMENT:
        raise IncompatibleHeat('environment.get_child_environment%s, '
                               'expected %s'
                               % (found, EXPECTED_CHILD_ENVIRONMENT))


def installed() -> bool:
    return _installed


def install() -> bool:
    """Wrap Heat's resource methods once; False if Heat is not as expected."""
    global _installed
    if _installed:
        return True
    try:
        from heat.engine import check_resource
        from heat.engine import resource
        from heat.engine import service
        from heat.engine import stack
        _check_heat(resource.Resource, stack.Stack, service.EngineService,
                    check_resource)
        from heat_breakpoint.db import purge
        from heat_breakpoint.engine.check import parking
        from heat_breakpoint.engine.check import planned_changes
        from heat_breakpoint.engine.commands import deadlines
        from heat_breakpoint.engine.commands import signals
    except (ImportError, IncompatibleHeat) as exc:
        LOG.error('heat-breakpoint is DISABLED: this Heat does not look as '
                  'expected (%s); stacks run as in stock Heat.', exc)
        return False
    checker = check_resource.CheckResource
    try:
        _check_methods(checker, OPTIONAL_CHECK)
    except IncompatibleHeat as exc:
        LOG.info('heat-breakpoint: a parked check ends the stock way (%s)',
                 exc)
        checker = None
    for cls, names in ((resource.Resource,
                        list(EXPECTED) + [_DIFF, _DECISION]),
                       (stack.Stack, EXPECTED_STACK),
                       (service.EngineService,
                        list(EXPECTED_SERVICE) + [LIST_METHOD])):
        _replaced.extend((cls, name, cls.__dict__.get(name))
                         for name in names)
    if checker is not None:
        _replaced.extend((checker, name, checker.__dict__.get(name))
                         for name in OPTIONAL_CHECK)
        _wrap_parked_end(checker, parking)
    _wrap_checks(resource.Resource)
    _wrap_hooks(resource.Resource)
    resource.Resource.update_template_diff_properties = \
        planned_changes.remembering(resource.Resource.__dict__[_DIFF])
    _wrap_decision(resource.Resource, resource.Resource.__dict__[_DECISION])
    _wrap_stack(stack.Stack, deadlines, purge)
    _wrap_service(service.EngineService, deadlines, signals)
    _wrap_remote_stack()
    _installed = True
    return True


def uninstall() -> None:
    """Give Heat back its own methods: it runs as stock Heat again."""
    global _installed
    _deciders.clear()
    while _replaced:
        cls, name, original = _replaced.pop()
        if original is None:
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, original)
    _installed = False


def schema_ready() -> bool:
    """At engine start: our tables migrated? If not, stock Heat."""
    from heat_breakpoint.db import migration
    if migration.ready():  # logs the one line saying why not
        return True
    uninstall()
    return False


def _wrap_checks(cls) -> None:
    """Heat's convergence checks of a resource, each one pipeline."""
    from heat_breakpoint.engine.check import facts
    from heat_breakpoint.engine.check import outcomes
    from heat_breakpoint.engine.check import parking
    from heat_breakpoint.engine.check import planned_changes

    create = cls.create_convergence
    update = cls.update_convergence
    delete = cls.delete_convergence

    def check(rsrc, action, properties, stock, template_id,
              new_stack=None):
        """One check: before, change, run, after or failure.

        ``properties``: the resource's inputs as a hold shows them;
        ``stock``: Heat's own method, bound to its arguments.
        """
        found = facts.check(rsrc, action, template_id)
        parking.hold_before(rsrc, found, properties)
        if outcomes.resume(rsrc):
            return None  # held after the action: only handed on
        if found.breakpoints and action == 'UPDATE':
            _decision_of(type(rsrc))
        try:
            planned_changes.before(rsrc, found, template_id, new_stack)
            return outcomes.run(rsrc, found, action, properties, stock)
        finally:
            planned_changes.after()

    @functools.wraps(create)
    def create_convergence(self, template_id, requires, engine_id,
                           timeout, progress_callback=None):
        return check(self, 'CREATE', lambda: self.properties,
                     lambda: create(self, template_id, requires, engine_id,
                                    timeout, progress_callback),
                     template_id)

    @functools.wraps(update)
    def update_convergence(self, template_id, new_requires, engine_id,
                           timeout, new_stack, progress_callback=None):
        def properties():
            defn = new_stack.defn.resource_definition(self.name)
            props = defn.properties(self.properties_schema, self.context)
            # As Heat's _prepare_update_props: old names (network_id...)
            # translated before anything is resolved; no client lookups,
            # as a create hold's properties (Resource.__init__).
            self.translate_properties(props, client_resolve=False,
                                      ignore_resolve_error=True)
            return props
        return check(self, 'UPDATE', properties,
                     lambda: update(self, template_id, new_requires,
                                    engine_id, timeout, new_stack,
                                    progress_callback),
                     template_id, new_stack)

    @functools.wraps(delete)
    def delete_convergence(self, template_id, engine_id, timeout,
                           progress_callback=None):
        # The inputs as stored: a stack being deleted has no template to
        # resolve them from.
        return check(self, 'DELETE',
                     lambda: self._stored_properties_data or self.properties,
                     lambda: delete(self, template_id, engine_id, timeout,
                                    progress_callback),
                     template_id)

    cls.create_convergence = create_convergence
    cls.update_convergence = update_convergence
    cls.delete_convergence = delete_convergence


def _wrap_decision(cls, stock) -> None:
    """Heat's update decision where ``cls`` defines it (``stock``)."""
    from heat_breakpoint.engine.check import planned_changes
    wrapped = planned_changes.deciding(stock)
    _deciders.add(wrapped)
    setattr(cls, _DECISION, wrapped)


def _decision_of(resource_type) -> None:
    """Make sure the update decision of ``resource_type`` is wrapped.

    A resource type may define its own ``_needs_update`` (a nested
    stack's, ``OS::Heat::None``'s); the class that defines the one
    ``resource_type`` uses gets the wrapper, once, when an update check
    with breakpoints first meets it (with the signature Heat's has: a
    type whose decision takes other arguments is left alone).
    """
    for cls in resource_type.__mro__:
        stock = cls.__dict__.get(_DECISION)
        if stock is None:
            continue
        if stock in _deciders:
            return
        try:
            _check_methods(cls, {_DECISION: EXPECTED_CHANGES[_DECISION]})
        except IncompatibleHeat as exc:
            LOG.info('heat-breakpoint: no hold on a planned change of %s '
                     '(%s)', resource_type.__name__, exc)
            return
        _replaced.append((cls, _DECISION, stock))
        _wrap_decision(cls, stock)
        return


def _wrap_hooks(cls) -> None:
    """Heat's hook check, its signals' checks and its resource events."""
    from heat_breakpoint.engine.check import events
    from heat_breakpoint.engine.check import facts
    from heat_breakpoint.engine.check import hold_records
    from heat_breakpoint.engine.check import parking
    from heat_breakpoint.engine.commands import releases
    from heat_breakpoint.model import breakpoints

    break_if_required = cls._break_if_required
    unset_hook = cls._unset_hook
    signal_check_action = cls._signal_check_action
    signal_check_hook = cls._signal_check_hook
    add_event = cls._add_event

    @functools.wraps(break_if_required)
    def _break_if_required(self, action, hook):
        bp = None
        if hook == hold_records.PRE_HOOKS.get(action):
            bp = facts.find_breakpoint(self, action)
        elif self.stack.convergence and hook == hold_records.hook_of(
                action, 'after'):
            # A marked post-* hook: the plugin holds after the action.
            bp = facts.find_breakpoint(self, action, 'after')
        if bp is None:
            yield from break_if_required(self, action, hook)
        elif not breakpoints.addressable((self.name,)):
            return  # a marked hook no release could reach: no hold
        elif not self.stack.convergence:
            yield from parking.hold_cooperatively(self, action, bp)
        # Under convergence the check's pipeline has held already.

    def _stock_then(stock, ours):
        # Heat's own clearing (or check) of the hook flag, unless the
        # signal ends a hold a release had begun; then the release's own.
        @functools.wraps(stock)
        def wrapped(self, details):
            if not hold_records.release_interrupted(self, details):
                stock(self, details)
            ours(self, details)
        return wrapped

    @functools.wraps(signal_check_action)
    def _signal_check_action(self):
        # A resource held before DELETE reads DELETE_IN_PROGRESS, an action
        # during which Heat refuses signals: let its release through.
        if self.action in self.no_signal_actions and \
                hold_records.is_parked(self):
            return
        return signal_check_action(self)

    @functools.wraps(add_event)
    def _add_event(self, action, status, reason):
        events.add_event(self, action, status, reason, add_event)

    cls._break_if_required = _break_if_required
    cls._unset_hook = _stock_then(unset_hook, releases.release)
    cls._signal_check_action = _signal_check_action
    # A release signal that does not fit its hold (``retry`` of a hold
    # that is not a failure) is refused here, before anything is cleared.
    cls._signal_check_hook = _stock_then(signal_check_hook,
                                         releases.check_release)
    cls._add_event = _add_event


def _wrap_remote_stack() -> None:
    """A remote stack's environment without its parent's breakpoints."""
    from heat.engine.resources.openstack.heat import remote_stack

    from heat_breakpoint.engine.check import remote_stacks
    _replaced.append((remote_stack, 'environment',
                      remote_stack.__dict__.get('environment')))
    remote_stack.environment = remote_stacks.RemoteEnvironment(
        remote_stack.environment)


def _wrap_parked_end(cls, parking) -> None:
    """A parked check ends without loading its whole stack again.

    Heat treats :class:`.check.parking.Parked` as a cancelled check and loads
    the stack to see whether a newer traversal waits on the resource; a
    burst of holds (a step to 55 resources) spent a fifth of its time
    there. :func:`.check.parking.newer_traversal_may_wait` answers from the
    stack's row; Heat's own method runs whenever it may.
    """
    retrigger = cls._retrigger_new_traversal

    @functools.wraps(retrigger)
    def _retrigger_new_traversal(self, cnxt, current_traversal, is_update,
                                 stack_id, rsrc_id):
        if parking.newer_traversal_may_wait(rsrc_id, current_traversal,
                                            stack_id):
            retrigger(self, cnxt, current_traversal, is_update, stack_id,
                      rsrc_id)

    cls._retrigger_new_traversal = _retrigger_new_traversal


def _wrap_service(cls, deadlines, signals) -> None:
    start = cls.start

    @functools.wraps(start)
    def started(self):
        from heat_breakpoint.db import purge
        from heat_breakpoint.engine.commands import lost_releases
        if not schema_ready():
            return start(self)
        result = start(self)
        deadlines.watch_deadlines()
        lost_releases.watch(self.engine_id)
        purge.watch()
        return result

    resource_signal = cls.resource_signal

    @functools.wraps(resource_signal)
    def wrapped(self, cnxt, stack_identity, resource_name, details,
                sync_call=False):
        # Our commands enter the engine here, through one function.
        return signals.take(self, cnxt, stack_identity, resource_name,
                            details, sync_call, resource_signal)

    stack_cancel_update = cls.stack_cancel_update

    @functools.wraps(stack_cancel_update)
    def cancel_update(self, cnxt, stack_identity,
                      cancel_with_rollback=True):
        return signals.cancel(self, cnxt, stack_identity,
                              cancel_with_rollback, stack_cancel_update)

    def breakpoint_list(self, cnxt, stack_identity=None, stack_name=None,
                        nested_depth=None, resource=None,
                        progress=False):
        from heat.common import exception
        import oslo_messaging

        from heat_breakpoint.engine.view import listing
        try:
            return listing.breakpoint_list(self, cnxt, stack_identity,
                                           stack_name, nested_depth,
                                           resource, progress)
        except exception.HeatException:
            raise oslo_messaging.rpc.dispatcher.ExpectedException()

    cls.resource_signal = wrapped
    cls.stack_cancel_update = cancel_update
    cls.start = started
    setattr(cls, LIST_METHOD, breakpoint_list)


def _wrap_stack(cls, deadlines, purge) -> None:
    time_elapsed = cls.time_elapsed
    state_set = cls.state_set
    converge_stack = cls.converge_stack

    @functools.wraps(time_elapsed)
    def wrapped(self):
        # Heat's timeout checks all go through here.
        return deadlines.time_elapsed(self, time_elapsed(self))

    @functools.wraps(state_set)
    def state_set_and_purge(self, action, status, reason):
        updated = state_set(self, action, status, reason)
        if updated:
            purge.operation_ended(self)
        return updated

    @functools.wraps(converge_stack)
    def converge_stack_and_purge(self, template, *args, **kwargs):
        result = converge_stack(self, template, *args, **kwargs)
        purge.operation_started(self)
        return result

    cls.time_elapsed = wrapped
    cls.state_set = state_set_and_purge
    cls.converge_stack = converge_stack_and_purge
