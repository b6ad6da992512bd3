// The terminal report, findings first (docs/output-formats.md, "Text"): what
// bounds the run, whether the trace can be trusted, the ranked findings one
// line each; then each finding's details without what they share, then the
// metrics (text_metrics.cc).

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/base/escape.h"
#include "analyzer/report/report.h"
#include "analyzer/report/display_names.h"
#include "analyzer/report/report_data.h"
#include "analyzer/report/text_layout.h"
#include "analyzer/report/text_report_parts.h"
#include "fmt/format.h"

namespace tracelint {
namespace text {

std::string T(std::string_view s) { return EscapeTerminal(s); }

std::string Heading(std::string_view title, const Layout& layout) {
  return "\n" + Paint(Fit(fmt::format("== {} ==", title), layout.width), Color::kBold,
                      layout.color) +
         "\n";
}

std::string AccelLabel(int device, std::string_view accelerator) {
  return device < 0 ? std::string("host") : fmt::format("{} {}", accelerator, device);
}

namespace {

// A finding's line in the list is cut, not wrapped; a fix with less room
// than this is left to the details.
constexpr size_t kMinFixColumns = 10;

Color SeverityColor(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kHigh: return Color::kRed;
    case FindingSeverity::kMedium: return Color::kYellow;
    case FindingSeverity::kLow: return Color::kCyan;
  }
  return Color::kCyan;
}

std::string RuleAndCause(const Finding& f) {
  return f.cause.empty() ? f.rule_id : fmt::format("{} ({})", f.rule_id, f.cause);
}

std::string FirstLine(std::string_view s) { return std::string(s.substr(0, s.find('\n'))); }

// "tracelint: testdata/example (1 rank, 6 steps, PyTorch 2.3)"; a long path
// is cut in the middle so the facts stay on the line.
std::string TitleLine(const ReportInput& in, size_t width) {
  std::vector<std::string> facts;
  if (!in.records.empty()) {
    facts.push_back(
        fmt::format("{} rank{}", in.records.size(), in.records.size() == 1 ? "" : "s"));
  }
  int min_steps = -1, max_steps = -1, min_steady = -1;
  for (const RankRecord* r : in.records) {
    int all = static_cast<int>(r->all_steps.steps.size());
    int steady = static_cast<int>(r->steps.steps.size());
    min_steps = min_steps < 0 ? all : std::min(min_steps, all);
    max_steps = std::max(max_steps, all);
    min_steady = min_steady < 0 ? steady : std::min(min_steady, steady);
  }
  if (min_steps >= 0) {
    std::string steps = min_steps == max_steps ? fmt::format("{}", min_steps)
                                               : fmt::format("{}-{}", min_steps, max_steps);
    steps += fmt::format(" step{}", max_steps == 1 ? "" : "s");
    if (in.records.size() > 1) steps += " each";
    if (min_steady != min_steps || min_steps != max_steps) {
      steps += fmt::format(" ({} steady)", min_steady);
    }
    facts.push_back(steps);
  }
  if (!in.records.empty()) {
    const RunMetadata& md = in.records.front()->metadata;
    if (!md.framework.empty()) {
      // The version without how it was inferred: the Run section says that.
      std::string version = md.framework_version.substr(0, md.framework_version.find(" ("));
      facts.push_back(T(md.framework) + (version.empty() ? "" : " " + T(version)));
    }
  }
  std::string facts_text = facts.empty() ? "" : fmt::format(" ({})", fmt::join(facts, ", "));
  constexpr std::string_view kPrefix = "tracelint: ";
  constexpr size_t kMinPathColumns = 20;
  std::string path = T(in.input_path);
  size_t fixed = kPrefix.size() + Width(facts_text);
  if (width > 0 && width >= fixed + kMinPathColumns) path = FitMiddle(path, width - fixed);
  return Fit(std::string(kPrefix) + path + facts_text, width);
}

// The finding's line of the list: "  1  high    12.0 ms  48.9%  rule (cause): fix".
std::string FindingLine(const Finding& f, int index, const Layout& layout) {
  std::string amount =
      f.one_time_ns > 0
          ? PadRight(Dur(f.one_time_ns) + " once", 15)
          : PadLeft(Ms(f.recoverable_ns_per_step), 8) + " " + PadLeft(Pct(f.recoverable_share), 6);
  std::string severity(FindingSeverityName(f.severity));
  std::string head = fmt::format("{:>2} ", index);
  std::string tail = fmt::format(" {}  {}", amount, RuleAndCause(f));
  size_t used = Width(head) + 6 + Width(tail);
  std::string fix = T(FirstLine(f.fix));
  // -q has no details below: the fix wraps onto indented lines instead of
  // being cut to what is left of the first.
  std::string wrapped;
  if (!fix.empty()) {
    size_t room = layout.width == 0 ? 0 : layout.width > used + 2 ? layout.width - used - 2 : 0;
    if (layout.width == 0) {
      tail += ": " + fix;
    } else if (layout.verbosity == TextVerbosity::kQuiet && used + 2 + 20 <= layout.width) {
      std::string lines = Wrap(fix, layout.width, std::string(used + 2, ' '), "       ");
      tail += ": " + lines.substr(used + 2, lines.find('\n') - used - 2);
      wrapped = lines.substr(lines.find('\n') + 1);
      if (!wrapped.empty()) wrapped.pop_back();  // FindingsList adds the newline
    } else if (layout.verbosity == TextVerbosity::kQuiet) {
      // No room beside the rule: the whole fix on the indented lines below.
      wrapped = Wrap(fix, layout.width, "       ", "       ");
      if (!wrapped.empty()) wrapped.pop_back();
    } else if (room >= kMinFixColumns) {
      tail += ": " + Fit(fix, room);
    }
  }
  if (layout.width > 0 && used > layout.width) {
    // Too narrow even for the rule: cut the line as a whole, uncoloured.
    return Fit(head + PadRight(severity, 6) + tail, layout.width);
  }
  return head + Paint(severity, SeverityColor(f.severity), layout.color) +
         std::string(6 - severity.size(), ' ') + tail + (wrapped.empty() ? "" : "\n" + wrapped);
}

// "3 findings, up to 55% of step time recoverable, 1 one-time cost:".
std::string FindingsHeader(const std::vector<Finding>& findings) {
  FindingsSummary summary = SummarizeFindings(findings);
  size_t one_time = static_cast<size_t>(std::count_if(
      findings.begin(), findings.end(), [](const Finding& f) { return f.one_time_ns > 0; }));
  std::string line = fmt::format("{} finding{}", findings.size(), findings.size() == 1 ? "" : "s");
  if (one_time < findings.size()) {
    line += fmt::format(", up to {:.0f}% of step time recoverable",
                        100 * summary.recoverable_share);
  }
  if (one_time > 0) line += fmt::format(", {} one-time cost{}", one_time, one_time == 1 ? "" : "s");
  return line + ":";
}

size_t ShownCount(const ReportInput& in) {
  return std::min(in.findings.size(), static_cast<size_t>(std::max(1, in.options.top_n)));
}

void FindingsList(std::string& out, const ReportInput& in, const Layout& layout) {
  size_t shown = ShownCount(in);
  for (size_t i = 0; i < shown; ++i) {
    out += FindingLine(in.findings[i], static_cast<int>(i + 1), layout) + "\n";
  }
  if (shown < in.findings.size()) {
    out += Fit(fmt::format("  ({} more not shown; --top {} shows all)",
                           in.findings.size() - shown, in.findings.size()),
               layout.width) +
           "\n";
  }
}

// Evidence and location parts that more than one shown finding carries:
// printed once above the details instead of under each.
struct Shared {
  std::vector<std::string> evidence;  // in first-seen order
  std::set<std::string> evidence_set;
  std::string scope;  // "rank 0, steps 1-5" when every finding has it
};

std::string StepsText(const FindingLocation& l) {
  if (l.first_step < 0) return "";
  return l.last_step > l.first_step ? fmt::format("steps {}-{}", l.first_step, l.last_step)
                                    : fmt::format("step {}", l.first_step);
}

std::string ScopeText(const FindingLocation& l) {
  std::vector<std::string> parts;
  if (l.rank >= 0) parts.push_back(fmt::format("rank {}", l.rank));
  if (std::string steps = StepsText(l); !steps.empty()) parts.push_back(steps);
  return fmt::format("{}", fmt::join(parts, ", "));
}

Shared FindShared(const ReportInput& in, size_t shown, const Layout& layout) {
  Shared s;
  if (layout.verbose() || shown < 2) return s;
  std::map<std::string, int> count;
  std::vector<std::string> order;
  for (size_t i = 0; i < shown; ++i) {
    std::set<std::string> seen;
    for (const Evidence& e : in.findings[i].evidence) {
      if (!seen.insert(e.text).second) continue;
      if (count[e.text]++ == 0) order.push_back(e.text);
    }
  }
  for (const std::string& text : order) {
    if (count[text] >= 2) {
      s.evidence.push_back(text);
      s.evidence_set.insert(text);
    }
  }
  std::string scope = ScopeText(in.findings.front().location);
  bool same = !scope.empty();
  for (size_t i = 1; i < shown && same; ++i) same = ScopeText(in.findings[i].location) == scope;
  if (same) s.scope = scope;
  return s;
}

std::string WhereText(const ReportInput& in, const FindingLocation& l, const Shared& shared) {
  std::vector<std::string> parts;
  if (shared.scope.empty()) {
    if (std::string scope = ScopeText(l); !scope.empty()) parts.push_back(scope);
  }
  if (!l.track.empty()) parts.push_back(T(ShortTrackName(l.track)));
  if (l.end_ns > l.start_ns) {
    // Times from the start of the rank's trace, as timeline viewers show them.
    TimeNs origin = 0;
    for (const RankRecord* r : in.records) {
      if (r->metadata.rank == l.rank || in.records.size() == 1) origin = r->bounds.first;
    }
    parts.push_back("time " + FormatOffsetRangeNs(l.start_ns - origin, l.end_ns - origin));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The engine's "rank 3: 4.1 ms (12% of step)" lines on one line; ranks with
// the same text are named together ("ranks 0-4, 6, 7: below threshold"), so
// a large job does not print a line per rank (-v keeps one entry each).
std::string PerRankText(const std::vector<std::string>& per_rank, const Layout& layout) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const std::string& line : per_rank) {
    int rank = -1;
    size_t colon = line.find(": ");
    std::string text = line;
    if (!layout.verbose() && line.rfind("rank ", 0) == 0 && colon != std::string::npos) {
      std::string number = line.substr(5, colon - 5);
      if (!number.empty() && number.find_first_not_of("0123456789") == std::string::npos &&
          number.size() < 9) {
        rank = std::stoi(number);
        text = line.substr(colon + 2);
      }
    }
    if (rank < 0) {
      groups.push_back({T(line), {}});
      continue;
    }
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return !g.second.empty() && g.first == T(text); });
    if (it == groups.end()) {
      groups.push_back({T(text), {rank}});
    } else {
      it->second.push_back(rank);
    }
  }
  std::vector<std::string> parts;
  for (const auto& [text, ranks] : groups) {
    if (ranks.empty()) {
      parts.push_back(text);
      continue;
    }
    // Runs of consecutive ranks as "a-b".
    std::vector<std::string> names;
    for (size_t i = 0; i < ranks.size();) {
      size_t j = i;
      while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
      names.push_back(j > i + 1 ? fmt::format("{}-{}", ranks[i], ranks[j])
                      : j == i  ? fmt::format("{}", ranks[i])
                                : fmt::format("{}, {}", ranks[i], ranks[j]));
      i = j + 1;
    }
    parts.push_back(fmt::format("rank{} {}: {}", ranks.size() == 1 ? "" : "s",
                                fmt::join(names, ", "), text));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

void FindingDetails(std::string& out, const ReportInput& in, const Finding& f, int index,
                    const Shared& shared, const Layout& layout) {
  const size_t w = layout.width;
  std::string head = fmt::format("{}. {} {}, confidence {}", index,
                                 FindingSeverityName(f.severity), RuleAndCause(f),
                                 ConfidenceName(f.confidence));
  out += "\n" + Paint(Fit(head, w), SeverityColor(f.severity), layout.color) + "\n";
  constexpr std::string_view kIndent = "   ";
  if (f.one_time_ns > 0) {
    out += Wrap(fmt::format("{} once (not per step)", Dur(f.one_time_ns)), w, kIndent, kIndent);
  } else {
    out += Wrap(fmt::format("up to {}/step ({} of the mean steady step)",
                            Ms(f.recoverable_ns_per_step), Pct(f.recoverable_share)),
                w, kIndent, kIndent);
  }
  out += Wrap(T(f.title), w, kIndent, kIndent);
  if (!f.message.empty()) out += Wrap(T(f.message), w, kIndent, kIndent);
  for (const Evidence& e : f.evidence) {
    if (shared.evidence_set.count(e.text) > 0) continue;
    out += Wrap(T(e.text), w, "   - ", "     ");
  }
  if (std::string where = WhereText(in, f.location, shared); !where.empty()) {
    out += Wrap("where: " + where, w, kIndent, "     ");
  }
  const size_t name_width = layout.verbose() ? 0 : 90;
  for (const TopItem& t : f.location.top_items) {
    // Kernel signatures and shape lists as a reader wants them; the JSON
    // keeps the trace's text.
    std::string item =
        fmt::format("{} x{} {}{}", Dur(t.total_ns), t.count,
                    Fit(T(ShortKernelName(t.name)), name_width),
                    t.detail.empty() ? "" : fmt::format(" [{}]", T(CompactDetail(t.detail))));
    out += Wrap(item, w, "     ", "       ");
  }
  if (!f.location.python_stack.empty()) {
    out += Fit("   python stack (innermost last):", w) + "\n";
    for (const std::string& frame : f.location.python_stack) {
      out += Fit("     " + T(frame), w) + "\n";
    }
  }
  if (!f.per_rank.empty()) {
    out += Wrap("per rank: " + PerRankText(f.per_rank, layout), w, kIndent, "     ");
  }
  if (!f.fix.empty()) out += Wrap("fix: " + T(f.fix), w, kIndent, "     ");
}

void Details(std::string& out, const ReportInput& in, const Layout& layout) {
  size_t shown = ShownCount(in);
  if (shown == 0) return;
  out += Heading("Details", layout);
  Shared shared = FindShared(in, shown, layout);
  if (!shared.scope.empty() || !shared.evidence.empty()) {
    out += Fit(shared.scope.empty()
                   ? std::string("Shared by several findings:")
                   : fmt::format("Every finding: {}{}", shared.scope,
                                 shared.evidence.empty() ? "" : "; shared evidence:"),
               layout.width) +
           "\n";
    for (const std::string& e : shared.evidence) out += Wrap(T(e), layout.width, "   - ", "     ");
  }
  for (size_t i = 0; i < shown; ++i) {
    FindingDetails(out, in, in.findings[i], static_cast<int>(i + 1), shared, layout);
  }
}

}  // namespace
}  // namespace text

