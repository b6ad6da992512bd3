// `tracelint batch --merge`, and the output step `batch` shares with it.

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>

#include "absl/strings/string_view.h"
#include "analyzer/base/escape.h"
#include "analyzer/batch/price_table.h"
#include "cli/batch_output.h"
#include "cli/exit_codes.h"
#include "analyzer/report/json_writer.h"
#include "cli/report_output.h"
#include "cli/terminal.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

int Usage(std::ostream& err, absl::string_view message) {
  err << "tracelint: " << EscapeTerminal(std::string(message)) << "\n";
  return kExitUsage;
}

void Warn(std::ostream& err, std::string_view message) {
  err << "tracelint: warning: " << EscapeTerminal(message) << "\n";
}

}  // namespace

absl::StatusOr<BatchView> ViewOf(const BatchArgs& args) {
  BatchView view;
  view.sort = args.sort;
  view.group_by = args.group_by;
  view.batch_size = args.batch_size;
  view.batch_size_from = args.batch_size_from;
  view.trend = args.trend;
  view.trend_threshold = args.trend_threshold_pct / 100;
  if (args.batch_size < 0) return absl::InvalidArgumentError("--batch-size must be >= 0");
  if (args.batch_size > 0 && !args.batch_size_from.empty()) {
    return absl::InvalidArgumentError("--batch-size and --batch-size-from: give one");
  }
  if (!args.prices.empty()) {
    absl::StatusOr<PriceTable> prices = LoadPriceTable(args.prices);
    if (!prices.ok()) return absl::InvalidArgumentError(prices.status().message());
    view.prices = std::move(*prices);
  }
  if (absl::Status s = ValidateBatchView(view); !s.ok()) return s;
  return view;
}

std::string BatchRuleOptionsJson(const BatchArgs& args, const PreparedRules& rules) {
  JsonWriter w(/*compact=*/true);
  w.BeginObject();
  w.Key("rules").String(rules.rules_glob);
  w.Key("set").StringArray(args.engine.set_overrides);
  w.Key("config_path").String(rules.config_path);
  w.Key("selected_rules").StringArray(rules.selected);
  w.Key("rule_options").BeginObject();
  for (const std::string& id : rules.selected) {
    w.Key(id).BeginObject();
    auto it = rules.options.find(id);
    if (it != rules.options.end()) {
      for (const auto& [name, value] : it->second.values()) w.Key(name).Double(value);
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  std::string out = w.Finish();
  out.pop_back();
  return out;
}

std::string BatchOptionsJson(const BatchArgs& args, std::string_view rule_options_json) {
  JsonWriter w(/*compact=*/true);
  w.BeginObject();
  w.Key("max_depth").Int(args.max_depth);
  w.Key("batch_size").Int(args.batch_size);
  w.Key("batch_size_from").String(args.batch_size_from);
  w.Key("prices").String(args.prices);
  w.Key("group_by").String(args.group_by);
  w.Key("sort").String(args.sort);
  w.Key("trend").Bool(args.trend);
  w.EndObject();
  std::string view = w.Finish();
  view.pop_back();
  // Both are compact objects: their members joined are the one object a
  // single writer would have written, byte for byte.
  if (rule_options_json.size() <= 2) return view;
  return std::string(rule_options_json.substr(0, rule_options_json.size() - 1)) + "," +
         view.substr(1);
}

int BatchWidth(const BatchArgs& args, const std::ostream& out) {
  if (args.width >= 0) return args.width;
  if (!IsStdoutPath(args.output)) return 0;  // a file keeps every column whole
  if (IsStdoutTerminal(out)) {
    return ReportWidth(true, TerminalColumns(STDOUT_FILENO), std::getenv("COLUMNS"));
  }
  // Piped (`| less -S`, a CI log): COLUMNS when the user set it.
  const char* env = std::getenv("COLUMNS");
  if (env == nullptr) return 0;
  std::string_view text(env);
  int columns = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), columns);
  if (ec != std::errc() || ptr != text.data() + text.size() || columns <= 0) return 0;
  return ReportWidth(true, 0, env);
}

