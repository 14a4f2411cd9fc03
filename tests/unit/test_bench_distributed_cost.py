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
"""The pure parts of benchmarks/distributed_cost.py: options and summary."""

import importlib
import os
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), 'benchmarks')


@pytest.fixture(scope='module')
def bench():
    sys.path.insert(0, BENCHMARKS)
    try:
        yield importlib.import_module('distributed_cost')
    finally:
        sys.path.remove(BENCHMARKS)


def test_defaults_run_every_section_at_full_size(bench):
    args = bench.parse_args([])
    assert args.sections == list(bench.SECTIONS)
    assert (args.trials, args.rounds, args.repeats, args.scale_rounds,
            args.cycles) == (20, 4, 1000, 2, 200)
    assert args.sizes == (50, 200)


def test_quick_is_smaller_and_leaves_the_1000_out(bench):
    args = bench.parse_args(['--quick'])
    assert 'scale' not in args.sections
    assert (args.trials, args.cycles, args.sizes) == (3, 10, (50,))


def test_quick_runs_scale_when_named(bench):
    args = bench.parse_args(['--quick', '--sections', 'scale, soak'])
    assert args.sections == ['scale', 'soak']
    assert args.scale_rounds == 1


def test_explicit_sizes_win_over_quick(bench):
    args = bench.parse_args(['--quick', '--cycles', '7', '--trials', '5'])
    assert (args.cycles, args.trials) == (7, 5)


def test_an_unknown_section_is_named_with_the_known_ones(bench, capsys):
    with pytest.raises(SystemExit) as exc:
        bench.parse_args(['--sections', 'release,sock'])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert 'unknown section(s) sock' in err
    assert 'release, check, scale, soak' in err


def test_summary_line_shows_value_verdict_and_target(bench):
    assert bench.summary_line('x', 0.0421, 0.05, ' s', width=4) == \
        '  x    0.042 s  met (target <= 0.05 s)'
    assert bench.summary_line('ratio', 1.0234, 1.02, width=6,
                              digits=4) == \
        '  ratio  1.0234  MISSED (target <= 1.02)'


def test_per_check_summary_is_check_plus_plugin_over_check(bench):
    whole = {'stock': [0.010, 0.020, 0.030], 'plugin': [0.021]}
    parts = {'no breakpoint': ([10e-6, 30e-6, 20e-6], [], []),
             'with breakpoints': ([0.0003], [], [])}
    lines = bench.per_check_summary([(50, whole, parts)])
    assert '1.0010  met (target <= 1.002)' in lines[0]
    assert '1.0150  MISSED (target <= 1.01)' in lines[1]
    assert lines[2].endswith('1.050  (information: whole engines, noisy)')


def test_soak_summary_counts_our_rows(bench):
    found = {'plugin': {'rows': {'breakpoint_pause': 0,
                                 'breakpoint_released': 2},
                        'size': 200.0, 'size_purged': 100.0},
             'stock': {'size': 100.0, 'size_purged': 100.0}}
    lines = bench.soak_summary(found)
    assert lines[0].endswith('2  MISSED (target 0)')
    assert '2.000  (information)' in lines[1]
    assert '1.000  met (target <= 1.05)' in lines[2]
