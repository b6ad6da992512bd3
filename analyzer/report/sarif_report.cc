// --format sarif: SARIF 2.1.0 for code scanning (docs/output-formats.md).
// One reportingDescriptor per selected rule, one result per finding. A
// finding with a Python stack is located at the innermost user frame mapped
// into the checkout (--source-root), with the trace file as a related
// location; otherwise the trace file is the location.

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "analyzer/base/version.h"
#include "analyzer/engine/fingerprint.h"
#include "analyzer/report/json_writer.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_data.h"
#include "analyzer/report/source_map.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

// partialFingerprints key: bump the suffix if FindingFingerprint changes
// what it hashes, so code scanning does not match old alerts to new ones.
constexpr std::string_view kFingerprintKey = "tracelint/v1";

std::string_view Level(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kHigh: return "error";
    case FindingSeverity::kMedium: return "warning";
    case FindingSeverity::kLow: return "note";
  }
  return "note";
}

struct Roots {
  std::string source_root;  // absolute, normalized
  std::string docs_url;     // no trailing slash
};

Roots ResolveRoots(const SarifOptions& options) {
  Roots r;
  std::error_code ec;
  fs::path root = options.source_root.empty() ? fs::current_path(ec) : fs::path(options.source_root);
  fs::path absolute = fs::weakly_canonical(fs::absolute(root, ec), ec);
  r.source_root = (ec ? root : absolute).string();
  r.docs_url = options.docs_url.empty() ? std::string(kDefaultDocsUrl) : options.docs_url;
  while (!r.docs_url.empty() && r.docs_url.back() == '/') r.docs_url.pop_back();
  return r;
}

std::string HelpUri(const Roots& roots, std::string_view rule_id) {
  return fmt::format("{}/rules/docs/{}.md", roots.docs_url, rule_id);
}

// An artifactLocation for a file: relative to SRCROOT when inside it, else
// an absolute file:// URI.
void WriteArtifact(JsonWriter& w, const Roots& roots, const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path relative = absolute.lexically_relative(roots.source_root);
  w.BeginObject();
  if (!ec && !relative.empty() && *relative.begin() != "..") {
    w.Key("uri").String(PercentEncodePath(relative.generic_string()));
    w.Key("uriBaseId").String("SRCROOT");
  } else {
    w.Key("uri").String(FileUri(ec ? path : absolute.string(), false));
  }
  w.EndObject();
}

// The trace file a finding comes from: its rank's source file.
std::string TracePathOf(const ReportInput& in, const Finding& f) {
  for (size_t i = 0; i < in.ranks.size(); ++i) {
    if (RankOf(*in.ranks[i], i) == f.location.rank && !in.ranks[i]->metadata().source_path.empty()) {
      return in.ranks[i]->metadata().source_path;
    }
  }
  return in.input_path;
}

