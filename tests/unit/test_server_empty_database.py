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
"""The migrated empty database a new local Heat starts from."""

import sqlite3

from heat_breakpoint.server import empty_database


def _database(path, rows=()):
    with sqlite3.connect(path) as conn:
        conn.execute('CREATE TABLE stack (id TEXT)')
        conn.executemany('INSERT INTO stack VALUES (?)', rows)
    conn.close()


def _tables(path):
    with sqlite3.connect(path) as conn:
        found = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
    conn.close()
    return found


def test_a_new_state_directory_starts_from_the_kept_database(
        tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    first = tmp_path / 'first.sqlite'
    _database(first)
    assert not empty_database.copy_into(str(tmp_path / 'none.sqlite'))
    empty_database.keep(str(first))
    second = tmp_path / 'second.sqlite'
    assert empty_database.copy_into(str(second))
    assert _tables(second) == ['stack']


def test_an_existing_database_is_never_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    kept = tmp_path / 'kept.sqlite'
    _database(kept)
    empty_database.keep(str(kept))
    mine = tmp_path / 'mine.sqlite'
    _database(mine, [('s1',)])
    assert not empty_database.copy_into(str(mine))
    with sqlite3.connect(mine) as conn:
        assert conn.execute('SELECT id FROM stack').fetchall() == [('s1',)]
    conn.close()


def test_the_key_follows_the_schema_code(tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    before = empty_database.cache_path()
    monkeypatch.setattr(empty_database.metadata, 'version',
                        lambda name: '99.0.0')
    assert empty_database.cache_path() != before
    assert before.startswith(str(tmp_path / 'heat-breakpoint'))


def test_a_cache_that_cannot_be_written_only_means_migrating(
        tmp_path, monkeypatch):
    blocked = tmp_path / 'blocked'
    blocked.write_text('a file where the cache folder would be')
    monkeypatch.setenv('XDG_CACHE_HOME', str(blocked))
    database = tmp_path / 'db.sqlite'
    _database(database)
    empty_database.keep(str(database))  # no error
    assert not empty_database.copy_into(str(tmp_path / 'new.sqlite'))
