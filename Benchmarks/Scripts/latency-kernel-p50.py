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
starts=collections.defaultdict(list); expired=collections.Counter(); fn={}
hits=collections.defaultdict(list)
for l in lines:
    m=re.match(r'\s*(\d+)/(\d+)\s+(\d+)\.(\d+):\s+(\S+):\s*(.*)',l)
    if not m: continue
    p,t,sec,ns,ev,rest=m.groups(); tns=int(sec)*10**9+int(ns)
    if ev=='timer:hrtimer_start' and p==pid:
        f=re.search(r'function=(\S+)',rest).group(1)
        ptr=re.search(r'hrtimer=(\S+)',rest).group(1)
        starts[ptr].append(int(re.search(r' expires=(\d+)',rest).group(1))); fn[ptr]=f
    elif ev=='timer:hrtimer_expire_entry':
        expired[re.search(r'hrtimer=(\S+)',rest).group(1)]+=1
    elif ev=='probe_tempo:handlerentry' and p==pid:
        hits[t].append(tns)
# The floor's sleeps, and the timerfd that expired most (Tempo's main one; its deputy is armed each tick too, later).
timerfds=[p for p in starts if fn[p]=='timerfd_tmrproc']
main=max(timerfds,key=lambda p: expired[p]) if timerfds else None
deadlines=sorted(set(d for p in starts for d in starts[p] if fn[p]=='hrtimer_wakeup' or p==main))
for tid,ts in sorted(hits.items()):
    lat=[]
    for t in ts:
        i=bisect.bisect_right(deadlines,t)-1
        if i>=0 and t-deadlines[i] < 1_000_000: lat.append((t-deadlines[i])/1000)
    lat.sort()
    if not lat:
        print(f"thread {tid}: none of {len(ts)} handler entries matched a deadline")
        continue
    print(f"thread {tid}: {len(lat)} of {len(ts)} handler entries matched a deadline; p50 {statistics.median(lat):.1f} us, p90 {lat[int(len(lat)*0.9)]:.1f}, p99 {lat[int(len(lat)*0.99)]:.1f}")
