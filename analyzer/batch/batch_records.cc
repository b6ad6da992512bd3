#include "analyzer/batch/batch_records.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "analyzer/base/json_escape.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace tracelint {
namespace {

// A compact one-line JSON object writer: fields in the order written.
class Line {
 public:
  Line& Str(std::string_view key, std::string_view v) {
    return Raw(key, "\"" + JsonEscape(v) + "\"");
  }
  Line& Int(std::string_view key, int64_t v) { return Raw(key, fmt::format("{}", v)); }
  // Shortest form that reads back to the same double: merged tables match.
  Line& Dbl(std::string_view key, double v) {
    return Raw(key, std::isfinite(v) ? fmt::format("{}", v) : "null");
  }
  Line& OptDbl(std::string_view key, const std::optional<double>& v) {
    return v ? Dbl(key, *v) : Raw(key, "null");
  }
  Line& Raw(std::string_view key, std::string_view json) {
    out_ += out_.empty() ? "{" : ",";
    out_ += "\"" + JsonEscape(key) + "\":";
    out_ += json;
    return *this;
  }
  std::string Object() const { return out_.empty() ? "{}" : out_ + "}"; }
  std::string Finish() const { return Object() + "\n"; }

 private:
  std::string out_;
};

void Common(Line& line, std::string_view type, const BatchShardInfo& info) {
  line.Str("type", type)
      .Int("version", kBatchRecordVersion)
      .Str("config", info.config_hash)
      .Int("shard", info.shard)
      .Int("shards", info.shards);
}

using simdjson::dom::element;
using simdjson::dom::object;

// Field readers: a missing or mistyped field is one error naming it.
class Fields {
 public:
  Fields(object o, std::string where) : o_(o), where_(std::move(where)) {}
  const absl::Status& status() const { return status_; }

  int64_t Int(std::string_view key) {
    int64_t v = 0;
    if (o_[key].get_int64().get(v) != simdjson::SUCCESS) Fail(key);
    return v;
  }
  double Dbl(std::string_view key) {
    double v = 0;
    if (o_[key].get_double().get(v) != simdjson::SUCCESS) Fail(key);
    return v;
  }
  std::optional<double> OptDbl(std::string_view key) {
    element e;
    if (o_[key].get(e) != simdjson::SUCCESS) {
      Fail(key);
      return std::nullopt;
    }
    if (e.is_null()) return std::nullopt;
    double v = 0;
    if (e.get_double().get(v) != simdjson::SUCCESS) Fail(key);
    return v;
  }
  std::string Str(std::string_view key) {
    std::string_view v;
    if (o_[key].get_string().get(v) != simdjson::SUCCESS) Fail(key);
    return std::string(v);
  }
  // A field later versions added: absent reads as `fallback`; present, it
  // must be a string.
  std::string StrOr(std::string_view key, std::string_view fallback) {
    simdjson::dom::element e;
    if (o_[key].get(e) != simdjson::SUCCESS) return std::string(fallback);
    return Str(key);
  }
  std::vector<object> Objects(std::string_view key) {
    std::vector<object> out;
    simdjson::dom::array a;
    if (o_[key].get_array().get(a) != simdjson::SUCCESS) {
      Fail(key);
      return out;
    }
    for (element e : a) {
      object item;
      if (e.get_object().get(item) != simdjson::SUCCESS) {
        Fail(key);
        return {};
      }
      out.push_back(item);
    }
    return out;
  }
  std::vector<std::string> Strings(std::string_view key) {
    std::vector<std::string> out;
    simdjson::dom::array a;
    if (o_[key].get_array().get(a) != simdjson::SUCCESS) {
      Fail(key);
      return out;
    }
    for (element e : a) {
      std::string_view s;
      if (e.get_string().get(s) != simdjson::SUCCESS) {
        Fail(key);
        return {};
      }
      out.emplace_back(s);
    }
    return out;
  }

 private:
  void Fail(std::string_view key) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(
          fmt::format("{}: field \"{}\" missing or of the wrong type", where_, key));
    }
  }
  object o_;
  std::string where_;
  absl::Status status_;
};

absl::StatusOr<BatchStatus> StatusFromName(std::string_view name) {
  for (BatchStatus s :
       {BatchStatus::kOk, BatchStatus::kDamaged, BatchStatus::kError, BatchStatus::kMissing,
        BatchStatus::kNotJudgeable}) {
    if (BatchStatusName(s) == name) return s;
  }
  return absl::InvalidArgumentError(fmt::format("unknown status '{}'", name));
}

