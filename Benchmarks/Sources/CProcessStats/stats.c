#include "CProcessStats.h"

#include <sys/resource.h>
#if defined(__linux__)
#include <malloc.h>
#endif

size_t cprocessstats_malloc_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

long cprocessstats_context_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) {
        return -1;
    }
    return usage.ru_nvcsw + usage.ru_nivcsw;
}
