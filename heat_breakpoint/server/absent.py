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
"""``--no-simulate``: a missing service is named, not an Internal Error.

Without the simulated cloud, Heat checks a parameter's custom constraint
(``nova.flavor``, ``glance.image``) by asking a service the local server
does not have; the client's ``EndpointNotFound`` escapes as HTTP 500.
Here each such constraint first asks whether its service is in the
catalog and, if not, fails with the words Heat uses for a resource type
whose service is missing.
"""


def constraint_class(real_cls, name: str, service: str):
    """The constraint, failing in one line when its service is absent."""

    def validate(self, value, context):
        plugin = context.clients.client_plugin(service)
        reasons = []
        for service_type in getattr(plugin, 'service_types', None) or []:
            if plugin.does_endpoint_exist(service_type=service_type,
                                          service_name=service):
                return real_cls.validate(self, value, context)
            reasons.append('%s %s endpoint is not in service catalog' % (
                service, service_type))
        if not reasons:
            return real_cls.validate(self, value, context)
        self._error_message = (
            'Service %s is not available to check %s (the local server '
            'runs with --no-simulate): %s.' % (service, name,
                                               '; '.join(reasons)))
        return False

    return type(real_cls.__name__, (real_cls,), {'validate': validate})


def install() -> None:
    from heat.engine import resources

    from heat_breakpoint.server.cloud import lookups

    resources.initialise()
    env = resources.global_env()
    for name, constraint in sorted(env.constraints.items()):
        service = lookups.constraint_service(constraint)
        if service and service != 'heat':
            env.register_constraint(
                name, constraint_class(constraint, name, service))
