// Intentionally empty: SwiftPM needs one source file in a C target.
#include "CEpoll.h"