absl::Status ReadRun(Fields& f, BatchRecord& rec) {
  rec.index = f.Int("index");
  rec.sub = static_cast<int>(f.Int("sub"));
  BatchRow& r = rec.row;
  r.run = f.Str("run");
  r.root = f.Str("root");
  absl::StatusOr<BatchStatus> status = StatusFromName(f.Str("status"));
  if (!status.ok()) return status.status();
  r.status = *status;
  r.error = f.Str("error");
  r.ranks = static_cast<int>(f.Int("ranks"));
  r.steps = f.Int("steps");
  r.mean_step_ns = f.Int("mean_step_ns");
  r.gpu_utilization = f.OptDbl("gpu_utilization");
  r.findings = static_cast<int>(f.Int("findings_count"));
  r.recoverable_ns_per_step = f.Int("recoverable_ns_per_step");
  r.recoverable_share = f.Dbl("recoverable_share");
  r.top_finding = f.Str("top_finding");
  r.top_ns_per_step = f.Int("top_ns_per_step");
  r.top_share = f.Dbl("top_share");
  r.device = f.Str("device");
  r.accelerator = f.StrOr("accelerator", "GPU");  // shards from before the field
  r.devices = static_cast<int>(f.Int("devices"));
  r.start_ns = f.Int("start_ns");
  rec.warnings = f.Strings("warnings");
  for (object o : f.Objects("findings")) {
    Fields ff(o, "finding");
    BatchFinding& bf = r.finding_list.emplace_back();
    bf.rule_id = ff.Str("rule_id");
    bf.cause = ff.Str("cause");
    bf.fingerprint = ff.Str("fingerprint");
    bf.severity = ff.Str("severity");
    bf.recoverable_ns_per_step = ff.Int("recoverable_ns_per_step");
    bf.recoverable_share = ff.Dbl("recoverable_share");
    bf.one_time_ns = ff.Int("one_time_ns");
    bf.title = ff.Str("title");
    if (!ff.status().ok()) return ff.status();
    // The whole finding (analyze's fields), kept as written.
    bf.json = simdjson::minify(o);
  }
  return f.status();
}

}  // namespace

std::string ShardHeaderRecord(const BatchShardInfo& info, const std::vector<BatchSlot>& slots) {
  Line line;
  Common(line, "batch-shard", info);
  line.Str("tool", "tracelint");
  if (!info.rule_options_json.empty()) line.Str("rule_options", info.rule_options_json);
  std::string list = "[";
  for (size_t i = 0; i < slots.size(); ++i) {
    Line s;
    s.Int("index", slots[i].index)
        .Str("run", slots[i].run)
        .Str("root", slots[i].root)
        .Int("shard", slots[i].shard);
    list += (i ? "," : "") + s.Object();
  }
  line.Raw("slots", list + "]");
  return line.Finish();
}

std::string RunRecord(const BatchShardInfo& info, const BatchRecord& rec) {
  const BatchRow& r = rec.row;
  Line line;
  Common(line, "run", info);
  line.Int("index", rec.index)
      .Int("sub", rec.sub)
      .Str("run", r.run)
      .Str("root", r.root)
      .Str("status", BatchStatusName(r.status))
      .Str("error", r.error)
      .Int("ranks", r.ranks)
      .Int("steps", r.steps)
      .Int("mean_step_ns", r.mean_step_ns)
      .OptDbl("gpu_utilization", r.gpu_utilization)
      .Int("findings_count", r.findings)
      .Int("recoverable_ns_per_step", r.recoverable_ns_per_step)
      .Dbl("recoverable_share", r.recoverable_share)
      .Str("top_finding", r.top_finding)
      .Int("top_ns_per_step", r.top_ns_per_step)
      .Dbl("top_share", r.top_share)
      .Str("device", r.device)
      .Str("accelerator", r.accelerator)
      .Int("devices", r.devices)
      .Int("start_ns", r.start_ns);
  std::string warnings = "[";
  for (size_t i = 0; i < rec.warnings.size(); ++i) {
    warnings += (i ? ",\"" : "\"") + JsonEscape(rec.warnings[i]) + "\"";
  }
  line.Raw("warnings", warnings + "]");
  std::string findings = "[";
  for (size_t i = 0; i < r.finding_list.size(); ++i) {
    const BatchFinding& f = r.finding_list[i];
    if (!f.json.empty()) {  // analyze's finding, which holds the fields below
      findings += (i ? "," : "") + f.json;
      continue;
    }
    Line fl;
    fl.Str("rule_id", f.rule_id)
        .Str("cause", f.cause)
        .Str("fingerprint", f.fingerprint)
        .Str("severity", f.severity)
        .Int("recoverable_ns_per_step", f.recoverable_ns_per_step)
        .Dbl("recoverable_share", f.recoverable_share)
        .Int("one_time_ns", f.one_time_ns)
        .Str("title", f.title);
    findings += (i ? "," : "") + fl.Object();
  }
  line.Raw("findings", findings + "]");
  return line.Finish();
}

