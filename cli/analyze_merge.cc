// `tracelint analyze --merge`: the parts of a sharded analyze combined into
// the run one process would have analysed (analyze_shard.h).

#include <algorithm>
#include <map>
#include <set>

#include "analyzer/base/version.h"
#include "cli/analyze_shard.h"
#include "fmt/format.h"
#include "parsers/load_run.h"
#include "parsers/run_groups.h"

namespace tracelint {
namespace {

PreparedRules RulesOf(const AnalyzeShardHeader& h) {
  PreparedRules rules;
  rules.config_path = h.config_path;
  rules.rules_glob = h.rules_glob;
  rules.selected = h.selected;
  for (const auto& [id, values] : h.rule_options) {
    std::map<std::string, double> map(values.begin(), values.end());
    rules.options[id] = RuleOptions(std::move(map));
  }
  return rules;
}

// The rules a part names must be this build's, with the options it
// declares: a part is data from a file, and the engine's lookups of options
// trust the registry.
absl::Status CheckRules(const PreparedRules& rules, const RuleRegistry& registry,
                        const std::string& path) {
  for (const std::string& id : rules.selected) {
    const Rule* rule = registry.Find(id);
    if (rule == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("{}: names rule '{}', which this tracelint does not have", path, id));
    }
    auto it = rules.options.find(id);
    for (const RuleOptionSpec& spec : rule->options()) {
      if (it == rules.options.end() || !it->second.values().count(spec.name)) {
        return absl::InvalidArgumentError(
            fmt::format("{}: rule '{}' lacks its option {}", path, id, spec.name));
      }
      const double value = it->second.values().at(spec.name);
      if (!(value >= spec.min_value && value <= spec.max_value)) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: rule '{}' option {} = {} is outside [{}, {}]", path, id, spec.name, value,
            spec.min_value, spec.max_value));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MergedShards> MergeShardParts(const std::vector<std::string>& paths,
                                             const RuleRegistry& registry,
                                             std::vector<std::string>& warnings) {
  // Unreadable or damaged parts are warnings: their files are reported as
  // not read, never silently dropped.
  std::vector<ShardPart> parts;
  for (const std::string& path : paths) {
    absl::StatusOr<ShardPart> part = ReadShardPart(path);
    if (!part.ok()) {
      warnings.push_back(fmt::format("{} (its shard's ranks are reported as not read)",
                                     std::string(part.status().message())));
      continue;
    }
    parts.push_back(std::move(*part));
  }
  if (parts.empty()) return absl::FailedPreconditionError("no part could be read");
  const ShardPart& first = parts.front();
  for (const ShardPart& p : parts) {
    if (p.header.config_hash != first.header.config_hash) {
      return absl::InvalidArgumentError(fmt::format(
          "{} and {} are parts of different runs or configurations (the input, its files, the "
          "rules or the tracelint version differ: {} vs {}); merge the parts of one sharded "
          "analyze",
          first.path, p.path, first.header.config_hash, p.header.config_hash));
    }
  }
  MergedShards merged;
  merged.header = first.header;
  const AnalyzeShardHeader& h = merged.header;
  if (h.tool_version != kToolVersion) {
    return absl::InvalidArgumentError(
        fmt::format("{} was written by tracelint {}; this is {}: merge with the version that "
                    "wrote the parts",
                    first.path, h.tool_version, kToolVersion));
  }
  merged.rules = RulesOf(h);
  if (absl::Status s = CheckRules(merged.rules, registry, first.path); !s.ok()) return s;

  std::map<int, ShardPart*> by_shard;
  for (ShardPart& p : parts) {
    auto [it, fresh] = by_shard.emplace(p.header.shard, &p);
    if (!fresh) {
      warnings.push_back(fmt::format("{} is shard {}/{} again ({}); read once", p.path,
                                     p.header.shard, h.shards, it->second->path));
    }
  }
  std::set<int> shards_with_files;
  for (const AnalyzeShardHeader::File& f : h.files) shards_with_files.insert(f.shard);
  for (int s = 0; s < h.shards; ++s) {
    auto it = by_shard.find(s);
    if (it == by_shard.end()) {
      if (shards_with_files.count(s)) {
        warnings.push_back(fmt::format(
            "shard {}/{}: no part given; its files are reported as not read", s, h.shards));
      }
    } else if (!it->second->complete) {
      warnings.push_back(fmt::format(
          "shard {}/{} ({}) is incomplete: {}; its files without a record are reported as not "
          "read",
          s, h.shards, it->second->path,
          it->second->truncated_at_line > 0
              ? fmt::format("line {} is cut short", it->second->truncated_at_line)
              : std::string("it has no end record")));
    }
  }

  // The run as LoadRun and AnalyzeDiscovered would have left it: files
  // that could not be read in file order, then the ranks in rank order.
  AnalyzedRun& run = merged.analyzed;
  run.discovery.notes = h.notes;
  run.discovery.spans = h.spans;
  run.discovery.span_choice = h.span_choice;
  run.discovery.chosen_span = h.chosen_span;
  run.discovery.runs = h.runs;
  // Moved from below: a record is read once and kept once (on 1,024 ranks,
  // about 300 MB of them).
  std::vector<ShardPart::Rank*> loaded;
  std::vector<RankAndPath> keys;
  std::set<std::string> seen;
  for (const AnalyzeShardHeader::File& f : h.files) {
    if (!seen.insert(f.path).second) {
      return absl::InvalidArgumentError(
          fmt::format("{}: the run lists file {} twice", first.path, f.path));
    }
    TraceFileRef ref;
    ref.path = f.path;
    run.discovery.files.push_back(ref);
    run.file_bytes[f.path] = f.bytes;
    if (f.shard < 0 || f.shard >= h.shards) {
      return absl::InvalidArgumentError(
          fmt::format("{}: file {} is in shard {} of {}", first.path, f.path, f.shard, h.shards));
    }
    auto part = by_shard.find(f.shard);
    std::string reason;
    if (part == by_shard.end()) {
      reason = fmt::format("{}: not merged: shard {}/{} gave no part", f.path, f.shard, h.shards);
    } else if (auto rank = part->second->ranks.find(f.path); rank != part->second->ranks.end()) {
      loaded.push_back(&rank->second);
      keys.push_back({rank->second.record.metadata.rank, f.path});
      continue;
    } else if (auto skip = part->second->skipped.find(f.path);
               skip != part->second->skipped.end()) {
      reason = skip->second;
    } else {
      reason = fmt::format("{}: not merged: no record in shard {}/{}'s part ({})", f.path,
                           f.shard, h.shards, part->second->path);
    }
    run.run.warnings.push_back("skipped: " + reason);
    run.run.skipped.push_back({f.path, reason});
    ++run.run.files_skipped;
  }
  for (const ShardPart& p : parts) {
    for (const auto& entry : p.ranks) {
      const std::string& path = entry.first;
      bool ours = std::any_of(h.files.begin(), h.files.end(), [&](const auto& f) {
        return f.path == path && f.shard == p.header.shard;
      });
      if (!ours) {
        warnings.push_back(fmt::format("{}: a record for {}, which is not shard {}/{}'s; ignored",
                                       p.path, path, p.header.shard, h.shards));
      }
    }
  }
  if (loaded.empty()) {
    // As one process fails on a run none of whose files it can read: the
    // first file's reason.
    return absl::FailedPreconditionError(run.run.skipped.empty() ? std::string("no rank to merge")
                                                                 : run.run.skipped.front().reason);
  }
  const std::vector<size_t> order = RankOrder(keys);
  for (std::string& w : DuplicateRankWarnings(keys, order)) run.run.warnings.push_back(std::move(w));
  std::vector<std::vector<RuleOutcome>> outcomes;
  for (size_t i : order) {
    RankRecord record = std::move(loaded[i]->record);
    // One process adds cross-rank data only to a run of several files.
    if (h.files.size() == 1) record.cross_rank = RankCrossData{};
    run.file_facts.push_back(FactsOf(record.metadata, record.bounds));
    run.records.push_back(std::move(record));
    outcomes.push_back(std::move(loaded[i]->outcomes));
  }
  run.grouping = GroupIntoRuns(run.file_facts);
  if (!run.several_runs()) {
    run.engine = MergeRankOutcomes(registry, merged.rules, run.RecordPointers(), std::move(outcomes));
  }
  return merged;
}

}  // namespace tracelint
