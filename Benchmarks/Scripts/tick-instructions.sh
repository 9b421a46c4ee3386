#!/bin/bash
# Instructions per tick of a repeating TempoTimer (default delivery, 10 ms) against a clock_nanosleep loop on the same
# grid (issue #44's CPU-per-tick row, a second way): TickProbe under valgrind's callgrind, a run of 600 ticks minus
# a run of 100 (the process's start-up and the set-up), divided by 500. Counts user-space instructions only: the
# kernel's part of a tick (wakeup, system calls) is not in it; `tempo latency`'s CPU column and `perf stat` have it.
#
# Usage, from the Benchmarks folder after `swift build -c release --product TickProbe`:
#   bash Scripts/tick-instructions.sh [TickProbe binary, default .build/release/TickProbe]
set -euo pipefail
BIN=${1:-.build/release/TickProbe}
command -v valgrind >/dev/null || { echo "valgrind not found" >&2; exit 69; }

run() {  # subject, ticks: prints "instructions handler-calls"
    local out
    out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" 2>&1)
    echo "$(awk '/Collected :/ { print $4 }' <<<"$out") $(awk '/handler calls/ { print $4 }' <<<"$out")"
}

for subject in tempo floor; do
    read -r long long_calls < <(run "$subject" 600)
    read -r short short_calls < <(run "$subject" 100)
    # Per handler call: a tick that valgrind's slowness made late folds the slots it missed into one call (a different
    # path), so the calls are counted, and a run with many folded slots is refused.
    calls=$((long_calls - short_calls))
    ((calls >= 480)) || { echo "$subject: only $calls handler calls for 500 slots under valgrind" >&2; exit 70; }
    echo "$subject: $(((long - short) / calls)) instructions per tick ($calls handler calls)"
done
