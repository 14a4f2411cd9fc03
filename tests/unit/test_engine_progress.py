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
"""The view's counting queries on Heat's own tables (SQLite, no engine).

What the rows mean is pinned on the real local Heat in
``tests/functional/test_watch.py``; here, the SQL that counts them: the
graph's and the template's filters, the time of the operation, the held
rows, and when a stack's graph is kept in memory.
"""

import datetime
import types

import pytest
import sqlalchemy as sa

from heat.db import models

from heat_breakpoint.engine.view import progress

STARTED = datetime.datetime(2026, 1, 1, 0, 0, 10)
BEFORE = STARTED - datetime.timedelta(seconds=5)
AFTER = STARTED + datetime.timedelta(seconds=5)
TRAVERSAL = 'traversal-1'


@pytest.fixture
def conn():
    engine = sa.create_engine('sqlite://')
    models.BASE.metadata.create_all(engine)
    progress._walked_cache.clear()
    with engine.connect() as connection:
        yield connection
    progress._walked_cache.clear()


def add_stack(conn, stack_id, deps=None, owner=None, parent='', template=2,
              action='UPDATE', status='IN_PROGRESS', traversal=TRAVERSAL):
    conn.execute(sa.insert(models.Stack.__table__).values(
        id=stack_id, name='s-' + stack_id, owner_id=owner,
        parent_resource_name=parent, raw_template_id=template,
        current_traversal=traversal, current_deps=deps, action=action,
        status=status, created_at=BEFORE, disable_rollback=True,
        convergence=deps is not None))


def add_resource(conn, res_id, name, stack_id='top', action='UPDATE',
                 status='COMPLETE', template=2, changed=AFTER, root='top'):
    conn.execute(sa.insert(models.Resource.__table__).values(
        id=res_id, name=name, stack_id=stack_id, root_stack_id=root,
        action=action, status=status, current_template_id=template,
        created_at=changed, updated_at=changed, uuid='uuid-%d' % res_id))


def graph(*ids, update=True):
    return {'edges': [[[res_id, update], None] for res_id in ids]}


def count(conn, held=(), nested_depth=None, top='top'):
    watched = types.SimpleNamespace(id=top, updated_at=STARTED,
                                    created_at=BEFORE, status='IN_PROGRESS')
    rows = [{'stack': 's/%s' % stack_id, 'resource_name': name,
             'state': 'held'} for stack_id, name in held]
    return progress.progress(conn, watched, 'top', rows, nested_depth,
                             events=0)['counts']


def counts(**found):
    return dict(dict.fromkeys(progress.STATES, 0), **found)


def test_counts_only_what_the_graph_walks(conn):
    add_stack(conn, 'top', deps=graph(1, 2, 3, 4, 5))
    add_resource(conn, 1, 'done')
    add_resource(conn, 2, 'running', status='IN_PROGRESS')
    add_resource(conn, 3, 'old_template', template=1, changed=BEFORE)
    add_resource(conn, 4, 'failed_now', status='FAILED')
    add_resource(conn, 5, 'failed_before', status='FAILED', changed=BEFORE)
    add_resource(conn, 6, 'replaced_row')  # not in the graph
    add_resource(conn, 7, 'done', template=1)  # an older row of a name
    assert count(conn) == counts(complete=1, in_progress=1, waiting=2,
                                 failed=1)


def test_held_rows_are_held_when_counted(conn):
    add_stack(conn, 'top', deps=graph(1, 2))
    add_resource(conn, 1, 'a', status='IN_PROGRESS')
    add_resource(conn, 2, 'b')
    add_resource(conn, 3, 'c', status='IN_PROGRESS')  # not walked
    assert count(conn, held=[('top', 'a'), ('top', 'c')]) == counts(
        held=1, complete=1)


def test_without_a_graph_the_template_decides(conn):
    add_stack(conn, 'top')
    add_resource(conn, 1, 'current')
    add_resource(conn, 2, 'current_running', status='IN_PROGRESS')
    add_resource(conn, 3, 'other_template', template=1)
    assert count(conn) == counts(complete=1, in_progress=1)


def test_a_delete_counts_its_cleanup_nodes(conn):
    add_stack(conn, 'top', deps=graph(1, 2, 3, update=False),
              action='DELETE')
    add_resource(conn, 1, 'deleted', action='DELETE')
    add_resource(conn, 2, 'left', action='UPDATE')
    add_resource(conn, 3, 'deleting', action='DELETE', status='IN_PROGRESS')
    assert count(conn) == counts(complete=1, waiting=1, in_progress=1)


def test_nested_stacks_counted_to_the_depth_asked(conn):
    add_stack(conn, 'top', deps=graph(1, 2))
    add_stack(conn, 'child', deps=graph(3, 4), owner='top', parent='nest')
    add_stack(conn, 'other', deps=graph(5), owner='top', parent='nest2')
    add_resource(conn, 1, 'a')
    add_resource(conn, 2, 'nest', status='IN_PROGRESS')
    add_resource(conn, 3, 'a', stack_id='child')
    add_resource(conn, 4, 'b', stack_id='child', status='IN_PROGRESS')
    add_resource(conn, 5, 'c', stack_id='other', status='FAILED')
    assert count(conn) == counts(complete=2, in_progress=2, failed=1)
    assert count(conn, nested_depth=0) == counts(complete=1, in_progress=1)
    assert count(conn, top='child') == counts(complete=1, in_progress=1)


def set_deps(conn, stack_id, deps):
    stack = models.Stack.__table__
    conn.execute(sa.update(stack).where(stack.c.id == stack_id)
                 .values(current_deps=deps))


def test_graph_of_a_running_traversal_kept_once_its_sync_points_exist(conn):
    add_stack(conn, 'top', deps=graph(1))
    add_resource(conn, 1, 'a')
    add_resource(conn, 2, 'b')
    # The traversal is stored before its graph: the graph read may be the
    # previous one's, so it is read again.
    assert count(conn) == counts(complete=1)
    set_deps(conn, 'top', graph(1, 2))
    assert count(conn) == counts(complete=2)
    conn.execute(sa.insert(models.SyncPoint.__table__).values(
        entity_id='1', traversal_id=TRAVERSAL, is_update=True,
        atomic_key=0, stack_id='top'))
    assert count(conn) == counts(complete=2)
    # Kept: the graph is not read again for this traversal.
    set_deps(conn, 'top', graph(1))
    assert count(conn) == counts(complete=2)
    # A new traversal is a new key.
    stack = models.Stack.__table__
    conn.execute(sa.update(stack).values(current_traversal='traversal-2',
                                         status='COMPLETE'))
    assert count(conn) == counts(complete=1)


def test_cache_keeps_the_latest_stacks():
    cache = progress._WalkedCache(2)
    cache.put('a', frozenset({1}))
    cache.put('b', None)
    assert cache.get('a') == frozenset({1})  # now the latest
    cache.put('c', frozenset())
    assert cache.get('b') is progress._MISSING
    assert cache.get('a') == frozenset({1})
    assert cache.get('c') == frozenset()
