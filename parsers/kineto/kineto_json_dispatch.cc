// Run-time choice among the copies of kineto_json_reader.cc (see there).

#include <string_view>
#include <vector>

#include "parsers/kineto/kineto_raw.h"

namespace tracelint::kineto {

namespace fallback {
const JsonReader& Reader();
std::string_view ActiveKernelName();
}  // namespace fallback
#if TL_JSON_HAVE_HASWELL
namespace haswell {
const JsonReader& Reader();
}  // namespace haswell
#endif
#if TL_JSON_HAVE_ICELAKE
namespace icelake {
const JsonReader& Reader();
}  // namespace icelake
#endif

std::vector<const JsonReader*> AllJsonReaders() {
  std::vector<const JsonReader*> all = {&fallback::Reader()};
#if TL_JSON_HAVE_HASWELL
  all.push_back(&haswell::Reader());
#endif
#if TL_JSON_HAVE_ICELAKE
  all.push_back(&icelake::Reader());
#endif
  return all;
}

const JsonReader& ActiveJsonReader() {
  static const JsonReader* const chosen = [] {
    std::string_view active = fallback::ActiveKernelName();
    const JsonReader* best = &fallback::Reader();
    // icelake CPUs also run haswell code; take the copy matching the CPU's
    // best kernel, else the best one below it.
    for (const JsonReader* r : AllJsonReaders()) {
      if (r->kernel == active) return r;
      if (r->kernel == "haswell" && active == "icelake") best = r;
    }
    return best;
  }();
  return *chosen;
}

}  // namespace tracelint::kineto
