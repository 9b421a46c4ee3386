// The shims are header-only static inline functions, except the heap reading and the signal pipe below, which
// hold process-wide state, and the processor binding, which needs _GNU_SOURCE.
#ifdef __linux__
#define _GNU_SOURCE  // pthread_setaffinity_np, CPU_SET
#include <sched.h>
#endif
#include "CTempoToolsShims.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t ctempo_heap_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t ctempo_heap_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    pthread_mutex_lock(&ctempo_heap_lock);
    struct mallinfo2 info = mallinfo2();
    pthread_mutex_unlock(&ctempo_heap_lock);
    return (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
#else
    return 0;
#endif
}

static volatile sig_atomic_t ctempo_signal_write_end = -1;
static int ctempo_signal_read_end = -1;

static void ctempo_signal_handler(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    // A full pipe (255 signals not yet read) drops the byte: the reader acts on the first one anyway.
    ssize_t written = write(ctempo_signal_write_end, &byte, 1);
    (void)written;
    errno = saved;
}

int ctempo_signal_pipe(const int *signals, int count) {
    if (ctempo_signal_read_end < 0) {
        int ends[2];
        if (pipe(ends) != 0) return -1;
        for (int i = 0; i < 2; i++) fcntl(ends[i], F_SETFD, FD_CLOEXEC);
        fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK);
        ctempo_signal_read_end = ends[0];
        ctempo_signal_write_end = ends[1];
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = ctempo_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, 0) != 0) return -1;
    }
    return ctempo_signal_read_end;
}

int ctempo_allowed_processor_count(void) {
#ifdef __linux__
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 0;
    return CPU_COUNT(&allowed);
#else
    return 0;
#endif
}

int ctempo_pin_to_processor(int ordinal) {
#ifdef __linux__
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return errno;
    int seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        if (seen++ != ordinal) continue;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    return EINVAL;
#else
    (void)ordinal;
    return ENOTSUP;
#endif
}
