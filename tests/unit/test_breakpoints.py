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
"""Tests of the breakpoint model: spellings, validation, registry merges."""

import copy
import string
import time

import hypothesis
from hypothesis import strategies as st
import pytest

from heat_breakpoint.model import breakpoints as bp
from heat_breakpoint.model.breakpoints import Breakpoint
from heat_breakpoint.model.breakpoints import BreakpointError
from heat_breakpoint.model import envfile
from heat_breakpoint.model import registry
from heat_breakpoint.model import section
from tests.unit import env_hooks

FAST = hypothesis.settings(max_examples=200, deadline=None)


def _raises(call, *args) -> str:
    """Run a call that must fail; return its one-line message."""
    with pytest.raises(BreakpointError) as info:
        call(*args)
    message = str(info.value)
    assert '\n' not in message
    assert info.value.message == message
    return message


_hooks_at = env_hooks.hooks_at


# ---------------------------------------------------------------------------
# Spellings

class TestSpellings(object):

    def test_single_name(self):
        assert section.parse_section('db') == [Breakpoint((), 'db')]

    def test_spec_mapping_form(self):
        assert section.parse_section(
            {'resource': 'failing_resource_name'}) == [
            Breakpoint((), 'failing_resource_name', ('create', 'update'))]

    def test_mapping_with_action(self):
        [result] = section.parse_section(
            {'resource': 'db', 'action': 'update'})
        assert result.actions == ('update',)

    def test_mapping_with_actions_list_is_ordered_and_deduplicated(self):
        [result] = section.parse_section(
            {'resource': 'db', 'actions': ['DELETE', 'create', 'Create']})
        assert result.actions == ('create', 'delete')

    def test_action_may_be_a_list_and_actions_a_string(self):
        assert section.parse_section(
            {'resource': 'db', 'action': ['delete']})[0].actions == (
                'delete',)
        assert section.parse_section(
            {'resource': 'db', 'actions': 'Update'})[0].actions == (
                'update',)

    def test_list_of_names(self):
        result = section.parse_section(['db', 'app_tier/web_*'])
        assert [b.name for b in result] == ['db', 'app_tier/web_*']
        assert result[1].path == ('app_tier',)
        assert result[1].pattern == 'web_*'

    def test_mixed_list(self):
        result = section.parse_section([
            {'resource': 'db', 'action': 'update'},
            {'resource': 'app_tier/web_1'}, 'x'])
        assert [(b.name, b.actions) for b in result] == [
            ('db', ('update',)),
            ('app_tier/web_1', ('create', 'update')),
            ('x', ('create', 'update'))]

    @pytest.mark.parametrize('empty', [None, []])
    def test_empty_section_means_no_breakpoints(self, empty):
        assert section.parse_section(empty) == []

    def test_parse_name_nested_with_actions(self):
        result = bp.parse_name('outer/middle/inner_?', actions=['delete'])
        assert result.path == ('outer', 'middle')
        assert result.pattern == 'inner_?'
        assert result.actions == ('delete',)

    def test_parse_names_repeated_options(self):
        result = bp.parse_names(['a', 'b/c'], actions='update')
        assert [b.name for b in result] == ['a', 'b/c']
        assert all(b.actions == ('update',) for b in result)

    def test_parse_names_accepts_one_string(self):
        assert [b.name for b in bp.parse_names('db')] == ['db']


# ---------------------------------------------------------------------------
# Errors

