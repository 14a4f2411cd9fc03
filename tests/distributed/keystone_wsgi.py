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
"""Keystone's WSGI application, for gunicorn (``keystone_wsgi:application``).

Keystone ships no WSGI script of its own any more; its application reads
its configuration files from ``$OS_KEYSTONE_CONFIG_FILES`` and, through
oslo.config, the process's command line, which under gunicorn is
gunicorn's own (and refused): it is cleared first.
"""

import sys

sys.argv = sys.argv[:1]

from keystone.server import wsgi  # noqa: E402 (after argv is cleared)

application = wsgi.initialize_public_application()
