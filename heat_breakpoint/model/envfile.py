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
"""Reading environment files safely.

Environment files come from users, so their text is capped in size and
checked for YAML alias expansion and absurd nesting before anything walks
it; dates read as strings, exactly as Heat's own loader reads them.
"""

import typing

import yaml

from heat_breakpoint.model.breakpoints import BreakpointError
from heat_breakpoint.model.breakpoints import yaml_kind

#: Environment files larger than this are refused before parsing.
MAX_ENVIRONMENT_SIZE = 1024 * 1024
#: How many nodes YAML aliases may add when expanded (billion-laughs guard).
MAX_ALIAS_EXPANSION = 100000
#: How deeply an environment may nest; deeper input would exhaust the
#: interpreter stack in copy/json long before it could mean anything.
MAX_NESTING = 200


# libyaml's loader where PyYAML was built with it: a base chosen at import.
class _EnvironmentLoader(getattr(  # type: ignore[misc]
        yaml, 'CSafeLoader', yaml.SafeLoader)):
    """Safe YAML, reading dates as strings exactly as Heat's loader does."""


_EnvironmentLoader.add_constructor('tag:yaml.org,2002:timestamp',
                                   _EnvironmentLoader.construct_yaml_str)


def _node_children(node: yaml.Node) -> list:
    if isinstance(node, yaml.MappingNode):
        return [child for pair in node.value for child in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_node_graph(root: yaml.Node) -> None:
    """Refuse alias bombs, recursive aliases and absurd nesting.

    Aliases compose to shared nodes, so a billion-laughs document is small
    here; it only explodes when something walks the constructed data (copy,
    JSON). Count what the expansion would be, once per distinct node.
    """
    expanded: dict[int, int] = {}
    ancestors = set()
    pending = [(root, 1, False)]
    while pending:
        node, depth, finished = pending.pop()
        key = id(node)
        if finished:
            ancestors.discard(key)
            expanded[key] = 1 + sum(expanded[id(child)]
                                    for child in _node_children(node))
            continue
        if key in expanded:
            continue
        if depth > MAX_NESTING:
            raise BreakpointError(
                'environment is nested too deeply (limit: %d levels)'
                % MAX_NESTING)
        ancestors.add(key)
        pending.append((node, depth, True))
        for child in _node_children(node):
            if id(child) in ancestors:
                raise BreakpointError(
                    'environment has a recursive YAML alias')
            if id(child) not in expanded:
                pending.append((child, depth + 1, False))
    if expanded[id(root)] - len(expanded) > MAX_ALIAS_EXPANSION:
        raise BreakpointError(
            'environment YAML aliases expand to more than %d extra nodes'
            % MAX_ALIAS_EXPANSION)


def _yaml_problem(error: Exception) -> str:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem:
        text = error.problem
        mark = error.problem_mark
        if mark is not None:
            text += ' (line %d, column %d)' % (mark.line + 1, mark.column + 1)
        return text
    return str(error) or type(error).__name__


def _load_yaml(text: typing.Union[str, bytes]) -> object:
    loader = _EnvironmentLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_node_graph(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_environment_text(text: typing.Union[str, bytes]) -> dict:
    """Parse an environment file's text into a mapping, refusing abuse.

    The text comes from users, so it is capped in size and checked for alias
    expansion before anything walks it.
    """
    if not isinstance(text, (str, bytes)):
        raise BreakpointError(
            'environment must be YAML text, got %s' % yaml_kind(text))
    if len(text) > MAX_ENVIRONMENT_SIZE or (
            isinstance(text, str) and len(text.encode(
                'utf-8', 'surrogatepass')) > MAX_ENVIRONMENT_SIZE):
        raise BreakpointError(
            'environment is larger than %d bytes' % MAX_ENVIRONMENT_SIZE)
    try:
        env = _load_yaml(text)
    except BreakpointError:
        raise
    except Exception as error:
        # Any parser failure (YAML, encoding, constructor limits such as
        # Python's cap on integer digits) is the input's fault.
        raise BreakpointError(
            'environment is not valid YAML: %s' % _yaml_problem(error)
        ) from None
    if env is None:
        return {}
    if not isinstance(env, dict):
        raise BreakpointError('environment must be a mapping of sections, '
                              'got %s' % yaml_kind(env))
    return env
