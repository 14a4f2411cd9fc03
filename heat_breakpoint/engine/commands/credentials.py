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
"""The credentials a released check is sent with: the operation's own.

A release (:mod:`.releases`) and a release sent again after its engine
died (:mod:`.lost_releases`) re-dispatch a parked check the same way, on
the stack's stored credentials, never the releaser's. Both ask here, so
neither imports the other for it.
"""

import urllib.parse


def operation_context(stack):
    """The credentials the rest of an operation runs on: its own.

    A release decides *that* the operation goes on, never *who* it goes
    on as, whoever sent it and on whatever thread Heat serves it (a stock
    ``openstack stack hook clear`` runs on a thread of Heat's own, where
    the current context is nobody's): the stack's stored context, as
    Heat sends every check of an operation under
    ``reauthentication_auth_method = trusts``. With a trust
    (``deferred_auth_method = trusts``) it is the owner's, valid however
    long the hold or the work after it lasts; without one
    (``deferred_auth_method = password``) the stored user's, whose roles
    Keystone tells when the check is sent, and a check that needs a
    client (a wait condition handle's stack user, a deployment's signal)
    authenticates with the stored credentials, as Heat's own signals do.
    A Heat with no Keystone at all (``noauth`` and no identity endpoint)
    cannot be asked for roles: there the stored credentials alone
    (:func:`stored_context`).
    """
    stored = stack.stored_context()
    if stored.trust_id or _keystone_known(stored):
        return stored
    return stored_context(stack)


def _keystone_known(cnxt) -> bool:
    """Whether the stored credentials name a Keystone to authenticate at."""
    from heat.common import exception
    try:
        endpoint = cnxt.keystone_v3_endpoint
    except exception.AuthorizationFailure:
        return False
    return urllib.parse.urlsplit(endpoint or '').scheme in ('http', 'https')


def stored_context(stack):
    """The context Heat keeps for the stack's user, as a request's.

    Heat's own ``StoredContext`` asks Keystone for the roles as soon as
    it is sent over RPC; this one carries the same stored credentials (a
    trust, or what ``deferred_auth_method`` stored) and leaves the
    authentication to the check, when it needs a client.
    """
    from heat.common import context as heat_context
    from heat.objects import user_creds

    stored = stack.stored_context()  # a nested stack: its root's creds
    creds = user_creds.UserCreds.get_by_id(stack.context,
                                           stack.user_creds_id)
    values = creds.obj_to_primitive()['versioned_object.data']
    return heat_context.RequestContext.from_dict(
        values, request_id=stored.request_id, overwrite=False)
