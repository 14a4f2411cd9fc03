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
"""The YAML files a user gives the local server (``--cloud``, ``--faults``).

Each is read whole when the server starts; what is wrong with one is said
in one line that names the file, by the caller's error class.
"""


def load_yaml(path: str, what: str, error: type):
    """The document of the ``what`` file at ``path`` (None when empty)."""
    import yaml
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except OSError as exc:
        raise error('cannot read the %s file %s: %s'
                    % (what, path, exc.strerror))
    except yaml.YAMLError as exc:
        raise error('the %s file %s is not YAML: %s'
                    % (what, path, str(exc).splitlines()[0]))
