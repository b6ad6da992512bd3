#ifndef TRACELINT_ANALYZER_MODEL_DIAGNOSTICS_H_
#define TRACELINT_ANALYZER_MODEL_DIAGNOSTICS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_map.h"

namespace tracelint {

enum class Severity : uint8_t { kInfo = 0, kWarning = 1, kError = 2 };
std::string_view SeverityName(Severity s);

// Per-event problems never abort an import: they are counted here under a
// stable name and shown in the report (Perfetto's "stats" idea).
struct Diagnostic {
  std::string name;
  Severity severity = Severity::kInfo;
  std::string description;
  int64_t count = 0;
  int64_t first_byte_offset = -1;  // where it was first seen, when known
};

class ImportDiagnostics {
 public:
  void Add(std::string_view name, Severity severity,
           std::string_view description, int64_t count = 1,
           int64_t byte_offset = -1);
  void Merge(const ImportDiagnostics& other);
  int64_t Count(std::string_view name) const;
  bool HasAtLeast(Severity s) const;
  // Sorted by name: deterministic.
  std::vector<Diagnostic> List() const;

 private:
  absl::btree_map<std::string, Diagnostic, std::less<>> entries_;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_DIAGNOSTICS_H_
