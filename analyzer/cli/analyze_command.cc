#include "analyzer/cli/analyze_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/report.h"
#include "fmt/format.h"
#include "parsers/load_run.h"
#include "parsers/tensorboard/discovery.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

// The tool never writes into the trace directory it reads: a report there
// would be picked up as input by the next run (and may be a shared archive).
bool IsInside(const fs::path& candidate, const fs::path& dir) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(candidate, ec);
  if (ec) return false;
  fs::path d = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  auto [dir_end, c_it] = std::mismatch(d.begin(), d.end(), c.begin(), c.end());
  return dir_end == d.end();
}

}  // namespace

int RunAnalyze(const AnalyzeArgs& args, std::ostream& out, std::ostream& err) {
  if (args.format != "text" && args.format != "json") {
    err << "tracelint: --format must be text or json, not '" << args.format << "'\n";
    return kExitUsage;
  }
  if (!args.output.empty()) {
    fs::path input(args.path);
    std::error_code ec;
    fs::path input_dir = fs::is_directory(input, ec) ? input : input.parent_path();
    if (input_dir.empty()) input_dir = ".";
    if (IsInside(fs::path(args.output).parent_path().empty() ? fs::path(".")
                                                              : fs::path(args.output).parent_path(),
                 input_dir)) {
      err << "tracelint: refusing to write " << args.output
          << " into the trace directory " << input_dir.string()
          << " (write the report elsewhere)\n";
      return kExitUsage;
    }
  }

  RuleRegistry registry;
  RegisterAllRules(registry);
  EngineOptions engine_options;
  engine_options.rules_glob = args.rules;
  engine_options.set_overrides = args.set_overrides;
  engine_options.config_path = args.config_path;
  // Option errors are usage errors and must stop before any parsing work.
  if (absl::Status s = ValidateEngineOptions(registry, engine_options); !s.ok()) {
    err << "tracelint: " << s.message() << "\n";
    return kExitUsage;
  }

  DiscoveryOptions discovery_options;
  discovery_options.span = args.span;
  discovery_options.run = args.run;
  absl::StatusOr<Discovery> discovery = DiscoverTraces(args.path, discovery_options);
  if (!discovery.ok()) {
    err << "tracelint: " << discovery.status().message() << "\n";
    return kExitUnreadable;
  }
  LoadOptions load_options;
  load_options.parse.threads = args.threads;
  if (args.split_bytes > 0) load_options.parse.split_bytes = static_cast<size_t>(args.split_bytes);
  absl::StatusOr<Run> run = LoadRun(*discovery, load_options);
  if (!run.ok()) {
    err << "tracelint: " << run.status().message() << "\n";
    return kExitUnreadable;
  }

  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  std::vector<AnalysisContext*> context_ptrs;
  for (const Timeline& tl : run->ranks) {
    contexts.push_back(std::make_unique<AnalysisContext>(tl));
    context_ptrs.push_back(contexts.back().get());
  }
  absl::StatusOr<EngineResult> result = RunRules(registry, engine_options, context_ptrs);
  if (!result.ok()) {
    err << "tracelint: " << result.status().message() << "\n";
    return kExitUsage;
  }

  ReportInput input;
  input.input_path = args.path;
  for (const Timeline& tl : run->ranks) input.ranks.push_back(&tl);
  input.contexts = context_ptrs;
  input.findings = std::move(result->findings);
  input.not_judged = std::move(result->not_judged);
  input.warnings = run->warnings;
  for (const std::string& note : discovery->notes) input.warnings.push_back(note);
  input.options.top_n = args.top_n;
  input.options.batch_size = args.batch_size;
  input.options.price_per_hour = args.price_per_hour;

  int exit_code = kExitOk;
  for (const Timeline& tl : run->ranks) {
    const RunMetadata& m = tl.metadata();
    if (m.truncated) {
      err << fmt::format(
          "tracelint: warning: {}: input ends early at byte {} of the decompressed stream; "
          "analysed the {} complete events before it\n",
          m.source_path, m.truncated_at_byte, m.events_read);
      exit_code = kExitDamaged;
    } else if (tl.diagnostics().HasAtLeast(Severity::kError)) {
      err << fmt::format("tracelint: warning: {}: damaged input, see import diagnostics\n",
                         m.source_path);
      exit_code = kExitDamaged;
    }
  }
  for (const std::string& w : run->warnings) err << "tracelint: warning: " << w << "\n";
  for (const std::string& w : result->warnings) err << "tracelint: warning: " << w << "\n";

  std::string report =
      args.format == "json" ? RenderJsonReport(input) : RenderTextReport(input);
  if (args.output.empty()) {
    out << report;
  } else {
    std::ofstream file(args.output, std::ios::binary | std::ios::trunc);
    file << report;
    if (!file) {
      err << "tracelint: cannot write " << args.output << "\n";
      return kExitUsage;
    }
  }
  return exit_code;
}

}  // namespace tracelint
