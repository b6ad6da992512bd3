#ifndef TRACELINT_ANALYZER_MODEL_DIAGNOSTIC_CATALOG_H_
#define TRACELINT_ANALYZER_MODEL_DIAGNOSTIC_CATALOG_H_

// The one table of import diagnostics: every name a parser, the builder or
// the integrity pass counts, with its severity and what it means. A call
// adds its own detail (counts, byte offsets) to the description; the name
// and severity must be the catalog's (diagnostics_catalog_test checks every
// call in the tree, and under TRACELINT_STRICT_INVARIANTS ImportDiagnostics
// aborts on an unlisted one). docs/diagnostics.md is checked against it.

#include <string_view>
#include <vector>

#include "analyzer/model/diagnostics.h"

namespace tracelint {

struct DiagnosticKind {
  std::string_view name;
  Severity severity;
  std::string_view summary;
};

const std::vector<DiagnosticKind>& DiagnosticCatalog();
// nullptr for a name the catalog does not list.
const DiagnosticKind* FindDiagnosticKind(std::string_view name);

// Names other code asks for by name.
inline constexpr std::string_view kDiagLimitReached = "limit_reached";
inline constexpr std::string_view kDiagXSpaceProfilerError = "xspace_profiler_error";
inline constexpr std::string_view kDiagXSpaceStepSpansDisjoint = "xspace_step_spans_disjoint";

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_DIAGNOSTIC_CATALOG_H_
