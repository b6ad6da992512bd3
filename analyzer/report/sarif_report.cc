// --format sarif: SARIF 2.1.0 for code scanning (docs/output-formats.md;
// docs/design/contract.md, "SARIF"). One reportingDescriptor per selected
// rule, one result per finding. A finding with a Python stack is located at
// the innermost user frame mapped into the checkout (--source-root);
// otherwise at the anchor file (--sarif-anchor, default README.md). Either
// way the trace is a related location and is named in the message. No
// result carries an absolute file:// URI: a trace outside the checkout is
// named relative to the TRACEROOT base, which only the run-level
// originalUriBaseIds describes.

#include <algorithm>
#include <filesystem>
#include <optional>
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

constexpr std::string_view kDefaultAnchor = "README.md";

struct Roots {
  std::string source_root;  // absolute, normalized
  std::string docs_url;     // no trailing slash
  std::string docs_ref;     // helpUri's <ref>
  std::string anchor;       // repository-relative; empty: none
};

Roots ResolveRoots(const SarifOptions& options) {
  Roots r;
  std::error_code ec;
  fs::path root = options.source_root.empty() ? fs::current_path(ec) : fs::path(options.source_root);
  fs::path absolute = fs::weakly_canonical(fs::absolute(root, ec), ec);
  r.source_root = (ec ? root : absolute).string();
  r.docs_url = options.docs_url.empty() ? std::string(kDefaultDocsUrl) : options.docs_url;
  while (!r.docs_url.empty() && r.docs_url.back() == '/') r.docs_url.pop_back();
  r.docs_ref = !options.docs_ref.empty() ? options.docs_ref
               : !kBuildCommit.empty()   ? std::string(kBuildCommit)
                                         : std::string("main");
  if (!options.anchor.empty()) {
    r.anchor = fs::path(options.anchor).lexically_normal().generic_string();
  } else if (fs::is_regular_file(fs::path(r.source_root) / kDefaultAnchor, ec)) {
    r.anchor = std::string(kDefaultAnchor);
  }
  return r;
}

std::string HelpUri(const Roots& roots, std::string_view rule_id) {
  return fmt::format("{}/blob/{}/rules/docs/{}.md", roots.docs_url, roots.docs_ref, rule_id);
}

// Where a trace file is, without a machine path: relative to SRCROOT when
// inside the checkout, else to the current directory when inside it, else
// its file name (base TRACEROOT, the directory it was read from).
struct TraceRef {
  std::string uri;
  std::string base;  // "SRCROOT" or "TRACEROOT"
  std::string display;  // what the message says
};

TraceRef TraceRefOf(const Roots& roots, const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(fs::absolute(path, ec), ec);
  auto inside = [&](const fs::path& root) -> std::optional<fs::path> {
    if (ec || root.empty()) return std::nullopt;
    fs::path relative = absolute.lexically_relative(root);
    if (relative.empty() || *relative.begin() == "..") return std::nullopt;
    return relative;
  };
  if (std::optional<fs::path> rel = inside(fs::path(roots.source_root))) {
    return {PercentEncodePath(rel->generic_string()), "SRCROOT", rel->generic_string()};
  }
  std::error_code cwd_ec;
  fs::path cwd = fs::weakly_canonical(fs::current_path(cwd_ec), cwd_ec);
  std::string shown = fs::path(path).filename().string();
  if (std::optional<fs::path> rel = inside(cwd_ec ? fs::path() : cwd)) shown = rel->generic_string();
  return {PercentEncodePath(fs::path(path).filename().generic_string()), "TRACEROOT", shown};
}

void WriteArtifact(JsonWriter& w, std::string_view uri, std::string_view base) {
  w.BeginObject();
  w.Key("uri").String(uri);
  w.Key("uriBaseId").String(base);
  w.EndObject();
}

// The trace file a finding comes from: its rank's source file.
std::string TracePathOf(const ReportInput& in, const Finding& f) {
  for (size_t i = 0; i < in.records.size(); ++i) {
    if (RankOf(*in.records[i], i) == f.location.rank &&
        !in.records[i]->metadata.source_path.empty()) {
      return in.records[i]->metadata.source_path;
    }
  }
  return in.input_path;
}

void WriteRules(JsonWriter& w, const ReportInput& in, const Roots& roots) {
  w.BeginArray();
  for (const RuleInfo& rule : in.rules) {
    std::string help_uri = HelpUri(roots, rule.id);
    w.BeginObject();
    // No "name": SARIF wants it to differ from the id, and the id is what
    // users type (--rules).
    w.Key("id").String(rule.id);
    w.Key("shortDescription").BeginObject();
    w.Key("text").String(rule.summary);
    w.EndObject();
    w.Key("fullDescription").BeginObject();
    w.Key("text").String(fmt::format(
        "{} tracelint reads profiler traces; a result names the step time this cause costs and "
        "the fix.",
        rule.summary));
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

std::string MessageText(const Finding& f, const TraceRef& trace) {
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
  text += fmt::format(" (Trace: {}, rank {}.)", trace.display, f.location.rank);
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
  TraceRef trace = TraceRefOf(roots, TracePathOf(in, f));
  w.Key("message").BeginObject();
  w.Key("text").String(MessageText(f, trace));
  w.EndObject();

  std::string user_frame = InnermostUserFrame(f.location.python_stack);
  PythonFrame frame = ParsePythonFrame(user_frame);
  std::string source =
      user_frame.empty() ? std::string() : MapToSourceRoot(frame.path, roots.source_root);
  // The mapped frame, else the anchor, else (no anchor file) the trace.
  int line = 1;
  std::string uri, base = "SRCROOT";
  if (!source.empty()) {
    uri = PercentEncodePath(source);
    line = std::max(1, frame.line);
  } else if (!roots.anchor.empty()) {
    uri = PercentEncodePath(roots.anchor);
  } else {
    uri = trace.uri;
    base = trace.base;
  }
  const bool text_file = !source.empty() || !roots.anchor.empty();
  w.Key("locations").BeginArray();
  w.BeginObject();
  w.Key("physicalLocation").BeginObject();
  w.Key("artifactLocation");
  WriteArtifact(w, uri, base);
  if (text_file) {
    w.Key("region").BeginObject();
    w.Key("startLine").Int(line);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  w.EndArray();
  w.Key("relatedLocations").BeginArray();
  w.BeginObject();
  w.Key("id").Int(0);
  w.Key("physicalLocation").BeginObject();
  w.Key("artifactLocation");
  WriteArtifact(w, trace.uri, trace.base);
  w.EndObject();
  w.Key("message").BeginObject();
  w.Key("text").String(fmt::format("the trace (rank {})", f.location.rank));
  w.EndObject();
  w.EndObject();
  w.EndArray();
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
  // Traces outside the checkout: named by file name, the directory left
  // unsaid (it is a path of the machine that ran the analysis).
  w.Key("TRACEROOT").BeginObject();
  w.Key("description").BeginObject();
  w.Key("text").String("the directory the trace was read from, outside the source root");
  w.EndObject();
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
