#ifndef CTEMPO_SHIMS_H
#define CTEMPO_SHIMS_H

#include <stdint.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <stdatomic.h>

/// Whether the processor has PREFETCHW (CPUID 0x80000001, ECX bit 8), read once and kept (a relaxed atomic: threads
/// that race to read it first store the same answer).
static inline int ctempo_has_prefetchw(void) {
    static _Atomic int known = -1;
    int value = atomic_load_explicit(&known, memory_order_relaxed);
    if (value < 0) {
        unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
        value = __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 8)) ? 1 : 0;
        atomic_store_explicit(&known, value, memory_order_relaxed);
    }
    return value;
}
#endif

/// Asks the processor to load the four cache lines from `address` on (an object of up to 256 bytes) for writing, all at
/// once, so that their misses overlap instead of coming one after another as the code reaches each line. A hint: it
/// never faults and changes nothing a program can observe.
///
/// On an x86-64 processor that has PREFETCHW it issues that, which takes the lines in the exclusive state: the
/// `prefetcht0` that the baseline target emits for a write hint takes them shared, and the first store then waits for
/// the other cores' copies to be invalidated (a timer is armed on one thread and fired on another). Elsewhere it is
/// the compiler's prefetch for writing.
static inline void ctempo_prefetch_object(const void *address) {
    const char *bytes = (const char *)address;
#if defined(__x86_64__)
    if (ctempo_has_prefetchw()) {
        __asm__ volatile("prefetchw (%0)\n\tprefetchw 64(%0)\n\tprefetchw 128(%0)\n\tprefetchw 192(%0)" : : "r"(bytes));
        return;
    }
#endif
    __builtin_prefetch(bytes, 1, 3);
    __builtin_prefetch(bytes + 64, 1, 3);
    __builtin_prefetch(bytes + 128, 1, 3);
    __builtin_prefetch(bytes + 192, 1, 3);
}

/// Asks the processor to fetch the cache line of `address` for writing, without waiting for it (`PREFETCHW` where the
/// processor reports it, as ``ctempo_prefetch_object``): a hint that never faults, so any address is allowed, even a
/// freed one.
static inline void ctempo_prefetch_line_for_write(const void *address) {
#if defined(__x86_64__)
    if (ctempo_has_prefetchw()) {
        __asm__ volatile("prefetchw (%0)" : : "r"(address));
        return;
    }
#endif
    __builtin_prefetch(address, 1, 3);
}

#ifdef __linux__
#include <errno.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>

/// Creates a timerfd for `clockid` (CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME), close-on-exec.
static inline int ctempo_timerfd_create(int clockid) {
    return timerfd_create(clockid, TFD_CLOEXEC);
}

/// Arms `fd` at the absolute time `sec`/`nsec`; 0/0 disarms. `cancelOnSet` makes a blocked read fail
/// with ECANCELED when the realtime clock is set (only meaningful for CLOCK_REALTIME).
static inline int ctempo_timerfd_arm(int fd, int64_t sec, int64_t nsec, int cancelOnSet) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)sec;
    spec.it_value.tv_nsec = (long)nsec;
    int flags = TFD_TIMER_ABSTIME;
    if (cancelOnSet) {
        flags |= TFD_TIMER_CANCEL_ON_SET;
    }
    return timerfd_settime(fd, flags, &spec, 0);
}

/// Arms `fd` at the absolute time `sec`/`nsec` and then every `interval` nanoseconds (0: once): the kernel re-arms
/// a periodic timerfd itself when a read consumes an expiry, at the first multiple of the interval after that read.
static inline int ctempo_timerfd_arm_periodic(int fd, int64_t sec, int64_t nsec, int64_t interval) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)sec;
    spec.it_value.tv_nsec = (long)nsec;
    spec.it_interval.tv_sec = (time_t)(interval / 1000000000);
    spec.it_interval.tv_nsec = (long)(interval % 1000000000);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, 0);
}

/// The time left until `fd` expires, in nanoseconds: 0 when it is disarmed or has expired, -1 on error.
static inline int64_t ctempo_timerfd_remaining(int fd) {
    struct itimerspec spec;
    if (timerfd_gettime(fd, &spec) != 0) {
        return -1;
    }
    return (int64_t)spec.it_value.tv_sec * 1000000000 + spec.it_value.tv_nsec;
}

/// Sets the calling thread's timer slack (the kernel's default is 50 µs; 1 ns asks for punctual wakeups).
static inline int ctempo_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

/// Names the calling thread (the kernel keeps the first 15 bytes): what `top -H`, `ps -L` and `/proc/thread-self/comm`
/// show.
static inline int ctempo_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

static inline int ctempo_errno(void) { return errno; }

static inline int ctempo_clock_monotonic(void) { return CLOCK_MONOTONIC; }
static inline int ctempo_clock_boottime(void) { return CLOCK_BOOTTIME; }
static inline int ctempo_clock_realtime(void) { return CLOCK_REALTIME; }
static inline int ctempo_ecanceled(void) { return ECANCELED; }

#endif

#endif
