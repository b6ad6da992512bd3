#ifndef TRACELINT_ANALYZER_REPORT_TEXT_REPORT_PARTS_H_
#define TRACELINT_ANALYZER_REPORT_TEXT_REPORT_PARTS_H_

// The text report's sections, shared by text_report.cc (the top: verdict,
// integrity, findings, details) and text_metrics.cc (the metrics).

#include <string>
#include <string_view>

#include "analyzer/report/report.h"
#include "analyzer/report/text_layout.h"

namespace tracelint::text {

// The report's layout settings, resolved once.
struct Layout {
  size_t width = 0;  // 0: no limit
  bool color = false;
  TextVerbosity verbosity = TextVerbosity::kNormal;
  bool all_steps = false;
  bool verbose() const { return verbosity == TextVerbosity::kVerbose; }
};

// Names and paths from the trace, escaped for the terminal (escape.h).
std::string T(std::string_view s);
// "\n== title ==\n", bold on a colour terminal.
std::string Heading(std::string_view title, const Layout& layout);
// "GPU 0", "TPU 2"; "host" for -1.
std::string AccelLabel(int device, std::string_view accelerator);

// Everything after the findings: run facts, the side-by-side rank table,
// metrics, per-step summary, HTA, top tables, throughput, diagnostics.
void RenderMetricsSections(std::string& out, const ReportInput& in, const Layout& layout);

// Where the report's terms are defined; printed once.
inline constexpr std::string_view kGlossaryPointer =
    "Terms (recoverable, confidence, idle causes, busy incl. copies, Est. SM efficiency): "
    "docs/glossary.md";

}  // namespace tracelint::text

#endif  // TRACELINT_ANALYZER_REPORT_TEXT_REPORT_PARTS_H_
