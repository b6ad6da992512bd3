#include "analyzer/engine/engine.h"

#include "analyzer/analysis/rank_record.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "analyzer/analysis/cross_rank.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/outlier_owners.h"
#include "analyzer/analysis/outlier_steps.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/engine/fingerprint.h"
#include "analyzer/engine/options.h"
#include "analyzer/engine/ranking.h"
#include "analyzer/engine/selection.h"
#include "analyzer/model/timeline.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// Tolerance for the savings invariant: shares are ratios of integers
// rounded once by the rules.
constexpr double kShareSlack = 1e-6;

// Zeroes what is not finite so no NaN reaches a report; says so.
void Sanitize(Finding& f, std::vector<std::string>& warnings) {
  auto fix = [&](double& v, std::string_view what) {
    if (!std::isfinite(v)) {
      warnings.push_back(fmt::format("{}: non-finite {} replaced by 0", f.rule_id, what));
      v = 0;
    }
  };
  fix(f.recoverable_share, "recoverable share");
  for (Evidence& e : f.evidence) {
    fix(e.value, "evidence value");
    fix(e.threshold, "evidence threshold");
  }
  if (f.recoverable_ns_per_step < 0) {
    warnings.push_back(fmt::format("{}: negative recoverable time replaced by 0", f.rule_id));
    f.recoverable_ns_per_step = 0;
  }
  for (TimeNs& ns : f.recoverable_ns_steps) ns = std::max<TimeNs>(ns, 0);
  if (f.recoverable_share < 0) f.recoverable_share = 0;
}

// Scales a finding's recoverable time, mean and per step alike, so the
// samples diff tests stay consistent with the mean the report shows.
static_assert(static_cast<int>(Confidence::kInferred) == 0 &&
              static_cast<int>(Confidence::kMeasured) == 2,
              "TraceIntegrity::max_confidence uses Confidence's values");

const WithheldCause* WithheldFor(const TraceIntegrity& integrity, std::string_view cause) {
  for (const WithheldCause& w : integrity.withheld) {
    if (w.cause == cause) return &w;
  }
  return nullptr;
}

// What the trace's integrity allows a finding to claim (trace_integrity.h):
// the one place where it lowers confidence and caps claims.
void ApplyIntegrity(const TraceIntegrity& integrity, Finding& f) {
  if (integrity.confidence_levels_down > 0 && f.one_time_ns == 0) {
    f.confidence = static_cast<Confidence>(
        std::max(0, static_cast<int>(f.confidence) - integrity.confidence_levels_down));
  }
  if (static_cast<int>(f.confidence) > integrity.max_confidence) {
    f.confidence = static_cast<Confidence>(integrity.max_confidence);
  }
  if (f.recoverable_share > integrity.max_claim_share) {
    ScaleRecoverable(f, integrity.max_claim_share / f.recoverable_share);
    f.recoverable_share = integrity.max_claim_share;
    f.evidence.push_back({fmt::format("claim capped at {:.0f}% of the step: {}",
                                      integrity.max_claim_share * 100, integrity.summary),
                          integrity.max_claim_share, integrity.max_claim_share, "share"});
  }
}

// Lists a rule as not judged for `reason`, once per (rule, reason): ranks
// usually fail for the same reason.
void NoteNotJudged(const std::string& id, std::string reason, EngineResult& result,
                   std::set<std::pair<std::string, std::string>>& seen) {
  if (!seen.insert({id, reason}).second) return;
  RuleOutcome entry;
  entry.rule_id = id;
  entry.applicable = false;
  entry.not_judged_reason = std::move(reason);
  result.not_judged.push_back(std::move(entry));
}

// A finding a cross-rank hook added stands on every rank's trace: withheld
// (listed as not judged) when any rank is a fragment or withholds its cause,
// otherwise capped by the integrity of the rank it is located at.
bool AdmitCrossRank(const std::vector<const RankRecord*>& ranks,
                    const std::vector<int>& rank_names,
                    const std::string& id, Finding& f, EngineResult& result,
                    std::set<std::pair<std::string, std::string>>& not_judged_seen) {
  for (size_t r = 0; r < ranks.size(); ++r) {
    const TraceIntegrity& integrity = ranks[r]->summary.integrity;
    const WithheldCause* w = WithheldFor(integrity, f.cause);
    if (w == nullptr && !integrity.fragment()) continue;
    std::string reason = fmt::format("{} withheld: rank {}: {}", f.cause, rank_names[r],
                                     w != nullptr ? w->reason : integrity.fragment_reason);
    NoteNotJudged(id, std::move(reason), result, not_judged_seen);
    return false;
  }
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (rank_names[r] == f.location.rank) ApplyIntegrity(ranks[r]->summary.integrity, f);
  }
  return true;
}

