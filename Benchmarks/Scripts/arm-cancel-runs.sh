#!/bin/bash
# TempoTimer's arm + cancel against a DispatchSourceTimer over many processes, two ways (issue #12's 0.5× target).
#
# Usage, from the repository root after `swift build -c release --product tempo`:
#   bash Benchmarks/Scripts/arm-cancel-runs.sh [runs per count, default 10]
#
# 1. Wall clock: `tempo bench` in a fresh process per run, one count per process, the subject order alternating
#    between runs; the ratio is its arm+cancel column, (arm + cancel) / (Dispatch's arm + cancel) in that run.
# 2. CPU: task-clock of every thread (`perf stat`) of a process that arms and cancels with one subject only, minus
#    a process that arms one timer, per timer. libdispatch registers a resumed source, and frees a cancelled one,
#    partly on its own threads, beside the measuring thread: wall-clock times miss that work, CPU time does not.
# Each prints every run's ratio, then the median, the range and how many runs were at or below 0.5.
set -euo pipefail
BIN=${BIN:-.build/release/tempo}
RUNS=${1:-10}

summary() {  # label, values...
    local label=$1; shift
    printf '%s\n' "$@" | sort -g | awk -v label="$label" '
        { v[NR] = $1; if ($1 <= 0.5) met++ }
        END {
            median = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%s: %d runs, median %.2f, range %.2f-%.2f, <= 0.5 in %d\n", label, NR, median, v[1], v[NR], met
        }'
}

task_ms() {  # count, subject
    perf stat -x, -e task-clock "$BIN" bench --counts "$1" --subjects "$2" --no-progress 2>&1 >/dev/null \
        | awk -F, '/task-clock/ { print $1 }'
}

for count in 100k 1M; do
    wall=()
    for run in $(seq 1 "$RUNS"); do
        if (( run % 2 )); then order="tempo-timer dispatch-source"; else order="dispatch-source tempo-timer"; fi
        # shellcheck disable=SC2086 # the order is two words on purpose
        wall+=("$("$BIN" bench --counts "$count" --subjects $order --no-progress \
            | awk '$2 == "tempo-timer" { sub(/x$/, "", $NF); print $NF }')")
    done
    echo "wall $count: ${wall[*]}"
    summary "wall-clock arm+cancel ratio, $count" "${wall[@]}"

    if ! command -v perf >/dev/null; then echo "cpu $count: perf not found, skipped"; continue; fi
    timers=$([[ $count == 100k ]] && echo 100000 || echo 1000000)
    cpu=()
    for run in $(seq 1 "$RUNS"); do
        base=$(task_ms 1 tempo-timer); tempo=$(task_ms "$count" tempo-timer); dispatch=$(task_ms "$count" dispatch-source)
        cpu+=("$(awk -v b="$base" -v t="$tempo" -v d="$dispatch" -v n="$timers" \
            'BEGIN { printf "%.2f", (t - b) / (d - b) }')")
        awk -v b="$base" -v t="$tempo" -v d="$dispatch" -v n="$timers" -v c="$count" \
            'BEGIN { printf "cpu %s: tempo %.0f ns, dispatch %.0f ns per timer\n", c, (t - b) * 1e6 / n, (d - b) * 1e6 / n }'
    done
    summary "CPU arm+cancel ratio, $count" "${cpu[@]}"
done
