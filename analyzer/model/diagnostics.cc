#include "analyzer/model/diagnostics.h"

#include <algorithm>

namespace tracelint {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "info";
}

void ImportDiagnostics::Add(std::string_view name, Severity severity,
                            std::string_view description, int64_t count,
                            int64_t byte_offset) {
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
