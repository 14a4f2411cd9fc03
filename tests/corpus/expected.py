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
"""The corpus templates a real cloud's Heat 27 refuses too, and why.

Each entry is a template's path in the corpus and what a real cloud's
Heat says of it; the corpus tier counts these out of its target and
fails if one of them completes (the reason would then be wrong).
"""

import dataclasses

# path -> (the words Heat's reason must contain, or a tuple of such
#          alternatives; why a real Heat refuses)
_CIRCULAR = ('Circular Dependency Found',
             'invalid on purpose (cfn/F17/invalid/): the template refers to '
             'resources that refer back to it')
_EXPIRED = ("Expiration time is out of date",
            "the secret's expiration (2017-12-28) is in the past: Heat's "
            "own 'expiration' constraint refuses it")
REFUSED = {
    'cfn/F17/invalid/AutoScalingMultiAZSample.template': _CIRCULAR,
    'cfn/F17/invalid/AutoScalingMultiAZSample.yaml': _CIRCULAR,
    'cfn/F17/invalid/WordPress_Single_Instance_With_HA.template': _CIRCULAR,
    'cfn/F17/invalid/WordPress_Single_Instance_With_HA_AccessPolicy.template':
        _CIRCULAR,
    'cfn/F17/invalid/WordPress_Single_Instance_With_IHA.template': _CIRCULAR,
    'hot/barbican/container_generic.yaml': _EXPIRED,
    'hot/barbican/order.yaml': _EXPIRED,
    'hot/barbican/secret.yaml': _EXPIRED,
    'hot/octavia/servers_with_octavia.yaml': (
        'Unknown Property max_retries_down',
        'OS::Octavia::HealthMonitor of Heat 27 has no max_retries_down'),
    'hot/software-config/example-templates/example-chef-template.yaml': (
        'is not a map',
        "OS::Heat::StructuredConfig's config must be a map; the template "
        "gives a list"),
    'hot/mistral/templates/autoscaling_using_mistral.yaml': (
        ('Unknown Property security_group', 'Property name not assigned'),
        'Heat validates the resources in no fixed order and finds one of '
        'two errors: the group passes security_group to '
        'templates/server_with_ip.yaml (its NovaNetwork::Server), which has '
        'no such parameter; and each OS::Mistral::CronTrigger takes its '
        'workflow from a get_attr, empty at validation, where the workflow '
        'name is required'),
    'cfn/F17/AutoScalingCeilometer.yaml': (
        "'NoneType' object is not subscriptable",
        "the group's LoadBalancerNames reloads the "
        "AWS::ElasticLoadBalancing::LoadBalancer from a convergence check, "
        "where the balancer's nested stack is not loaded "
        "(heat/scaling/lbutils.py: the balancer's nested() is None)"),
}

TARGET = 0.95


@dataclasses.dataclass
class Report:
    outcomes: list

    @property
    def counted(self):
        return [o for o in self.outcomes if o.template.path not in REFUSED]

    @property
    def completed(self):
        return [o for o in self.counted if o.complete]

    @property
    def wrongly_refused(self):
        """Expected refusals that completed or failed for another reason."""
        wrong = []
        for o in self.outcomes:
            if o.template.path in REFUSED:
                words = REFUSED[o.template.path][0]
                words = (words,) if isinstance(words, str) else words
                if o.complete or not any(w in o.reason for w in words):
                    wrong.append(o)
        return wrong

    @property
    def rate(self) -> float:
        return len(self.completed) / max(1, len(self.counted))

    @property
    def ok(self) -> bool:
        return self.rate >= TARGET and not self.wrongly_refused

    def lines(self):
        for o in sorted(self.outcomes, key=lambda o: o.template.path):
            mark = 'ok' if o.complete else (
                'refused as expected' if o.template.path in REFUSED
                and o not in self.wrongly_refused else 'FAILED')
            line = '%-70s %-22s %3d res %5.1f s  %s' % (
                o.template.path, o.status, o.resources, o.seconds, mark)
            if not o.complete:
                line += '\n    ' + o.reason
            yield line
        yield ('%d of %d templates complete with resources (%.1f%%; '
               '%d refused as a real Heat 27 refuses them, target %.0f%%)'
               % (len(self.completed), len(self.counted), 100 * self.rate,
                  len(self.outcomes) - len(self.counted), 100 * TARGET))
        for o in self.wrongly_refused:
            yield 'expected refusal did not happen as listed: %s' % (
                o.template.path)
