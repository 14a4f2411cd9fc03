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
"""The editor's breakpoints, and the model's breakpoints they stand for.

A line becomes the resource whose definition spans it, at every path that
uses its file (:mod:`.lines`); a condition becomes the kind; the
``failures`` filter becomes ``'*'`` on failure; a function breakpoint is a
name or glob. Before the operation starts they travel in its environment;
while it runs :class:`Arming` arms and disarms what changed, as
``breakpoint set`` / ``clear`` do.
"""

import dataclasses
import fnmatch
import os
import typing

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import kinds
from heatclient_ext._i18n import _
from heatclient_ext import exceptions
from heatclient_ext.v1 import manager as bp_v1

FAILURES = 'failures'
#: Breakpoint conditions the editor may write, and the kind each means.
CONDITIONS = dict({'': breakpoints.BEFORE},
                  **{kind.condition: kind.when for kind in kinds.KINDS})


def is_pattern(name) -> bool:
    return any(c in name for c in '*?[')


def kind(condition):
    """``(when, None)`` for a condition, or ``(None, why not)``."""
    condition = (condition or '').strip()
    if condition not in CONDITIONS:
        return None, _('unknown condition %(cond)r: one of %(kinds)s') % {
            'cond': condition,
            'kinds': ', '.join(sorted(c for c in CONDITIONS if c))}
    return CONDITIONS[condition], None


@dataclasses.dataclass(eq=False)
class Breakpoint:
    """One breakpoint of the editor and the model names it stands for.

    ``id``: the protocol's; ``line`` and ``source``: where the editor
    shows it; ``message``: why it is not verified (None: it is, once it
    names something).
    """

    id: int
    names: typing.List[str]
    when: str
    line: typing.Optional[int] = None
    source: typing.Optional[dict] = None
    message: typing.Optional[str] = None

    def __post_init__(self) -> None:
        self.names = list(self.names)

    @property
    def verified(self) -> bool:
        return bool(self.names) and self.message is None

    def matches(self, row) -> bool:
        if bp_v1.row_value(row, 'when') != self.when:
            return False
        return any(row.get('breakpoint') == name or
                   fnmatch.fnmatchcase(row['resource'], name)
                   for name in self.names)

    def body(self):
        found = {'id': self.id, 'verified': self.verified}
        if self.line is not None:
            found['line'] = self.line
        if self.source is not None:
            found['source'] = {'path': self.source,
                               'name': os.path.basename(self.source)}
        if self.message:
            found['message'] = self.message
        return found


class EditorBreakpoints:
    """What the editor set: by source file, by name, and the filter."""

    def __init__(self) -> None:
        self.by_source: dict = {}
        self.functions: list = []
        self.failures: typing.Optional[Breakpoint] = None
        self._last_id = 0

    def _new_id(self):
        self._last_id += 1
        return self._last_id

    def set_lines(self, tmap, source, specs):
        found = []
        for spec in specs:
            when, message = kind(spec.get('condition'))
            line = spec.get('line')
            if tmap is None:
                bp = Breakpoint(self._new_id(), [], when, line, source,
                                message or _('no template launched'))
            else:
                definition, paths, why = tmap.resource_at(source, line)
                bp = Breakpoint(self._new_id(), paths, when,
                                definition.line if definition else line,
                                source, message or why)
            found.append(bp)
        self.by_source[source] = found
        return found

    def remap(self, tmap) -> list:
        """Line breakpoints moved with their resources after an edit.

        A line breakpoint stands for the resource at that line: an edit
        applied while stopped that moves the resource moves the
        breakpoint to its new line, and one whose resource is gone from
        its file stops standing for anything and says why. Returns those
        that changed, for the editor's ``breakpoint`` events.
        """
        changed = []
        for source, bps in self.by_source.items():
            for bp in bps:
                if not bp.verified:
                    continue
                definition = tmap.location(bp.names[0])
                if definition is None or definition.file != source:
                    bp.message = _('%(name)s is no longer in %(file)s') % {
                        'name': bp.names[0],
                        'file': os.path.basename(source)}
                    bp.names = []
                elif definition.line != bp.line:
                    bp.line = definition.line
                else:
                    continue
                changed.append(bp)
        return changed

    def set_functions(self, specs):
        found = []
        for spec in specs:
            when, message = kind(spec.get('condition'))
            name = (spec.get('name') or '').strip()
            if not message:
                try:
                    breakpoints.parse_name(name)
                except breakpoints.BreakpointError as exc:
                    message = exceptions.one_line(exc)
            found.append(Breakpoint(self._new_id(), [name], when,
                                    message=message))
        self.functions = found
        return found

    def set_filters(self, filters) -> None:
        self.failures = Breakpoint(self._new_id(), ['*'],
                                   breakpoints.FAILED) \
            if FAILURES in filters else None

    def all(self):
        found = [bp for bps in self.by_source.values() for bp in bps]
        found += self.functions
        if self.failures is not None:
            found.append(self.failures)
        return found

    def wanted(self) -> set:
        """``{(name, when)}``: what should hold, from every verified one."""
        return {(name, bp.when) for bp in self.all() if bp.verified
                for name in bp.names}

    def hits(self, row) -> list:
        """Ids of the breakpoints a held row is at."""
        return [bp.id for bp in self.all() if bp.matches(row)]


class Arming:
    """What is armed in the running operation, changed as the editor says.

    ``say(text, category)`` tells the Debug Console what was done.
    ``ours``: the names this session armed itself (not those armed
    already), which it disarms when the editor leaves.
    """

    def __init__(self, say) -> None:
        self.say = say
        self.armed: set[tuple[str, str]] = set()  # (name, when)
        self.ours: set = set()

    def sync(self, manager, stack, wanted) -> None:
        for name, when in sorted(wanted - self.armed):
            if is_pattern(name):
                self.say(_('%s: a pattern can only be armed when the '
                           'operation starts') % name, 'stderr')
                continue
            try:
                result = manager.set(stack, name, when)
                if result == bp_v1.ARMED:
                    self.ours.add(name)
                self.say(_('breakpoint %(name)s (%(when)s): %(result)s') % {
                    'name': name, 'when': when, 'result': result})
            except exceptions.USER_ERRORS as exc:
                self.say(exceptions.one_line(exc), 'stderr')
        for name, when in sorted(self.armed - wanted):
            if any(n == name for n, _w in wanted):
                continue  # the same resource, another kind: still wanted
            try:
                _rows, result = manager.clear(stack, name)
                self.ours.discard(name)
                self.say(_('breakpoint %(name)s: %(result)s') % {
                    'name': name, 'result': result})
            except exceptions.USER_ERRORS as exc:
                self.say(exceptions.one_line(exc), 'stderr')
        self.armed = set(wanted)
