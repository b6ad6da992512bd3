// `tracelint diff` as text, Markdown and JSON. All three show the same
// numbers from one RunDiff; the Markdown is meant for a PR comment.

#include "analyzer/report/diff_report.h"

#include <cmath>

#include "fmt/format.h"

namespace tracelint {
namespace {

constexpr size_t kNameWidth = 80;

std::string Cut(std::string_view s) {
  if (s.size() <= kNameWidth) return std::string(s);
  return std::string(s.substr(0, kNameWidth - 3)) + "...";
}

// Table cells: a '|' in a C++ kernel name would end the cell.
std::string MdCell(std::string_view s) {
  std::string out;
  for (char c : Cut(s)) {
    if (c == '|') out += '\\';
    out += c == '`' ? '\'' : c;
  }
  return out;
}

std::string SignedDur(double ns) {
  TimeNs v = std::llround(ns);
  return (v > 0 ? "+" : "") + FormatDurationNs(v);
}

std::string SignedPct(double pct) { return fmt::format("{:+.1f}%", pct); }

// A metric value: ns as a duration, shares in percent.
std::string Value(const MetricDiff& m, double v) {
  return m.is_share ? fmt::format("{:.1f}%", 100 * v) : FormatDurationNs(std::llround(v));
}
std::string Delta(const MetricDiff& m, double v) {
  return m.is_share ? fmt::format("{:+.1f} pt", 100 * v) : SignedDur(v);
}

std::string MetricLabel(const MetricDiff& m) {
  if (m.name == "step_time") return "step time";
  if (m.name == "gpu_utilization") return "GPU utilization";
  return m.name;  // breakdown.<category>
}

std::string Verdict(const SampleComparison& c) {
  if (!c.judged) return "too few steps";
  return c.beyond_noise ? "beyond noise" : "within noise";
}

std::string ShiftCell(const MetricDiff& m) {
  const SampleComparison& c = m.comparison;
  if (!c.judged) return Delta(m, c.median_new - c.median_base) + " (medians)";
  return fmt::format("{} [{} .. {}]", Delta(m, c.shift.estimate), Delta(m, c.shift.low),
                     Delta(m, c.shift.high));
}

std::string PValue(const SampleComparison& c) {
  if (!c.judged) return "-";
  return fmt::format("{:.3g}{}", c.test.p_value, c.test.exact ? "" : " (normal)");
}

std::string TooFewLine(const RunDiff& d) {
  const SampleComparison& c = d.step_time().comparison;
  return fmt::format(
      "too few steps to judge noise ({} and {} steady steps; {} needed on each side): medians "
      "compared only, nothing is claimed significant",
      c.n_base, c.n_new, kMinSamplesToJudgeNoise);
}

std::string GateLine(const RunDiff& d) {
  if (d.fail_on_regression_pct < 0) return "";
  if (!d.gate_evaluated) {
    return fmt::format("--fail-on-regression {}%: not evaluated, too few steps to judge noise",
                       d.fail_on_regression_pct);
  }
  return fmt::format("--fail-on-regression {}%: {} (lower bound of the step-time change {})",
                     d.fail_on_regression_pct, d.gate_tripped ? "TRIPPED" : "not tripped",
                     SignedPct(d.step_change_low_pct));
}

std::string FindingName(const FindingChange& c) {
  const DiffFinding& f = c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
  return fmt::format("{} / {}", f.rule_id, f.cause);
}

std::string FindingTimes(const FindingChange& c) {
  const DiffFinding& f = c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
  bool one_time = c.base.one_time_ns > 0 || c.next.one_time_ns > 0;
  auto value = [&](const DiffFinding& x) {
    return one_time ? FormatDurationNs(x.one_time_ns) + " once"
                    : FormatDurationNs(x.recoverable_ns_per_step) + "/step";
  };
  switch (c.kind) {
    case FindingChangeKind::kAdded:
    case FindingChangeKind::kRemoved: return value(f);
    default:
      return fmt::format("{} -> {} ({})", value(c.base), value(c.next),
                         one_time ? SignedDur(c.delta_one_time_ns)
                                  : SignedDur(c.delta_ns_per_step));
  }
}

// How a matched finding was judged, so a "changed" is never read as a
// significant move when only the 20% rule applied.
std::string FindingBasis(const FindingChange& c) {
  const SampleComparison& s = c.comparison;
  switch (c.judged_by) {
    case FindingJudgedBy::kNone: return "";
    case FindingJudgedBy::kTest:
      return fmt::format("per-step shift {} [{} .. {}], p {}", SignedDur(s.shift.estimate),
                         SignedDur(s.shift.low), SignedDur(s.shift.high), PValue(s));
    case FindingJudgedBy::kTooFewSteps:
      return fmt::format("too few steps to judge noise ({} and {}): moved more than {:.0f}%?",
                         s.n_base, s.n_new, 100 * kFindingChangeShareWithoutNoise);
    case FindingJudgedBy::kMeanOnly:
      return fmt::format("rule gives only a mean, no per-step values: moved more than {:.0f}%?",
                         100 * kFindingChangeShareWithoutNoise);
    case FindingJudgedBy::kOneTime:
      return fmt::format("one-time cost: moved more than {:.0f}%?",
                         100 * kFindingChangeShareWithoutNoise);
  }
  return "";
}

struct Counts {
  int added = 0, removed = 0, changed = 0, unchanged = 0;
};
Counts CountFindings(const RunDiff& d) {
  Counts n;
  for (const FindingChange& c : d.findings) {
    switch (c.kind) {
      case FindingChangeKind::kAdded: ++n.added; break;
      case FindingChangeKind::kRemoved: ++n.removed; break;
      case FindingChangeKind::kChanged: ++n.changed; break;
      case FindingChangeKind::kUnchanged: ++n.unchanged; break;
    }
  }
  return n;
}

std::string SideLine(const std::string& label, int rank, const SampleComparison& c, bool base) {
  return fmt::format("{} (rank {}, {} steady steps)", label, rank, base ? c.n_base : c.n_new);
}

void NamedTable(std::string& out, std::string_view title, const std::vector<NamedDelta>& rows,
                bool markdown) {
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
                         FormatDurationNs(r.new_ns_per_step), MdCell(r.name));
    } else {
      out += fmt::format("  {:>12}  {:>11} -> {:<11}  {}\n", delta,
                         FormatDurationNs(r.base_ns_per_step), FormatDurationNs(r.new_ns_per_step),
                         Cut(r.name));
    }
  }
}

}  // namespace