class TestErrors(object):

    def test_unknown_key_message_names_entry_and_allowed_keys(self):
        message = _raises(section.parse_section, [
            'a', 'b', {'resource': 'c', 'actoin': 'update'}])
        assert message == ("breakpoints[2]: unknown key 'actoin' "
                           "(allowed: resource, action, actions, when, hook)")

    def test_user_cannot_write_marker_only_keys(self):
        message = _raises(section.parse_section,
                          {'resource': 'c', 'native_hooks': 'pre-create'})
        assert "unknown key 'native_hooks'" in message

    @pytest.mark.parametrize('value, expected', [
        ({'action': 'create'}, "breakpoints: missing key 'resource'"),
        ({'resource': 'a', 'action': 'create', 'actions': ['update']},
         "give either 'action' or 'actions'"),
        ({'resource': ['a', 'b']},
         'breakpoints.resource: must be a resource name, got a list'),
        ([7], "breakpoints[0]: must be a resource name or a mapping"),
        (3.5, 'got a number'),
        (True, 'got a boolean'),
        ({1: 'x', 'resource': 'a'}, 'unknown key a number'),
        ([{'resource': 'a', 'action': [5]}],
         'breakpoints[0].action: an action must be a string'),
        ({'resource': 'a', 'actions': []},
         'breakpoints.actions: no action given '
         '(allowed: create, update, delete)'),
        ({'resource': 'a', 'actions': {'create': 1}},
         'breakpoints.actions: actions must be an action name or a list'),
    ])
    def test_wrong_types_and_keys(self, value, expected):
        assert expected in _raises(section.parse_section, value)

    @pytest.mark.parametrize('name, expected', [
        ('', 'breakpoint name is empty'),
        ('a//b', "breakpoint 'a//b': empty path segment"),
        ('/a', "breakpoint '/a': empty path segment"),
        ('a/', "breakpoint 'a/': empty path segment"),
        ('.', "'.' is not a resource name"),
        ('a/../b', "'..' is not a resource name"),
        ('a\x00b', 'control characters are not allowed'),
        ('a\nb', 'control characters are not allowed'),
        ('a\x7fb', 'control characters are not allowed'),
        ('hooks', "'hooks' is reserved by Heat's resource registry"),
        ('a/restricted_actions', "'restricted_actions' is reserved"),
    ])
    def test_bad_names(self, name, expected):
        assert expected in _raises(bp.parse_name, name)
        assert expected in _raises(section.parse_section, [name])

    def test_name_too_long_names_the_limit(self):
        message = _raises(bp.parse_name, 'a/' + 'x' * 256)
        assert '256 characters long (limit: 255)' in message
        assert len(message) < 200  # the name itself is shortened
        assert bp.parse_name('x' * 255).pattern == 'x' * 255

    def test_too_deep_names_the_limit(self):
        message = _raises(bp.parse_name, '/'.join('abcdefghijk'))
        assert 'nested 11 levels deep (limit: 10)' in message
        assert len(bp.parse_name('/'.join('abcdefghij')).segments) == 10

    def test_too_many_names_the_limit(self):
        names = ['r%d' % i for i in range(201)]
        assert 'too many breakpoints (201; limit: 200)' in _raises(
            section.parse_section, names)
        assert 'limit: 200' in _raises(bp.parse_names, names)
        assert len(section.parse_section(names[:200])) == 200

    @pytest.mark.parametrize('action', ['pre-create', 'replace', 'CHECK'])
    def test_unknown_action_lists_allowed(self, action):
        message = _raises(bp.parse_name, 'db', action)
        assert message == ("unknown action %r (allowed: create, update, "
                           "delete)" % action)

    def test_duplicates_in_section(self):
        message = _raises(section.parse_section,
                          ['db', {'resource': 'db', 'action': 'delete'}])
        assert message == ("breakpoints[1]: breakpoint 'db' is already "
                           "given at breakpoints[0]")

    def test_duplicates_in_cli_names(self):
        assert "breakpoint 'a/b' is given twice" in _raises(
            bp.parse_names, ['a/b', 'c', 'a/b'])

    def test_error_is_a_value_error(self):
        with pytest.raises(ValueError):
            bp.parse_name('')

    def test_direct_construction_is_validated(self):
        assert "contains '/'" in _raises(Breakpoint, ('a/b',), 'c')
        assert 'empty path segment' in _raises(Breakpoint, ('',), 'c')
        assert 'unknown action' in _raises(Breakpoint, (), 'c', ('nap',))
        assert 'must be strings' in _raises(Breakpoint, (), 5)
        assert 'sequence of names' in _raises(Breakpoint, 'ab', 'c')


# ---------------------------------------------------------------------------
# The Breakpoint value

class TestBreakpoint(object):

    def test_properties(self):
        b = bp.parse_name('app_tier/web_*', ['update', 'create'])
        assert b.name == 'app_tier/web_*'
        assert b.segments == ('app_tier', 'web_*')
        assert b.hooks == ('pre-create', 'pre-update')
        assert b.to_dict() == {'resource': 'app_tier/web_*',
                               'actions': ['create', 'update']}

    def test_default_actions(self):
        assert bp.parse_name('db').actions == bp.DEFAULT_ACTIONS
        assert Breakpoint((), 'db').hooks == ('pre-create', 'pre-update')

    def test_normalised_values_compare_equal(self):
        assert Breakpoint(['a'], 'b', ['UPDATE', 'create']) == Breakpoint(
            ('a',), 'b', ('create', 'update'))
        assert len({Breakpoint(['a'], 'b'), Breakpoint(('a',), 'b')}) == 1

    def test_frozen(self):
        with pytest.raises(AttributeError):
            bp.parse_name('db').pattern = 'x'

    @pytest.mark.parametrize('path, action, expected', [
        (['app_tier', 'web_1'], None, True),
        (['app_tier', 'web_1'], 'create', True),
        (['app_tier', 'web_1'], 'CREATE', True),
        (['app_tier', 'web_1'], 'delete', False),
        (['app_tier', 'db'], None, False),
        (['web_1'], None, False),
        (['app_tier', 'web_1', 'x'], None, False),
        (['App_tier', 'web_1'], None, False),
        ('app_tier/web_22', None, True),
    ])
    def test_matches(self, path, action, expected):
        b = bp.parse_name('app_tier/web_*')
        assert b.matches(path, action) is expected

    def test_matches_question_mark_and_class(self):
        b = bp.parse_name('srv_[ab]?')
        assert b.matches(['srv_a1'])
        assert not b.matches(['srv_c1'])
        assert not b.matches(['srv_a12'])


