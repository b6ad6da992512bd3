// `tracelint diff` as text, Markdown and JSON (HTML: diff_html.cc). All show
// the same numbers from one RunDiff, in the words of diff_format.h; the
// Markdown is meant for a PR comment.

#include "analyzer/diff/diff_report.h"

#include <algorithm>
#include <cmath>

#include "analyzer/base/display_path.h"
#include "analyzer/base/escape.h"
#include "analyzer/diff/diff_format.h"
#include "analyzer/report/text_layout.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

using diff_format::CountFindings;
using diff_format::Delta;
using diff_format::FindingBasis;
using diff_format::FindingCounts;
using diff_format::FindingName;
using diff_format::FindingTimes;
using diff_format::GateLine;
using diff_format::MetricLabel;
using diff_format::PeakMemoryLine;
using diff_format::NoiseVerdict;
using diff_format::OutlierClause;
using diff_format::RanksLine;
using diff_format::PValue;
using diff_format::ShiftCell;
using diff_format::SignedDur;
using diff_format::SignedPct;
using diff_format::TooFewLine;
using diff_format::Value;

constexpr size_t kNameWidth = 80;

// Names come from the trace: cut at a character boundary, and escaped for
// the medium (EscapeTerminal for text) so no name can forge a report line.
std::string Cut(std::string_view s, size_t width = kNameWidth) {
  if (s.size() <= width) return std::string(s);
  return std::string(TruncateUtf8(s, width - 3)) + "...";
}

std::string TextName(std::string_view s, size_t width = kNameWidth) {
  return EscapeTerminal(Cut(s, width));
}

// What is left of a `width`-column line after `used` columns, at least 20.
size_t Room(int width, size_t used) {
  if (width <= 0) return kNameWidth;
  return std::max<size_t>(20, static_cast<size_t>(width) > used ? width - used : 0);
}

// A name inside a Markdown code span, in a table: no escape works inside
// the span except GFM's `\|`, so backticks become quotes.
std::string MdCode(std::string_view s) {
  std::string out;
  for (char c : EscapeTerminal(Cut(s))) {
    if (c == '|') out += '\\';
    out += c == '`' ? '\'' : c;
  }
  return out;
}

// A run's label (its path) in Markdown: a code span outside any table.
std::string MdPath(std::string_view s) {
  std::string out = EscapeTerminal(s);
  std::replace(out.begin(), out.end(), '`', '\'');
  return "`" + out + "`";
}

std::string SideLine(const std::string& label, int rank, const SampleComparison& c, bool base,
                     bool markdown) {
  return fmt::format("{} (rank {}, {} steady steps)",
                     markdown ? MdPath(label) : EscapeTerminal(label), rank,
                     base ? c.n_base : c.n_new);
}

void NamedTable(std::string& out, std::string_view title, const std::vector<NamedDelta>& rows,
                bool markdown, int width = 0) {
  if (rows.empty()) return;
  if (markdown) {
    out += fmt::format("\n**{}** (device time per step)\n\n| change | base | new | name |\n"
                       "|---:|---:|---:|---|\n", title);
  } else {
    out += fmt::format("\n{} (device time per step, largest change first):\n", title);
  }
  for (const NamedDelta& r : rows) {
    std::string delta = SignedDur(static_cast<double>(r.delta_ns_per_step()));
    if (markdown) {
      out += fmt::format("| {} | {} | {} | `{}` |\n", delta, FormatDurationNs(r.base_ns_per_step),
                         FormatDurationNs(r.new_ns_per_step), MdCode(r.name));
    } else {
      out += fmt::format("  {:>12}  {:>11} -> {:<11}  {}\n", delta,
                         FormatDurationNs(r.base_ns_per_step), FormatDurationNs(r.new_ns_per_step),
                         TextName(r.name, Room(width, 44)));
    }
  }
}

}  // namespace

