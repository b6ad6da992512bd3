#ifndef TRACELINT_CLI_BATCH_SHARD_H_
#define TRACELINT_CLI_BATCH_SHARD_H_

// `tracelint batch --shard I/N`: which share of the runs this process
// analyses (docs/batch.md). The partition depends only on the runs found
// and their sizes, never on the order the file system lists them, so every
// node of an array job computes the same one.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tracelint {

struct ShardSpec {
  int index = 0;  // 0-based
  int count = 1;
  std::string source;  // "--shard", "SLURM_ARRAY_TASK_ID", ...; "" unsharded
};

// The shard from `--shard I/N` (`shard_flag`), else from a Slurm array
// (SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT
// or MAX - MIN + 1 tasks; `shards_flag` overrides the count), else from a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX of `shards_flag`). No
// sharding at all: {0, 1, ""}. `getenv` is std::getenv in production.
absl::StatusOr<ShardSpec> ResolveShard(
    const std::string& shard_flag, int shards_flag,
    const std::function<std::optional<std::string>(const char*)>& getenv);

// Bytes of the trace files of a run path (a file, or every regular file
// under a directory); 0 when unreadable.
int64_t RunSizeBytes(const std::string& path);

// Size-balanced partition: runs by size (largest first, then path), each
// to the shard with the fewest bytes so far (then the lowest index).
// Returns each run's shard, in the order given.
std::vector<int> PartitionRuns(const std::vector<std::string>& paths,
                               const std::vector<int64_t>& sizes, int shards);

// 16 hex digits: FNV-1a 64 of the parts, each length-prefixed.
std::string HashParts(const std::vector<std::string>& parts);

}  // namespace tracelint

#endif  // TRACELINT_CLI_BATCH_SHARD_H_
