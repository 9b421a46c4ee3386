// The shims are header-only static inline functions; SwiftPM needs one source file per C target.
#include "CTempoToolsShims.h"
