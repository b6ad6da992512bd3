#ifndef TRACELINT_ANALYZER_REPORT_REPORT_DATA_H_
#define TRACELINT_ANALYZER_REPORT_REPORT_DATA_H_

// Small helpers the reporters share. What a run amounts to (verdict,
// integrity, throughput, outliers) is analysis/run_summary.h's, reached
// through ReportInput::summary().

#include <array>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/run_summary.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/report/report.h"

namespace tracelint {

// "GPU 0" / "host" for a device index.
std::string DeviceLabel(int device, std::string_view accelerator);

// A kernel's Tensor Core use for the top-kernels tables: "-" off GPUs,
// where the name-based classification means nothing.
std::string_view TensorCoreCell(TensorCoreUse tc, std::string_view accelerator);
// Rank number as the metadata says, else the position in the run.
int RankOf(const Timeline& tl, size_t position);
int RankOf(const RankRecord& record, size_t position);

// A verdict that names a bound no finding owns explains itself (the same
// words in every format): "no finding owns it: h2d-copy-dominance could not
// judge: ...", "... is not selected", or "below the rules' thresholds".
// Empty when a finding owns the bound, or the bound has no owner (gpu
// compute, not judgeable).
std::string UnownedBoundNote(const ReportInput& in);

// Rules that could not judge, grouped by their reason (first-seen order):
// a reason every rule shares is printed once, not once per rule.
struct NotJudgedGroup {
  std::vector<std::string> rule_ids;
  std::string reason;
};
std::vector<NotJudgedGroup> GroupNotJudged(const std::vector<RuleOutcome>& not_judged);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_REPORT_DATA_H_
