#!/usr/bin/env bash
# F5 in a real Neovim with nvim-dap, driven in a tmux terminal as a person
# would: open examples/app.yaml, a breakpoint on db_user (line 21), F5,
# then Continue (or, with MODE=quit, quit Neovim while stopped). Prints
# when each DAP event came (seconds since F5) and whether a local Heat or
# its directory was left behind. Needs nvim and tmux, and an nvim-dap
# checkout: NVIM_DAP=/path/to/nvim-dap (0.6.0 for Debian's nvim 0.7.2).
# Not run by CI. Usage: tools/nvim_dap.sh [RUNS]
set -uo pipefail
cd "$(dirname "$0")/.."
: "${NVIM_DAP:?NVIM_DAP must name an nvim-dap checkout}"
runs=${1:-5}
work=$(mktemp -d)
mkdir -p "$work/pack/dap/start"
ln -s "$(cd "$NVIM_DAP" && pwd)" "$work/pack/dap/start/nvim-dap"
export NVIM_PACK=$work HEAT_BREAKPOINT=${HEAT_BREAKPOINT:-$PWD/.venv/bin/heat-breakpoint}
for run in $(seq "$runs"); do
    export RUN_LOG=$work/run$run.log STACK=nvim$run-$$
    tmux kill-session -t heat-nvim 2>/dev/null
    tmux new-session -d -s heat-nvim -x 160 -y 45 -e NVIM_PACK="$NVIM_PACK" \
        -e HEAT_BREAKPOINT="$HEAT_BREAKPOINT" -e RUN_LOG="$RUN_LOG" \
        -e STACK="$STACK" "nvim -u tools/nvim/init.lua examples/app.yaml"
    sleep 1.5
    tmux send-keys -t heat-nvim ':21' Enter; sleep 0.3
    tmux send-keys -t heat-nvim F9; sleep 0.3
    tmux send-keys -t heat-nvim F5
    for _ in $(seq 150); do
        grep -q '^[0-9.]* stopped' "$RUN_LOG" 2>/dev/null && break; sleep 0.2
    done
    sleep 0.5
    tmux capture-pane -t heat-nvim -p > "$work/screen$run.txt"
    if [ "${MODE:-continue}" = continue ]; then
        tmux send-keys -t heat-nvim F5
        for _ in $(seq 150); do
            grep -q '^[0-9.]* terminated' "$RUN_LOG" 2>/dev/null && break
            sleep 0.2
        done
    fi
    tmux send-keys -t heat-nvim ':redir! > '"$work/messages$run.txt" Enter
    tmux send-keys -t heat-nvim ':messages' Enter ':redir END' Enter
    sleep 0.5
    tmux send-keys -t heat-nvim ':qa!' Enter
    sleep 3
    tmux kill-session -t heat-nvim 2>/dev/null
    echo "run $run: $(grep -E '^[0-9.]+ (stopped|exited)' "$RUN_LOG" | tr '\n' ';')" \
         "nvim messages: $(grep -v '^$' "$work/messages$run.txt" | tr '\n' ' ')"
done
echo "local Heat processes left: $(pgrep -fc 'heat-breakpoint-dap-' || true)"
echo "state directories left: $(ls -d "${TMPDIR:-/tmp}"/heat-breakpoint-dap-* 2>/dev/null | wc -l)"
echo "logs and screens: $work"
