#include "analyzer/batch/batch_table.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "analyzer/analysis/step_metrics.h"
#include "analyzer/base/display_path.h"
#include "analyzer/base/escape.h"
#include "analyzer/base/version.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/batch/batch_sections.h"
#include "analyzer/report/json_writer.h"
#include "analyzer/report/report_data.h"
#include "analyzer/report/text_layout.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace tracelint {
namespace {

std::string Percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

std::string Millis(TimeNs ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }

bool Analysed(const BatchRow& r) {
  return r.status == BatchStatus::kOk || r.status == BatchStatus::kDamaged ||
         r.status == BatchStatus::kNotJudgeable;
}

struct Column {
  std::string header;
  bool numeric;
};

std::vector<Column> Columns(const BatchTable& t) {
  std::vector<Column> cols = {{"run", false},     {"status", false},      {"ranks", true},
                              {"steps", true},    {"mean step ms", true},
                              {UtilizationHeader(t.rows), true},
                              {"findings", true}, {"recoverable", true}};
  if (t.throughput) cols.push_back({"samples/s", true});
  if (t.prices) {
    cols.push_back({"$/h", true});
    cols.push_back({"samples/$", true});
  }
  cols.push_back({"top finding (per step, share of step)", false});
  return cols;
}

// A finding's JSON as a JSONL record carries it and a merge reads it back
// (simdjson's minified form), so a merged table equals a single process's.
std::string Minified(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS) return json;
  return simdjson::minify(doc);
}

// A run as the text and Markdown tables name it: relative to the folder the
// batch searched (its own name when it is that folder), never the absolute
// path of the machine (JSON and CSV keep the path as analysed).
// A run that is the path given itself keeps that path on a terminal (the
// user typed it) and its folder's name in Markdown.
std::string RunName(const BatchRow& r, bool markdown) {
  namespace fs = std::filesystem;
  if (!r.root.empty()) {
    fs::path run = fs::path(r.run).lexically_normal(), root = fs::path(r.root).lexically_normal();
    if (root.filename().empty()) root = root.parent_path();
    fs::path rel = run.lexically_relative(root);
    if (!rel.empty() && *rel.begin() != ".." && rel != ".") return rel.generic_string();
  }
  return markdown ? PathShortener({r.run}).Text(r.run) : r.run;
}

// The cells of one row as every tabular format shows them.
std::vector<std::string> Cells(const BatchTable& t, const BatchRow& r, bool markdown = false) {
  bool analysed = Analysed(r);
  std::string top = r.top_finding.empty()
                        ? std::string("-")
                        : fmt::format("{} {} ({})", r.top_finding,
                                      FormatDurationNs(r.top_ns_per_step), Percent(r.top_share));
  std::vector<std::string> cells = {
      RunName(r, markdown),
      std::string(BatchStatusName(r.status)),
      analysed ? fmt::format("{}", r.ranks) : "-",
      analysed ? fmt::format("{}", r.steps) : "-",
      analysed ? Millis(r.mean_step_ns) : "-",
      analysed && r.gpu_utilization ? Percent(*r.gpu_utilization) : "-",
      analysed ? fmt::format("{}", r.findings) : "-",
      analysed ? Percent(r.recoverable_share) : "-",
  };
  if (t.throughput) cells.push_back(FormatSamples(r.samples_per_s));
  if (t.prices) {
    cells.push_back(r.price_per_hour ? fmt::format("{:.2f}", *r.price_per_hour) : "-");
    cells.push_back(FormatSamples(r.samples_per_dollar));
  }
  cells.push_back(analysed && r.status != BatchStatus::kNotJudgeable
                      ? top
                      : PathShortener({r.root.empty() ? r.run : r.root}).Text(r.error));
  return cells;
}

// Text within `width` columns: the last column (top finding or error) is
// cut first, down to 24 columns, then the run column is elided in the
// middle, down to 16; then to 12 and 10; numbers are never cut.
void FitTable(std::vector<std::vector<std::string>>& table, size_t width) {
  if (width == 0 || table.empty()) return;
  const size_t cols = table.front().size();
  std::vector<size_t> w(cols, 0);
  for (const auto& line : table) {
    for (size_t i = 0; i < cols && i < line.size(); ++i) w[i] = std::max(w[i], text::Width(line[i]));
  }
  size_t total = 2 * (cols - 1);
  for (size_t x : w) total += x;
  if (total <= width) return;
  auto shrink = [&](size_t col, size_t floor, bool middle) {
    if (total <= width || w[col] <= floor) return;
    size_t target = std::max(floor, w[col] - std::min(w[col] - floor, total - width));
    for (auto& line : table) {
      if (col < line.size() && text::Width(line[col]) > target) {
        line[col] = middle ? text::FitMiddle(line[col], target) : text::Fit(line[col], target);
      }
    }
    total -= w[col] - target;
    w[col] = target;
  };
  shrink(cols - 1, 24, /*middle=*/false);
  shrink(0, 16, /*middle=*/true);
  // Still too wide (a narrow terminal): both further, numbers still whole.
  shrink(cols - 1, 12, /*middle=*/false);
  shrink(0, 10, /*middle=*/true);
}

