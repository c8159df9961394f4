// Everything is inline in include/CCounters.h; SwiftPM wants one source file.
#include "CCounters.h"
