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
"""Test-wide set-up.

Heat must see oslo.service's threading backend before it is first
imported (heat-engine selects it the same way), so select it here, before
any test module imports Heat.
"""

try:
    from oslo_service import backend
except ImportError:  # the client-only install has no oslo.service
    backend = None

if backend is not None:
    try:
        backend.init_backend(backend.BackendType.THREADING)
    except Exception:  # already selected by an earlier import
        pass