std::string Summary(const std::vector<BatchRow>& rows) {
  size_t errors = 0, damaged = 0, missing = 0, unjudged = 0;
  for (const BatchRow& r : rows) {
    errors += r.status == BatchStatus::kError;
    damaged += r.status == BatchStatus::kDamaged;
    missing += r.status == BatchStatus::kMissing;
    unjudged += r.status == BatchStatus::kNotJudgeable;
  }
  std::string out = fmt::format(
      "{} run{}: {} analysed, {} damaged, {} could not be read", rows.size(),
      rows.size() == 1 ? "" : "s", rows.size() - errors - damaged - missing - unjudged, damaged,
      errors);
  if (unjudged > 0) out += fmt::format(", {} not judgeable", unjudged);
  if (missing > 0) out += fmt::format(", {} missing (a shard's output is absent)", missing);
  return out + "\n";
}

std::string Text(const BatchTable& t) {
  std::vector<Column> cols = Columns(t);
  std::vector<std::vector<std::string>> table;
  std::vector<bool> numeric;
  std::vector<std::string>& header = table.emplace_back();
  for (const Column& c : cols) {
    header.push_back(c.header);
    numeric.push_back(c.numeric);
  }
  for (const BatchRow& r : t.rows) {
    // Run paths and errors are hostile input on a terminal.
    table.push_back(Cells(t, r));
    for (std::string& cell : table.back()) cell = EscapeTerminal(cell);
  }
  FitTable(table, static_cast<size_t>(std::max(0, t.width_columns)));
  std::string out = AlignColumns(table, numeric, /*pad_last=*/false);
  out += Summary(t.rows);
  out += TextSections(t);
  return out;
}