std::string StepTimeVerdict(const RunDiff& d) {
  const SampleComparison& c = d.step_time().comparison;
  // docs/design/contract.md, "diff: outliers, compared ranks, warnings": a
  // verdict moved by a few slow steps names them and the change without them.
  std::string outliers = OutlierClause(d);
  if (!outliers.empty()) outliers = "; " + outliers;
  if (!d.judged) {
    return fmt::format("step time {} (median {} -> {}); {}{}", SignedPct(d.step_change_pct),
                       FormatDurationNs(std::llround(c.median_base)),
                       FormatDurationNs(std::llround(c.median_new)), TooFewLine(d), outliers);
  }
  return fmt::format("step time {} (95% interval {} .. {}; median {} -> {}), {}{}",
                     SignedPct(d.step_change_pct), SignedPct(d.step_change_low_pct),
                     SignedPct(d.step_change_high_pct),
                     FormatDurationNs(std::llround(c.median_base)),
                     FormatDurationNs(std::llround(c.median_new)),
                     c.beyond_noise ? "beyond noise" : "within noise", outliers);
}

std::string RenderDiffText(const RunDiff& d, int width) {
  const bool narrow = width > 0 && width < kDiffFullWidth;
  std::string out = "tracelint diff\n";
  const SampleComparison& step = d.step_time().comparison;
  // Paths stay whole (a terminal wraps them); sentences wrap at words.
  const size_t wrap = narrow ? static_cast<size_t>(width) : 0;
  for (const std::string& w : d.warnings) {
    out += text::Wrap("WARNING: " + EscapeTerminal(w) + "; the comparison may mean little",
                      wrap, "", "  ");
  }
  out += fmt::format("Base: {}\nNew:  {}\n", SideLine(d.base_label, d.base_rank, step, true, false),
                     SideLine(d.new_label, d.new_rank, step, false, false));
  out += text::Wrap("Compared: " + RanksLine(d), wrap, "", "  ");
  out += "\n" + text::Wrap(StepTimeVerdict(d), wrap, "", "  ");
  if (std::string gate = GateLine(d); !gate.empty()) out += text::Wrap(gate, wrap, "", "  ");
  if (d.empty()) out += "No difference beyond noise: no metric, finding, kernel or op moved.\n";

  if (narrow) {
    // 75 columns: the medians, the shift's estimate and the verdict.
    out += fmt::format("\n{:<24} {:>11} {:>11} {:>12}  {}\n", "metric", "median base",
                       "median new", "shift", "verdict");
    for (const MetricDiff& m : d.metrics) {
      const SampleComparison& c = m.comparison;
      out += fmt::format("{:<24} {:>11} {:>11} {:>12}  {}\n", MetricLabel(m, d.accelerator),
                         Value(m, c.median_base), Value(m, c.median_new),
                         Delta(m, c.judged ? c.shift.estimate : c.median_new - c.median_base),
                         NoiseVerdict(c));
    }
    out += "(p10 .. p90, 95% intervals and p-values: --width 0 or --format json)\n";
  } else {
    out += fmt::format("\n{:<26} {:>11} {:>23} {:>11} {:>23}  {:<40} {:>12}  {}\n", "metric",
                       "median base", "p10 .. p90 base", "median new", "p10 .. p90 new",
                       "shift [95% interval]", "p", "verdict");
    for (const MetricDiff& m : d.metrics) {
      const SampleComparison& c = m.comparison;
      out += fmt::format("{:<26} {:>11} {:>23} {:>11} {:>23}  {:<40} {:>12}  {}\n",
                         MetricLabel(m, d.accelerator), Value(m, c.median_base),
                         Value(m, c.p10_base) + " .. " + Value(m, c.p90_base),
                         Value(m, c.median_new),
                         Value(m, c.p10_new) + " .. " + Value(m, c.p90_new), ShiftCell(m),
                         PValue(c), NoiseVerdict(c));
    }
  }

  if (std::string memory = PeakMemoryLine(d.peak_memory); !memory.empty()) {
    out += text::Wrap(memory, wrap, "", "  ");
  }

  FindingCounts n = CountFindings(d);
  out += fmt::format("\nFindings: {} added, {} removed, {} changed, {} unchanged\n", n.added,
                     n.removed, n.changed, n.unchanged);
  for (const FindingChange& c : d.findings) {
    if (c.kind == FindingChangeKind::kUnchanged) continue;
    const DiffFinding& f = c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
    if (narrow) {
      out += fmt::format("  {:<9} {} [{}]\n  {:<9} {}\n  {:<9} {}\n", FindingChangeName(c.kind),
                         FindingName(c), f.fingerprint, "", FindingTimes(c), "",
                         TextName(f.title, Room(width, 12)));
    } else {
      out += fmt::format("  {:<9} {:<40} {:<32} {} [{}]\n", FindingChangeName(c.kind),
                         FindingName(c), FindingTimes(c), EscapeTerminal(f.title),
                         f.fingerprint);
    }
    if (c.kind == FindingChangeKind::kChanged) {
      std::string basis = "judged by: " + EscapeTerminal(FindingBasis(c));
      out += narrow ? text::Wrap(basis, wrap, std::string(12, ' '), std::string(14, ' '))
                    : fmt::format("  {:<9} {}\n", "", basis);
    }
  }
  NamedTable(out, "Kernels", d.kernels, false, width);
  NamedTable(out, "Ops", d.ops, false, width);
  return out;
}

