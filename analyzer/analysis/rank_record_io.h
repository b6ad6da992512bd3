#ifndef TRACELINT_ANALYZER_ANALYSIS_RANK_RECORD_IO_H_
#define TRACELINT_ANALYZER_ANALYSIS_RANK_RECORD_IO_H_

// A rank record (rank_record.h) as one JSON object and back, losslessly
// (record_io.h): a sharded analyze writes its ranks' records, and the merge
// reads them into records equal to those one process would have made.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analyzer/analysis/rank_record.h"
#include "analyzer/base/json_writer.h"
#include "simdjson.h"

namespace tracelint {

// Writes the object as the next value of `w`.
void WriteRankRecord(JsonWriter& w, const RankRecord& record);

// InvalidArgument naming the first field that is missing or of the wrong
// type or range.
absl::StatusOr<RankRecord> ReadRankRecord(simdjson::dom::element object);

// The same as one compact line of JSON.
std::string RankRecordToJson(const RankRecord& record);
absl::StatusOr<RankRecord> RankRecordFromJson(std::string_view json);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_RANK_RECORD_IO_H_
