#ifndef TRACELINT_ANALYZER_BATCH_BATCH_RECORDS_H_
#define TRACELINT_ANALYZER_BATCH_BATCH_RECORDS_H_

// `tracelint batch --format jsonl`: one self-describing JSON record per
// line (docs/batch.md). A shard file is
//   {"type": "batch-shard", ...}   the shard, the configuration's hash and
//                                  the whole partition (every run found,
//                                  with the shard it belongs to)
//   {"type": "run", ...}           one per run: its row and all findings
//   {"type": "batch-end", ...}     the shard finished
// so `batch --merge` can rebuild exactly the table one process prints and
// name the runs of a shard that never wrote its file.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/batch/batch_table.h"

namespace tracelint {

inline constexpr int kBatchRecordVersion = 2;

struct BatchShardInfo {
  int shard = 0;  // 0-based
  int shards = 1;
  // Hash of the effective configuration (rules, options, paths, search
  // depth); a merge refuses records made with different ones.
  std::string config_hash;
  // The rule selection and options those are (a compact JSON object, in the
  // shard header only), so a merged table records what its runs ran with.
  std::string rule_options_json;
};

// One run slot of the partition: a path found (which may hold several
// runs: sub-rows), its place in the order found, and its shard.
struct BatchSlot {
  int64_t index = 0;
  std::string run;
  std::string root;  // the batch path it was found under
  int shard = 0;
};

struct BatchRecord {
  int64_t index = 0;  // the slot
  int sub = 0;        // the run within the slot (several runs at one path)
  BatchRow row;
  std::vector<std::string> warnings;  // what the batch printed for the run
};

std::string ShardHeaderRecord(const BatchShardInfo& info, const std::vector<BatchSlot>& slots);
std::string RunRecord(const BatchShardInfo& info, const BatchRecord& record);
std::string ShardEndRecord(const BatchShardInfo& info, int64_t records);

struct ShardFile {
  std::string path;
  BatchShardInfo info;
  std::vector<BatchSlot> slots;  // the partition, as the header states it
  std::vector<BatchRecord> records;
  bool complete = false;  // the end record was read
  // > 0: the last line (this one) was cut short and skipped.
  int64_t truncated_at_line = 0;
};

// Reads a file of records. Errors name the file and line.
absl::StatusOr<ShardFile> ReadShardFile(const std::string& path);
absl::StatusOr<ShardFile> ParseShardRecords(std::string_view text, const std::string& path);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BATCH_BATCH_RECORDS_H_
