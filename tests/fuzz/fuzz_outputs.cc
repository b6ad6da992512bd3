// Fuzz targets of the two paths that write or spool what they were given:
//   annotate: the bytes as a trace, analysed, then written back by the
//     --annotate writer; the output must be valid JSON (and so valid UTF-8)
//     whatever the input held, with one tracelint_dropped_events event. The
//     bytes are also scanned as one event: whatever the strict event scan
//     accepts, a full JSON parser must accept too.
//   stdin: the bytes piped into `tracelint analyze -`: it ends with an exit
//     code of the table, never names its temporary copy, and leaves no
//     temporary file registered.
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/report/report.h"
#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "cli/temp_files.h"
#include "fmt/format.h"
#include "parsers/annotate/annotate_writer.h"
#include "parsers/annotate/event_scan.h"
#include "parsers/format_registry.h"
#include "simdjson.h"
#include "tests/fuzz/fuzz_pipeline.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/mem_file.h"

namespace tracelint::fuzz {

std::string FuzzAnnotate(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  simdjson::dom::parser json;
  if (ScanEvent(bytes, 64).valid) {
    simdjson::dom::element doc;
    if (json.parse(bytes.data(), bytes.size()).get(doc) != simdjson::SUCCESS) {
      return "the event scan accepted what is not JSON";
    }
  }
  MemFile file(data, size);
  if (!file.ok()) return "memfd_create failed";
  ParseOptions options;
  options.threads = 1;
  options.split_bytes = 4096;
  absl::StatusOr<Timeline> tl = ParseTraceFile(file.path(), options);
  if (!tl.ok()) return "";
  AnalysisContext context(*tl);
  std::vector<AnalysisContext*> ranks = {&context};
  absl::StatusOr<EngineResult> result = RunRules(AllRules(), EngineOptions(), ranks);
  if (!result.ok()) return "";
  ReportInput input;
  input.ranks = {&*tl};
  input.contexts = {&context};
  AttachRecords(input);
  input.findings = result->findings;
  std::ostringstream out;
  absl::StatusOr<AnnotateStats> stats = WriteAnnotatedTrace(input, out, {});
  if (!stats.ok()) return "";  // the memfd reads the same bytes again: an error is a message
  std::string annotated = out.str();
  simdjson::dom::element doc;
  if (json.parse(annotated).get(doc) != simdjson::SUCCESS) {
    return fmt::format("annotated output is not valid JSON: {}", annotated.substr(0, 300));
  }
  simdjson::dom::array events;
  if (doc["traceEvents"].get(events) != simdjson::SUCCESS) return "no traceEvents array";
  int dropped_events = 0;
  for (simdjson::dom::element ev : events) {
    if (!ev.is_object()) return "a non-object event";
    std::string_view name;
    if (ev["name"].get(name) == simdjson::SUCCESS && name == "tracelint_dropped_events") {
      ++dropped_events;
    }
  }
  if (tl->metadata().format != "xspace" && dropped_events != 1) {
    return fmt::format("{} tracelint_dropped_events events", dropped_events);
  }
  return "";
}

std::string FuzzStdin(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  AnalyzeArgs args;
  args.path = "-";
  args.in = &in;
  args.format = "json";
  args.threads = 1;
  args.split_bytes = 4096;
  args.limits.max_memory_bytes = uint64_t{256} << 20;
  std::ostringstream out, err;
  int code = RunAnalyze(args, out, err);
  if (code != kExitOk && code != kExitFindingsGate && code != kExitUnreadable &&
      code != kExitDamaged && code != kExitNotJudgeable) {
    return fmt::format("exit {}: {}", code, err.str());
  }
  // The spooled copy's name must not reach what the user reads, unless the
  // input itself carries the same text (a kernel named so is echoed as
  // names are; libFuzzer learns this very string from the check below).
  constexpr std::string_view kSpoolPrefix = "tracelint-stdin-";
  const bool input_has_prefix =
      std::string_view(reinterpret_cast<const char*>(data), size).find(kSpoolPrefix) !=
      std::string_view::npos;
  for (const std::string& text : {out.str(), err.str()}) {
    if (!input_has_prefix && text.find(kSpoolPrefix) != std::string::npos) {
      return "the temporary copy's name reached the output";
    }
  }
  if (RegisteredTempFiles() != 0) return "a temporary file is still registered";
  return "";
}

}  // namespace tracelint::fuzz
