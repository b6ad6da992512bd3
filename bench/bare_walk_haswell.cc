// Compiled with -march=haswell (see bench/CMakeLists.txt).
#define BARE_WALK_NS haswell_walk
#include "bench/bare_walk_impl.inc"
