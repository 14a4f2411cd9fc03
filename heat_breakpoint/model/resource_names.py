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
"""Resource names: their natural order, close matches, pattern matches.

Shared by the breakpoint model (:mod:`heat_breakpoint.model.breakpoints`), the
engine and the client; free of Heat imports like the model.
"""

import bisect
import difflib
import fnmatch
import functools
import itertools
import re
import typing


def natural_key(name: str) -> tuple:
    """Sort key reading runs of digits as numbers: grp/2 before grp/10."""
    key, run = [], ''
    for char in str(name) + '\0':
        if run and (char.isdigit() != run[-1].isdigit() or char == '\0'):
            key.append((0, int(run), '') if run.isdigit() else (1, 0, run))
            run = ''
        run += char
    return tuple(key)


def closest_names(name: str, names: typing.Iterable[str], n: int = 3,
                  cutoff: float = 0.6) -> list:
    """The ``n`` names most like ``name``, the most alike first.

    Equally alike names come in their natural order (``node_1`` before
    ``node_2``), where :func:`difflib.get_close_matches` puts them in
    reverse text order.
    """
    scored = []
    for candidate in set(names):
        matcher = difflib.SequenceMatcher(None, candidate, name)
        if (matcher.real_quick_ratio() >= cutoff and
                matcher.quick_ratio() >= cutoff and
                matcher.ratio() >= cutoff):
            scored.append((-matcher.ratio(), natural_key(candidate),
                           candidate))
    return [candidate for _score, _key, candidate in sorted(scored)[:n]]


_WILDCARD = re.compile(r'[*?\[]')


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str):
    return re.compile(fnmatch.translate(pattern)).match


def matching_names(pattern: str, names: typing.Sequence[str],
                   first: bool = False) -> list[str]:
    """The names ``fnmatchcase`` matches with ``pattern``, in order.

    ``names`` must be sorted: a literal is one look-up, and a pattern is
    tried only on the names that start with its literal prefix (one
    bisection), so a template's thousands of resources cost a check
    little more than its breakpoints. ``first``: stop at the first match.
    """
    prefix = _WILDCARD.split(pattern, 1)[0]
    start = bisect.bisect_left(names, prefix)
    if len(prefix) == len(pattern):
        exact = start < len(names) and names[start] == pattern
        return [pattern] if exact else []
    match = _compiled(pattern)
    found = []
    for name in itertools.islice(names, start, None):
        if not name.startswith(prefix):
            break
        if match(name):
            found.append(name)
            if first:
                break
    return found
