#!/usr/bin/env bash
# Kernel-timer system calls per tick of one repeating TempoTimer (issue #44), counted by strace, so that the figure
# holds on a loaded machine: `timerfd_settime` and `read` calls of the whole process over COUNT slots of `tempo tick
# --every 1ms`, divided by the ticks delivered (on a loaded machine, or under strace, some slots are late and
# coalesced into one tick, one wake), for the default delivery and for `.immediate`. The process's few calls before
# its first tick (the first arm, and its `read`s of files) are counted too, so a long run reads closest to the steady
# state.
#
#   swift build -c release --product tempo
#   bash Benchmarks/Scripts/timer-syscalls.sh [COUNT] [TEMPO_BINARY]      # COUNT default 2000
set -euo pipefail
count="${1:-2000}"
tempo="${2:-.build/release/tempo}"
command -v strace >/dev/null || { echo "strace is not installed"; exit 1; }
[[ -x "$tempo" ]] || { echo "no $tempo: build it with swift build -c release --product tempo"; exit 1; }
table="$(mktemp)"
ticks="$(mktemp)"
trap 'rm -f "$table" "$ticks"' EXIT
for mode in default immediate; do
    flags=()
    [[ "$mode" == immediate ]] && flags=(--immediate)
    strace -f --seccomp-bpf -c -e trace=timerfd_settime,read -o "$table" \
        "$tempo" tick --every 1ms --count "$count" "${flags[@]}" >"$ticks" 2>&1
    settime="$(awk '$NF == "timerfd_settime" { print $4 }' "$table")"
    reads="$(awk '$NF == "read" { print $4 }' "$table")"
    # `tempo tick` ends with "summary: D/N ticks delivered": a late wake delivers several slots as one tick
    # (coalesced), so D is the number of wakes that delivered a tick.
    delivered="$(awk '/^summary:/ { split($2, part, "/"); print part[1] }' "$ticks")"
    awk -v mode="$mode" -v s="${settime:-0}" -v r="${reads:-0}" -v n="$count" -v d="${delivered:-0}" 'BEGIN {
        printf "%-9s %d slots, %d ticks delivered: timerfd_settime %d (%.2f per delivered tick), read %d (%.2f)\n",
            mode, n, d, s, (d > 0 ? s / d : 0), r, (d > 0 ? r / d : 0) }'
done
