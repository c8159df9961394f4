// CPrefetch is header-only (see include/CPrefetch.h); SwiftPM wants a source file.
#include "CPrefetch.h"
