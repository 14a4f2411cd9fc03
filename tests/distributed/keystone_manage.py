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
"""Several ``keystone-manage`` commands in one process.

    python keystone_manage.py CONFIG_FILE 'db_sync' 'fernet_setup ...' ...

Each argument after the configuration file is one command line of
``keystone-manage``, run by keystone-manage's own ``main`` in turn. A
``keystone-manage`` process spends about three seconds importing
Keystone on two cores; the four a new Keystone needs cost that once.
"""

import shlex
import sys


def main(argv):
    from keystone.cmd import cli
    config_file, commands = argv[0], argv[1:]
    for command in commands:
        # keystone-manage parses its command line once per process.
        cli.CONF.clear()
        cli.main(['keystone-manage', '--config-file', config_file] +
                 shlex.split(command))
        print('keystone-manage %s: done' % command.split()[0], flush=True)


if __name__ == '__main__':
    main(sys.argv[1:])
