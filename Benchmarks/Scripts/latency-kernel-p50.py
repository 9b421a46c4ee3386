# Second method for tempo latency's p50: kernel timestamps only. Each handler entry is a uprobe hit on
# LatencyRecorder.record(slot:now:) (perf's CLOCK_MONOTONIC timestamp); each deadline is an `expires` the kernel was
# given for this process's timers (timer:hrtimer_start: the floor's clock_nanosleep, Tempo's main timerfd).
import bisect
import collections
import re
import statistics
import sys

lines=open(sys.argv[1]).read().splitlines()
pid=next(l.split()[0].split('/')[0] for l in lines if 'handlerentry' in l)
starts=collections.defaultdict(list); fn={}
hits=collections.defaultdict(list)
for l in lines:
    m=re.match(r'\s*(\d+)/(\d+)\s+(\d+)\.(\d+):\s+(\S+):\s*(.*)',l)
    if not m: continue
    p,t,sec,ns,ev,rest=m.groups(); tns=int(sec)*10**9+int(ns)
    if ev=='timer:hrtimer_start' and p==pid:
        f=re.search(r'function=(\S+)',rest).group(1)
        ptr=re.search(r'hrtimer=(\S+)',rest).group(1)
        starts[ptr].append(int(re.search(r' expires=(\d+)',rest).group(1))); fn[ptr]=f
    elif ev=='probe_tempo:handlerentry' and p==pid:
        hits[t].append(tns)
# The floor's sleeps, and Tempo's main timerfd. Its deputy is armed each tick too, at the main deadline plus the hand-over
# delay, so it has as many starts; and perf drops some of the system-wide expiry events (a run counted 1,211 expiries of
# the main timerfd for about 4,000 ticks), so neither count tells the two apart. The main one is the timerfd whose own
# deadlines the handler entries follow most closely (the lowest median lateness); matched against the deputy's, every
# entry would read about the hand-over delay (0.5 ms) late.
def lateness(deadlines, entries):
    """Each entry's time after the latest of the sorted `deadlines` before it, in ns (entries over 1 ms late: none)."""
    lat=[]
    for t in entries:
        i=bisect.bisect_right(deadlines,t)-1
        if i>=0 and t-deadlines[i] < 1_000_000: lat.append(t-deadlines[i])
    return lat
def median_lateness(deadlines):
    ordered=sorted(deadlines)
    lat=[x for ts in hits.values() for x in lateness(ordered, ts)]
    return statistics.median(lat) if len(lat) >= 10 else float('inf')
timerfds=[p for p in starts if fn[p]=='timerfd_tmrproc']
main=min(timerfds,key=lambda p: median_lateness(starts[p])) if timerfds else None
deadlines=sorted(set(d for p in starts for d in starts[p] if fn[p]=='hrtimer_wakeup' or p==main))
for tid,ts in sorted(hits.items()):
    lat=[x/1000 for x in lateness(deadlines, ts)]
    lat.sort()
    if not lat:
        print(f"thread {tid}: none of {len(ts)} handler entries matched a deadline")
        continue
    print(f"thread {tid}: {len(lat)} of {len(ts)} handler entries matched a deadline; p50 {statistics.median(lat):.1f} us, p90 {lat[int(len(lat)*0.9)]:.1f}, p99 {lat[int(len(lat)*0.99)]:.1f}")
