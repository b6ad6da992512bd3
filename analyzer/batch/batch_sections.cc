#include "analyzer/batch/batch_sections.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "analyzer/base/escape.h"
#include "analyzer/report/text_layout.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

std::string Millis(TimeNs ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }

std::string Percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

std::string SignedPercent(TimeNs before, TimeNs after) {
  if (before == 0) return "new";
  return fmt::format("{:+.1f}%",
                     100.0 * static_cast<double>(after - before) / static_cast<double>(before));
}

std::string DescribeChange(const BatchTrendChange& c) {
  if (c.before_ns == 0) return fmt::format("{} appeared ({} ms)", c.what, Millis(c.after_ns));
  if (c.after_ns == 0) return fmt::format("{} gone (was {} ms)", c.what, Millis(c.before_ns));
  return fmt::format("{} {} -> {} ms ({})", c.what, Millis(c.before_ns), Millis(c.after_ns),
                     SignedPercent(c.before_ns, c.after_ns));
}

std::string DescribeChanges(const BatchTrendEntry& e) {
  if (e.changes.empty()) return "-";
  std::string out;
  for (const BatchTrendChange& c : e.changes) {
    if (!out.empty()) out += "; ";
    out += DescribeChange(c);
  }
  return out;
}

std::string GroupTitle(const BatchTable& t) {
  return fmt::format("Groups by {} ({} group{})", t.group_by, t.groups.size(),
                     t.groups.size() == 1 ? "" : "s");
}

std::vector<std::string> GroupHeaders(const BatchTable& t, std::vector<bool>& numeric) {
  std::vector<std::string> h = {"group", "runs", "analysed", "median step ms",
                                "median " + UtilizationHeader(t.rows)};
  numeric = {false, true, true, true, true};
  if (t.throughput) {
    h.push_back("median samples/s");
    numeric.push_back(true);
  }
  if (t.prices) {
    h.push_back("median samples/$");
    numeric.push_back(true);
  }
  return h;
}

std::vector<std::vector<std::string>> GroupCells(const BatchTable& t) {
  std::vector<std::vector<std::string>> body;
  for (const BatchGroup& g : t.groups) {
    std::vector<std::string>& cells = body.emplace_back();
    cells = {g.key.empty() ? "(none)" : g.key, fmt::format("{}", g.runs),
             fmt::format("{}", g.analysed), g.median_step_ns ? Millis(*g.median_step_ns) : "-",
             g.median_gpu_utilization ? Percent(*g.median_gpu_utilization) : "-"};
    if (t.throughput) cells.push_back(FormatSamples(g.median_samples_per_s));
    if (t.prices) cells.push_back(FormatSamples(g.median_samples_per_dollar));
  }
  return body;
}

std::vector<std::vector<std::string>> RuleCells(const BatchTable& t) {
  std::vector<std::vector<std::string>> body;
  for (const BatchGroup& g : t.groups) {
    for (const BatchGroupRule& r : g.rules) {
      body.push_back({g.key.empty() ? "(none)" : g.key, r.rule_id,
                      fmt::format("{} of {}", r.runs_fired, g.analysed),
                      r.median_ns_per_step > 0 ? Millis(r.median_ns_per_step) : "-",
                      r.median_one_time_ns > 0 ? Millis(r.median_one_time_ns) : "-"});
    }
  }
  return body;
}

const std::vector<std::string> kRuleHeaders = {"group", "rule", "fired in runs",
                                               "median ms per step", "median one-time ms"};
const std::vector<bool> kRuleNumeric = {false, false, true, true, true};

std::string TrendTitle(const BatchTable& t) {
  return fmt::format("Trend by trace start time{} (changes beyond {:.0f}%)",
                     t.group_by.empty() ? "" : ", each run against the previous of its group",
                     100 * t.trend_threshold);
}

std::vector<std::string> TrendHeaders(const BatchTable& t, std::vector<bool>& numeric) {
  numeric = {false, true, false, false};
  std::vector<std::string> h = {"start", "mean step ms", "run", "changes"};
  if (!t.group_by.empty()) {
    h.insert(h.begin() + 2, "group");
    numeric.insert(numeric.begin() + 2, false);
  }
  return h;
}

std::vector<std::vector<std::string>> TrendCells(const BatchTable& t) {
  std::vector<std::vector<std::string>> body;
  for (const BatchTrendEntry& e : t.trend_entries) {
    std::vector<std::string>& cells = body.emplace_back();
    cells = {FormatTraceTime(e.start_ns), Millis(e.mean_step_ns), e.run, DescribeChanges(e)};
    if (!t.group_by.empty()) cells.insert(cells.begin() + 2, e.group);
  }
  return body;
}

std::vector<std::vector<std::string>> WithHeader(const std::vector<std::string>& headers,
                                                 std::vector<std::vector<std::string>> body,
                                                 bool escape) {
  if (escape) {
    for (auto& line : body) {
      for (std::string& cell : line) cell = EscapeTerminal(cell);
    }
  }
  body.insert(body.begin(), headers);
  return body;
}

}  // namespace

