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
"""The corpus templates a real cloud's Heat 27 refuses too, and why.

Each entry is a template's path in the corpus and what a real cloud's
Heat says of it; the corpus tier counts these out of its target and
fails if one of them completes (the reason would then be wrong).
"""

import dataclasses

# path -> (the words Heat's reason must contain, why a real Heat refuses)
REFUSED = {
}

TARGET = 0.95


@dataclasses.dataclass
class Report:
    outcomes: list

    @property
    def counted(self):
        return [o for o in self.outcomes if o.template.path not in REFUSED]

    @property
    def completed(self):
        return [o for o in self.counted if o.complete]

    @property
    def wrongly_refused(self):
        """Expected refusals that completed or failed for another reason."""
        wrong = []
        for o in self.outcomes:
            if o.template.path in REFUSED:
                words = REFUSED[o.template.path][0]
                if o.complete or words not in o.reason:
                    wrong.append(o)
        return wrong

    @property
    def rate(self) -> float:
        return len(self.completed) / max(1, len(self.counted))

    @property
    def ok(self) -> bool:
        return self.rate >= TARGET and not self.wrongly_refused

    def lines(self):
        for o in sorted(self.outcomes, key=lambda o: o.template.path):
            mark = 'ok' if o.complete else (
                'refused as expected' if o.template.path in REFUSED
                and o not in self.wrongly_refused else 'FAILED')
            line = '%-70s %-22s %3d res %5.1f s  %s' % (
                o.template.path, o.status, o.resources, o.seconds, mark)
            if not o.complete:
                line += '\n    ' + o.reason
            yield line
        yield ('%d of %d templates complete with resources (%.1f%%; '
               '%d refused as a real Heat 27 refuses them, target %.0f%%)'
               % (len(self.completed), len(self.counted), 100 * self.rate,
                  len(self.outcomes) - len(self.counted), 100 * TARGET))
        for o in self.wrongly_refused:
            yield 'expected refusal did not happen as listed: %s' % (
                o.template.path)
