#!/usr/bin/env bash
# Run heat-breakpoint against each supported Heat release, each in its own
# virtualenv (.venv-heat-<release>) with the dependency pins of that release
# (tools/heat-releases/<release>.txt, passed to pip as constraints).
#
#   tools/heat_matrix.sh [--smoke] [release ...]
#
# Releases: 2025.1 2025.2 2026.1 2026.2 (default: all, oldest first). For
# each: install (skipped when the venv was built from the same pins and
# setup.cfg), check that the seam installs into that Heat, run Heat's own
# unit tests with the plugin loaded (tools/heat_compat.py; --smoke skips
# them) and the functional smoke on the local server (hold, step,
# continue, update-adds, delete, restart while held). Prints one line per
# release at the end; exits non-zero if any step of any release failed.
# Install the venvs one at a time: Heat's dependencies are large.
set -uo pipefail
cd "$(dirname "$0")/.."

ALL_RELEASES=(2025.1 2025.2 2026.1 2026.2)
SMOKE=(
    tests/functional/test_engine.py::test_create_holds_breakpoint_and_its_dependents_only
    tests/functional/test_engine.py::test_update_holds_changed_and_added_resources
    tests/functional/test_engine.py::test_delete_breakpoint_holds_before_delete
    tests/functional/test_step.py::test_step_through_a_chain
    tests/functional/test_step.py::test_step_during_update_and_delete
    tests/functional/test_parked_holds.py::test_hold_survives_engine_restart
)

compat=1
releases=()
for arg in "$@"; do
    case "$arg" in
        --smoke) compat= ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "heat_matrix: unknown option $arg" >&2; exit 2 ;;
        *)
            if [ ! -f "tools/heat-releases/$arg.txt" ]; then
                echo "heat_matrix: unknown release $arg (known:" \
                     "${ALL_RELEASES[*]})" >&2
                exit 2
            fi
            releases+=("$arg") ;;
    esac
done
[ ${#releases[@]} -gt 0 ] || releases=("${ALL_RELEASES[@]}")

SEAM_CHECK='
import importlib.metadata as md
from heat_breakpoint.engine import plugin  # noqa: installs the seam
from heat_breakpoint.engine import seam
assert seam.installed(), "seam not installed"
print("openstack-heat %s: seam installed" % md.version("openstack-heat"))
'

summary=()
failed=0

install() {
    local release=$1 venv=$2 pins=tools/heat-releases/$1.txt
    local stamp=$venv/.heat-matrix-stamp want
    want=$(cat "$pins" setup.cfg test-requirements.txt | sha1sum | cut -c1-40)
    if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]
    then
        return 0
    fi
    rm -rf "$venv"
    python3 -m venv "$venv" &&
        "$venv/bin/pip" install -q --upgrade pip &&
        "$venv/bin/pip" install -q -c "$pins" -e '.[server]' \
            -r test-requirements.txt &&
        echo "$want" > "$stamp"
}

for release in "${releases[@]}"; do
    venv=.venv-heat-$release
    echo "=== Heat $release ($venv)"
    start=$(date +%s)
    result=()
    ok=1
    if ! install "$release" "$venv"; then
        summary+=("$release: install FAILED")
        failed=1
        continue
    fi
    # stevedore caches entry points; a fresh install must be seen.
    rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/python-entrypoints"
    heat=$("$venv/bin/pip" show openstack-heat 2>/dev/null |
           sed -n 's/^Version: //p')

    seam_out=$("$venv/bin/python" -W ignore -c "$SEAM_CHECK" 2>&1)
    echo "$seam_out" | grep -v -i eventlet | tail -3
    if echo "$seam_out" | grep -q 'seam installed' &&
            ! echo "$seam_out" | grep -q DISABLED; then
        result+=("seam ok")
    else
        result+=("seam FAILED")
        ok=
    fi

    if [ -n "$compat" ]; then
        compat_log=$(mktemp)
        "$venv/bin/python" tools/heat_compat.py 2>&1 | tee "$compat_log" |
            grep -E '^\[worker 0\] heat_breakpoint seam|passed|failed'
        status=${PIPESTATUS[0]}
        counts=$(tail -1 "$compat_log")
        rm -f "$compat_log"
        result+=("heat_compat: $counts")
        [ "$status" -eq 0 ] || ok=
    fi

    smoke_log=$(mktemp)
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
        -W ignore::DeprecationWarning "${SMOKE[@]}" 2>&1 |
        tee "$smoke_log" | grep -v -i eventlet | tail -15
    status=${PIPESTATUS[0]}
    counts=$(grep -E '^=* ?[0-9]+ (passed|failed|error)' "$smoke_log" |
             tail -1 | sed 's/=//g; s/, [0-9]* warnings\{0,1\}//;
             s/^ *//; s/ *$//')
    rm -f "$smoke_log"
    result+=("smoke: ${counts:-no result}")
    [ "$status" -eq 0 ] || ok=

    took=$(( $(date +%s) - start ))
    joined=$(printf '%s; ' "${result[@]}")
    line="$release (openstack-heat $heat): ${joined%; } [${took} s]"
    if [ -n "$ok" ]; then
        summary+=("$line")
    else
        summary+=("$line FAILED")
        failed=1
    fi
done

echo "=== Heat release matrix"
printf '%s\n' "${summary[@]}"
exit $failed