int FinishBatch(std::vector<BatchRecord> records, const BatchView& view, const BatchArgs& args,
                int extra_exit, std::ostream& out, std::ostream& err,
                const std::string& options_json) {
  std::vector<BatchRow> rows;
  int exit_code = extra_exit;
  for (BatchRecord& rec : records) {
    for (const std::string& w : rec.warnings) Warn(err, w);
    if (rec.row.status == BatchStatus::kError) {
      err << "tracelint: " << EscapeTerminal(rec.row.error) << "\n";
      exit_code = CombineExitCodes(exit_code, kExitUnreadable);
    } else if (rec.row.status == BatchStatus::kDamaged || rec.row.status == BatchStatus::kMissing) {
      exit_code = CombineExitCodes(exit_code, kExitDamaged);
    } else if (rec.row.status == BatchStatus::kNotJudgeable) {
      exit_code = CombineExitCodes(exit_code, kExitNotJudgeable);
    }
    rows.push_back(std::move(rec.row));
  }
  absl::StatusOr<BatchTable> table = ApplyBatchView(std::move(rows), view);
  if (!table.ok()) return Usage(err, table.status().message());
  table->options_json = options_json;
  table->width_columns = BatchWidth(args, out);
  if (absl::Status s = WriteReport(RenderBatch(*table, args.format), args.output, out); !s.ok()) {
    PrintWriteError(err, s);
    return CombineExitCodes(exit_code, kExitWriteFailed);
  }
  return exit_code;
}

