#include "analyzer/report/batch_table.h"

#include <algorithm>

#include "analyzer/analysis/step_metrics.h"
#include "analyzer/base/escape.h"
#include "analyzer/report/json_writer.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

std::string Percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

std::string Millis(TimeNs ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }

// The cells of one row as every tabular format shows them.
std::vector<std::string> Cells(const BatchRow& r) {
  bool analysed = r.status != BatchStatus::kError;
  std::string top = r.top_finding.empty()
                        ? std::string("-")
                        : fmt::format("{} {} ({})", r.top_finding,
                                      FormatDurationNs(r.top_ns_per_step), Percent(r.top_share));
  return {
      r.run,
      std::string(BatchStatusName(r.status)),
      analysed ? fmt::format("{}", r.ranks) : "-",
      analysed ? fmt::format("{}", r.steps) : "-",
      analysed ? Millis(r.mean_step_ns) : "-",
      analysed && r.gpu_utilization ? Percent(*r.gpu_utilization) : "-",
      analysed ? fmt::format("{}", r.findings) : "-",
      analysed ? Percent(r.recoverable_share) : "-",
      analysed ? top : r.error,
  };
}

const std::vector<std::string>& Headers() {
  static const auto* headers = new std::vector<std::string>{
      "run",      "status",      "ranks",       "steps", "mean step ms", "GPU util",
      "findings", "recoverable", "top finding (per step, share of step)"};
  return *headers;
}

std::string Text(const std::vector<BatchRow>& rows) {
  std::vector<std::vector<std::string>> table = {Headers()};
  for (const BatchRow& r : rows) {
    // Run paths and errors are hostile input on a terminal.
    table.push_back(Cells(r));
    for (std::string& cell : table.back()) cell = EscapeTerminal(cell);
  }
  std::vector<size_t> width(Headers().size(), 0);
  for (const auto& line : table) {
    for (size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  std::string out;
  for (const auto& line : table) {
    std::string text;
    for (size_t i = 0; i < line.size(); ++i) {
      bool last = i + 1 == line.size();
      // Numbers right-aligned, words left-aligned.
      bool numeric = i >= 2 && i <= 7;
      text += last ? line[i]
              : numeric ? fmt::format("{:>{}}  ", line[i], width[i])
                        : fmt::format("{:<{}}  ", line[i], width[i]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  int errors = 0, damaged = 0;
  for (const BatchRow& r : rows) {
    errors += r.status == BatchStatus::kError;
    damaged += r.status == BatchStatus::kDamaged;
  }
  out += fmt::format("{} run{}: {} analysed, {} damaged, {} could not be read\n", rows.size(),
                     rows.size() == 1 ? "" : "s", rows.size() - errors - damaged, damaged,
                     errors);
  return out;
}

std::string Markdown(const std::vector<BatchRow>& rows) {
  std::string out = "| " + fmt::format("{}", fmt::join(Headers(), " | ")) + " |\n|";
  for (size_t i = 0; i < Headers().size(); ++i) out += i >= 2 && i <= 7 ? "---:|" : "---|";
  out += "\n";
  for (const BatchRow& r : rows) {
    std::vector<std::string> cells = Cells(r);
    for (std::string& c : cells) c = EscapeMarkdownCell(c);
    out += "| " + fmt::format("{}", fmt::join(cells, " | ")) + " |\n";
  }
  return out;
}

// RFC 4180: quote fields holding a comma, quote or line break.
// Control characters shown escaped and invalid UTF-8 replaced first, as on
// a terminal, where CSV often ends up.
std::string CsvField(const std::string& raw) {
  std::string s = EscapeTerminal(raw);
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Csv(const std::vector<BatchRow>& rows) {
  // Raw numbers in fixed units, for spreadsheets and scripts.
  std::string out =
      "run,status,ranks,steps,mean_step_ns,gpu_utilization,findings,recoverable_ns_per_step,"
      "recoverable_share,top_finding,top_ns_per_step,top_share,error\n";
  for (const BatchRow& r : rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", CsvField(r.run),
                       BatchStatusName(r.status), r.ranks, r.steps, r.mean_step_ns,
                       r.gpu_utilization ? fmt::format("{}", *r.gpu_utilization) : "",
                       r.findings, r.recoverable_ns_per_step, r.recoverable_share,
                       CsvField(r.top_finding), r.top_ns_per_step, r.top_share,
                       CsvField(r.error));
  }
  return out;
}

std::string Json(const std::vector<BatchRow>& rows) {
  JsonWriter w;
  w.BeginObject();
  w.Key("schema_version").Int(kBatchSchemaVersion);
  w.Key("tool").String("tracelint");
  w.Key("runs").BeginArray();
  for (const BatchRow& r : rows) {
    w.BeginObject();
    w.Key("run").String(r.run);
    w.Key("status").String(BatchStatusName(r.status));
    w.Key("error").String(r.error);
    w.Key("ranks").Int(r.ranks);
    w.Key("steps").Int(r.steps);
    w.Key("mean_step_ns").Int(r.mean_step_ns);
    w.Key("gpu_utilization").OptionalDouble(r.gpu_utilization);
    w.Key("findings").Int(r.findings);
    w.Key("recoverable_ns_per_step").Int(r.recoverable_ns_per_step);
    w.Key("recoverable_share").Double(r.recoverable_share);
    w.Key("top_finding").String(r.top_finding);
    w.Key("top_ns_per_step").Int(r.top_ns_per_step);
    w.Key("top_share").Double(r.top_share);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Finish();
}

}  // namespace

std::string_view BatchStatusName(BatchStatus status) {
  switch (status) {
    case BatchStatus::kOk:
      return "ok";
    case BatchStatus::kDamaged:
      return "damaged";
    case BatchStatus::kError:
      return "error";
  }
  return "error";
}

BatchRow SummarizeRunForBatch(const ReportInput& input) {
  BatchRow row;
  row.run = input.input_path;
  row.ranks = static_cast<int>(input.ranks.size());
  double util_sum = 0;
  int util_n = 0;
  for (AnalysisContext* ctx : input.contexts) {
    const StepMetrics& m = ctx->step_metrics();
    if (m.step_count > 0 && m.mean_step_ns > row.mean_step_ns) {
      row.mean_step_ns = m.mean_step_ns;
      row.steps = m.step_count;
    }
    for (const DeviceMetrics& d : m.summary) {
      if (d.device < 0 || d.busy_ns == 0) continue;
      util_sum += d.gpu_utilization;
      ++util_n;
    }
  }
  if (util_n > 0) row.gpu_utilization = util_sum / util_n;
  FindingsSummary summary = SummarizeFindings(input.findings);
  row.findings = summary.count;
  row.recoverable_ns_per_step = summary.recoverable_ns_per_step;
  row.recoverable_share = summary.recoverable_share;
  if (!input.findings.empty()) {
    const Finding& top = input.findings.front();
    row.top_finding = fmt::format("{}/{}", top.rule_id, top.cause);
    row.top_ns_per_step = top.recoverable_ns_per_step;
    row.top_share = top.recoverable_share;
  }
  return row;
}

std::string RenderBatch(const std::vector<BatchRow>& rows, std::string_view format) {
  if (format == "markdown") return Markdown(rows);
  if (format == "csv") return Csv(rows);
  if (format == "json") return Json(rows);
  return Text(rows);
}

}  // namespace tracelint