std::string RenderDiffMarkdown(const RunDiff& d) {
  const SampleComparison& step = d.step_time().comparison;
  std::string out = "### tracelint diff\n\n";
  for (const std::string& w : d.warnings) {
    out += fmt::format("> **Warning:** {}; the comparison may mean little\n\n",
                       EscapeMarkdownCell(w));
  }
  out += fmt::format("**{}**\n\n", EscapeMarkdownCell(StepTimeVerdict(d)));
  if (std::string gate = GateLine(d); !gate.empty()) out += gate + "\n\n";
  // A PR comment shows no path of the machine that ran the diff.
  const PathShortener paths({d.base_label, d.new_label});
  out += fmt::format("Base: {}  \nNew: {}  \nCompared: {}\n\n",
                     SideLine(paths.Text(d.base_label), d.base_rank, step, true, true),
                     SideLine(paths.Text(d.new_label), d.new_rank, step, false, true),
                     RanksLine(d));
  if (d.empty()) out += "No difference beyond noise: no metric, finding, kernel or op moved.\n\n";
  out += "| metric | median base | p10 .. p90 base | median new | p10 .. p90 new | shift [95% "
         "interval] | p | verdict |\n|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const MetricDiff& m : d.metrics) {
    const SampleComparison& c = m.comparison;
    out += fmt::format("| {} | {} | {} .. {} | {} | {} .. {} | {} | {} | {} |\n", MetricLabel(m, d.accelerator),
                       Value(m, c.median_base), Value(m, c.p10_base), Value(m, c.p90_base),
                       Value(m, c.median_new), Value(m, c.p10_new), Value(m, c.p90_new),
                       ShiftCell(m), PValue(c), NoiseVerdict(c));
  }
  if (std::string memory = PeakMemoryLine(d.peak_memory); !memory.empty()) {
    out += "\n" + EscapeMarkdownCell(memory) + "\n";
  }
  FindingCounts n = CountFindings(d);
  out += fmt::format("\n**Findings:** {} added, {} removed, {} changed, {} unchanged\n", n.added,
                     n.removed, n.changed, n.unchanged);
  if (n.added + n.removed + n.changed > 0) {
    out += "\n| | finding | recoverable | title |\n|---|---|---|---|\n";
    for (const FindingChange& c : d.findings) {
      if (c.kind == FindingChangeKind::kUnchanged) continue;
      const DiffFinding& f = c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
      std::string times = FindingTimes(c);
      if (c.kind == FindingChangeKind::kChanged) {
        times += "<br>" + EscapeMarkdownCell(FindingBasis(c));
      }
      out += fmt::format("| {} | `{}` | {} | {} |\n", FindingChangeName(c.kind), FindingName(c),
                         times, EscapeMarkdownCell(f.title));
    }
  }
  NamedTable(out, "Kernels", d.kernels, true);
  NamedTable(out, "Ops", d.ops, true);
  return out;
}

