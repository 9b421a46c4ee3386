// An LD_PRELOAD interposer that counts malloc-family calls (tempo_alloc_count) and keeps the sum of
// malloc_usable_size of live allocations (tempo_live_bytes).
//
// CI's allocation gate (.ci/run) builds it as is: TickAllocationTests and WheelAllocationTests read
// tempo_alloc_count through dlsym.
//
// Built with -DTEMPO_MALLINFO2_REPORTS_LIVE it also replaces mallinfo2, so that an unmodified `tempo bench` prints
// the live usable bytes per timer in its bytes/timer column, or (LIVECOUNT_MODE=count) 1000 x the number of
// allocation calls per timer: the second way of measuring bytes per armed timer in docs/latency.md.
//
//   clang -O2 -shared -fPIC -DTEMPO_MALLINFO2_REPORTS_LIVE -o /tmp/libtempo-alloc-bytes.so .ci/alloc-counter.c
//   LD_PRELOAD=/tmp/libtempo-alloc-bytes.so .build/release/tempo bench --counts 100k 1m \
//       --subjects tempo-timer dispatch-source --no-progress
//   LIVECOUNT_MODE=count LD_PRELOAD=/tmp/libtempo-alloc-bytes.so .build/release/tempo bench ...
#define _GNU_SOURCE
#include <stddef.h>
#include <stdatomic.h>
#include <errno.h>
#include <malloc.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
static _Atomic unsigned long long count;
static _Atomic long long live;
unsigned long long tempo_alloc_count(void) { return atomic_load_explicit(&count, memory_order_relaxed); }
long long tempo_live_bytes(void) { return atomic_load_explicit(&live, memory_order_relaxed); }
static inline void *track(void *p) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    if (p) atomic_fetch_add_explicit(&live, (long long)malloc_usable_size(p), memory_order_relaxed);
    return p;
}
static inline void untrack(void *p) {
    if (p) atomic_fetch_sub_explicit(&live, (long long)malloc_usable_size(p), memory_order_relaxed);
}
void *malloc(size_t n) { return track(__libc_malloc(n)); }
void *calloc(size_t a, size_t b) { return track(__libc_calloc(a, b)); }
void *realloc(void *p, size_t n) { untrack(p); return track(__libc_realloc(p, n)); }
void free(void *p) { untrack(p); __libc_free(p); }
void *memalign(size_t a, size_t n) { return track(__libc_memalign(a, n)); }
void *aligned_alloc(size_t a, size_t n) { return track(__libc_memalign(a, n)); }
int posix_memalign(void **out, size_t a, size_t n) {
    void *p = track(__libc_memalign(a, n));
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

#ifdef TEMPO_MALLINFO2_REPORTS_LIVE
#include <stdlib.h>
#include <string.h>
struct mallinfo2 mallinfo2(void) {
    struct mallinfo2 info;
    memset(&info, 0, sizeof info);
    const char *mode = getenv("LIVECOUNT_MODE");
    if (mode && strcmp(mode, "count") == 0) {
        info.uordblks = (size_t)(tempo_alloc_count() * 1000ULL);
    } else {
        info.uordblks = (size_t)tempo_live_bytes();
    }
    return info;
}
#endif
