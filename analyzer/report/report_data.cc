#include "analyzer/report/report_data.h"

#include <algorithm>

#include "analyzer/report/report.h"
#include "fmt/format.h"

namespace tracelint {

std::string_view TensorCoreCell(TensorCoreUse tc, std::string_view accelerator) {
  return accelerator == "GPU" ? TensorCoreUseName(tc) : std::string_view("-");
}

std::string DeviceLabel(int device, std::string_view accelerator) {
  return device < 0 ? std::string("host") : fmt::format("{} {}", accelerator, device);
}

int RankOf(const Timeline& tl, size_t position) {
  return tl.metadata().rank >= 0 ? tl.metadata().rank : static_cast<int>(position);
}

int RankOf(const RankRecord& record, size_t position) {
  return record.metadata.rank >= 0 ? record.metadata.rank : static_cast<int>(position);
}

std::string UnownedBoundNote(const ReportInput& in) {
  const Verdict& v = in.summary().verdict;
  if (!v.judgeable) return "";
  // The rules that own each bound's causes (docs/design/contract.md, "The
  // verdict line"); `cause` empty: any cause of the rule.
  struct Owner {
    std::string_view rule;
    std::string_view cause;  // "" any; "!data_loader": any but it
  };
  std::vector<Owner> owners;
  if (v.bound == "input") {
    owners = {{"gpu-idle-gaps", "data_loader"}};
  } else if (v.bound == "host") {
    owners = {{"gpu-idle-gaps", "!data_loader"}, {"host-side-ops", ""}};
  } else if (v.bound == "communication") {
    owners = {{"comm-clustered-allreduce", ""}, {"comm-late-rank", ""}};
  } else if (v.bound == "copies") {
    owners = {{"h2d-copy-dominance", ""}};
  } else {
    return "";
  }
  auto owns = [](const Owner& o, const Finding& f) {
    if (f.rule_id != o.rule) return false;
    if (o.cause.empty()) return true;
    if (o.cause.front() == '!') return f.cause != o.cause.substr(1);
    return f.cause == o.cause;
  };
  for (const Finding& f : in.findings) {
    for (const Owner& o : owners) {
      if (owns(o, f)) return "";
    }
  }
  std::vector<std::string> why;
  for (const Owner& o : owners) {
    const bool selected =
        in.rules.empty() || std::any_of(in.rules.begin(), in.rules.end(),
                                        [&](const RuleInfo& r) { return r.id == o.rule; });
    auto nj = std::find_if(in.not_judged.begin(), in.not_judged.end(),
                           [&](const RuleOutcome& r) { return r.rule_id == o.rule; });
    if (!selected) {
      why.push_back(fmt::format("{} is not selected", o.rule));
    } else if (nj != in.not_judged.end()) {
      why.push_back(fmt::format("{} could not judge ({})", o.rule, nj->not_judged_reason));
    }
  }
  if (why.empty()) {
    std::vector<std::string> ids;
    for (const Owner& o : owners) {
      if (ids.empty() || ids.back() != o.rule) ids.emplace_back(o.rule);
    }
    why.push_back(fmt::format("{} found no cause of it above {} threshold{}",
                              fmt::join(ids, " or "), ids.size() > 1 ? "their" : "its",
                              ids.size() > 1 ? "s" : ""));
  }
  return fmt::format("no finding owns this bound: {}", fmt::join(why, "; "));
}

std::vector<NotJudgedGroup> GroupNotJudged(const std::vector<RuleOutcome>& not_judged) {
  std::vector<NotJudgedGroup> groups;
  for (const RuleOutcome& o : not_judged) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const NotJudgedGroup& g) {
      return g.reason == o.not_judged_reason;
    });
    if (it == groups.end()) {
      groups.push_back({{o.rule_id}, o.not_judged_reason});
    } else if (std::find(it->rule_ids.begin(), it->rule_ids.end(), o.rule_id) ==
               it->rule_ids.end()) {
      it->rule_ids.push_back(o.rule_id);
    }
  }
  return groups;
}

void AttachRecords(ReportInput& input) {
  auto records = std::make_shared<std::vector<RankRecord>>();
  records->reserve(input.contexts.size());
  for (AnalysisContext* ctx : input.contexts) records->push_back(MakeRankRecord(*ctx));
  input.records.clear();
  for (const RankRecord& r : *records) input.records.push_back(&r);
  input.owned_records = std::move(records);
}

RunSummary ComputeRunSummary(const ReportInput& input) {
  std::vector<RankSummary> ranks;
  ranks.reserve(input.records.size());
  for (size_t i = 0; i < input.records.size(); ++i) {
    ranks.push_back(SummarizeRecord(*input.records[i], static_cast<int>(i)));
  }
  return SummarizeRun(std::move(ranks),
                      {input.options.batch_size, input.options.price_per_hour});
}

const RunSummary& ReportInput::summary() const {
  if (!summary_.has_value()) summary_ = ComputeRunSummary(*this);
  return *summary_;
}

}  // namespace tracelint
