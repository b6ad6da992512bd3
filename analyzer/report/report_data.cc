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

RunSummary ComputeRunSummary(const ReportInput& input) {
  std::vector<RankSummary> ranks;
  ranks.reserve(input.contexts.size());
  for (size_t i = 0; i < input.contexts.size(); ++i) {
    ranks.push_back(SummarizeRank(*input.contexts[i], static_cast<int>(i)));
  }
  return SummarizeRun(std::move(ranks),
                      {input.options.batch_size, input.options.price_per_hour});
}

const RunSummary& ReportInput::summary() const {
  if (!summary_.has_value()) summary_ = ComputeRunSummary(*this);
  return *summary_;
}

}  // namespace tracelint