std::string AlignColumns(const std::vector<std::vector<std::string>>& lines,
                         const std::vector<bool>& numeric, bool pad_last) {
  std::vector<size_t> width(numeric.size(), 0);
  for (const auto& line : lines) {
    for (size_t i = 0; i < line.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], text::Width(line[i]));
    }
  }
  std::string out;
  for (const auto& line : lines) {
    std::string text;
    for (size_t i = 0; i < line.size(); ++i) {
      bool last = i + 1 == line.size();
      bool right = i < numeric.size() && numeric[i];
      if (last && !pad_last) {
        text += line[i];
      } else {
        text += right ? fmt::format("{:>{}}  ", line[i], width[i])
                      : fmt::format("{:<{}}  ", line[i], width[i]);
      }
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  return out;
}

std::string MarkdownTable(const std::vector<std::string>& headers, const std::vector<bool>& numeric,
                          const std::vector<std::vector<std::string>>& body) {
  std::string out = "| " + fmt::format("{}", fmt::join(headers, " | ")) + " |\n|";
  for (size_t i = 0; i < headers.size(); ++i) out += numeric[i] ? "---:|" : "---|";
  out += "\n";
  for (std::vector<std::string> cells : body) {
    for (std::string& c : cells) c = EscapeMarkdownCell(c);
    out += "| " + fmt::format("{}", fmt::join(cells, " | ")) + " |\n";
  }
  return out;
}

std::string FormatSamples(const std::optional<double>& value) {
  if (!value) return "-";
  return fmt::format("{:.1f}", *value);
}

std::string FormatTraceTime(TimeNs ns) {
  // 2001-09-09 in ns since the epoch: earlier times are relative traces.
  if (ns < 1'000'000'000LL * kNsPerS) return "-";
  std::time_t seconds = static_cast<std::time_t>(ns / kNsPerS);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &utc);
  return fmt::format("{} UTC", buf);
}

std::string TextSections(const BatchTable& t) {
  std::string out;
  if (!t.group_by.empty()) {
    std::vector<bool> numeric;
    std::vector<std::string> headers = GroupHeaders(t, numeric);
    out += "\n" + GroupTitle(t) + ":\n";
    out += AlignColumns(WithHeader(headers, GroupCells(t), true), numeric, false);
    std::vector<std::vector<std::string>> rules = RuleCells(t);
    if (!rules.empty()) {
      out += "\nRules by group (runs where the rule fired, median cost where it fired):\n";
      out += AlignColumns(WithHeader(kRuleHeaders, std::move(rules), true), kRuleNumeric, false);
    }
  }
  if (t.trend) {
    out += "\n" + TrendTitle(t) + ":\n";
    if (t.trend_entries.empty()) {
      out += "no analysed run\n";
    } else {
      std::vector<bool> numeric;
      std::vector<std::string> headers = TrendHeaders(t, numeric);
      out += AlignColumns(WithHeader(headers, TrendCells(t), true), numeric, false);
    }
  }
  return out;
}

std::string MarkdownSections(const BatchTable& t) {
  std::string out;
  if (!t.group_by.empty()) {
    std::vector<bool> numeric;
    std::vector<std::string> headers = GroupHeaders(t, numeric);
    out += "\n### " + GroupTitle(t) + "\n\n" + MarkdownTable(headers, numeric, GroupCells(t));
    std::vector<std::vector<std::string>> rules = RuleCells(t);
    if (!rules.empty()) {
      out += "\n### Rules by group\n\n" + MarkdownTable(kRuleHeaders, kRuleNumeric, rules);
    }
  }
  if (t.trend) {
    std::vector<bool> numeric;
    std::vector<std::string> headers = TrendHeaders(t, numeric);
    out += "\n### " + TrendTitle(t) + "\n\n" + MarkdownTable(headers, numeric, TrendCells(t));
  }
  return out;
}

void JsonSections(const BatchTable& t, JsonWriter& w) {
  if (!t.group_by.empty()) {
    w.Key("group_by").String(t.group_by);
    w.Key("groups").BeginArray();
    for (const BatchGroup& g : t.groups) {
      w.BeginObject();
      w.Key("key").String(g.key);
      w.Key("runs").Int(g.runs);
      w.Key("analysed").Int(g.analysed);
      if (g.median_step_ns) {
        w.Key("median_step_ns").Int(*g.median_step_ns);
      } else {
        w.Key("median_step_ns").Null();
      }
      w.Key("median_gpu_utilization").OptionalDouble(g.median_gpu_utilization);
      w.Key("median_samples_per_s").OptionalDouble(g.median_samples_per_s);
      w.Key("median_samples_per_dollar").OptionalDouble(g.median_samples_per_dollar);
      w.Key("rules").BeginArray();
      for (const BatchGroupRule& r : g.rules) {
        w.BeginObject();
        w.Key("rule_id").String(r.rule_id);
        w.Key("runs_fired").Int(r.runs_fired);
        w.Key("median_ns_per_step").Int(r.median_ns_per_step);
        w.Key("median_one_time_ns").Int(r.median_one_time_ns);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
  }
  if (t.trend) {
    w.Key("trend_threshold").Double(t.trend_threshold);
    w.Key("trend").BeginArray();
    for (const BatchTrendEntry& e : t.trend_entries) {
      w.BeginObject();
      w.Key("run").String(e.run);
      w.Key("group").String(e.group);
      w.Key("start_ns").Int(e.start_ns);
      w.Key("mean_step_ns").Int(e.mean_step_ns);
      w.Key("changes").BeginArray();
      for (const BatchTrendChange& c : e.changes) {
        w.BeginObject();
        w.Key("what").String(c.what);
        w.Key("before_ns").Int(c.before_ns);
        w.Key("after_ns").Int(c.after_ns);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
  }
}

}  // namespace tracelint
