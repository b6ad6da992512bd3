// Report-writer fuzz target: the input, split at NUL bytes, names a small
// trace's kernel, CPU op, thread and the input path; the run is analysed and
// rendered in every format, and each output must be safe for its medium
// (docs/robustness.md, "Escaping"): no raw control bytes for a terminal or
// Markdown, no unescaped markup in Markdown or HTML, valid JSON (UTF-8
// included) for JSON and SARIF.
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/html_report.h"
#include "analyzer/report/report.h"
#include "fmt/format.h"
#include "parsers/kineto/kineto_parser.h"
#include "rules/all_rules.h"
#include "simdjson.h"
#include "tests/fuzz/fuzz_pipeline.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/mem_file.h"

namespace tracelint::fuzz {
namespace {

// A JSON string literal for raw bytes: quotes, backslashes and control
// bytes escaped; other bytes (invalid UTF-8 too) passed through.
std::string JsonLiteral(std::string_view raw) {
  std::string out = "\"";
  for (char c : raw) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

// Six steps of a run starved by its data loader, with one kernel and one
// op per step, so rules fire and the names reach findings and tables.
std::string TraceWithNames(std::string_view kernel, std::string_view op,
                           std::string_view thread) {
  std::string events = fmt::format(
      R"({{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{{"name":{}}}}})",
      JsonLiteral(thread));
  for (int i = 0; i < 6; ++i) {
    int64_t t = 1000 + i * 10000;
    events += fmt::format(
        R"(,{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,)"
        R"("ts":{},"dur":10000}})"
        R"(,{{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":{},"dur":6000,)"
        R"("name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"}})"
        R"(,{{"ph":"X","cat":"cpu_op","name":{},"pid":1,"tid":1,"ts":{},"dur":3000}})"
        R"(,{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,)"
        R"("ts":{},"dur":20,"args":{{"correlation":{}}}}})"
        R"(,{{"ph":"X","cat":"kernel","name":{},"pid":0,"tid":7,"ts":{},"dur":3500,)"
        R"("args":{{"correlation":{},"device":0,"stream":7}}}})",
        i + 1, t, t + 1, JsonLiteral(op), t + 6000, t + 6100, i + 1, JsonLiteral(kernel),
        t + 6200, i + 1);
  }
  return fmt::format(
      R"({{"schemaVersion":1,"deviceProperties":[{{"id":0,"name":"NVIDIA A100-SXM4-80GB"}}],)"
      R"("traceEvents":[{}]}})",
      events);
}

bool IsTerminalSafe(std::string_view text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

bool HasRawMarkup(std::string_view text) {
  // Seeds and the dictionary name tags "<xss"; the template never does.
  for (size_t i = text.find('<'); i != std::string_view::npos; i = text.find('<', i + 1)) {
    std::string_view tag = text.substr(i + 1, 3);
    if (tag.size() == 3 && (tag[0] | 0x20) == 'x' && (tag[1] | 0x20) == 's' &&
        (tag[2] | 0x20) == 's') {
      return true;
    }
  }
  return false;
}

std::string CheckJson(std::string_view what, const std::string& text) {
  // One parser for the process: a fresh one allocates buffers sized to each
  // document, and the fuzzer checks two documents per execution.
  static simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto error = parser.parse(text).get(doc); error) {
    return fmt::format("{} report is not valid JSON: {}", what, simdjson::error_message(error));
  }
  return "";
}

}  // namespace

std::string FuzzReports(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> names;
  while (names.size() < 3) {
    size_t nul = input.find('\0');
    names.push_back(input.substr(0, nul));
    if (nul == std::string_view::npos) {
      input = {};
      break;
    }
    input.remove_prefix(nul + 1);
  }
  while (names.size() < 3) names.push_back("x");
  std::string path(input);
  if (path.empty()) path = "run";

  std::string trace = TraceWithNames(names[0], names[1], names[2]);
  MemFile file(reinterpret_cast<const uint8_t*>(trace.data()), trace.size());
  if (!file.ok()) return "memfd_create failed";
  ParseOptions options;
  options.threads = 1;
  // One part: the default (1 MiB and up, for real traces) reserves a part
  // buffer that ASan maps and poisons per input, for a trace of a few KB.
  options.split_bytes = size_t{64} << 10;
  absl::StatusOr<Timeline> tl = ParseKinetoJsonFile(file.path(), options);
  if (!tl.ok()) return "";  // invalid UTF-8 names: the JSON parser refuses them
  AnalysisContext context(*tl);
  std::vector<AnalysisContext*> ranks = {&context};
  absl::StatusOr<EngineResult> result = RunRules(AllRules(), EngineOptions(), ranks);
  if (!result.ok()) return fmt::format("engine: {}", std::string(result.status().message()));

  ReportInput report;
  report.input_path = path;
  report.ranks = {&*tl};
  report.contexts = {&context};
  AttachRecords(report);
  report.findings = result->findings;
  report.not_judged = result->not_judged;
  report.warnings = {fmt::format("{}: a warning naming the path", path)};
  report.provenance.input_files = {{path, 1}};

  std::string text = RenderTextReport(report);
  if (!IsTerminalSafe(text)) return "text report holds a raw control byte";
  std::string markdown = RenderMarkdownReport(report);
  if (!IsTerminalSafe(markdown)) return "Markdown report holds a raw control byte";
  if (HasRawMarkup(markdown)) return "Markdown report holds unescaped markup";
  std::string html = RenderHtmlReport(report);
  if (HasRawMarkup(html)) return "HTML report holds unescaped markup";
  if (std::string problem = CheckJson("JSON", RenderJsonReport(report)); !problem.empty()) {
    return problem;
  }
  return CheckJson("SARIF", RenderSarifReport(report));
}

}  // namespace tracelint::fuzz
