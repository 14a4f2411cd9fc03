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
"""Each corpus template's expected outcome, pinned one by one.

:data:`REFUSED`: the templates a real cloud's Heat 27 refuses too, and
what it says of them; :data:`SIMULATED_FAILS`: those a real cloud would
take that the simulated cloud does not complete, and why; every other
template of :data:`COMPLETE` completes with resources. Any change of
outcome fails the corpus tier (a rate would let a few templates go,
with a simulated type broken), and so does a template added to the
corpus or gone from it until it is pinned here.
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

#: Templates a real cloud's Heat would accept that the simulated cloud
#: does not complete: path -> (the words of the reason, why).
_REMOTE = ('Could not fetch remote template',
           "its nested template is a URL on raw.github.com, fetched by "
           "Heat when the stack is created: the machines the tier runs "
           "on reach no Internet (pinned so; with Internet access, pin it "
           "to complete)")
SIMULATED_FAILS = {
    'cfn/F17/WordPress_Composed_Instances.template': _REMOTE,
    'cfn/F17/WordPress_With_LB.template': _REMOTE,
}

#: Every other template of the corpus: each completes with resources.
COMPLETE = frozenset([
    'cfn/F17/EC2WithEBSSample.template',
    'cfn/F17/HAProxy_Single_Instance.template',
    'cfn/F17/InstanceGroup.template',
    'cfn/F17/MySQL_Single_Instance.template',
    'cfn/F17/Neutron.template',
    'cfn/F17/Neutron.yaml',
    'cfn/F17/Neutron_floating.template',
    'cfn/F17/PuppetMaster_Single_Instance.template',
    'cfn/F17/Rails_Single_Instance.template',
    'cfn/F17/S3_Single_Instance.template',
    'cfn/F17/Swift.template',
    'cfn/F17/VPN_Service.template',
    'cfn/F17/WordPress_2_Instances.template',
    'cfn/F17/WordPress_2_Instances_With_EBS.template',
    'cfn/F17/WordPress_2_Instances_With_EBS_EIP.template',
    'cfn/F17/WordPress_And_Http.template',
    'cfn/F17/WordPress_NoKey.template',
    'cfn/F17/WordPress_Single_Instance.template',
    'cfn/F17/WordPress_Single_Instance.yaml',
    'cfn/F17/WordPress_Single_Instance_With_EBS.template',
    'cfn/F17/WordPress_Single_Instance_With_EBS_EIP.template',
    'cfn/F17/WordPress_Single_Instance_With_EIP.template',
    'cfn/F17/WordPress_Single_Instance_With_HA.yaml',
    'cfn/F17/WordPress_Single_Instance_With_Neutron.template',
    'cfn/F17/WordPress_Single_Instance_gold.template',
    'cfn/F17/WordPress_With_RDS.template',
    'cfn/F17/getting_started.template',
    'cfn/F18/WordPress_NoKey.yaml',
    'cfn/F18/WordPress_Single_Instance.template',
    'cfn/F19/WordPress_NoKey.yaml',
    'cfn/aws_asg.template',
    'cfn/deb/MultiNode_DevStack.yaml',
    'cfn/deb/WordPress_Single_Instance_deb.template',
    'hot/F18/NovaInstanceWithCinderVolume_Native.yaml',
    'hot/F18/WordPress_Native.yaml',
    'hot/F18/WordPress_NoKey.yaml',
    'hot/F20/WordPress_2_Instances.yaml',
    'hot/F20/WordPress_Native.yaml',
    'hot/Windows/ActiveDirectoryController/'
    'ActiveDirectoryDomainController.yaml',
    'hot/Windows/IIS_Drupal/IIS_Drupal.yaml',
    'hot/Windows/MSSQLServer/MSSQL.yaml',
    'hot/Windows/PuppetAgent/puppet-agent.yaml',
    'hot/asg_of_servers.yaml',
    'hot/asg_of_stacks.yaml',
    'hot/autohealing/autohealing_group.yaml',
    'hot/autohealing/autohealing_server.yaml',
    'hot/autoscaling.yaml',
    'hot/blazar/blazar_host.yaml',
    'hot/blazar/blazar_lease.yaml',
    'hot/chef-server.yaml',
    'hot/condition.yaml',
    'hot/designate/desginate_domain.yaml',
    'hot/designate/desginate_record.yaml',
    'hot/external_resource.yaml',
    'hot/hello_world.yaml',
    'hot/instance_group.yaml',
    'hot/keystone/keystone.yaml',
    'hot/keystone/keystone_domain.yaml',
    'hot/keystone/keystone_group.yaml',
    'hot/keystone/keystone_project.yaml',
    'hot/keystone/keystone_region.yaml',
    'hot/keystone/keystone_role.yaml',
    'hot/keystone/keystone_service.yaml',
    'hot/keystone/keystone_service_endpoint.yaml',
    'hot/keystone/keystone_updated.yaml',
    'hot/keystone/keystone_user.yaml',
    'hot/lb_server.yaml',
    'hot/magnum/create_coe_cluster.yaml',
    'hot/mistral/templates/server_with_ip.yaml',
    'hot/mistral/templates/stack_restarter.yaml',
    'hot/mistral_external.yaml',
    'hot/monasca/autoscaling.yaml',
    'hot/multi_region_hello_world.yaml',
    'hot/native_waitcondition.yaml',
    'hot/neutron/instance_trunk_port.yaml',
    'hot/nova/host_aggregate.yaml',
    'hot/resource_group/random.yaml',
    'hot/resource_group/resource_group.yaml',
    'hot/resource_group/resource_group_index_lookup.yaml',
    'hot/resource_group/server_with_volumes.yaml',
    'hot/resource_group/volume_with_attachment.yaml',
    'hot/server_console.yaml',
    'hot/server_with_encrpyted_volume.yaml',
    'hot/servers_in_existing_neutron_net.yaml',
    'hot/servers_in_existing_neutron_network_no_floating_ips.yaml',
    'hot/servers_in_new_neutron_net.yaml',
    'hot/software-config/boot-config/templates/'
    'install_config_agent_centos7_rdo.yaml',
    'hot/software-config/boot-config/templates/'
    'install_config_agent_fedora_pip.yaml',
    'hot/software-config/boot-config/templates/'
    'install_config_agent_fedora_yum.yaml',
    'hot/software-config/boot-config/templates/'
    'install_config_agent_test_image.yaml',
    'hot/software-config/boot-config/templates/'
    'install_config_agent_ubuntu_pip.yaml',
    'hot/software-config/boot-config/templates/install_container_agent.yaml',
    'hot/software-config/example-templates/cirros-example/'
    'cirros-hello-world.yaml',
    'hot/software-config/example-templates/example-ansible-template.yaml',
    'hot/software-config/example-templates/example-cfn-init-template.yaml',
    'hot/software-config/example-templates/'
    'example-cloud-init-configure-ca-cert.yaml',
    'hot/software-config/example-templates/example-cloud-init.yaml',
    'hot/software-config/example-templates/example-config-pristine-image.yaml',
    'hot/software-config/example-templates/example-deploy-sequence.yaml',
    'hot/software-config/example-templates/'
    'example-docker-compose-template.yaml',
    'hot/software-config/example-templates/example-kubelet-template.yaml',
    'hot/software-config/example-templates/'
    'example-os-apply-config-plus-cloud-config.yaml',
    'hot/software-config/example-templates/example-os-apply-config.yaml',
    'hot/software-config/example-templates/'
    'example-pristine-atomic-docker-compose.yaml',
    'hot/software-config/example-templates/example-pristine-atomic-tool.yaml',
    'hot/software-config/example-templates/example-puppet-template.yaml',
    'hot/software-config/example-templates/example-salt-template.yaml',
    'hot/software-config/example-templates/example-script-template.yaml',
    'hot/software-config/example-templates/'
    'example-software-deploymentgroup-template.yaml',
    'hot/software-config/example-templates/example-ssh-copy-id.yaml',
    'hot/software-config/example-templates/example-structured-template.yaml',
    'hot/software-config/example-templates/example-sw-component-template.yaml',
    'hot/software-config/example-templates/wordpress/'
    'WordPress_software-config_1-instance.yaml',
    'hot/software-config/example-templates/wordpress/'
    'WordPress_software-config_2-instances.yaml',
    'hot/swift.yaml',
    'hot/vm_with_cinder.yaml',
    'hot/zun/webapp.yaml',
])

#: Every template pinned, whatever its outcome.
PINNED = COMPLETE | set(REFUSED) | set(SIMULATED_FAILS)

# The share of the templates a real Heat accepts that complete (shown).
TARGET = 0.95


def _words(entry):
    words = entry[0]
    return (words,) if isinstance(words, str) else words


def surprise(outcome):
    """What is wrong with the outcome against its pin, or None."""
    path = outcome.template.path
    failing = REFUSED.get(path) or SIMULATED_FAILS.get(path)
    if failing is not None:
        if outcome.complete:
            return 'completed, pinned to fail with %r' % (failing[0],)
        if not any(w in outcome.reason for w in _words(failing)):
            return 'failed for another reason than %r' % (failing[0],)
        return None
    if path not in COMPLETE:
        return 'not pinned: add it to tests/corpus/expected.py'
    if not outcome.complete:
        return '%s, pinned to complete' % outcome.status
    return None


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
    def unexpected(self):
        """``[(outcome, what is wrong)]``: each outcome off its pin."""
        return [(o, surprise(o)) for o in self.outcomes if surprise(o)]

    @property
    def wrongly_refused(self):
        """Expected refusals that completed or failed for another reason."""
        return [o for o, _why in self.unexpected
                if o.template.path in REFUSED]

    @property
    def rate(self) -> float:
        return len(self.completed) / max(1, len(self.counted))

    @property
    def ok(self) -> bool:
        return not self.unexpected

    def lines(self):
        wrong = dict((o.template.path, why) for o, why in self.unexpected)
        for o in sorted(self.outcomes, key=lambda o: o.template.path):
            path = o.template.path
            if path in wrong:
                mark = 'UNEXPECTED: %s' % wrong[path]
            elif o.complete:
                mark = 'ok'
            elif path in REFUSED:
                mark = 'refused as expected'
            else:
                mark = 'fails as pinned'
            line = '%-70s %-22s %3d res %5.1f s  %s' % (
                path, o.status, o.resources, o.seconds, mark)
            if not o.complete:
                line += '\n    ' + o.reason
            yield line
        yield ('%d of %d templates complete with resources (%.1f%%; '
               '%d refused as a real Heat 27 refuses them); %d off their '
               'pins' % (len(self.completed), len(self.counted),
                         100 * self.rate,
                         len(self.outcomes) - len(self.counted),
                         len(self.unexpected)))
