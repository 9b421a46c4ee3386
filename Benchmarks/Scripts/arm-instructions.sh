#!/bin/bash
# Instructions per TempoTimer created, started, cancelled and released (issue #44): ArmProbe's Tempo subject alone
# (ARM_ONLY=tempo) under valgrind's callgrind, 2 rounds of 20,000 timers, minus a run with one timer (the process's
# start-up and the probe's set-up), divided by the timers. A count of instructions does not depend on the machine's
# load, so it checks a change to the arm path a second way, beside the wall-clock ratios; it says nothing of cache
# misses, which a count cannot see.
#
# Usage, from the Benchmarks folder after `swift build -c release --product ArmProbe`:
#   bash Scripts/arm-instructions.sh [ArmProbe binary, default .build/release/ArmProbe]
set -euo pipefail
BIN=${1:-.build/release/ArmProbe}
command -v valgrind >/dev/null || { echo "valgrind not found" >&2; exit 69; }

instructions() {  # timers per round, rounds
    ARM_ONLY=tempo valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" 2>&1 |
        awk '/Collected :/ { print $4 }'
}

all=$(instructions 20000 2)
one=$(instructions 1 1)
echo "$BIN: $(((all - one) / 39999)) instructions per timer (arm, start, cancel, release)"