namespace {

void WriteFindingRef(JsonWriter& w, const DiffFinding& f) {
  w.BeginObject();
  w.Key("rule_id").String(f.rule_id);
  w.Key("cause").String(f.cause);
  w.Key("title").String(f.title);
  w.Key("severity").String(f.severity);
  w.Key("rank").Int(f.rank);
  w.Key("recoverable_ns_per_step").Int(f.recoverable_ns_per_step);
  w.Key("recoverable_share").Share(f.recoverable_share);
  w.Key("one_time_ns").Int(f.one_time_ns);
  w.EndObject();
}

void WriteNamed(JsonWriter& w, const std::vector<NamedDelta>& rows) {
  w.BeginArray();
  for (const NamedDelta& r : rows) {
    w.BeginObject();
    w.Key("name").String(r.name);
    w.Key("base_ns_per_step").Int(r.base_ns_per_step);
    w.Key("new_ns_per_step").Int(r.new_ns_per_step);
    w.Key("delta_ns_per_step").Int(r.delta_ns_per_step());
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteDiffJson(JsonWriter& w, const RunDiff& d) {
  const SampleComparison& step = d.step_time().comparison;
  w.BeginObject();
  w.Key("schema_version").Int(kDiffSchemaVersion);
  w.Key("tool").String("tracelint diff");
  w.Key("base").BeginObject();
  w.Key("label").String(d.base_label);
  w.Key("rank").Int(d.base_rank);
  w.Key("steady_steps").Int(step.n_base);
  w.EndObject();
  w.Key("new").BeginObject();
  w.Key("label").String(d.new_label);
  w.Key("rank").Int(d.new_rank);
  w.Key("steady_steps").Int(step.n_new);
  w.EndObject();
  w.Key("rank_choice").String(d.rank_choice == RankChoice::kAsked       ? "asked"
                              : d.rank_choice == RankChoice::kSameAsNew ? "same-as-new"
                                                                        : "each-worst");
  w.Key("warnings").StringArray(d.warnings);
  w.Key("outliers").BeginObject();
  auto outliers = [&w](const std::vector<DiffOutlier>& list) {
    w.BeginArray();
    for (const DiffOutlier& o : list) {
      w.BeginObject();
      w.Key("step").Int(o.number);
      w.Key("excess_ns").Int(o.excess_ns);
      w.EndObject();
    }
    w.EndArray();
  };
  w.Key("base");
  outliers(d.base_outliers);
  w.Key("new");
  outliers(d.new_outliers);
  w.Key("change_without_pct");
  d.has_outliers() ? w.Double(d.trimmed_change_pct) : w.Null();
  w.EndObject();
  w.Key("judged").Bool(d.judged);
  w.Key("min_steps_to_judge").Int(kMinSamplesToJudgeNoise);
  w.Key("alpha").Double(kNoiseAlpha);
  w.Key("verdict").String(StepTimeVerdict(d));
  w.Key("step_time_change").BeginObject();
  w.Key("pct").Double(d.step_change_pct);
  w.Key("low_pct");
  d.judged ? w.Double(d.step_change_low_pct) : w.Null();
  w.Key("high_pct");
  d.judged ? w.Double(d.step_change_high_pct) : w.Null();
  w.EndObject();
  w.Key("gate").BeginObject();
  w.Key("fail_on_regression_pct");
  d.fail_on_regression_pct >= 0 ? w.Double(d.fail_on_regression_pct) : w.Null();
  w.Key("evaluated").Bool(d.gate_evaluated);
  w.Key("tripped").Bool(d.gate_tripped);
  w.EndObject();
  w.Key("empty").Bool(d.empty());
  w.Key("accelerator").String(d.accelerator);
  w.Key("peak_memory").BeginObject();
  w.Key("base_bytes");
  d.peak_memory.base_bytes >= 0 ? w.Int(d.peak_memory.base_bytes) : w.Null();
  w.Key("new_bytes");
  d.peak_memory.new_bytes >= 0 ? w.Int(d.peak_memory.new_bytes) : w.Null();
  w.Key("device_bytes");
  d.peak_memory.device_bytes > 0 ? w.Int(d.peak_memory.device_bytes) : w.Null();
  w.EndObject();

  w.Key("metrics").BeginArray();
  for (const MetricDiff& m : d.metrics) {
    const SampleComparison& c = m.comparison;
    w.BeginObject();
    w.Key("name").String(m.name);
    w.Key("unit").String(m.is_share ? "share" : "ns");
    w.Key("n_base").Int(c.n_base);
    w.Key("n_new").Int(c.n_new);
    w.Key("median_base").Double(c.median_base);
    w.Key("p10_base").Double(c.p10_base);
    w.Key("p90_base").Double(c.p90_base);
    w.Key("median_new").Double(c.median_new);
    w.Key("p10_new").Double(c.p10_new);
    w.Key("p90_new").Double(c.p90_new);
    w.Key("judged").Bool(c.judged);
    w.Key("test");
    if (c.judged) {
      w.BeginObject();
      w.Key("method").String(c.test.exact ? "mann-whitney-exact" : "mann-whitney-normal");
      w.Key("u").Double(c.test.u);
      w.Key("p_value").Share(c.test.p_value);
      w.Key("shift").Double(c.shift.estimate);
      w.Key("shift_low").Double(c.shift.low);
      w.Key("shift_high").Double(c.shift.high);
      w.EndObject();
    } else {
      w.Null();
    }
    w.Key("beyond_noise").Bool(c.beyond_noise);
    w.EndObject();
  }
  w.EndArray();

  w.Key("findings").BeginArray();
  for (const FindingChange& c : d.findings) {
    w.BeginObject();
    w.Key("change").String(FindingChangeName(c.kind));
    const DiffFinding& f = c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
    w.Key("fingerprint").String(f.fingerprint);
    w.Key("base");
    c.kind == FindingChangeKind::kAdded ? w.Null() : WriteFindingRef(w, c.base);
    w.Key("new");
    c.kind == FindingChangeKind::kRemoved ? w.Null() : WriteFindingRef(w, c.next);
    w.Key("delta_ns_per_step").Int(c.delta_ns_per_step);
    w.Key("delta_one_time_ns").Int(c.delta_one_time_ns);
    w.Key("judged_by");
    c.judged_by == FindingJudgedBy::kNone ? w.Null() : w.String(FindingJudgedByName(c.judged_by));
    w.Key("test");
    if (c.judged_by == FindingJudgedBy::kTest) {
      const SampleComparison& t = c.comparison;
      w.BeginObject();
      w.Key("n_base").Int(t.n_base);
      w.Key("n_new").Int(t.n_new);
      w.Key("method").String(t.test.exact ? "mann-whitney-exact" : "mann-whitney-normal");
      w.Key("p_value").Share(t.test.p_value);
      w.Key("shift_ns").Double(t.shift.estimate);
      w.Key("shift_low_ns").Double(t.shift.low);
      w.Key("shift_high_ns").Double(t.shift.high);
      w.EndObject();
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("kernels");
  WriteNamed(w, d.kernels);
  w.Key("ops");
  WriteNamed(w, d.ops);
  w.EndObject();
}

std::string RenderDiffJson(const RunDiff& diff) {
  JsonWriter w;
  WriteDiffJson(w, diff);
  return w.Finish();
}

}  // namespace tracelint
