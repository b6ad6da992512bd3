#include "analyzer/model/accelerator.h"

#include "analyzer/base/strings.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// AMD products whose gfx target the compute capability alone does not fix
// (ROCm's major.minor drops the stepping: gfx90a and gfx908 are both 9.0).
struct AmdProduct {
  std::string_view name;  // a substring of the device name
  std::string_view gfx;
};
constexpr AmdProduct kAmdProducts[] = {
    {"MI355", "gfx950"}, {"MI350", "gfx950"}, {"MI325", "gfx942"}, {"MI308", "gfx942"},
    {"MI300", "gfx942"}, {"MI250", "gfx90a"}, {"MI210", "gfx90a"}, {"MI100", "gfx908"},
    {"MI60", "gfx906"},  {"MI50", "gfx906"},  {"Radeon VII", "gfx906"},
};

}  // namespace

std::string DeviceArchitecture(const DeviceInfo& d) {
  const bool amd = d.vendor == "AMD" || ContainsIgnoreCase(d.name, "AMD") ||
                   ContainsIgnoreCase(d.name, "Instinct") || ContainsIgnoreCase(d.name, "Radeon");
  if (amd) {
    for (const AmdProduct& p : kAmdProducts) {
      if (ContainsIgnoreCase(d.name, p.name)) return std::string(p.gfx);
    }
    if (d.compute_major < 0) return "";
    // One target per major.minor where there is only one; otherwise the
    // family ("gfx90x": gfx900, gfx906, gfx908 or gfx90a).
    if (d.compute_major == 9 && d.compute_minor == 4) return "gfx942";
    if (d.compute_major == 9 && d.compute_minor == 5) return "gfx950";
    return fmt::format("gfx{}{}x", d.compute_major, d.compute_minor);
  }
  if (d.compute_major < 0) return "";
  return fmt::format("CC {}.{}", d.compute_major, d.compute_minor);
}

}  // namespace tracelint