# ---------------------------------------------------------------------------
# apply_to_environment

USER_ENV = {
    'parameters': {'flavor': 'm1.small'},
    'parameter_defaults': {'key_name': 'mine'},
    'resource_registry': {
        'My::Server': 'server.yaml',
        'resources': {
            'db': {'hooks': 'pre-delete',
                   'restricted_actions': ['replace'],
                   'OS::Nova::Server': 'My::Server'},
            'web': {'hooks': ['pre-update']},
            'app_tier': {'OS::Heat::Stack': 'tier.yaml',
                         'web_1': {'restricted_actions': 'update'}},
        },
    },
}


class TestApply(object):

    def test_empty_environment(self):
        env = registry.apply_to_environment(None, bp.parse_names(['db']))
        assert env == {
            'resource_registry': {'resources': {'db': {
                'hooks': ['pre-create', 'pre-update']}}},
            'parameter_defaults': {'heat_breakpoints': [
                {'resource': 'db', 'actions': ['create', 'update']}]},
        }

    def test_never_mutates_input(self):
        env = copy.deepcopy(USER_ENV)
        new = registry.apply_to_environment(env, bp.parse_names(['db', 'x']))
        assert env == USER_ENV
        assert new is not env
        new['resource_registry']['resources']['web']['hooks'].append('x')
        assert env == USER_ENV

    def test_merge_keeps_every_user_entry(self):
        new = registry.apply_to_environment(USER_ENV, bp.parse_names(
            ['db', 'web', 'app_tier/web_1', 'app_tier/web_*']))
        found = new['resource_registry']
        assert found['My::Server'] == 'server.yaml'
        db = found['resources']['db']
        assert db['hooks'] == ['pre-delete', 'pre-create', 'pre-update']
        assert db['restricted_actions'] == ['replace']
        assert db['OS::Nova::Server'] == 'My::Server'
        assert found['resources']['web']['hooks'] == [
            'pre-update', 'pre-create']
        tier = found['resources']['app_tier']
        assert tier['OS::Heat::Stack'] == 'tier.yaml'
        assert tier['web_1'] == {'restricted_actions': 'update',
                                 'hooks': ['pre-create', 'pre-update']}
        assert tier['web_*'] == {'hooks': ['pre-create', 'pre-update']}
        assert new['parameters'] == {'flavor': 'm1.small'}
        assert new['parameter_defaults']['key_name'] == 'mine'

    def test_marker_records_the_user_hooks(self):
        new = registry.apply_to_environment(USER_ENV, bp.parse_names(['db']))
        assert new['parameter_defaults']['heat_breakpoints'] == [{
            'resource': 'db', 'actions': ['create', 'update'],
            'native_hooks': 'pre-delete'}]

    def test_marker_merges_and_same_name_replaces(self):
        env = registry.apply_to_environment(None, bp.parse_names(['a', 'b']))
        env = registry.apply_to_environment(
            env, [bp.parse_name('b', 'delete'), bp.parse_name('c')])
        marker = env['parameter_defaults']['heat_breakpoints']
        assert [(m['resource'], m['actions']) for m in marker] == [
            ('a', ['create', 'update']), ('b', ['delete']),
            ('c', ['create', 'update'])]
        assert _hooks_at(env, 'b') == ['pre-delete']

    def test_accepts_names_as_strings(self):
        env = registry.apply_to_environment({}, ['x/y'])
        assert _hooks_at(env, 'x', 'y') == ['pre-create', 'pre-update']

    def test_same_name_twice_in_one_call(self):
        assert 'given twice' in _raises(
            registry.apply_to_environment, {}, ['a', 'a'])

    def test_total_limit_counts_existing_breakpoints(self):
        env = registry.apply_to_environment(
            {}, ['r%d' % i for i in range(150)])
        message = _raises(registry.apply_to_environment, env,
                          ['s%d' % i for i in range(51)])
        assert 'limit: 200' in message

    @pytest.mark.parametrize('env, expected', [
        ({'resource_registry': {'resources': {'db': 'OS::X'}}},
         "cannot add breakpoint 'db': resource_registry.resources.db is "
         "a string, not a mapping"),
        ({'resource_registry': {'resources': {'db': None}}},
         'resource_registry.resources.db is null'),
        ({'resource_registry': ['x']}, 'resource_registry is a list'),
        ({'resource_registry': {'resources': {'db': {'hooks': 5}}}},
         'resource_registry.resources.db.hooks: must be a hook name'),
        ({'parameter_defaults': 'x'}, 'parameter_defaults must be a mapping'),
        ({'parameter_defaults': {'heat_breakpoints': 5}},
         'parameter_defaults.heat_breakpoints: must be'),
    ])
    def test_conflicts_are_reported_not_overwritten(self, env, expected):
        assert expected in _raises(registry.apply_to_environment, env, ['db'])

    def test_environment_must_be_a_mapping(self):
        assert 'got a list' in _raises(registry.apply_to_environment, [],
                                       ['a'])


