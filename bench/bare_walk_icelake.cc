// Compiled with -march=icelake-server (see bench/CMakeLists.txt).
#define BARE_WALK_NS icelake_walk
#include "bench/bare_walk_impl.inc"
