#ifndef TRACELINT_ANALYZER_REPORT_OUTPUT_FORMATS_H_
#define TRACELINT_ANALYZER_REPORT_OUTPUT_FORMATS_H_

// The single-run report formats, registered in exactly one place
// (output_formats.cc). The command line builds `--format`'s choices and help
// from this table, and the pipeline asks it what a format needs, so a new
// format is one row and its render function.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/report/report.h"

namespace tracelint {

struct OutputFormat {
  std::string_view name;  // the --format value
  std::string_view help;  // a few words for --help
  // The format draws events (the HTML timeline), so a multi-rank run keeps
  // every rank's timeline after its analysis.
  bool needs_events = false;
  // The format has a place for analyze --baseline's comparison (SARIF, a
  // list of results, has none).
  bool shows_baseline = true;
  std::string (*render)(const ReportInput& input) = nullptr;
};

// In the order --help lists them; the first is the default.
const std::vector<OutputFormat>& ReportFormats();
// nullptr for an unknown name.
const OutputFormat* FindReportFormat(std::string_view name);
// The names, for --format's choices.
std::vector<std::string> ReportFormatNames();

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_OUTPUT_FORMATS_H_
