#include "cli/analyze_shard.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>

#include "analyzer/analysis/rank_record_io.h"
#include "analyzer/analysis/record_io.h"
#include "analyzer/base/json_writer.h"
#include "analyzer/base/version.h"
#include "analyzer/engine/outcome_io.h"
#include "cli/batch_shard.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace tracelint::record_io {

template <typename A> void Io(A& a, AnalyzeShardHeader::File& f) {
  a("path", f.path);
  a("bytes", f.bytes);
  a("shard", f.shard);
}
// The run's part of the header: what the hash covers.
template <typename A> void Io(A& a, AnalyzeShardHeader& h) {
  a("shards", h.shards);
  a("tool_version", h.tool_version);
  a("input", h.input);
  a("files", h.files);
  a("notes", h.notes);
  a("spans", h.spans);
  a("span_choice", h.span_choice);
  a("chosen_span", h.chosen_span);
  a("runs", h.runs);
  a("rules_glob", h.rules_glob);
  a("set_overrides", h.set_overrides);
  a("config_path", h.config_path);
  a("selected", h.selected);
  a("rule_options", h.rule_options);
  a("config_note", h.config_note);
}

}  // namespace tracelint::record_io

namespace tracelint {
namespace {

std::string HeaderRunJson(const AnalyzeShardHeader& header) {
  return record_io::ToJsonLine(header);
}

// The fields every record carries, so that a line is never read as another
// shard's or another run's.
void BeginRecord(JsonWriter& w, std::string_view type, const AnalyzeShardHeader& header) {
  w.BeginObject();
  w.Key("type").String(type);
  w.Key("version").Int(kAnalyzeShardVersion);
  w.Key("shard").Int(header.shard);
  w.Key("config").String(header.config_hash);
}

// Every line ends with the checksum of what precedes it: a line altered
// after it was written (a flipped bit, an edit) is damage the reader names,
// not values it would merge.
constexpr std::string_view kSumKey = ",\"sum\":\"";
constexpr size_t kSumSuffixBytes = kSumKey.size() + 16 + 2;  // key, 16 hex digits, "}

std::string Signed(std::string_view unsigned_line) {
  std::string line(unsigned_line);
  line += kSumKey;
  line += HashParts({std::string(unsigned_line)});
  line += "\"}";
  return line;
}

// The line without its checksum when the checksum holds, else nullopt.
std::optional<std::string_view> Verified(std::string_view line) {
  if (line.size() < kSumSuffixBytes || !line.ends_with("\"}")) return std::nullopt;
  std::string_view body = line.substr(0, line.size() - kSumSuffixBytes);
  std::string_view sum = line.substr(body.size());
  if (!sum.starts_with(kSumKey)) return std::nullopt;
  sum = sum.substr(kSumKey.size(), 16);
  if (HashParts({std::string(body)}) != sum) return std::nullopt;
  return body;
}

void EndLine(JsonWriter& w, std::string& out) {
  w.EndObject();
  std::string line = w.Finish();
  while (!line.empty() && line.back() == '\n') line.pop_back();
  // The writer's closing brace goes after the checksum.
  line.pop_back();
  out += Signed(line);
  out += '\n';
}

}  // namespace

AnalyzeShardHeader MakeShardHeader(const Discovery& discovery, int shard, int shards,
                                   const std::string& input, const PreparedRules& rules,
                                   const std::vector<std::string>& set_overrides,
                                   const std::string& config_note) {
  AnalyzeShardHeader h;
  h.shard = shard;
  h.shards = shards;
  h.tool_version = std::string(kToolVersion);
  h.input = input;
  // One stat per file: its size in the report's provenance (-1 unreadable,
  // as one process says it) and, at least 0, its weight in the split.
  std::vector<std::string> paths;
  std::vector<int64_t> weights;
  for (const TraceFileRef& f : discovery.files) {
    std::error_code ec;
    uintmax_t bytes = std::filesystem::file_size(f.path, ec);
    h.files.push_back({f.path, ec ? -1 : static_cast<int64_t>(bytes), 0});
    paths.push_back(f.path);
    weights.push_back(std::max<int64_t>(h.files.back().bytes, 0));
  }
  std::vector<int> shard_of = PartitionRuns(paths, weights, shards);
  for (size_t i = 0; i < paths.size(); ++i) h.files[i].shard = shard_of[i];
  h.notes = discovery.notes;
  h.spans = discovery.spans;
  h.span_choice = discovery.span_choice;
  h.chosen_span = discovery.chosen_span;
  h.runs = discovery.runs;
  h.rules_glob = rules.rules_glob;
  h.set_overrides = set_overrides;
  h.config_path = rules.config_path;
  h.selected = rules.selected;
  for (const std::string& id : rules.selected) {
    std::vector<std::pair<std::string, double>> values;
    auto it = rules.options.find(id);
    if (it != rules.options.end()) {
      for (const auto& [name, value] : it->second.values()) values.emplace_back(name, value);
    }
    h.rule_options.emplace_back(id, std::move(values));
  }
  h.config_note = config_note;
  h.config_hash = HashParts({"analyze-shard", std::to_string(kAnalyzeShardVersion),
                             HeaderRunJson(h)});
  return h;
}

Discovery ShardDiscovery(const Discovery& discovery, const AnalyzeShardHeader& header) {
  Discovery d = discovery;
  d.files.clear();
  for (size_t i = 0; i < discovery.files.size(); ++i) {
    if (header.files[i].shard == header.shard) d.files.push_back(discovery.files[i]);
  }
  return d;
}

std::string RenderShardPart(const AnalyzeShardHeader& header, const AnalyzedRun& analyzed) {
  std::string out;
  {
    JsonWriter w(/*compact=*/true);
    BeginRecord(w, "analyze-shard", header);
    w.Key("run").Raw(HeaderRunJson(header));
    EndLine(w, out);
  }
  for (size_t i = 0; i < analyzed.records.size(); ++i) {
    JsonWriter w(/*compact=*/true);
    BeginRecord(w, "rank", header);
    w.Key("path").String(analyzed.records[i].metadata.source_path);
    w.Key("record");
    WriteRankRecord(w, analyzed.records[i]);
    w.Key("outcomes");
    WriteRuleOutcomes(w, analyzed.rank_outcomes.at(i));
    EndLine(w, out);
  }
  for (const Run::Skipped& s : analyzed.run.skipped) {
    JsonWriter w(/*compact=*/true);
    BeginRecord(w, "skipped", header);
    w.Key("path").String(s.path);
    w.Key("reason").String(s.reason);
    EndLine(w, out);
  }
  JsonWriter w(/*compact=*/true);
  BeginRecord(w, "analyze-end", header);
  w.Key("ranks").Int(static_cast<int64_t>(analyzed.records.size()));
  w.Key("skipped").Int(static_cast<int64_t>(analyzed.run.skipped.size()));
  EndLine(w, out);
  return out;
}

absl::StatusOr<ShardPart> ParseShardPart(std::string_view text, const std::string& path) {
  ShardPart part;
  part.path = path;
  simdjson::dom::parser parser;
  bool have_header = false;
  int64_t line_no = 0;
  auto not_ours = [&](const std::string& where) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not a part of a sharded analyze (`tracelint analyze --shard`)", where));
  };
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = fmt::format("{}:{}", path, line_no);
    std::optional<std::string_view> body = Verified(line);
    simdjson::dom::object o;
    if (!body.has_value() ||
        parser.parse(simdjson::padded_string(std::string(*body) + "}")).get_object().get(o) !=
            simdjson::SUCCESS) {
      // A last line cut short (a node that died, a copy interrupted): the
      // records before it stand; the merge says the part is incomplete.
      if (have_header && end == text.size()) {
        part.truncated_at_line = line_no;
        break;
      }
      if (!body.has_value() && line.starts_with("{\"type\": ")) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: the line was altered after it was written (its checksum does not match)", where));
      }
      return not_ours(where);
    }
    std::string_view type, config;
    int64_t version = 0, shard = -1;
    if (o["type"].get_string().get(type) != simdjson::SUCCESS ||
        o["version"].get_int64().get(version) != simdjson::SUCCESS ||
        o["shard"].get_int64().get(shard) != simdjson::SUCCESS ||
        o["config"].get_string().get(config) != simdjson::SUCCESS) {
      return not_ours(where);
    }
    if (version != kAnalyzeShardVersion) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: part version {} (this tracelint reads {})", where, version, kAnalyzeShardVersion));
    }
    if (type == "analyze-shard") {
      if (have_header) return absl::InvalidArgumentError(fmt::format("{}: a second header", where));
      simdjson::dom::object run;
      if (o["run"].get_object().get(run) != simdjson::SUCCESS) return not_ours(where);
      std::string error;
      record_io::Reader reader(run, &error, "run");
      record_io::Io(reader, part.header);
      if (!error.empty()) return absl::InvalidArgumentError(fmt::format("{}: {}", where, error));
      part.header.shard = static_cast<int>(shard);
      part.header.config_hash = std::string(config);
      if (part.header.shards < 1 || shard < 0 || shard >= part.header.shards) {
        return absl::InvalidArgumentError(fmt::format("{}: shard {} of {}", where, shard,
                                                      part.header.shards));
      }
      have_header = true;
      continue;
    }
    if (!have_header) {
      return absl::InvalidArgumentError(
          fmt::format("{}: the header (\"type\": \"analyze-shard\") must come first", where));
    }
    if (shard != part.header.shard || config != part.header.config_hash) {
      return absl::InvalidArgumentError(
          fmt::format("{}: a record of another shard or run in the same file", where));
    }
    std::string_view file;
    if (type == "analyze-end") {
      part.complete = true;
    } else if (o["path"].get_string().get(file) != simdjson::SUCCESS) {
      return not_ours(where);
    } else if (type == "rank") {
      simdjson::dom::element record, outcomes;
      if (o["record"].get(record) != simdjson::SUCCESS ||
          o["outcomes"].get(outcomes) != simdjson::SUCCESS) {
        return not_ours(where);
      }
      ShardPart::Rank rank;
      absl::StatusOr<RankRecord> r = ReadRankRecord(record);
      if (!r.ok()) return absl::InvalidArgumentError(fmt::format("{}: {}", where, std::string(r.status().message())));
      absl::StatusOr<std::vector<RuleOutcome>> out = ReadRuleOutcomes(outcomes);
      if (!out.ok()) {
        return absl::InvalidArgumentError(fmt::format("{}: {}", where, std::string(out.status().message())));
      }
      rank.record = std::move(*r);
      rank.outcomes = std::move(*out);
      if (!part.ranks.emplace(std::string(file), std::move(rank)).second) {
        return absl::InvalidArgumentError(fmt::format("{}: {} appears twice", where, file));
      }
    } else if (type == "skipped") {
      std::string_view reason;
      if (o["reason"].get_string().get(reason) != simdjson::SUCCESS) return not_ours(where);
      part.skipped[std::string(file)] = std::string(reason);
    } else {
      return absl::InvalidArgumentError(fmt::format("{}: unknown record type '{}'", where, type));
    }
  }
  if (!have_header) {
    return absl::InvalidArgumentError(
        fmt::format("{}: no header; not a part of a sharded analyze (`tracelint analyze --shard`)",
                    path));
  }
  return part;
}

absl::StatusOr<ShardPart> ReadShardPart(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(fmt::format("cannot read {}", path));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return absl::DataLossError(fmt::format("cannot read {}", path));
  return ParseShardPart(ss.str(), path);
}

std::string ResignShardPart(std::string_view text) {
  std::string out;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    size_t sum = line.rfind(kSumKey);
    out += sum == std::string_view::npos ? std::string(line) : Signed(line.substr(0, sum));
    out += '\n';
  }
  return out;
}

}  // namespace tracelint