# ---------------------------------------------------------------------------
# remove_from_environment

class TestRemove(object):

    def test_apply_then_remove_restores_user_env(self):
        names = ['db', 'web', 'app_tier/web_1', 'new/deep/x']
        env = registry.apply_to_environment(USER_ENV, bp.parse_names(names))
        assert registry.remove_from_environment(env, names) == USER_ENV

    def test_remove_one_leaves_the_others(self):
        env = registry.apply_to_environment(USER_ENV,
                                            bp.parse_names(['db', 'x']))
        env = registry.remove_from_environment(env, 'db')
        assert _hooks_at(env, 'db') == 'pre-delete'
        assert _hooks_at(env, 'x') == ['pre-create', 'pre-update']
        assert [b.name for b in registry.from_environment(env)] == ['x']

    def test_user_hook_added_later_survives(self):
        env = registry.apply_to_environment({}, ['db'])
        _hooks_at(env, 'db').append('post-create')
        env = registry.remove_from_environment(env, [bp.parse_name('db')])
        assert _hooks_at(env, 'db') == ['post-create']

    def test_user_hook_equal_to_breakpoint_hook_survives(self):
        user = {'resource_registry': {'resources': {
            'db': {'hooks': ['pre-create']}}}}
        env = registry.apply_to_environment(user, ['db'])
        assert _hooks_at(env, 'db') == ['pre-create', 'pre-update']
        assert registry.remove_from_environment(env, ['db']) == user

    def test_prunes_what_it_created(self):
        env = registry.apply_to_environment({'parameters': {'a': 1}},
                                            ['outer/inner'])
        assert registry.remove_from_environment(env, ['outer/inner']) == {
            'parameters': {'a': 1}}

    def test_prunes_empty_mappings_heat_reads_as_missing(self):
        user = {'resource_registry': {'resources': {'db': {}}}}
        env = registry.apply_to_environment(user, ['db'])
        assert registry.remove_from_environment(env, ['db']) == {}

    def test_unknown_name_lists_existing(self):
        env = registry.apply_to_environment({}, ['a', 'b/c'])
        assert _raises(registry.remove_from_environment, env, ['zz']) == (
            "no breakpoint 'zz' to remove (breakpoints set: a, b/c)")
        assert 'breakpoints set: none' in _raises(
            registry.remove_from_environment, USER_ENV, ['db'])

    def test_does_not_mutate_input(self):
        env = registry.apply_to_environment(USER_ENV, ['db'])
        before = copy.deepcopy(env)
        registry.remove_from_environment(env, ['db'])
        assert env == before

    def test_hooks_already_gone_is_not_an_error(self):
        env = registry.apply_to_environment({}, ['db'])
        del env['resource_registry']
        assert registry.remove_from_environment(env, ['db']) == {}


# ---------------------------------------------------------------------------
# rewrite_environment, from_environment, native_hooks

