#ifndef CTEMPO_TOOLS_SHIMS_H
#define CTEMPO_TOOLS_SHIMS_H

// C helpers for the measuring tools of the `tempo` command (TempoTools). Not part of the Tempo library.

#include <stdint.h>
#include <sys/resource.h>

#ifdef __linux__
#include <errno.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Sleeps the calling thread until the absolute instant `sec`/`nsec` of `clockid`
/// (`clock_nanosleep` with `TIMER_ABSTIME`), resuming after signals. Returns 0 or an error number.
static inline int ctempo_sleep_until(int clockid, int64_t sec, int64_t nsec) {
    struct timespec until = {0};
    until.tv_sec = (time_t)sec;
    until.tv_nsec = (long)nsec;
    int result;
    do {
        result = clock_nanosleep((clockid_t)clockid, TIMER_ABSTIME, &until, 0);
    } while (result == EINTR);
    return result;
}
#endif

/// The CPU time (user + system, in nanoseconds) and the context switches (voluntary + involuntary) of the whole
/// process so far, from `getrusage(RUSAGE_SELF)`. A thread that blocks and is woken again counts one voluntary
/// switch, so the difference over a measurement counts the process's wakeups.
static inline void ctempo_process_usage(int64_t *cpuNanoseconds, int64_t *contextSwitches) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    *cpuNanoseconds = ((int64_t)usage.ru_utime.tv_sec + (int64_t)usage.ru_stime.tv_sec) * 1000000000
        + ((int64_t)usage.ru_utime.tv_usec + (int64_t)usage.ru_stime.tv_usec) * 1000;
    *contextSwitches = (int64_t)usage.ru_nvcsw + (int64_t)usage.ru_nivcsw;
}

/// The process's voluntary context switches so far: how often its threads blocked and so had to be woken (a
/// thread waiting on a timer counts one per wakeup).
static inline int64_t ctempo_voluntary_switches(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (int64_t)usage.ru_nvcsw;
}

/// The number of processors the process may run on (Linux: `sched_getaffinity`), or 0 where the system has no such
/// set (Darwin) or refused to tell.
int ctempo_allowed_processor_count(void);

/// Binds the calling thread to the `ordinal`-th processor (from 0) that the process may run on (Linux:
/// `sched_getaffinity`, then `pthread_setaffinity_np`). Returns 0, or an error number: `EINVAL` when the process may
/// run on `ordinal` processors or fewer; `ENOTSUP` where the system has no such binding (Darwin).
int ctempo_pin_to_processor(int ordinal);

/// Whether ``ctempo_heap_bytes_in_use`` can read the allocator (glibc 2.33 or later, for `mallinfo2`).
static inline int ctempo_heap_bytes_available(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    return 1;
#else
    return 0;
#endif
}

/// Bytes the process has allocated with malloc and not freed (mallinfo2: `uordblks + hblkhd`), or 0 where
/// ``ctempo_heap_bytes_available`` is 0. Safe to call from any thread: calls are serialized, because glibc sets its
/// allocator up lazily on the first call when it has not been used yet (under AddressSanitizer, which replaces
/// malloc), and two first calls at once crash in `int_mallinfo`.
uint64_t ctempo_heap_bytes_in_use(void);

/// Catches each of `signals` (`count` of them) with a handler that writes the signal's number, as one byte, to a
/// pipe, and returns the pipe's read end (the same pipe on every call), or -1 with `errno` set. The handler is
/// installed before the call returns, so no signal is lost between the call and the first read (a Dispatch signal
/// source registers asynchronously, and a signal that came first was discarded under `SIG_IGN`). The handler only
/// calls `write(2)`, which is async-signal-safe. Handlers are reset to the default action in `exec`'d children.
int ctempo_signal_pipe(const int *signals, int count);

#endif
