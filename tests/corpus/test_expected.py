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
"""The corpus pins: any one template off its pin fails the tier.

Pure logic over outcomes (no server, no corpus checkout): a rate let a
few templates fail unnoticed, a simulated type broken among them.
"""

from tests.corpus import corpus
from tests.corpus import expected


def _as_pinned():
    outcomes = []
    for path in sorted(expected.PINNED):
        failing = expected.REFUSED.get(path) or \
            expected.SIMULATED_FAILS.get(path)
        template = corpus.Template('/corpus', path, None)
        if failing is None:
            outcomes.append(corpus.Outcome(template, 'CREATE_COMPLETE',
                                           '', 3))
        else:
            outcomes.append(corpus.Outcome(template, 'CREATE_FAILED',
                                           'Heat: %s.' % expected._words(
                                               failing)[0]))
    return outcomes


def test_every_template_as_pinned_passes():
    report = expected.Report(_as_pinned())
    assert report.ok and report.unexpected == []


def test_one_template_that_completed_failing_is_off_its_pin():
    outcomes = _as_pinned()
    index = next(i for i, o in enumerate(outcomes) if o.complete)
    broken = outcomes[index]
    outcomes[index] = corpus.Outcome(broken.template, 'CREATE_FAILED',
                                     'Resource CREATE failed: broken')
    report = expected.Report(outcomes)
    # Above the rate the tier asked for (which let it pass), and still
    # a failure.
    assert report.rate >= expected.TARGET and not report.wrongly_refused
    assert not report.ok
    assert report.unexpected == [(outcomes[index], 'CREATE_FAILED, pinned '
                                  'to complete')]


def test_a_pinned_failure_that_completes_or_changes_is_off_its_pin():
    outcomes = _as_pinned()
    index = next(i for i, o in enumerate(outcomes) if not o.complete)
    failing = outcomes[index]
    for changed in (corpus.Outcome(failing.template, 'CREATE_COMPLETE', '',
                                   2),
                    corpus.Outcome(failing.template, 'CREATE_FAILED',
                                   'another reason')):
        outcomes[index] = changed
        assert [o for o, _why in expected.Report(outcomes).unexpected] == [
            changed]


def test_a_template_not_pinned_is_off_its_pin():
    outcomes = _as_pinned() + [corpus.Outcome(corpus.Template(
        '/corpus', 'hot/new.yaml', None), 'CREATE_COMPLETE', '', 1)]
    assert expected.Report(outcomes).unexpected[0][1].startswith(
        'not pinned')
