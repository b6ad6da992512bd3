#include "analyzer/report/report_data.h"

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
