#ifndef C_PROCESS_STATS_H
#define C_PROCESS_STATS_H

#include <stddef.h>

/// Bytes malloc has handed out and not taken back (mallinfo2: arenas plus mmapped blocks); 0 where unknown.
size_t cprocessstats_malloc_bytes_in_use(void);

/// Voluntary plus involuntary context switches of the whole process so far (getrusage).
long cprocessstats_context_switches(void);

#endif