std::string StepTimeVerdict(const RunDiff& d) {
  const SampleComparison& c = d.step_time().comparison;
  if (!d.judged) {
    return fmt::format("step time {} (median {} -> {}); {}", SignedPct(d.step_change_pct),
                       FormatDurationNs(std::llround(c.median_base)),
                       FormatDurationNs(std::llround(c.median_new)), TooFewLine(d));
  }
  return fmt::format("step time {} (95% interval {} .. {}; median {} -> {}), {}",
                     SignedPct(d.step_change_pct), SignedPct(d.step_change_low_pct),
                     SignedPct(d.step_change_high_pct),
                     FormatDurationNs(std::llround(c.median_base)),
                     FormatDurationNs(std::llround(c.median_new)),
                     c.beyond_noise ? "beyond noise" : "within noise");
}

std::string RenderDiffText(const RunDiff& d) {
  std::string out = "tracelint diff\n";
  const SampleComparison& step = d.step_time().comparison;
  out += fmt::format("Base: {}\nNew:  {}\n", SideLine(d.base_label, d.base_rank, step, true),
                     SideLine(d.new_label, d.new_rank, step, false));
  out += fmt::format("\n{}\n", StepTimeVerdict(d));
  if (std::string gate = GateLine(d); !gate.empty()) out += gate + "\n";
  if (d.empty()) out += "No difference beyond noise: no metric, finding, kernel or op moved.\n";

  out += fmt::format("\n{:<26} {:>11} {:>23} {:>11} {:>23}  {:<40} {:>12}  {}\n", "metric",
                     "median base", "p10 .. p90 base", "median new", "p10 .. p90 new",
                     "shift [95% interval]", "p", "verdict");
  for (const MetricDiff& m : d.metrics) {
    const SampleComparison& c = m.comparison;
    out += fmt::format("{:<26} {:>11} {:>23} {:>11} {:>23}  {:<40} {:>12}  {}\n", MetricLabel(m),
                       Value(m, c.median_base),
                       Value(m, c.p10_base) + " .. " + Value(m, c.p90_base),
                       Value(m, c.median_new), Value(m, c.p10_new) + " .. " + Value(m, c.p90_new),
                       ShiftCell(m), PValue(c), Verdict(c));
  }

  Counts n = CountFindings(d);
  out += fmt::format("\nFindings: {} added, {} removed, {} changed, {} unchanged\n", n.added,
                     n.removed, n.changed, n.unchanged);
  for (const FindingChange& c : d.findings) {
    if (c.kind == FindingChangeKind::kUnchanged) continue;
    const DiffFinding& f = c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
    out += fmt::format("  {:<9} {:<40} {:<32} {} [{}]\n", FindingChangeName(c.kind),
                       FindingName(c), FindingTimes(c), f.title, f.fingerprint);
    if (c.kind == FindingChangeKind::kChanged) {
      out += fmt::format("  {:<9} judged by: {}\n", "", FindingBasis(c));
    }
  }
  NamedTable(out, "Kernels", d.kernels, false);
  NamedTable(out, "Ops", d.ops, false);
  return out;
}

