#!/usr/bin/env python3
"""Turns the text output of `swift package benchmark --no-progress` into the README's Markdown tables.

Usage: swift package benchmark --no-progress | tee run.log; python3 Scripts/table.py run.log
Each cell is the median (p50); in parentheses, the peer's median divided by the wheel's (`Wheel`).
"""
import re
import sys

PEERS = ["Wheel", "WheelAtDeadline", "WheelClosure", "DispatchSource", "NIOScheduleTask", "NIOScheduleCallback",
         "TaskSleep"]
ROWS = [
    ("Arm", "Time (wall clock) (ns) *", "ns per arm"),
    ("Arm", "Malloc (total) *", "mallocs per arm"),
    ("CancelInArmOrder", "Time (wall clock) (ns) *", "ns per cancel, in arm order"),
    ("CancelRandom", "Time (wall clock) (ns) *", "ns per cancel, random order"),
    ("ArmThenCancel", "Time (wall clock) (ns) *", "ns per arm + cancel of the same timer"),
    ("ArmThenCancel", "Malloc (total) *", "mallocs per arm + cancel"),
    ("Expiry", "expiryNanosecondsPerTimer", "ns per fired timer (expiry)"),
    ("BytesPerTimer", "bytesPerArmedTimer", "bytes per armed timer"),
    ("ContextSwitches5s", "contextSwitchesIn5s", "context switches in 5 s, timers 1 h out"),
]


def parse(path):
    results = {}
    name = None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if re.match(r"^[A-Z][A-Za-z0-9]+/[A-Za-z0-9]+/[0-9]+[kM]?$", line):
            name = line
            continue
        cells = [c.strip() for c in line.split("│")]
        if name and len(cells) > 4 and cells[1] and cells[1] != "Metric":
            results.setdefault(name, {})[cells[1]] = cells[4]  # p0, p25, p50: the median
    return results


def number(text):
    text = text.replace(",", "")
    scale = 1
    if text.endswith("K"):
        scale, text = 1_000, text[:-1]
    elif text.endswith("M"):
        scale, text = 1_000_000, text[:-1]
    try:
        return float(text) * scale
    except ValueError:
        return None


def main(path):
    results = parse(path)
    sizes = ["10k", "100k", "1M"]
    print("| Measure | Armed | " + " | ".join(PEERS) + " |")
    print("|---|---|" + "---|" * len(PEERS))
    for operation, metric, label in ROWS:
        row_sizes = ["1M"] if operation == "ContextSwitches5s" else sizes
        for size in row_sizes:
            cells = []
            base = None
            for peer in PEERS:
                names = [f"{operation}/{peer}/{size}"]
                if operation == "ContextSwitches5s" and size == "1M":
                    names.append(f"{operation}/{peer}/100k")
                value = next((results[n][metric] for n in names if n in results and metric in results[n]), None)
                if value is not None and peer == "Wheel":
                    base = number(value)
                cells.append(value)
            if all(c is None for c in cells):
                continue
            shown = []
            for peer, value in zip(PEERS, cells):
                if value is None:
                    shown.append("–")
                    continue
                v = number(value)
                if peer != "Wheel" and base and v is not None and metric not in ("contextSwitchesIn5s",):
                    ratio = v / base
                    shown.append(f"{value} ({ratio:.1f}×)" if ratio < 10 else f"{value} ({ratio:,.0f}×)")
                else:
                    shown.append(value)
            shown_size = "1M (100k for DispatchSource, TaskSleep)" if operation == "ContextSwitches5s" else size
            print(f"| {label} | {shown_size} | " + " | ".join(shown) + " |")
    idle = results.get("ContextSwitches5s/Idle/0", {}).get("contextSwitchesIn5s")
    if idle is not None:
        print(f"\nContext switches of the benchmark process over the same 5 s with no timers at all: {idle}.")


if __name__ == "__main__":
    main(sys.argv[1])