std::string Markdown(const BatchTable& t) {
  std::vector<Column> cols = Columns(t);
  std::vector<std::string> headers;
  std::vector<bool> numeric;
  for (const Column& c : cols) {
    headers.push_back(c.header);
    numeric.push_back(c.numeric);
  }
  std::vector<std::vector<std::string>> body;
  for (const BatchRow& r : t.rows) body.push_back(Cells(t, r, /*markdown=*/true));
  return MarkdownTable(headers, numeric, body) + MarkdownSections(t);
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

std::string Optional(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

std::string Csv(const BatchTable& t) {
  // Raw numbers in fixed units, for spreadsheets and scripts. New columns
  // go at the end, so scripts reading the first ones keep working.
  std::string out =
      "run,status,ranks,steps,mean_step_ns,gpu_utilization,findings,recoverable_ns_per_step,"
      "recoverable_share,top_finding,top_ns_per_step,top_share,error,device,devices,start_ns,"
      "samples_per_s,price_per_hour,samples_per_dollar,accelerator\n";
  for (const BatchRow& r : t.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       CsvField(r.run), BatchStatusName(r.status), r.ranks, r.steps, r.mean_step_ns,
                       Optional(r.gpu_utilization), r.findings, r.recoverable_ns_per_step,
                       r.recoverable_share, CsvField(r.top_finding), r.top_ns_per_step, r.top_share,
                       CsvField(r.error), CsvField(r.device), r.devices, r.start_ns,
                       Optional(r.samples_per_s), Optional(r.price_per_hour),
                       Optional(r.samples_per_dollar), CsvField(r.accelerator));
  }
  return out;
}

std::string Json(const BatchTable& t) {
  JsonWriter w;
  w.BeginObject();
  w.Key("schema_version").Int(kBatchSchemaVersion);
  w.Key("tool").String("tracelint");
  w.Key("tool_version").String(kToolVersion);
  w.Key("options");
  t.options_json.empty() ? w.Null() : w.Raw(t.options_json);
  w.Key("runs").BeginArray();
  for (const BatchRow& r : t.rows) {
    w.BeginObject();
    w.Key("run").String(r.run);
    w.Key("status").String(BatchStatusName(r.status));
    w.Key("error").String(r.error);
    w.Key("ranks").Int(r.ranks);
    w.Key("steps").Int(r.steps);
    w.Key("mean_step_ns").Int(r.mean_step_ns);
    w.Key("gpu_utilization").OptionalShare(r.gpu_utilization);
    w.Key("findings").Int(r.findings);
    w.Key("recoverable_ns_per_step").Int(r.recoverable_ns_per_step);
    w.Key("recoverable_share").Share(r.recoverable_share);
    w.Key("top_finding").String(r.top_finding);
    w.Key("top_ns_per_step").Int(r.top_ns_per_step);
    w.Key("top_share").Share(r.top_share);
    w.Key("device").String(r.device);
    w.Key("accelerator").String(r.accelerator);
    w.Key("devices").Int(r.devices);
    w.Key("start_ns").Int(r.start_ns);
    w.Key("samples_per_s").OptionalDouble(r.samples_per_s);
    w.Key("price_per_hour").OptionalDouble(r.price_per_hour);
    w.Key("samples_per_dollar").OptionalDouble(r.samples_per_dollar);
    // Every finding of the run, as `analyze --format json` writes it.
    w.Key("all_findings").BeginArray();
    for (const BatchFinding& f : r.finding_list) {
      if (!f.json.empty()) w.Raw(f.json);
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  JsonSections(t, w);
  w.EndObject();
  return w.Finish();
}

}  // namespace

std::string UtilizationHeader(const std::vector<BatchRow>& rows) {
  std::string accelerator;
  for (const BatchRow& r : rows) {
    if (!Analysed(r)) continue;
    if (accelerator.empty()) {
      accelerator = r.accelerator;
    } else if (accelerator != r.accelerator) {
      return "util";
    }
  }
  return fmt::format("{} util", accelerator.empty() ? "GPU" : accelerator);
}

BatchRow SummarizeRunForBatch(const ReportInput& input) {
  BatchRow row;
  row.run = input.input_path;
  row.ranks = static_cast<int>(input.records.size());
  if (!input.records.empty()) {
    row.accelerator = std::string(AcceleratorName(input.records.front()->metadata));
  }
  double util_sum = 0;
  int util_n = 0;
  std::string first_named_device;
  for (size_t i = 0; i < input.records.size(); ++i) {
    const RankRecord* rec = input.records[i];
    const StepMetrics& m = rec->step_metrics;
    if (m.step_count > 0 && m.mean_step_ns > row.mean_step_ns) {
      row.mean_step_ns = m.mean_step_ns;
      row.steps = m.step_count;
    }
    const RunMetadata* meta = i < input.records.size() ? &input.records[i]->metadata : nullptr;
    std::set<int> active;
    for (const DeviceMetrics& d : m.summary) {
      if (d.device < 0 || d.busy_ns == 0) continue;
      util_sum += d.gpu_utilization;
      ++util_n;
      active.insert(d.device);
      const DeviceInfo* info = meta ? meta->FindDevice(d.device) : nullptr;
      if (row.device.empty() && info != nullptr) row.device = info->name;
    }
    row.devices += std::max<int>(1, static_cast<int>(active.size()));
    if (meta != nullptr && first_named_device.empty()) {
      for (const DeviceInfo& d : meta->devices) {
        if (!d.name.empty()) {
          first_named_device = d.name;
          break;
        }
      }
    }
  }
  if (row.device.empty()) row.device = first_named_device;
  for (const RankRecord* rec : input.records) {
    // Kineto's own layout puts baseTimeNanoseconds after the events; it still
    // dates the run (docs/design/contract.md, "Run order").
    TimeNs start_ns = rec->bounds.first + rec->metadata.late_base_time_ns;
    if (start_ns > 0 && (row.start_ns == 0 || start_ns < row.start_ns)) row.start_ns = start_ns;
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
  for (const Finding& f : input.findings) {
    row.finding_list.push_back(
        {f.rule_id, f.cause, f.fingerprint, std::string(FindingSeverityName(f.severity)),
         f.recoverable_ns_per_step, f.recoverable_share, f.one_time_ns, f.title,
         Minified(FindingJson(f))});
  }
  return row;
}

const std::vector<BatchFormat>& BatchFormats() {
  static const auto* formats = new std::vector<BatchFormat>{
      {"text", "the terminal table", &Text},
      {"markdown", "a pull-request comment", &Markdown},
      {"csv", "the runs table only", &Csv},
      {"json", "the table and its fleet sections (batch.schema.json)", &Json},
      // Records, not a table: one line per run (batch_records.h), what
      // --merge reads back; the command writes them itself.
      {"jsonl", "one record per run, for --merge", nullptr},
  };
  return *formats;
}

std::vector<std::string> BatchFormatNames() {
  std::vector<std::string> out;
  for (const BatchFormat& f : BatchFormats()) out.emplace_back(f.name);
  return out;
}

std::string RenderBatch(const BatchTable& table, std::string_view format) {
  for (const BatchFormat& f : BatchFormats()) {
    if (f.name == format && f.render != nullptr) return f.render(table);
  }
  return Text(table);
}

std::string RenderBatch(const std::vector<BatchRow>& rows, std::string_view format) {
  BatchTable table;
  table.rows = rows;
  return RenderBatch(table, format);
}

}  // namespace tracelint