std::string RenderDiffMarkdown(const RunDiff& d) {
  const SampleComparison& step = d.step_time().comparison;
  std::string out = "### tracelint diff\n\n";
  out += fmt::format("**{}**\n\n", StepTimeVerdict(d));
  if (std::string gate = GateLine(d); !gate.empty()) out += gate + "\n\n";
  out += fmt::format("Base: `{}`  \nNew: `{}`\n\n", SideLine(d.base_label, d.base_rank, step, true),
                     SideLine(d.new_label, d.new_rank, step, false));
  if (d.empty()) out += "No difference beyond noise: no metric, finding, kernel or op moved.\n\n";
  out += "| metric | median base | p10 .. p90 base | median new | p10 .. p90 new | shift [95% "
         "interval] | p | verdict |\n|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const MetricDiff& m : d.metrics) {
    const SampleComparison& c = m.comparison;
    out += fmt::format("| {} | {} | {} .. {} | {} | {} .. {} | {} | {} | {} |\n", MetricLabel(m),
                       Value(m, c.median_base), Value(m, c.p10_base), Value(m, c.p90_base),
                       Value(m, c.median_new), Value(m, c.p10_new), Value(m, c.p90_new),
                       ShiftCell(m), PValue(c), Verdict(c));
  }
  Counts n = CountFindings(d);
  out += fmt::format("\n**Findings:** {} added, {} removed, {} changed, {} unchanged\n", n.added,
                     n.removed, n.changed, n.unchanged);
  if (n.added + n.removed + n.changed > 0) {
    out += "\n| | finding | recoverable | title |\n|---|---|---|---|\n";
    for (const FindingChange& c : d.findings) {
      if (c.kind == FindingChangeKind::kUnchanged) continue;
      const DiffFinding& f = c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
      std::string times = FindingTimes(c);
      if (c.kind == FindingChangeKind::kChanged) times += "<br>" + MdCell(FindingBasis(c));
      out += fmt::format("| {} | `{}` | {} | {} |\n", FindingChangeName(c.kind), FindingName(c),
                         times, MdCell(f.title));
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
  w.Key("recoverable_share").Double(f.recoverable_share);
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
      w.Key("p_value").Double(c.test.p_value);
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
      w.Key("p_value").Double(t.test.p_value);
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
