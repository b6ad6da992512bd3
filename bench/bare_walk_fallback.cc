// Portable copy (no -march). Linked first so that the shared inline helpers
// of namespace simdjson, which every copy instantiates, resolve to this
// portable code rather than to an AVX-512 build of them.
#define BARE_WALK_NS fallback_walk
#include "bench/bare_walk_impl.inc"

namespace tracelint::bench::fallback_walk {

const char* ActiveImplementation() {
  return simdjson::get_active_implementation()->name().c_str();
}

const char* ErrorMessage(int error) {
  return simdjson::error_message(static_cast<simdjson::error_code>(error));
}

}  // namespace tracelint::bench::fallback_walk