std::string ShardEndRecord(const BatchShardInfo& info, int64_t records) {
  Line line;
  Common(line, "batch-end", info);
  line.Int("records", records);
  return line.Finish();
}

absl::StatusOr<ShardFile> ParseShardRecords(std::string_view text, const std::string& path) {
  ShardFile file;
  file.path = path;
  simdjson::dom::parser parser;
  bool have_header = false;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::string where = fmt::format("{}:{}", path, line_no);
    object o;
    if (parser.parse(simdjson::padded_string(line)).get_object().get(o) != simdjson::SUCCESS) {
      // A last line cut short (a copy interrupted): keep the whole records
      // before it; the file has no end record, so the merge says it is
      // incomplete and lists the runs without a record as missing.
      if (have_header && end == text.size()) {
        file.truncated_at_line = static_cast<int64_t>(line_no);
        break;
      }
      return absl::InvalidArgumentError(
          fmt::format("{}: not a tracelint batch record (--format jsonl)", where));
    }
    Fields f(o, where);
    std::string_view type_view;
    if (o["type"].get_string().get(type_view) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError(
          fmt::format("{}: not a tracelint batch record (--format jsonl)", where));
    }
    std::string type(type_view);
    int64_t version = f.Int("version");
    BatchShardInfo info;
    info.config_hash = f.Str("config");
    info.shard = static_cast<int>(f.Int("shard"));
    info.shards = static_cast<int>(f.Int("shards"));
    if (!f.status().ok()) return f.status();
    if (version != kBatchRecordVersion) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: record version {} (this tracelint reads {})", where, version, kBatchRecordVersion));
    }
    if (have_header && (info.config_hash != file.info.config_hash ||
                        info.shard != file.info.shard || info.shards != file.info.shards)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: a record of another shard or configuration in the same file", where));
    }
    if (type == "batch-shard") {
      if (have_header) {
        return absl::InvalidArgumentError(fmt::format("{}: a second shard header", where));
      }
      have_header = true;
      file.info = info;
      // Optional: records of an older tracelint do not carry it.
      std::string_view rule_options;
      if (o["rule_options"].get_string().get(rule_options) == simdjson::SUCCESS) {
        file.info.rule_options_json = std::string(rule_options);
      }
      for (object s : f.Objects("slots")) {
        Fields sf(s, where);
        BatchSlot& slot = file.slots.emplace_back();
        slot.index = sf.Int("index");
        slot.run = sf.Str("run");
        slot.root = sf.Str("root");
        slot.shard = static_cast<int>(sf.Int("shard"));
        if (!sf.status().ok()) return sf.status();
      }
      if (!f.status().ok()) return f.status();
    } else if (!have_header) {
      return absl::InvalidArgumentError(
          fmt::format("{}: the shard header (\"type\": \"batch-shard\") must come first", where));
    } else if (type == "run") {
      BatchRecord& rec = file.records.emplace_back();
      if (absl::Status s = ReadRun(f, rec); !s.ok()) {
        return absl::InvalidArgumentError(fmt::format("{}: {}", where, std::string(s.message())));
      }
    } else if (type == "batch-end") {
      file.complete = true;
    } else {
      return absl::InvalidArgumentError(fmt::format("{}: unknown record type '{}'", where, type));
    }
  }
  if (!have_header) {
    return absl::InvalidArgumentError(
        fmt::format("{}: no shard header; not a `tracelint batch --format jsonl` output", path));
  }
  return file;
}

absl::StatusOr<ShardFile> ReadShardFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(fmt::format("cannot read {}", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseShardRecords(ss.str(), path);
}

}  // namespace tracelint
