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
"""What the simulated cloud holds: one table of objects, as its services.

A real cloud keeps a server in Nova and a network in Neutron, whoever
created them; here every object of every simulated service is one row,
found by kind and name or ID as the service would find it. Rows come
from three places: the inventory (``--cloud FILE``: flavors, images,
external networks the cloud already has), names assumed on first use
when no inventory is given, and resources the stacks create. The table
lives in the local server's state directory beside Heat's database, so
it survives a restart as the stacks do.
"""

import json
import sqlite3
import threading
from typing import Optional

ORIGINS = (INVENTORY, ASSUMED, CREATED) = ('inventory', 'assumed', 'created')

_SCHEMA = '''
CREATE TABLE IF NOT EXISTS cloud_object (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT,
    project TEXT,
    origin TEXT NOT NULL,
    stack_id TEXT,
    seed TEXT,
    resource_type TEXT,
    data TEXT NOT NULL DEFAULT '{}',
    deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS cloud_object_kind_name
    ON cloud_object (kind, name);
CREATE INDEX IF NOT EXISTS cloud_object_seed
    ON cloud_object (stack_id, seed);
'''


class CloudObject(dict):
    """One object of the cloud: its fields as a dict, plus its identity."""

    def __init__(self, row):
        super().__init__(json.loads(row['data']))
        self.id = row['id']
        self.kind = row['kind']
        self.name = row['name']
        self.project = row['project']
        self.origin = row['origin']
        self.stack_id = row['stack_id']
        self.resource_type = row['resource_type']


class Store(object):
    """The rows, behind one lock: Heat calls in from many threads."""

    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False,
                                   isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute('PRAGMA journal_mode=WAL')
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add(self, kind: str, object_id: str, name: Optional[str],
            origin: str, data: dict, project: Optional[str] = None,
            stack_id: Optional[str] = None, seed: Optional[str] = None,
            resource_type: Optional[str] = None) -> CloudObject:
        with self._lock:
            self._db.execute(
                'INSERT OR REPLACE INTO cloud_object (id, kind, name, '
                'project, origin, stack_id, seed, resource_type, data, '
                'deleted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)',
                (object_id, kind, name, project, origin, stack_id, seed,
                 resource_type, json.dumps(data, default=str)))
        return self.get(object_id)

    def get(self, object_id: str) -> Optional[CloudObject]:
        with self._lock:
            row = self._db.execute(
                'SELECT * FROM cloud_object WHERE id = ? AND deleted = 0',
                (object_id,)).fetchone()
        return CloudObject(row) if row else None

    def find(self, kinds, name_or_id: str) -> list:
        """Live objects of these kinds with this ID, else with this name."""
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        marks = ','.join('?' * len(kinds))
        with self._lock:
            rows = self._db.execute(
                'SELECT * FROM cloud_object WHERE deleted = 0 AND kind IN '
                '(%s) AND id = ?' % marks, kinds + [name_or_id]).fetchall()
            if not rows:
                rows = self._db.execute(
                    'SELECT * FROM cloud_object WHERE deleted = 0 AND kind '
                    'IN (%s) AND name = ? ORDER BY rowid' % marks,
                    kinds + [name_or_id]).fetchall()
        return [CloudObject(r) for r in rows]

    def all(self, kind: str, **fields) -> list:
        """Live objects of a kind whose data has these field values."""
        with self._lock:
            rows = self._db.execute(
                'SELECT * FROM cloud_object WHERE deleted = 0 AND kind = ? '
                'ORDER BY rowid', (kind,)).fetchall()
        found = [CloudObject(r) for r in rows]
        return [o for o in found
                if all(o.get(k) == v for k, v in fields.items())]

    def update(self, object_id: str, **changes) -> Optional[CloudObject]:
        with self._lock:
            row = self._db.execute(
                'SELECT data, name FROM cloud_object WHERE id = ?',
                (object_id,)).fetchone()
            if row is None:
                return None
            data = json.loads(row['data'])
            data.update(changes)
            name = changes.get('name', row['name'])
            self._db.execute(
                'UPDATE cloud_object SET data = ?, name = ? WHERE id = ?',
                (json.dumps(data, default=str), name, object_id))
        return self.get(object_id)

    def delete(self, object_id: str) -> bool:
        with self._lock:
            done = self._db.execute(
                'UPDATE cloud_object SET deleted = 1 WHERE id = ? AND '
                'deleted = 0', (object_id,)).rowcount
        return bool(done)

    def generation(self, stack_id: str, seed: str) -> int:
        """How many objects a stack made from one resource so far."""
        with self._lock:
            return self._db.execute(
                'SELECT count(*) FROM cloud_object WHERE stack_id = ? AND '
                'seed = ?', (stack_id, seed)).fetchone()[0]

    def assumed(self) -> list:
        with self._lock:
            rows = self._db.execute(
                'SELECT kind, name FROM cloud_object WHERE origin = ? '
                'ORDER BY rowid', (ASSUMED,)).fetchall()
        return [(r['kind'], r['name']) for r in rows]

    def live_created(self) -> list:
        with self._lock:
            rows = self._db.execute(
                'SELECT * FROM cloud_object WHERE origin = ? AND deleted = 0 '
                'ORDER BY rowid', (CREATED,)).fetchall()
        return [CloudObject(r) for r in rows]