int RunBatchMerge(const BatchArgs& args, std::ostream& out, std::ostream& err) {
  if (args.format != "text" && args.format != "markdown" && args.format != "csv" &&
      args.format != "json") {
    return Usage(err, fmt::format("batch --merge writes text, markdown, csv or json, not '{}'",
                                  args.format));
  }
  if (!args.shard.empty() || args.shards > 0) {
    return Usage(err, "batch --merge takes the shard outputs; --shard/--shards do not apply");
  }
  absl::StatusOr<BatchView> view = ViewOf(args);
  if (!view.ok()) return Usage(err, view.status().message());
  if (args.paths.empty()) return Usage(err, "batch --merge needs the shard outputs to merge");
  // The inputs are shard outputs, not traces: the table may go beside
  // them, never over one of them.
  if (!IsStdoutPath(args.output)) {
    std::error_code ec;
    std::filesystem::path target = std::filesystem::weakly_canonical(args.output, ec);
    for (const std::string& path : args.paths) {
      std::error_code ec2;
      if (std::filesystem::weakly_canonical(path, ec2) == target ||
          std::filesystem::equivalent(path, args.output, ec2)) {
        return Usage(err, fmt::format("refusing to write {}: it is a shard output being merged",
                                      args.output));
      }
    }
  }

  // Unreadable or damaged files are warnings: their shards' runs are
  // listed as missing below, never silently dropped.
  std::vector<ShardFile> files;
  for (const std::string& path : args.paths) {
    absl::StatusOr<ShardFile> file = ReadShardFile(path);
    if (!file.ok()) {
      Warn(err, fmt::format("{} (its shard's runs are listed as missing)",
                            std::string(file.status().message())));
      continue;
    }
    files.push_back(std::move(*file));
  }
  if (files.empty()) {
    err << "tracelint: no shard output could be read\n";
    return kExitUnreadable;
  }
  const ShardFile& first = files.front();
  for (const ShardFile& f : files) {
    if (f.info.config_hash != first.info.config_hash) {
      return Usage(err,
                   fmt::format("{} and {} were made with different configurations (rules, options, "
                               "paths or --max-depth; config {} vs {}); merge outputs of one batch",
                               first.path, f.path, first.info.config_hash, f.info.config_hash));
    }
    bool same_partition =
        f.info.shards == first.info.shards && f.slots.size() == first.slots.size() &&
        std::equal(f.slots.begin(), f.slots.end(), first.slots.begin(),
                   [](const BatchSlot& a, const BatchSlot& b) {
                     return a.index == b.index && a.run == b.run && a.shard == b.shard;
                   });
    if (!same_partition) {
      return Usage(err,
                   fmt::format("{} and {} disagree on the runs found or their shards (the archive "
                               "changed between shards?); run the batch again",
                               first.path, f.path));
    }
  }

  // Records by slot; a shard given twice counts once.
  std::map<int64_t, int> slot_shard;
  for (const BatchSlot& slot : first.slots) slot_shard[slot.index] = slot.shard;
  std::map<int, const ShardFile*> by_shard;
  std::map<int64_t, std::vector<const BatchRecord*>> by_slot;
  for (const ShardFile& f : files) {
    auto [it, fresh] = by_shard.emplace(f.info.shard, &f);
    if (!fresh) {
      Warn(err, fmt::format("{} is shard {}/{} again ({}); read once", f.path, f.info.shard,
                            f.info.shards, it->second->path));
      continue;
    }
    for (const BatchRecord& rec : f.records) {
      // A record belongs to one slot of this shard, once: a line copied
      // twice, or a record of another shard's run, would count a run twice.
      auto slot = slot_shard.find(rec.index);
      if (slot == slot_shard.end() || slot->second != f.info.shard) {
        Warn(err, fmt::format("{}: a record for run #{} that is not shard {}/{}'s; ignored",
                              f.path, rec.index, f.info.shard, f.info.shards));
        continue;
      }
      std::vector<const BatchRecord*>& recs = by_slot[rec.index];
      bool repeated = std::any_of(recs.begin(), recs.end(),
                                  [&](const BatchRecord* r) { return r->sub == rec.sub; });
      if (repeated) {
        Warn(err, fmt::format("{}: the record for {} appears more than once; read once", f.path,
                              rec.row.run));
        continue;
      }
      recs.push_back(&rec);
    }
  }
  int shards = first.info.shards;
  std::set<int> shards_with_runs;
  for (const BatchSlot& s : first.slots) shards_with_runs.insert(s.shard);
  for (int s = 0; s < shards; ++s) {
    auto it = by_shard.find(s);
    if (it == by_shard.end()) {
      if (shards_with_runs.count(s)) {
        Warn(err, fmt::format("shard {}/{}: no output given; its runs are listed as missing", s,
                              shards));
      }
    } else if (!it->second->complete) {
      Warn(err, fmt::format("shard {}/{} ({}) is incomplete: {}; runs without a record are "
                            "listed as missing",
                            s, shards, it->second->path,
                            it->second->truncated_at_line > 0
                                ? fmt::format("line {} is cut short", it->second->truncated_at_line)
                                : std::string("it has no end record")));
    }
  }

  std::vector<BatchRecord> records;
  int missing = 0;
  for (const BatchSlot& slot : first.slots) {
    auto it = by_slot.find(slot.index);
    if (it == by_slot.end() || !by_shard.count(slot.shard)) {
      BatchRecord& rec = records.emplace_back();
      rec.index = slot.index;
      rec.row.run = slot.run;
      rec.row.root = slot.root;
      rec.row.status = BatchStatus::kMissing;
      rec.row.error = by_shard.count(slot.shard)
                          ? fmt::format("no record in shard {}/{}'s output", slot.shard, shards)
                          : fmt::format("shard {}/{} wrote no output", slot.shard, shards);
      ++missing;
      continue;
    }
    std::vector<const BatchRecord*> recs = it->second;
    std::stable_sort(recs.begin(), recs.end(),
                     [](const BatchRecord* a, const BatchRecord* b) { return a->sub < b->sub; });
    for (const BatchRecord* r : recs) records.push_back(*r);
  }
  if (missing > 0) {
    Warn(err, fmt::format("{} of {} runs missing from the merge", missing, first.slots.size()));
  }
  // The shard header carries the rules the shards ran with (all the same:
  // one configuration hash); the view options are the merge's own.
  return FinishBatch(std::move(records), *view, args, missing > 0 ? kExitDamaged : kExitOk, out,
                     err, BatchOptionsJson(args, first.info.rule_options_json));
}

}  // namespace tracelint