std::string RenderTextReport(const ReportInput& in) {
  using namespace text;
  Layout layout;
  layout.width = static_cast<size_t>(std::max(0, in.options.text.width_columns));
  // -v piped (no width) still keeps every line readable: whole names and
  // messages wrap at this many columns instead of running to thousands.
  if (layout.width == 0 && in.options.text.verbosity == TextVerbosity::kVerbose) {
    layout.width = kVerboseMaxColumns;
  }
  layout.color = in.options.text.color;
  layout.verbosity = in.options.text.verbosity;
  layout.all_steps = in.options.text.all_steps || layout.verbose();
  std::string out;
  // analyze --baseline: the comparison is the CI answer, so it comes first
  // (after the title line), not after the glossary pointer.
  auto baseline = [&] {
    if (in.baseline == nullptr || in.baseline->text.empty()) return;
    std::string heading = Heading("Against the baseline", layout);
    out += (out.empty() ? heading.substr(1) : heading) + in.baseline->text + "\n";
  };
  if (layout.verbosity == TextVerbosity::kQuiet) {
    baseline();
    FindingsList(out, in, layout);
    return out;
  }
  const size_t w = layout.width;
  out += Paint(TitleLine(in, w), Color::kBold, layout.color) + "\n";
  if (!in.span_note.empty()) out += Wrap("Span: " + T(in.span_note), w, "", "  ");
  if (!in.config_note.empty()) out += Wrap("Config in effect: " + T(in.config_note), w, "", "  ");
  baseline();
  Verdict verdict = in.summary().verdict;
  out += Wrap(verdict.line, w, "", "  ");
  if (std::string unowned = UnownedBoundNote(in); !unowned.empty()) {
    out += Wrap("  (" + T(unowned) + ")", w, "", "   ");
  }
  if (in.summary().no_rank_has_steady_step) {
    const std::string_view advice =
        in.records.empty() ? ProfileAfterWarmupAdvice(JobProfile{})
                           : ProfileAfterWarmupAdvice(in.records.front()->job_profile);
    out += Wrap(fmt::format("NOT JUDGEABLE: no steady step. The profiled window is warm-up, "
                            "capture or compile only, so no per-step claim is made; its one-time "
                            "costs are listed below. Profile after warm-up: {}.",
                            advice),
                w, "", "  ");
  }
  RunIntegrity integrity = in.summary().integrity;
  if (!integrity.line.empty()) out += Wrap(integrity.line, w, "", "  ");
  out += "\n";
  if (in.findings.empty()) {
    out += "No findings.\n";
  } else {
    out += Fit(FindingsHeader(in.findings), w) + "\n";
    FindingsList(out, in, layout);
  }
  if (!in.not_judged.empty()) {
    out += "Could not judge:\n";
    for (const NotJudgedGroup& g : GroupNotJudged(in.not_judged)) {
      out += Wrap(fmt::format("{}: {}", fmt::join(g.rule_ids, ", "), T(g.reason)), w, "  ",
                  "    ");
    }
  }
  Details(out, in, layout);
  RenderMetricsSections(out, in, layout);
  out += "\n" + Wrap(std::string(kGlossaryPointer), w, "", "  ");
  return out;
}

}  // namespace tracelint
