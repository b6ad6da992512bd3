#include "analyzer/model/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "analyzer/model/diagnostic_catalog.h"

namespace tracelint {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "info";
}

namespace {

// Under TRACELINT_STRICT_INVARIANTS (every test) a name the catalog does not
// list, or with another severity, aborts: the catalog stays the one table.
void CheckCataloged(std::string_view name, Severity severity) {
  static const bool strict = std::getenv("TRACELINT_STRICT_INVARIANTS") != nullptr;
  if (!strict) return;
  const DiagnosticKind* kind = FindDiagnosticKind(name);
  if (kind != nullptr && kind->severity == severity) return;
  std::fprintf(stderr, "tracelint: import diagnostic '%.*s' (%s) is not in the catalog%s\n",
               static_cast<int>(name.size()), name.data(), SeverityName(severity).data(),
               kind != nullptr ? " with this severity" : "");
  std::abort();
}

}  // namespace

void ImportDiagnostics::Add(std::string_view name, Severity severity,
                            std::string_view description, int64_t count,
                            int64_t byte_offset) {
  CheckCataloged(name, severity);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    Diagnostic d;
    d.name = std::string(name);
    d.severity = severity;
    d.description = std::string(description);
    d.count = count;
    d.first_byte_offset = byte_offset;
    entries_.emplace(d.name, std::move(d));
    return;
  }
  it->second.count += count;
  it->second.severity = std::max(it->second.severity, severity);
  if (it->second.first_byte_offset < 0 ||
      (byte_offset >= 0 && byte_offset < it->second.first_byte_offset)) {
    it->second.first_byte_offset = byte_offset;
  }
}

void ImportDiagnostics::Merge(const ImportDiagnostics& other) {
  for (const auto& [name, d] : other.entries_) {
    Add(name, d.severity, d.description, d.count, d.first_byte_offset);
  }
}

int64_t ImportDiagnostics::Count(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? 0 : it->second.count;
}

bool ImportDiagnostics::HasAtLeast(Severity s) const {
  for (const auto& [name, d] : entries_) {
    if (d.severity >= s) return true;
  }
  return false;
}

std::vector<Diagnostic> ImportDiagnostics::List() const {
  std::vector<Diagnostic> out;
  out.reserve(entries_.size());
  for (const auto& [name, d] : entries_) out.push_back(d);
  return out;
}

}  // namespace tracelint