class TestRewrite(object):

    def test_without_section_returns_same_object(self):
        env = copy.deepcopy(USER_ENV)
        assert registry.rewrite_environment(env) is env
        assert registry.rewrite_environment(None) is None

    def test_section_becomes_hooks_and_marker(self):
        env = dict(USER_ENV, breakpoints={'resource': 'web',
                                          'action': 'delete'})
        new = registry.rewrite_environment(env)
        assert 'breakpoints' not in new
        assert 'breakpoints' in env
        assert _hooks_at(new, 'web') == ['pre-update', 'pre-delete']
        assert registry.from_environment(new) == [
            bp.parse_name('web', 'delete')]

    def test_empty_section_is_dropped(self):
        assert registry.rewrite_environment({'breakpoints': None,
                                             'parameters': {}}) == {
            'parameters': {}}

    def test_invalid_section(self):
        assert 'breakpoints[0]' in _raises(registry.rewrite_environment,
                                           {'breakpoints': ['a//b']})

    def test_from_environment_without_marker(self):
        assert registry.from_environment(USER_ENV) == []
        assert registry.from_environment(None) == []
        assert registry.from_environment({'parameter_defaults': None}) == []

    @pytest.mark.parametrize('marker, expected', [
        (5, 'parameter_defaults.heat_breakpoints: must be'),
        ([{'resource': 'a', 'bogus': 1}],
         "parameter_defaults.heat_breakpoints[0]: unknown key 'bogus'"),
        ([{'resource': 'a', 'native_hooks': 3}], 'native_hooks: must be'),
        (['a', 'a'], 'already given'),
    ])
    def test_corrupt_marker(self, marker, expected):
        env = {'parameter_defaults': {'heat_breakpoints': marker}}
        assert expected in _raises(registry.from_environment, env)

    def test_native_hooks_walks_nested_registry(self):
        env = registry.apply_to_environment(USER_ENV, ['app_tier/web_1'])
        assert registry.native_hooks(env) == [
            (('db',), ('pre-delete',)),
            (('web',), ('pre-update',)),
            (('app_tier', 'web_1'), ('pre-create', 'pre-update')),
        ]

    @pytest.mark.parametrize('env', [
        None, [], {'resource_registry': 5},
        {'resource_registry': {'resources': ['x']}},
        {'resource_registry': {'resources': {'a': {'hooks': {'x': 1}},
                                             'b': 'T'}}},
    ])
    def test_native_hooks_tolerates_garbage(self, env):
        assert registry.native_hooks(env) == []


# ---------------------------------------------------------------------------
# check_resource_names

class TestCheckResourceNames(object):

    NAMES = ['web', 'db', 'app', 'db_user']

    def test_all_match(self):
        bp.check_resource_names(
            bp.parse_names(['db', 'web*', 'app/anything/deep', 'd?']),
            self.NAMES)

    def test_message_lists_closest_and_all_names(self):
        message = _raises(bp.check_resource_names,
                          bp.parse_names(['db', 'dbb']), self.NAMES)
        assert message == (
            "breakpoint 'dbb' matches no resource in the template; "
            "closest: db, db_user (resources: app, db, db_user, web)")

    def test_only_first_segment_is_checked(self):
        message = _raises(bp.check_resource_names,
                          bp.parse_names(['ap/web']), self.NAMES)
        assert message.startswith(
            "breakpoint 'ap/web': 'ap' matches no resource")
        assert 'closest: app' in message

    def test_wildcard_must_match_something(self):
        message = _raises(bp.check_resource_names,
                          bp.parse_names(['zz*']), self.NAMES)
        assert 'closest' not in message
        assert '(resources: app, db, db_user, web)' in message

    def test_many_names_are_truncated(self):
        names = ['res_%03d' % i for i in range(100)]
        message = _raises(bp.check_resource_names,
                          bp.parse_names(['nope', 'nada']), names)
        assert '... (70 more)' in message
        assert "also unmatched: 'nada'" in message
        assert len(message) < 600

    def test_template_without_resources(self):
        assert 'the template has no resources' in _raises(
            bp.check_resource_names, bp.parse_names(['a']), [])


# ---------------------------------------------------------------------------
# load_environment_text

