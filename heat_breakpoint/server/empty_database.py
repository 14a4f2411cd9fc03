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
"""A new local Heat's database, migrated once per schema, not per start.

Migrating an empty SQLite database to Heat's head and ours takes about
half a second of a new state directory's start: the larger part of an
editor's F5 with no local Heat running, where each session has a state
directory of its own. The migrated empty database is kept in the user's
cache under a key of what decides its schema (Heat's version and both
packages' database code) and copied into a new state directory; the
migrations still run after the copy and find nothing to do. Any trouble
with the cache only means migrating as before.
"""

import hashlib
from importlib import metadata
import logging
import os
import shutil
import sqlite3

LOG = logging.getLogger(__name__)
_DIR = 'heat-breakpoint'


def _schema_key() -> str:
    import heat.db
    import heat_breakpoint.db
    digest = hashlib.sha256()
    try:
        digest.update(metadata.version('openstack-heat').encode())
    except metadata.PackageNotFoundError:
        pass
    for package in (heat.db, heat_breakpoint.db):
        root = os.path.dirname(package.__file__)
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(('.py', '.ini', '.mako')):
                    path = os.path.join(folder, name)
                    digest.update(os.path.relpath(path, root).encode())
                    with open(path, 'rb') as stream:
                        digest.update(stream.read())
    return digest.hexdigest()[:20]


def cache_path() -> str:
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(
        os.path.expanduser('~'), '.cache')
    return os.path.join(base, _DIR, 'empty-heat-%s.sqlite' % _schema_key())


def copy_into(database: str) -> bool:
    """Put the cached empty database at ``database``; whether it was."""
    try:
        source = cache_path()
        if os.path.exists(database) or not os.path.exists(source):
            return False
        partial = '%s.%d' % (database, os.getpid())
        shutil.copyfile(source, partial)
        os.replace(partial, database)
        return True
    except OSError as exc:
        LOG.debug('no cached empty database: %s', exc)
        return False


def keep(database: str) -> None:
    """Keep ``database``, just migrated and empty, for the next starts."""
    try:
        target = cache_path()
        if os.path.exists(target):
            return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        partial = '%s.%d' % (target, os.getpid())
        with sqlite3.connect(database) as source, \
                sqlite3.connect(partial) as copy:
            source.backup(copy)
        copy.close()
        source.close()
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        LOG.debug('empty database not cached: %s', exc)
