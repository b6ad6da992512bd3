#include "analyzer/report/output_formats.h"

#include "analyzer/report/html_report.h"

namespace tracelint {

const std::vector<OutputFormat>& ReportFormats() {
  static const auto* formats = new std::vector<OutputFormat>{
      {"text", "the terminal report", false, true, &RenderTextReport},
      {"json", "the whole report as JSON (report.schema.json)", false, true, &RenderJsonReport},
      {"markdown", "a pull-request comment", false, true, &RenderMarkdownReport},
      {"sarif", "SARIF 2.1.0 for code scanning", false, false, &RenderSarifReport},
      {"html", "one self-contained page with charts and the timeline", true, true,
       &RenderHtmlReport},
  };
  return *formats;
}

const OutputFormat* FindReportFormat(std::string_view name) {
  for (const OutputFormat& f : ReportFormats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> ReportFormatNames() {
  std::vector<std::string> out;
  for (const OutputFormat& f : ReportFormats()) out.emplace_back(f.name);
  return out;
}

}  // namespace tracelint
