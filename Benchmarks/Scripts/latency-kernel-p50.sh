#!/usr/bin/env bash
# A second, independent check of `tempo latency`'s lateness (issue #44): the same run's ticks timed by the kernel instead
# of by the tool. A uprobe on LatencyRecorder.record(slot:now:) stamps each handler's entry (perf's CLOCK_MONOTONIC
# timestamp, the clock the deadlines are on), and `timer:hrtimer_start` gives every deadline the kernel was asked for
# (the floor's clock_nanosleep, Tempo's timerfd). The script prints the tool's own CSV rows, then one line per thread
# that recorded ticks: the floor's thread of each round, and the thread that ran Tempo's handlers. Needs root (perf
# with -a and uprobes) and a binary with symbols.
#
#   swift build -c release --product tempo
#   sudo bash Benchmarks/Scripts/latency-kernel-p50.sh [TEMPO_BINARY] [BACKEND]   # default .build/release/tempo tempo-default
set -euo pipefail
tempo="$(realpath "${1:-.build/release/tempo}")"
backend="${2:-tempo-default}"
here="$(cd "$(dirname "$0")" && pwd)"
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }
symbol="$(nm "$tempo" | awk '/LatencyRecorderC6record4slot3now/ { found = found ? found : $1 } END { print found }')"
[[ -n "$symbol" ]] || { echo "no LatencyRecorder.record(slot:now:) symbol in $tempo"; exit 1; }
data="$(mktemp)"
text="$(mktemp)"
trap 'rm -f "$data" "$text"; perf probe -q -d probe_tempo:handlerentry >/dev/null 2>&1 || true' EXIT
perf probe -q -d probe_tempo:handlerentry >/dev/null 2>&1 || true
perf probe -q -x "$tempo" -a "handlerentry=0x$symbol"
perf record -q -k CLOCK_MONOTONIC -a -o "$data" \
    -e probe_tempo:handlerentry -e timer:hrtimer_start -- \
    "$tempo" latency --no-progress --csv --backends floor "$backend" --duration 4s --rounds 2
perf script --ns -i "$data" -F pid,tid,time,event,trace 2>/dev/null >"$text"
python3 "$here/latency-kernel-p50.py" "$text"
