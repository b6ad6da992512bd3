#include "analyzer/diff/diff_formats.h"

#include "analyzer/diff/diff_html.h"
#include "analyzer/diff/diff_report.h"

namespace tracelint {

const std::vector<DiffFormat>& DiffFormats() {
  static const auto* formats = new std::vector<DiffFormat>{
      {"text", "the terminal report", &RenderDiffText},
      {"markdown", "a pull-request comment",
       [](const RunDiff& d, int) { return RenderDiffMarkdown(d); }},
      {"json", "the comparison as JSON (diff.schema.json)",
       [](const RunDiff& d, int) { return RenderDiffJson(d); }},
      {"html", "one self-contained page", [](const RunDiff& d, int) { return RenderDiffHtml(d); }},
  };
  return *formats;
}

const DiffFormat* FindDiffFormat(std::string_view name) {
  for (const DiffFormat& f : DiffFormats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> DiffFormatNames() {
  std::vector<std::string> out;
  for (const DiffFormat& f : DiffFormats()) out.emplace_back(f.name);
  return out;
}

}  // namespace tracelint
