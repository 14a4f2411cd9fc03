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
"""The README's main job: ``tools/demo.sh`` runs ``examples/demo.py``.

Run here in this venv (``tools/demo.sh`` only adds making one): the real
template held before its server, inputs shown with the password masked,
continued to CREATE_COMPLETE with a floating IP.
"""

import ipaddress
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, '..', '..', 'examples', 'demo.py')


def test_the_demo_holds_the_real_template_before_its_server():
    proc = subprocess.run([sys.executable, DEMO], capture_output=True,
                          text=True, timeout=600)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    assert 'Stack demo is held at: web (CREATE)' in out
    assert re.search(r'\| web +\| CREATE +\| before +\| held', out)
    assert 'user_data="******"' in out
    # Typed on the create's command line, never shown after it.
    assert out.count('s3cret-pw') == 1
    assert re.search(r'\| simulated +\| yes', out)
    public = re.search(r'\| output_value \| ([0-9.]+) +\|', out).group(1)
    assert ipaddress.ip_address(public) in ipaddress.ip_network(
        '203.0.113.0/24')
    assert out.rstrip().endswith('continue completed it.')
