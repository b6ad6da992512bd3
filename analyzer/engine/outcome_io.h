#ifndef TRACELINT_ANALYZER_ENGINE_OUTCOME_IO_H_
#define TRACELINT_ANALYZER_ENGINE_OUTCOME_IO_H_

// One rank's rule outcomes (EvaluateRank, before the cross-rank merge) as
// JSON and back, losslessly (analysis/record_io.h): a sharded analyze
// writes them beside the rank's record, and the merge feeds them to
// MergeRankOutcomes as if the rank had been evaluated in its own process.
// Unlike the report's findings (FindingJson), nothing is rounded or capped.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/base/json_writer.h"
#include "analyzer/engine/finding.h"
#include "simdjson.h"

namespace tracelint {

// Writes the array as the next value of `w`.
void WriteRuleOutcomes(JsonWriter& w, const std::vector<RuleOutcome>& outcomes);

// InvalidArgument naming the first field that is missing or of the wrong
// type or range.
absl::StatusOr<std::vector<RuleOutcome>> ReadRuleOutcomes(simdjson::dom::element array);

// The same as one compact line of JSON.
std::string RuleOutcomesToJson(const std::vector<RuleOutcome>& outcomes);
absl::StatusOr<std::vector<RuleOutcome>> RuleOutcomesFromJson(std::string_view json);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_OUTCOME_IO_H_
