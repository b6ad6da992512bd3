// --format markdown: a pull-request comment (docs/output-formats.md). One
// verdict line, a table of the ranked findings, and one collapsed section of
// evidence per finding. Every string from the trace goes through
// EscapeMarkdownCell: kernel names and Python frames are the profiled
// program's text and must never become markup.

#include <algorithm>
#include <filesystem>

#include "analyzer/analysis/rank_record.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/base/display_path.h"
#include "analyzer/base/escape.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/report.h"
#include "analyzer/report/display_names.h"
#include "analyzer/report/report_data.h"
#include "analyzer/report/text_layout.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// Cell widths, so the table stays readable in a PR (the evidence section
// and the JSON report carry the full text). The fix is never cut: its
// specific advice (the optimizer to change, the memory already in use)
// comes after the general one.
constexpr size_t kMaxNameColumns = 60;
constexpr size_t kMaxCellItems = 3;

// Fixes break at words; names (kernels, ops) have none to break at.
std::string Cell(std::string_view s, size_t max_columns, bool at_word = false) {
  return EscapeMarkdownCell(at_word ? text::FitAtWord(s, max_columns)
                                    : text::Fit(s, max_columns));
}

std::string FirstLine(std::string_view s) {
  size_t nl = s.find('\n');
  return std::string(nl == std::string_view::npos ? s : s.substr(0, nl));
}

// Each name once (a kernel launched by several ops is one item per op in
// the evidence, one name here), at most kMaxCellItems, then a count.
std::string ItemsCell(const Finding& f) {
  std::vector<std::string> names;
  for (const TopItem& t : f.location.top_items) {
    std::string cell = Cell(ShortKernelName(t.name), kMaxNameColumns);
    if (std::find(names.begin(), names.end(), cell) == names.end()) names.push_back(cell);
  }
  std::string out;
  size_t n = std::min(kMaxCellItems, names.size());
  for (size_t i = 0; i < n; ++i) out += (i > 0 ? "<br>" : "") + names[i];
  if (names.size() > n) out += fmt::format("<br>+{} more", names.size() - n);
  return out.empty() ? "-" : out;
}

std::string WhereText(const FindingLocation& l) {
  std::string where;
  if (l.rank >= 0) where += fmt::format("rank {}", l.rank);
  if (l.first_step >= 0) {
    where += fmt::format("{}step{} {}", where.empty() ? "" : ", ",
                         l.last_step > l.first_step ? "s" : "",
                         l.last_step > l.first_step ? fmt::format("{}-{}", l.first_step, l.last_step)
                                                    : fmt::format("{}", l.first_step));
  }
  if (!l.track.empty()) where += (where.empty() ? "" : ", ") + ShortTrackName(l.track);
  return where;
}

// A PR comment never shows a path of the machine that ran tracelint:
// relative to the working directory, else to the input's folder.
PathShortener ShortenerOf(const ReportInput& in) {
  std::vector<std::string> inputs = {in.input_path};
  for (const RankRecord* rec : in.records) inputs.push_back(rec->metadata.source_path);
  return PathShortener(inputs);
}

void Header(std::string& out, const ReportInput& in, const Verdict& verdict,
            const PathShortener& paths) {
  FindingsSummary summary = SummarizeFindings(in.findings);
  out += fmt::format("### tracelint: {}\n\n", EscapeMarkdownCell(summary.line));
  out += fmt::format("**{}**\n\n", EscapeMarkdownCell(verdict.line));
  if (std::string unowned = UnownedBoundNote(in); !unowned.empty()) {
    out += "(" + EscapeMarkdownCell(unowned) + ")\n\n";
  }
  std::string name = paths.Text(in.input_path);
  if (name.empty()) name = in.input_path;
  std::string facts = "Trace " + EscapeMarkdownCell(name);
  if (!in.records.empty()) {
    const RunMetadata& md = in.records.front()->metadata;
    if (!md.framework.empty()) {
      facts += " · " + EscapeMarkdownCell(md.framework + (md.framework_version.empty()
                                                              ? ""
                                                              : " " + md.framework_version));
    }
    facts += fmt::format(" · {} rank{}", in.records.size(), in.records.size() == 1 ? "" : "s");
  }
  if (verdict.rank >= 0) {
    for (size_t i = 0; i < in.records.size(); ++i) {
      if (RankOf(*in.records[i], i) != verdict.rank) continue;
      const StepMetrics& m = in.records[i]->step_metrics;
      facts += fmt::format(" · {} step{}, mean step {} (rank {})", m.step_count,
                           m.step_count == 1 ? "" : "s", FormatDurationNs(m.mean_step_ns),
                           verdict.rank);
      break;
    }
  }
  out += facts + "\n\n";
  if (!in.span_note.empty()) out += "Span: " + EscapeMarkdownCell(in.span_note) + "\n\n";
  if (!in.config_note.empty()) {
    out += "Config in effect: " + EscapeMarkdownCell(paths.Text(in.config_note)) + "\n\n";
  }
  // A device near its memory limit is worth a reviewer's eye (a change that
  // raised the batch, say); headroom is not, and stays in the full report.
  for (size_t i = 0; i < in.records.size(); ++i) {
    const std::string_view accelerator = AcceleratorName(in.records[i]->metadata);
    for (const DeviceMemoryUsage& m : in.records[i]->memory_usage.devices) {
      if (m.state != MemoryState::kPressure) continue;
      std::string who =
          in.records.size() > 1 ? fmt::format("rank {}, ", RankOf(*in.records[i], i)) : "";
      out += fmt::format("**Device memory** ({}{}): {}\n\n", who, EscapeMarkdownCell(DescribeMemory(m)),
                         EscapeMarkdownCell(MemoryAdvice(m, in.records[i]->job_profile,
                                                         accelerator)));
      return;  // one line: the first device near its limit
    }
  }
}

