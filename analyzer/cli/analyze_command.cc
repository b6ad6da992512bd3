#include "analyzer/cli/analyze_command.h"

#include <iostream>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/run_pipeline.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/report.h"
#include "fmt/format.h"
#include "rules/all_rules.h"

namespace tracelint {

int RunAnalyze(const AnalyzeArgs& args, std::ostream& out, std::ostream& err) {
  if (args.format != "text" && args.format != "json") {
    err << "tracelint: --format must be text or json, not '" << args.format << "'\n";
    return kExitUsage;
  }
  if (absl::Status s = CheckOutputOutsideTraces(args.output, args.path); !s.ok()) {
    err << "tracelint: " << s.message() << "\n";
    return kExitUsage;
  }

  RuleRegistry registry;
  RegisterAllRules(registry);
  // Option errors are usage errors and must stop before any parsing work.
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, args.engine);
  if (!rules.ok()) {
    err << "tracelint: " << rules.status().message() << "\n";
    return kExitUsage;
  }
  PipelineOptions pipeline;
  pipeline.discovery.span = args.span;
  pipeline.discovery.run = args.run;
  // Files share these cores by size (LoadRun); one thread analyses each rank.
  pipeline.load.cores = args.threads;
  if (args.split_bytes > 0) pipeline.load.parse.split_bytes = static_cast<size_t>(args.split_bytes);
  absl::StatusOr<AnalyzedRun> analyzed = AnalyzeRunAt(args.path, registry, *rules, pipeline);
  if (!analyzed.ok()) {
    err << "tracelint: " << analyzed.status().message() << "\n";
    return kExitUnreadable;
  }

  ReportInput input;
  input.input_path = args.path;
  for (const std::unique_ptr<Timeline>& tl : analyzed->run.ranks) input.ranks.push_back(tl.get());
  input.contexts = analyzed->ContextPointers();
  input.findings = std::move(analyzed->engine.findings);
  input.not_judged = std::move(analyzed->engine.not_judged);
  input.warnings = analyzed->run.warnings;
  for (const std::string& note : analyzed->discovery.notes) input.warnings.push_back(note);
  input.options.top_n = args.top_n;
  input.options.batch_size = args.batch_size;
  input.options.price_per_hour = args.price_per_hour;

  std::vector<std::string> warnings;
  int exit_code = RunHealth(*analyzed, warnings);
  for (const std::string& w : warnings) err << "tracelint: warning: " << w << "\n";

  std::string report =
      args.format == "json" ? RenderJsonReport(input) : RenderTextReport(input);
  if (absl::Status s = WriteReport(report, args.output, out); !s.ok()) {
    err << "tracelint: " << s.message() << "\n";
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace tracelint
