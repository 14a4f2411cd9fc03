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
"""How an operation's mode and its targets' kinds are written down.

The operation's rows (:mod:`heat_breakpoint.db.operation_state`) keep a
mode (``continue``, or ``continue@1`` for the first level only) and, for
each target, a kind in a column of 16 characters: what put it there
(``step``, ``set``, ``to``, ``into``, ``clear``), the hold's ``when``
when it is not ``before`` (``set@after``), and for a clear what it
cleared (``clear:set``), so that a later command can tell a cleared
``set`` from a cleared breakpoint. Pure string work: it reads as it is,
without Heat or the database, as the engine's decision reads it.
"""

from heat_breakpoint.model import kinds

CONTINUE = 'continue'
RUN_TO = 'to'
STEP = 'step'
STEP_INTO = 'into'  # the first resources of the nested stack at this path
SET = 'set'
CLEAR = 'clear'
CANCEL = 'cancel'
# A target's kind may name the hold's ``when`` (``set@after``); a cleared
# one the kind it had (``clear:set``). Both fit the kind column.
_WHEN_MARK, _ORIGIN_MARK = '@', ':'
_KIND_LENGTH = 16
BEFORE = kinds.BEFORE.when
_DEPTH_MARK = '@'


def continue_mode(depth=None) -> str:
    """The stored mode of a continue: every level, or the first ``depth``."""
    return CONTINUE if depth is None else '%s%s%d' % (CONTINUE, _DEPTH_MARK,
                                                      depth)


def continue_depth(mode) -> tuple:
    """``(is a continue, depth or None for every level)`` of a mode."""
    if mode == CONTINUE:
        return True, None
    head, mark, depth = (mode or '').partition(_DEPTH_MARK)
    if head == CONTINUE and mark and depth.isdigit():
        return True, int(depth)
    return False, None


def wider(stored: str, mode: str) -> str:
    """Of two continues the one that disarms more; otherwise ``mode``."""
    old, new = continue_depth(stored), continue_depth(mode)
    if old[0] and new[0] and new[1] is not None and (
            old[1] is None or old[1] > new[1]):
        return stored
    return mode


def kind_of(base: str, when: str = BEFORE) -> str:
    """The stored kind of a target: ``set``, ``set@after``, ..."""
    return base if when == BEFORE else base + _WHEN_MARK + when


def split_kind(kind: str) -> tuple:
    """``(base kind, when)`` of a stored kind."""
    head, _mark, when = kind.partition(_WHEN_MARK)
    return head.partition(_ORIGIN_MARK)[0], when or BEFORE


def cleared_origin(kind: str):
    """What a cleared target was before its clear (``set``...), or None."""
    head = kind.partition(_WHEN_MARK)[0]
    return head.partition(_ORIGIN_MARK)[2] or None


def into(previous) -> str:
    """The kind of a step into a nested stack resource over ``previous``.

    It replaces what was there (its first resources hold, not it), but
    keeps that it was a ``continue --to`` target (``into:to``): the rest
    of the operation still says why its breakpoints are off (``run to
    R``).
    """
    if previous is not None and split_kind(previous)[0] == RUN_TO:
        return STEP_INTO + _ORIGIN_MARK + RUN_TO
    return STEP_INTO


def ran_to(kind: str) -> bool:
    """Whether a target is, or was until a step into it, run to."""
    head = kind.partition(_WHEN_MARK)[0]
    base, _mark, origin = head.partition(_ORIGIN_MARK)
    return base == RUN_TO or (base == STEP_INTO and origin == RUN_TO)


def cleared(previous, when: str) -> str:
    if previous is None:
        return kind_of(CLEAR, when)
    base, when = split_kind(previous)
    if base == CLEAR:
        return previous  # cleared already: it keeps its origin
    if base in (SET, STEP, RUN_TO):
        kind = kind_of(CLEAR + _ORIGIN_MARK + base, when)
        if len(kind) <= _KIND_LENGTH:
            return kind
    return kind_of(CLEAR, when)