void Table(std::string& out, const ReportInput& in, size_t shown) {
  out += "| # | severity | rule | recoverable / step | % of step | fix | ops / kernels |\n";
  out += "|--:|---|---|--:|--:|---|---|\n";
  for (size_t i = 0; i < shown; ++i) {
    const Finding& f = in.findings[i];
    std::string rule = f.cause.empty() ? fmt::format("`{}`", f.rule_id)
                                       : fmt::format("`{}` ({})", f.rule_id,
                                                     EscapeMarkdownCell(f.cause));
    std::string time = f.one_time_ns > 0
                           ? "one-time " + FormatDurationNs(f.one_time_ns)
                           : FormatDurationNs(f.recoverable_ns_per_step);
    std::string share = f.one_time_ns > 0
                            ? "-"
                            : fmt::format("{:.1f}%", 100 * std::clamp(f.recoverable_share, 0.0, 1.0));
    std::string fix = f.fix.empty() ? "-" : EscapeMarkdownCell(FirstLine(f.fix));
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", i + 1,
                       FindingSeverityName(f.severity), rule, time, share, fix, ItemsCell(f));
  }
  if (shown < in.findings.size()) {
    out += fmt::format("\n{} more finding{} not shown (`--top {}` shows all).\n",
                       in.findings.size() - shown, in.findings.size() - shown == 1 ? "" : "s",
                       in.findings.size());
  }
  out += "\n";
}

void EvidenceSection(std::string& out, const Finding& f, size_t index, const PathShortener& paths) {
  out += fmt::format("<details><summary>{}. {}: {}</summary>\n\n", index, f.rule_id,
                     EscapeMarkdownCell(f.title));
  if (!f.message.empty()) out += EscapeMarkdownCell(f.message) + "\n\n";
  for (const Evidence& e : f.evidence) out += "- " + EscapeMarkdownCell(paths.Text(e.text)) + "\n";
  if (!f.evidence.empty()) out += "\n";
  std::string where = WhereText(f.location);
  if (!where.empty()) out += "Where: " + EscapeMarkdownCell(where) + "\n\n";
  for (const TopItem& t : f.location.top_items) {
    out += fmt::format("- {} x{} {}{}\n", FormatDurationNs(t.total_ns), t.count,
                       EscapeMarkdownCell(ShortKernelName(t.name)),
                       t.detail.empty() ? "" : " (" + EscapeMarkdownCell(CompactDetail(t.detail)) + ")");
  }
  if (!f.location.top_items.empty()) out += "\n";
  if (!f.location.python_stack.empty()) {
    out += "Python stack (innermost last):\n\n";
    for (const std::string& frame : f.location.python_stack) {
      out += "- " + EscapeMarkdownCell(frame) + "\n";
    }
    out += "\n";
  }
  for (const std::string& r : f.per_rank) out += "- " + EscapeMarkdownCell(r) + "\n";
  if (!f.per_rank.empty()) out += "\n";
  if (!f.fix.empty()) out += "Fix: " + EscapeMarkdownCell(f.fix) + "\n\n";
  out += fmt::format("Confidence: {} · fingerprint `{}`\n\n</details>\n\n",
                     ConfidenceName(f.confidence), f.fingerprint);
}

}  // namespace

std::string RenderMarkdownReport(const ReportInput& in) {
  std::string out;
  const PathShortener paths = ShortenerOf(in);
  // analyze --baseline: the comparison (the CI answer) leads the comment.
  if (in.baseline != nullptr && !in.baseline->markdown.empty()) out += in.baseline->markdown + "\n";
  Verdict verdict = in.summary().verdict;
  Header(out, in, verdict, paths);
  size_t shown = std::min(in.findings.size(),
                          static_cast<size_t>(std::max(1, in.options.top_n)));
  if (in.findings.empty()) {
    out += verdict.judgeable ? "No findings.\n\n" : "No findings: the run could not be judged.\n\n";
  } else {
    Table(out, in, shown);
    for (size_t i = 0; i < shown; ++i) EvidenceSection(out, in.findings[i], i + 1, paths);
  }
  if (!in.not_judged.empty()) {
    out += "Could not judge:";
    std::vector<NotJudgedGroup> groups = GroupNotJudged(in.not_judged);
    for (size_t i = 0; i < groups.size(); ++i) {
      std::vector<std::string> ids;
      for (const std::string& id : groups[i].rule_ids) ids.push_back("`" + id + "`");
      out += fmt::format("{} {} ({})", i == 0 ? "" : ";", fmt::join(ids, ", "),
                         EscapeMarkdownCell(groups[i].reason));
    }
    out += "\n\n";
  }
  if (!in.warnings.empty()) {
    out += fmt::format("<details><summary>{} warning{}</summary>\n\n", in.warnings.size(),
                       in.warnings.size() == 1 ? "" : "s");
    for (const std::string& w : in.warnings) out += "- " + EscapeMarkdownCell(paths.Text(w)) + "\n";
    out += "\n</details>\n";
  }
  return out;
}

}  // namespace tracelint