std::string PerRankText(const RankValue& v) {
  if (!v.fired) return fmt::format("rank {}: below threshold", v.rank);
  return fmt::format("rank {}: {} ({:.1f}% of step)", v.rank,
                     FormatDurationNs(v.recoverable_ns_per_step), v.recoverable_share * 100);
}

}  // namespace

absl::StatusOr<PreparedRules> PrepareRules(const RuleRegistry& registry,
                                           const EngineOptions& options) {
  if (!registry.status().ok()) return registry.status();
  PreparedRules out;
  out.config_path = options.config_path;
  std::vector<OptionOverride> overrides;
  out.rules_glob = options.rules_glob;
  if (!out.config_path.empty()) {
    absl::StatusOr<ConfigFile> config = LoadConfig(out.config_path);
    if (!config.ok()) return config.status();
    overrides = std::move(config->overrides);
    // An explicit --rules wins over the file, as --set wins over its options.
    if (!options.rules_given && !config->rules_glob.empty()) out.rules_glob = config->rules_glob;
  }
  for (const std::string& text : options.set_overrides) {
    absl::StatusOr<OptionOverride> o = ParseSetOverride(text);
    if (!o.ok()) return o.status();
    overrides.push_back(std::move(*o));
  }
  absl::StatusOr<std::map<std::string, RuleOptions>> resolved =
      ResolveOptions(registry, overrides);
  if (!resolved.ok()) return resolved.status();
  out.options = std::move(*resolved);
  absl::StatusOr<std::vector<std::string>> selected =
      SelectRules(registry, out.rules_glob);
  if (!selected.ok()) return selected.status();
  out.selected = std::move(*selected);
  return out;
}

// The extra time of each outlier step goes on the finding of the cause that
// owns it (outlier_owners.h), never into a saving.
constexpr size_t kOutlierLinesPerFinding = 3;

static void AttachOutliers(AnalysisContext& rank, std::vector<RuleOutcome>& outcomes) {
  if (rank.outlier_steps().indices.empty()) return;
  const StepSet& steps = rank.steady_steps();
  for (const OutlierOwner& o : AttributeOutliers(rank)) {
    if (o.rule_id.empty()) continue;
    for (RuleOutcome& outcome : outcomes) {
      if (outcome.rule_id != o.rule_id || !outcome.applicable) continue;
      auto it = std::find_if(outcome.findings.begin(), outcome.findings.end(), [&](const Finding& f) {
        return f.one_time_ns == 0 && (o.cause.empty() || f.cause == o.cause);
      });
      if (it == outcome.findings.end()) break;
      it->outlier_step_ns += o.extra_ns;
      it->outlier_steps.push_back(o.step);
      // A long run can have hundreds of outliers (up to a third of its
      // steps): the first few get a line each, the rest one summary line.
      if (it->outlier_steps.size() <= kOutlierLinesPerFinding) {
        it->evidence.push_back(
            {fmt::format("outlier step {}: {} over the median step, mostly {}; left out of the "
                         "saving per step",
                         StepName(steps, o.step), FormatDurationNs(o.extra_ns), o.what),
             static_cast<double>(o.extra_ns), 0, "ns"});
      } else {
        const size_t more = it->outlier_steps.size() - kOutlierLinesPerFinding;
        // The summary line is the last evidence from the second one on.
        const TimeNs more_ns =
            o.extra_ns + (more > 1 ? static_cast<TimeNs>(it->evidence.back().value) : 0);
        std::string line = fmt::format(
            "{} more outlier step{} ({} over the median step in all), left out of the saving "
            "per step",
            more, more > 1 ? "s" : "", FormatDurationNs(more_ns));
        if (more == 1) {
          it->evidence.push_back({std::move(line), static_cast<double>(more_ns), 0, "ns"});
        } else {
          it->evidence.back() = {std::move(line), static_cast<double>(more_ns), 0, "ns"};
        }
      }
      // A stall in one step has its own fix (what runs every N steps), said
      // once per finding after the fix of the cost every step pays.
      if (it->outlier_steps.size() == 1) {
        std::string name = StepName(steps, o.step);
        if (!name.empty()) {
          name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
        }
        it->fix += fmt::format(
            " {} is an outlier step ({} over the median step, mostly {}), left out of this "
            "saving: a stall in that step, not a cost of every step. Look for what runs every N "
            "steps (checkpoint saving, evaluation, logging or metric reads, garbage collection) "
            "and make it asynchronous or rarer.",
            name, FormatDurationNs(o.extra_ns), o.what);
      }
      break;
    }
  }
}