void WriteRules(JsonWriter& w, const ReportInput& in, const Roots& roots) {
  w.BeginArray();
  for (const RuleInfo& rule : in.rules) {
    std::string help_uri = HelpUri(roots, rule.id);
    w.BeginObject();
    w.Key("id").String(rule.id);
    w.Key("name").String(rule.id);
    w.Key("shortDescription").BeginObject();
    w.Key("text").String(rule.summary);
    w.EndObject();
    w.Key("help").BeginObject();
    w.Key("text").String(fmt::format(
        "{} What it measures, its options and how to fix what it finds: {}", rule.summary,
        help_uri));
    w.Key("markdown").String(
        fmt::format("{} See [the rule's page]({}) for what it measures, its options and how to "
                    "fix what it finds.",
                    rule.summary, help_uri));
    w.EndObject();
    w.Key("helpUri").String(help_uri);
    w.Key("defaultConfiguration").BeginObject();
    w.Key("level").String("warning");
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
}

std::string MessageText(const Finding& f) {
  std::string text = f.title;
  if (f.one_time_ns > 0) {
    text += fmt::format(" (one-time cost {}).", FormatDurationNs(f.one_time_ns));
  } else {
    text += fmt::format(" (up to {} per step, {:.1f}% of the step).",
                        FormatDurationNs(f.recoverable_ns_per_step),
                        100 * std::clamp(f.recoverable_share, 0.0, 1.0));
  }
  if (!f.message.empty()) text += " " + f.message;
  if (!f.fix.empty()) text += " Fix: " + f.fix;
  return text;
}

void WriteProperties(JsonWriter& w, const Finding& f) {
  w.BeginObject();
  w.Key("severity").String(FindingSeverityName(f.severity));
  w.Key("cause").String(f.cause);
  w.Key("recoverable_ns_per_step").Int(f.recoverable_ns_per_step);
  w.Key("recoverable_share").Double(std::clamp(f.recoverable_share, 0.0, 1.0));
  w.Key("one_time_ns").Int(f.one_time_ns);
  w.Key("confidence").String(ConfidenceName(f.confidence));
  w.Key("rank").Int(f.location.rank);
  w.Key("first_step").Int(f.location.first_step);
  w.Key("last_step").Int(f.location.last_step);
  w.Key("track").String(f.location.track);
  std::vector<std::string> items;
  for (const TopItem& t : f.location.top_items) items.push_back(t.name);
  w.Key("top_items").StringArray(items);
  w.Key("python_stack").StringArray(f.location.python_stack);
  w.Key("fingerprint").String(f.fingerprint);
  w.EndObject();
}

void WriteResult(JsonWriter& w, const ReportInput& in, const Roots& roots, const Finding& f) {
  w.BeginObject();
  w.Key("ruleId").String(f.rule_id);
  for (size_t i = 0; i < in.rules.size(); ++i) {
    if (in.rules[i].id == f.rule_id) w.Key("ruleIndex").Int(static_cast<int64_t>(i));
  }
  w.Key("level").String(Level(f.severity));
  w.Key("message").BeginObject();
  w.Key("text").String(MessageText(f));
  w.EndObject();

  std::string trace = TracePathOf(in, f);
  std::string user_frame = InnermostUserFrame(f.location.python_stack);
  PythonFrame frame = ParsePythonFrame(user_frame);
  std::string source =
      user_frame.empty() ? std::string() : MapToSourceRoot(frame.path, roots.source_root);
  w.Key("locations").BeginArray();
  w.BeginObject();
  w.Key("physicalLocation").BeginObject();
  if (!source.empty()) {
    w.Key("artifactLocation").BeginObject();
    w.Key("uri").String(PercentEncodePath(source));
    w.Key("uriBaseId").String("SRCROOT");
    w.EndObject();
    w.Key("region").BeginObject();
    w.Key("startLine").Int(std::max(1, frame.line));
    w.EndObject();
  } else {
    w.Key("artifactLocation");
    WriteArtifact(w, roots, trace);
  }
  w.EndObject();
  w.EndObject();
  w.EndArray();
  if (!source.empty()) {
    w.Key("relatedLocations").BeginArray();
    w.BeginObject();
    w.Key("id").Int(0);
    w.Key("physicalLocation").BeginObject();
    w.Key("artifactLocation");
    WriteArtifact(w, roots, trace);
    w.EndObject();
    w.Key("message").BeginObject();
    w.Key("text").String(fmt::format("the trace (rank {})", f.location.rank));
    w.EndObject();
    w.EndObject();
    w.EndArray();
  }
  w.Key("partialFingerprints").BeginObject();
  w.Key(kFingerprintKey).String(f.fingerprint);
  w.EndObject();
  w.Key("properties");
  WriteProperties(w, f);
  w.EndObject();
}

}  // namespace

std::string RenderSarifReport(const ReportInput& in) {
  Roots roots = ResolveRoots(in.sarif);
  Verdict verdict = in.summary().verdict;
  JsonWriter w;
  w.BeginObject();
  w.Key("$schema").String("https://json.schemastore.org/sarif-2.1.0.json");
  w.Key("version").String("2.1.0");
  w.Key("runs").BeginArray();
  w.BeginObject();
  w.Key("tool").BeginObject();
  w.Key("driver").BeginObject();
  w.Key("name").String("tracelint");
  w.Key("version").String(kToolVersion);
  w.Key("semanticVersion").String(kToolVersion);
  w.Key("informationUri").String(roots.docs_url);
  w.Key("rules");
  WriteRules(w, in, roots);
  w.EndObject();
  w.EndObject();
  w.Key("originalUriBaseIds").BeginObject();
  w.Key("SRCROOT").BeginObject();
  w.Key("uri").String(FileUri(roots.source_root, true));
  w.EndObject();
  w.EndObject();
  w.Key("invocations").BeginArray();
  w.BeginObject();
  w.Key("executionSuccessful").Bool(true);
  w.Key("toolExecutionNotifications").BeginArray();
  auto notify = [&](std::string_view level, const std::string& text) {
    w.BeginObject();
    w.Key("level").String(level);
    w.Key("message").BeginObject();
    w.Key("text").String(text);
    w.EndObject();
    w.EndObject();
  };
  if (!verdict.judgeable) notify("error", verdict.line);
  for (const RuleOutcome& o : in.not_judged) {
    notify("note", fmt::format("{} could not judge: {}", o.rule_id, o.not_judged_reason));
  }
  for (const std::string& warning : in.warnings) notify("warning", warning);
  w.EndArray();
  w.EndObject();
  w.EndArray();
  w.Key("results").BeginArray();
  for (const Finding& f : in.findings) WriteResult(w, in, roots, f);
  w.EndArray();
  FindingsSummary summary = SummarizeFindings(in.findings);
  w.Key("properties").BeginObject();
  w.Key("verdict").String(verdict.bound);
  w.Key("verdict_text").String(verdict.line);
  w.Key("summary").String(summary.line);
  w.Key("recoverable_share").Double(summary.recoverable_share);
  w.EndObject();
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return w.Finish();
}

}  // namespace tracelint
