#ifndef TRACELINT_ANALYZER_ANALYSIS_RUN_SUMMARY_JSON_H_
#define TRACELINT_ANALYZER_ANALYSIS_RUN_SUMMARY_JSON_H_

// A rank summary as one JSON object and back, so that ranks summarised in
// other processes (shards of one huge job) give the same run summary as
// ranks analysed here: SummarizeRun(ReadRankSummary(WriteRankSummary(r)))
// equals SummarizeRun(r). Arrays indexed by an enum are written as objects
// keyed by the enum's name, so a reader of another build fails loudly on a
// name it does not know rather than shifting values.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analyzer/analysis/run_summary.h"
#include "analyzer/base/json_writer.h"

namespace tracelint {

// Writes the object as the next value of `w`.
void WriteRankSummary(JsonWriter& w, const RankSummary& rank);
std::string RankSummaryToJson(const RankSummary& rank);

// InvalidArgument naming the field for anything that is not a rank summary
// of this schema.
absl::StatusOr<RankSummary> RankSummaryFromJson(std::string_view json);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_RUN_SUMMARY_JSON_H_