std::vector<RuleOutcome> EvaluateRank(const RuleRegistry& registry, const PreparedRules& rules,
                                      AnalysisContext& rank) {
  // Cached now: a multi-rank run frees the events before the merge reads it.
  rank.trace_integrity();
  std::vector<RuleOutcome> outcomes;
  outcomes.reserve(rules.selected.size());
  // Decided once per rank (docs/steady-state.md): with no steady step only
  // the one-time rule may speak; the others say why they cannot.
  const bool no_steady_step = rank.step_phase().NoSteadyStep();
  for (const std::string& id : rules.selected) {
    const Rule* rule = registry.Find(id);
    if (no_steady_step && rule->needs_steady_steps()) {
      RuleOutcome outcome;
      outcome.applicable = false;
      outcome.not_judged_reason =
          "no steady step: every step is warm-up, capture or compile, so no per-step claim "
          "can be made (profile after warm-up)";
      outcomes.push_back(std::move(outcome));
    } else {
      outcomes.push_back(rule->Check(rank, rules.options.at(id)));
    }
    outcomes.back().rule_id = id;
  }
  AttachOutliers(rank, outcomes);
  return outcomes;
}

EngineResult MergeRankOutcomes(const RuleRegistry& registry, const PreparedRules& rules,
                               const std::vector<const RankRecord*>& ranks,
                               std::vector<std::vector<RuleOutcome>> outcomes) {
  EngineResult result;
  std::vector<int> rank_names;
  for (size_t i = 0; i < ranks.size(); ++i) {
    int meta = ranks[i]->metadata.rank;
    rank_names.push_back(meta >= 0 ? meta : static_cast<int>(i));
  }
  std::vector<const RankCrossData*> cross;
  if (ranks.size() > 1) {
    for (const RankRecord* rank : ranks) cross.push_back(&rank->cross_rank);
  }
  // (rule, cause, ordinal of that cause within the rank) -> per rank finding.
  using Key = std::tuple<std::string, std::string, int>;
  std::map<Key, std::map<size_t, Finding>> by_key;
  std::set<std::pair<std::string, std::string>> not_judged_seen;
  std::vector<double> share_sum(ranks.size(), 0.0);
  for (size_t k = 0; k < rules.selected.size(); ++k) {
    const std::string& id = rules.selected[k];
    for (size_t r = 0; r < ranks.size(); ++r) {
      RuleOutcome& outcome = outcomes[r][k];
      if (!outcome.applicable) {
        std::string reason = outcome.not_judged_reason.empty() ? "the trace lacks what it needs"
                                                               : outcome.not_judged_reason;
        NoteNotJudged(id, std::move(reason), result, not_judged_seen);
        continue;
      }
      std::map<std::string, int> ordinal;
      const TraceIntegrity& integrity = ranks[r]->summary.integrity;
      for (Finding& f : outcome.findings) {
        f.rule_id = id;
        Sanitize(f, result.warnings);
        // The accounting invariant checks what the rules measured, before
        // the trace's integrity caps or withholds anything.
        share_sum[r] += f.recoverable_share;
        const WithheldCause* w = WithheldFor(integrity, f.cause);
        // A fragment backs no per-step claim at all; a one-time cost it
        // shows is still a fact of the file.
        if (w != nullptr || (integrity.fragment() && f.one_time_ns == 0)) {
          std::string reason = fmt::format("{} withheld: {}", f.cause,
                                           w != nullptr ? w->reason : integrity.fragment_reason);
          NoteNotJudged(id, std::move(reason), result, not_judged_seen);
          continue;
        }
        ApplyIntegrity(integrity, f);
        f.location.rank = rank_names[r];
        int n = ordinal[f.cause]++;
        by_key[{id, f.cause, n}].emplace(r, std::move(f));
      }
    }
  }
  // Invariant (docs/design/contract.md "Links, limits, invariants"): a rank's findings
  // never sum past its step. A breach is a rule bug: tests fail on it
  // (TRACELINT_STRICT_INVARIANTS); a release run scales that rank's savings
  // down to the step, lowers their confidence and says so.
  std::vector<double> scale(ranks.size(), 1.0);
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (share_sum[r] > 1.0 + kShareSlack) {
      std::string what = fmt::format(
          "rank {}: findings claim {:.1f}% of the step; idle time was charged to more than "
          "one cause; savings scaled down to the step and marked inferred",
          rank_names[r], share_sum[r] * 100);
      if (std::getenv("TRACELINT_STRICT_INVARIANTS") != nullptr) {
        std::fprintf(stderr, "tracelint: invariant broken: %s\n", what.c_str());
        std::abort();
      }
      result.warnings.push_back(std::move(what));
      scale[r] = 1.0 / share_sum[r];
    }
  }
  for (auto& [key, per_rank] : by_key) {
    for (auto& [r, f] : per_rank) {
      // Within the invariant's rounding slack a share may pass 1 by a
      // hair: a share is in [0, 1] wherever it is written.
      f.recoverable_share = std::min(f.recoverable_share, 1.0);
      if (scale[r] == 1.0) continue;
      f.recoverable_share *= scale[r];
      ScaleRecoverable(f, scale[r]);
      f.confidence = Confidence::kInferred;
    }
  }
  // Merged findings per rule, in rule id order (by_key's order).
  std::map<std::string, std::vector<Finding>> by_rule;
  for (auto& [key, per_rank] : by_key) {
    // The worst rank locates the finding; ties go to the first rank.
    auto worst = per_rank.begin();
    for (auto it = per_rank.begin(); it != per_rank.end(); ++it) {
      if (it->second.recoverable_ns_per_step > worst->second.recoverable_ns_per_step) worst = it;
    }
    Finding merged = worst->second;
    if (ranks.size() > 1) {
      const Rule* rule = registry.Find(std::get<0>(key));
      for (Evidence& e : rule->CrossRankEvidence(cross, rank_names, worst->first)) {
        merged.evidence.push_back(std::move(e));
      }
      merged.per_rank.clear();
      merged.rank_values.clear();
      for (size_t r = 0; r < ranks.size(); ++r) {
        auto it = per_rank.find(r);
        RankValue v{.rank = rank_names[r]};
        if (it != per_rank.end()) {
          v.fired = true;
          v.recoverable_ns_per_step = it->second.recoverable_ns_per_step;
          v.recoverable_share = it->second.recoverable_share;
        }
        merged.rank_values.push_back(v);
      }
    }
    // A one-time cost is at most medium, low once steady steps exist.
    if (merged.one_time_ns > 0) {
      merged.severity = ranks[worst->first]->steps.steps.empty() ? FindingSeverity::kMedium
                                                                   : FindingSeverity::kLow;
    }
    by_rule[std::get<0>(key)].push_back(std::move(merged));
  }
  if (ranks.size() > 1) {
    for (const std::string& id : rules.selected) {
      std::vector<Finding>& list = by_rule[id];
      std::set<std::string> causes_in;
      for (const Finding& f : list) causes_in.insert(f.cause);
      std::vector<Finding> out = registry.Find(id)->CrossRankFindings(
          cross, rank_names, rules.options.at(id), std::move(list));
      list.clear();
      for (Finding& f : out) {
        f.rule_id = id;
        Sanitize(f, result.warnings);
        if (!causes_in.contains(f.cause) && !AdmitCrossRank(ranks, rank_names, id, f, result,
                                                            not_judged_seen)) {
          continue;
        }
        list.push_back(std::move(f));
      }
    }
  }
  for (auto& [id, list] : by_rule) {
    for (Finding& merged : list) {
      // The engine is the only writer of severity: from the share alone
      // (docs/design/contract.md, "Severity"), so it always agrees with the ranking; a
      // one-time cost was set above (at most medium, low beside steady steps).
      if (merged.one_time_ns == 0) merged.severity = SeverityForShare(merged.recoverable_share);
      if (!merged.rank_values.empty()) {
        merged.per_rank.clear();
        for (const RankValue& v : merged.rank_values) merged.per_rank.push_back(PerRankText(v));
      }
      merged.fingerprint = FindingFingerprint(merged);
      result.findings.push_back(std::move(merged));
    }
  }
  RankFindings(result.findings);
  return result;
}

absl::StatusOr<EngineResult> RunRules(const RuleRegistry& registry, const EngineOptions& options,
                                      std::vector<AnalysisContext*>& ranks) {
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, options);
  if (!rules.ok()) return rules.status();
  std::vector<std::vector<RuleOutcome>> outcomes;
  std::vector<RankRecord> records;
  std::vector<const RankRecord*> record_ptrs;
  records.reserve(ranks.size());
  for (AnalysisContext* rank : ranks) {
    outcomes.push_back(EvaluateRank(registry, *rules, *rank));
    records.push_back(MakeRankRecord(*rank));
  }
  for (const RankRecord& r : records) record_ptrs.push_back(&r);
  return MergeRankOutcomes(registry, *rules, record_ptrs, std::move(outcomes));
}

}  // namespace tracelint
