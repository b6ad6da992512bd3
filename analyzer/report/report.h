#ifndef TRACELINT_ANALYZER_REPORT_REPORT_H_
#define TRACELINT_ANALYZER_REPORT_REPORT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/rank_record.h"
#include "analyzer/analysis/run_summary.h"
#include "analyzer/engine/finding.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

class JsonWriter;  // json_writer.h

// analyze --baseline: the comparison with the baseline, rendered by diff/
// for each format. The composition root (cli/) fills it, so the single-run
// reporters place it without depending on diff/.
struct BaselineSection {
  std::string headline;  // the step-time verdict, one line
  // The comparison as text and as Markdown: the first thing those reports
  // show, since it is what a CI run asks.
  std::string text;
  std::string markdown;
  std::string html;      // the page section (id "baseline")
  std::function<void(JsonWriter&)> write_json;  // the report's "baseline_diff" value
};

// The JSON report's "schema_version"; bump it with report.schema.json.
inline constexpr int kReportSchemaVersion = 1;

// How the text report is laid out (docs/output-formats.md, "Text").
enum class TextVerbosity { kQuiet, kNormal, kVerbose };  // -q: findings only; -v: everything
// The widest line `-v` writes when nothing sets a width (a pipe, a file).
inline constexpr int kVerboseMaxColumns = 240;

struct TextOptions {
  int width_columns = 0;  // terminal width; 0: no limit (piped output)
  bool color = false;     // SGR colours for severities and headings
  TextVerbosity verbosity = TextVerbosity::kNormal;
  bool all_steps = false;  // --steps all: every step, not only the outliers
};

struct ReportOptions {
  int top_n = 10;             // rows of the top kernels / top ops tables
  int64_t batch_size = 0;     // samples per step per rank; 0: no throughput
  double price_per_hour = 0;  // of all machines of the run; 0: no samples per dollar
  TextOptions text;
};

// What a report needs to be reproduced and compared (JSON "provenance"):
// the tool version, the rule selection and options used, the input files.
struct InputFileInfo {
  std::string path;
  int64_t bytes = -1;  // -1: size unknown (the file vanished after reading)
};
struct Provenance {
  std::string rules_glob = "*";
  std::vector<std::string> set_overrides;
  std::string config_path;
  std::vector<std::string> selected_rules;
  // Effective option values per selected rule (defaults merged with
  // overrides), in rule and option name order.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> rule_options;
  std::vector<InputFileInfo> input_files;
};

// A rule as SARIF describes it (one reportingDescriptor each).
struct RuleInfo {
  std::string id;
  std::string summary;
};

// SARIF locations (docs/design/contract.md, "SARIF locations").
struct SarifOptions {
  std::string source_root;  // maps Python frames to repo files; empty: cwd
  std::string docs_url;     // helpUri base; empty: kDefaultDocsUrl
  // helpUri's <ref> (docs_url/blob/<ref>/rules/docs/<id>.md); empty: the
  // commit the binary was built from, else "main".
  std::string docs_ref;
  // The repository-relative file a result without a mapped frame points at;
  // empty: README.md when it exists under the source root.
  std::string anchor;
};

// Everything a report shows. `records` holds what every format reads of
// each rank (rank_record.h), in file order. `ranks` and `contexts` (one
// context per rank timeline, parallel to `records`) are set only when the
// events are kept: the HTML timeline draws them. Findings arrive ranked.
struct ReportInput {
  std::string input_path;
  // What was chosen for the user, said under the title (docs/design/contract.md,
  // "Newest span"): "1732240000002, the newest of 3 profiling spans; --span
  // to choose another". Empty when nothing was chosen.
  std::string span_note;
  // A configuration found by discovery (not named with --config) that
  // disables rules or changes thresholds: "tracelint.toml (in ../): rules
  // -gpu-idle-gaps; host-side-ops.MinShare=0.2". Empty otherwise.
  std::string config_note;
  std::vector<const RankRecord*> records;
  // The records AttachRecords made, when the caller holds none.
  std::shared_ptr<const std::vector<RankRecord>> owned_records;
  std::vector<const Timeline*> ranks;
  std::vector<AnalysisContext*> contexts;
  // Why the ranks' events are not at hand for the HTML timeline (a merge
  // of shards holds summaries only); the page says it instead of drawing.
  std::string no_timeline_reason;
  std::vector<Finding> findings;        // ranked
  std::vector<RuleOutcome> not_judged;  // rules that could not analyse
  std::vector<std::string> warnings;
  ReportOptions options;
  const BaselineSection* baseline = nullptr;  // analyze --baseline
  Provenance provenance;
  std::vector<RuleInfo> rules;  // the selected rules
  SarifOptions sarif;
  // The run summary (verdict, integrity, throughput, steady and outlier
  // steps), computed once: by the composition root right after the engine
  // (SetSummary), or from the records on first use. A merge of shards sets
  // it from their rank summaries.
  const RunSummary& summary() const;
  void SetSummary(RunSummary summary) { summary_ = std::move(summary); }

 private:
  mutable std::optional<RunSummary> summary_;
};

// Makes `input.records` from `input.contexts` (held by the input): for
// callers with contexts and no pipeline, such as tests and fuzzers.
void AttachRecords(ReportInput& input);

// The run summary of `input`'s records, with its throughput options.
RunSummary ComputeRunSummary(const ReportInput& input);

std::string RenderTextReport(const ReportInput& input);
// Described by analyzer/report/report.schema.json.
std::string RenderJsonReport(const ReportInput& input);
// One finding as the JSON report writes it (report.schema.json $defs
// finding), on one line: `batch` carries every finding of every run in
// these words.
std::string FindingJson(const Finding& f);
// A PR comment: verdict, findings table, one collapsible evidence section
// per finding (docs/output-formats.md).
std::string RenderMarkdownReport(const ReportInput& input);
// SARIF 2.1.0 for code scanning (docs/output-formats.md).
std::string RenderSarifReport(const ReportInput& input);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_REPORT_H_