def _billion_laughs(levels: int = 9) -> str:
    lines = ['l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
    for level in range(1, levels):
        refs = ', '.join(['*l%d' % (level - 1)] * 9)
        lines.append('l%d: &l%d [%s]' % (level, level, refs))
    return '\n'.join(lines) + '\n'


class TestLoadEnvironmentText(object):

    @pytest.mark.parametrize('text', ['', '# only a comment\n', b'', '~'])
    def test_empty(self, text):
        assert envfile.load_environment_text(text) == {}

    def test_mapping_and_bytes(self):
        text = 'breakpoints:\n  resource: db\nparameters: {a: 1}\n'
        expected = {'breakpoints': {'resource': 'db'},
                    'parameters': {'a': 1}}
        assert envfile.load_environment_text(text) == expected
        assert envfile.load_environment_text(text.encode('utf-8')) == expected

    def test_dates_stay_strings_as_in_heat(self):
        assert envfile.load_environment_text('d: 2016-10-17') == {
            'd': '2016-10-17'}

    def test_small_aliases_are_fine(self):
        env = envfile.load_environment_text('a: &x [1, 2]\nb: [*x, *x]\n')
        assert env == {'a': [1, 2], 'b': [[1, 2], [1, 2]]}

    @pytest.mark.parametrize('text, expected', [
        ('- a\n- b\n', 'must be a mapping of sections, got a list'),
        ('just text', 'got a string'),
        ('a: [\n', 'not valid YAML'),
        ('a: b: c', 'not valid YAML'),
        ('a: !!python/object:os.system x', 'not valid YAML'),
        ('? [a]\n: 1\n', 'not valid YAML'),
        ('a: 1' + '1' * 5000, 'not valid YAML'),
        ('a: &x [*x]', 'recursive YAML alias'),
        ('a: ' + '[' * 300 + ']' * 300, 'nested too deeply (limit: 200'),
    ])
    def test_refused(self, text, expected):
        assert expected in _raises(envfile.load_environment_text, text)

    def test_yaml_error_message_has_a_position(self):
        message = _raises(envfile.load_environment_text, 'a: 1\nb: [\n')
        assert '(line 3, column 1)' in message

    def test_alias_bomb_refused_quickly(self):
        started = time.monotonic()
        message = _raises(envfile.load_environment_text, _billion_laughs())
        assert 'aliases expand to more than 100000' in message
        assert time.monotonic() - started < 1.0

    def test_too_large(self):
        text = 'a: "%s"\n' % ('x' * envfile.MAX_ENVIRONMENT_SIZE)
        assert 'larger than 1048576 bytes' in _raises(
            envfile.load_environment_text, text)
        multibyte = 'a: "%s"\n' % (
            '\u00e9' * (envfile.MAX_ENVIRONMENT_SIZE // 2))
        assert 'larger than' in _raises(envfile.load_environment_text,
                                        multibyte)

    def test_not_text(self):
        assert 'got a number' in _raises(envfile.load_environment_text, 5)

    def test_invalid_encoding(self):
        assert 'not valid YAML' in _raises(envfile.load_environment_text,
                                           b'a: \xff\xfe\x00')
        assert 'not valid YAML' in _raises(envfile.load_environment_text,
                                           'a: \ud800')


# ---------------------------------------------------------------------------
# Properties

_SCALARS = (st.none() | st.booleans() | st.integers() | st.text(max_size=8)
            | st.floats(allow_nan=False) | st.sampled_from(
                ['db', 'a/b', 'a//b', 'create', 'UPDATE', 'pre-create',
                 'hooks', 'x' * 300, '']))
_KEYS = st.sampled_from(['resource', 'action', 'actions', 'actoin',
                         'native_hooks']) | st.text(max_size=5)
_JSON_LIKE = st.recursive(
    _SCALARS,
    lambda children: (st.lists(children, max_size=6)
                      | st.dictionaries(_KEYS, children, max_size=4)),
    max_leaves=20)

_YAML_TOKENS = st.sampled_from([
    'breakpoints', 'resource', 'action', ':', ': ', ' ', '\n', '- ', '&a ',
    '*a', '*b', '&b ', '[', ']', '{', '}', ',', '"', "'", '!!binary ',
    '!!python/name:os.system ', '!!set ', '? ', '<<: ', '#', '|\n', '>\n',
    '\t', '2016-01-01', '1e3', '0x1F', '.nan', '~', 'db', 'a/b', '%YAML 1.1',
    '---', '...', '\x00', '\ufeff', '\ud800', '\u00e9'])
_YAML_TEXT = (st.lists(_YAML_TOKENS, max_size=40).map(''.join)
              | st.text(max_size=60))

_SEGMENT = st.text(alphabet='abcxyz_*?', min_size=1, max_size=4)
_BREAKPOINT = st.builds(
    Breakpoint,
    path=st.lists(_SEGMENT, max_size=2).map(tuple),
    pattern=_SEGMENT,
    actions=st.sets(st.sampled_from(bp.ACTIONS), min_size=1).map(tuple))
_BREAKPOINTS = st.lists(_BREAKPOINT, max_size=8,
                        unique_by=lambda b: b.name)

_HOOKS = (st.sampled_from(['pre-create', 'pre-update', 'pre-delete',
                           'post-create'])
          | st.lists(st.sampled_from(['pre-create', 'pre-update',
                                      'pre-delete', 'post-update']),
                     max_size=3))
_LEAF_SETTINGS = st.fixed_dictionaries({}, optional={
    'hooks': _HOOKS,
    'restricted_actions': st.sampled_from(['update', ['replace']]),
    'OS::Nova::Server': st.just('My::Server'),
})


def _entries(children):
    return st.dictionaries(_SEGMENT, children, min_size=1, max_size=3)


_ENTRY = st.recursive(
    _LEAF_SETTINGS.filter(bool),
    lambda children: st.tuples(_LEAF_SETTINGS, _entries(children)).map(
        lambda pair: dict(pair[0], **pair[1])),
    max_leaves=6)
_USER_ENV = st.fixed_dictionaries({}, optional={
    'parameters': st.dictionaries(st.text(max_size=3), st.integers(),
                                  min_size=1, max_size=2),
    'parameter_defaults': st.dictionaries(
        st.sampled_from(['key_name', 'flavor']), st.text(max_size=3),
        min_size=1),
    'resource_registry': st.fixed_dictionaries(
        {'resources': _entries(_ENTRY)},
        optional={'My::T': st.just('t.yaml')}),
})


def _returns_or_says_one_line(function, value, good):
    """FUNCTION(VALUE) is GOOD, or raises a one-line BreakpointError only."""
    try:
        result = function(value)
    except BreakpointError as error:
        assert '\n' not in str(error)
    else:
        assert good(result), result


class TestProperties(object):

    @FAST
    @hypothesis.given(_JSON_LIKE)
    def test_parse_section_raises_only_breakpoint_error(self, value):
        _returns_or_says_one_line(
            section.parse_section, value,
            lambda result: all(isinstance(b, Breakpoint) for b in result))

    @FAST
    @hypothesis.given(_YAML_TEXT | st.binary(max_size=60))
    def test_load_environment_text_raises_only_breakpoint_error(self, text):
        _returns_or_says_one_line(
            envfile.load_environment_text, text,
            lambda env: isinstance(env, dict))

    @FAST
    @hypothesis.given(_USER_ENV, _BREAKPOINTS)
    def test_apply_round_trips_and_shows_every_hook(self, env, given):
        new = registry.apply_to_environment(env, given)
        assert set(registry.from_environment(new)) == set(given)
        shown = dict(registry.native_hooks(new))
        for breakpoint in given:
            assert set(breakpoint.hooks) <= set(shown[breakpoint.segments])
            assert bp.parse_name(breakpoint.name,
                                 breakpoint.actions) == breakpoint

    @FAST
    @hypothesis.given(_USER_ENV, _BREAKPOINTS)
    def test_apply_then_remove_restores_user_env(self, env, given):
        original = copy.deepcopy(env)
        new = registry.apply_to_environment(env, given)
        assert env == original
        restored = registry.remove_from_environment(
            new, [b.name for b in given])
        assert restored == original

    @FAST
    @hypothesis.given(st.lists(st.text(alphabet=string.printable,
                                       max_size=12), max_size=4))
    def test_parse_names_raises_only_breakpoint_error(self, names):
        try:
            result = bp.parse_names(names)
        except BreakpointError:
            return
        assert [b.name for b in result] == names


# -- armed: what holds in a stack with an environment -------------------------

def test_armed_lists_marker_then_hand_set_hooks_once():
    env = registry.apply_to_environment(
        {}, bp.parse_names(['web', 'app/db'], ['create']))
    env['resource_registry']['resources'].setdefault('lb', {})['hooks'] = [
        'pre-update', 'post-create']
    env['resource_registry']['resources']['web']['hooks'] = [
        'pre-create', 'pre-delete']  # hand-edited: the marker wins
    found = registry.armed(env)
    assert [(b.name, b.actions) for b in found] == [
        ('web', ('create',)), ('app/db', ('create',)), ('lb', ('update',))]


def test_armed_skips_what_it_cannot_parse():
    env = {'resource_registry': {'resources': {
        'x' * 300: {'hooks': 'pre-create'},
        'ok': {'hooks': ['post-create']},
        'fine': {'hooks': 'pre-delete'}}}}
    assert [(b.name, b.actions) for b in registry.armed(env)] == [
        ('fine', ('delete',))]


def test_armed_of_nothing():
    assert registry.armed(None) == []
    assert registry.armed({}) == []


# -- kinds of hold: before, after, on failure, on change, on replace ---------

class TestWhen:

    def test_default_is_before_with_pre_hooks(self):
        found = bp.parse_name('db')
        assert (found.when, found.hooks) == ('before', ('pre-create',
                                                        'pre-update'))
        assert found.to_dict() == {'resource': 'db',
                                   'actions': ['create', 'update']}

    def test_after_uses_post_hooks_and_is_recorded(self):
        found = bp.parse_name('db', when='after')
        assert found.hooks == ('post-create', 'post-update')
        assert found.to_dict()['when'] == 'after'

    def test_kinds_without_stock_hooks(self):
        for when in ('failed', 'changed', 'replaced'):
            assert bp.parse_name('db', when=when).hooks == ()
        assert bp.parse_name('db', when='changed').actions == (
            'update',)

    def test_entry_with_when_and_stock_hook_names(self):
        found = section.parse_section([
            {'resource': 'a', 'when': 'after'},
            {'resource': 'a'},
            {'resource': 'b', 'hook': 'post-create'},
            {'resource': 'c', 'when': 'replaced'}])
        assert [(b.name, b.when, b.actions) for b in found] == [
            ('a', 'after', ('create', 'update')),
            ('a', 'before', ('create', 'update')),
            ('b', 'after', ('create',)),
            ('c', 'replaced', ('update',))]

    @pytest.mark.parametrize('entry, message', [
        ({'resource': 'a', 'when': 'later'},
         "breakpoints.when: unknown when 'later' (allowed: before, after, "
         "failed, changed, replaced)"),
        ({'resource': 'a', 'when': 'changed', 'action': 'create'},
         'breakpoints.action: when changed applies to update only, not '
         'create'),
        ({'resource': 'a', 'hook': 'pre-eat'},
         "breakpoints.hook: unknown hook 'pre-eat' (allowed: pre-create, "
         "pre-update, pre-delete, post-create, post-update, post-delete)"),
        ({'resource': 'a', 'hook': 'post-create', 'when': 'after'},
         "breakpoints: give either 'hook' or 'when' and 'actions', not "
         "both"),
    ])
    def test_bad_when_is_one_line_naming_the_allowed(self, entry, message):
        with pytest.raises(bp.BreakpointError) as info:
            section.parse_section(entry)
        assert str(info.value) == message

    def test_same_kind_twice_is_refused_other_kinds_are_not(self):
        with pytest.raises(bp.BreakpointError, match='already'):
            section.parse_section([{'resource': 'a', 'when': 'after'},
                                   {'resource': 'a', 'when': 'after'}])

    def test_environment_round_trip_keeps_each_kind(self):
        env = registry.apply_to_environment({}, [
            bp.parse_name('a'),
            bp.parse_name('a', when='after'),
            bp.parse_name('b', when='failed')])
        hooks = dict(registry.native_hooks(env))
        assert hooks == {('a',): ('pre-create', 'pre-update', 'post-create',
                                  'post-update')}
        assert [(b.name, b.when) for b in registry.from_environment(
            env)] == [('a', 'before'), ('a', 'after'), ('b', 'failed')]
        # A name removes every kind on it; a breakpoint only its own.
        only_after = registry.remove_from_environment(
            env, [bp.parse_name('a')])
        assert [(b.name, b.when) for b in registry.from_environment(
            only_after)] == [('a', 'after'), ('b', 'failed')]
        none_on_a = registry.remove_from_environment(env, ['a'])
        assert [b.name for b in registry.from_environment(
            none_on_a)] == ['b']
        assert registry.native_hooks(none_on_a) == []


def test_a_lone_star_is_every_resource_at_any_depth():
    every = bp.parse_name('*', when='failed')
    assert every.matches('a', 'create')
    assert every.matches('outer/inner/leaf', 'update')
    assert not every.matches('outer/leaf', 'create', 'before')
    assert not bp.parse_name('*/x').matches('outer/inner/x')
    assert not bp.parse_name('web_*').matches('tier/web_1')


@pytest.mark.parametrize('name', ['web_\U0001F600', '\u0434\u0431',
                                  'tier/\u0434\u0431', '\u0434\u0431/web'])
def test_a_name_that_is_not_ascii_is_refused(name):
    with pytest.raises(bp.BreakpointError) as raised:
        bp.parse_name(name)
    assert str(raised.value) == bp.NOT_ASCII % (
        'breakpoint %s' % bp.quoted(name))


def test_addressable_paths_are_ascii_at_every_level():
    assert bp.addressable(('tier', 'web'))
    assert bp.addressable(('r' * bp.MAX_NAME_LENGTH,))
    assert not bp.addressable(('tier', 'web_\U0001F600'))
    assert not bp.addressable(('\u0434\u0431', 'web'))
