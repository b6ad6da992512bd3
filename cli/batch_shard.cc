#include "cli/batch_shard.h"

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "fmt/format.h"

namespace tracelint {
namespace {

std::optional<int64_t> ParseCount(const std::string& s) {
  if (s.empty() || s.size() > 9 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoll(s);
}

absl::Status Bad(const std::string& what) { return absl::InvalidArgumentError(what); }

}  // namespace

absl::StatusOr<ShardSpec> ResolveShard(
    const std::string& shard_flag, int shards_flag,
    const std::function<std::optional<std::string>(const char*)>& getenv) {
  ShardSpec spec;
  if (!shard_flag.empty()) {
    size_t slash = shard_flag.find('/');
    std::optional<int64_t> i, n;
    if (slash != std::string::npos) {
      i = ParseCount(shard_flag.substr(0, slash));
      n = ParseCount(shard_flag.substr(slash + 1));
    }
    if (!i || !n || *n < 1 || *i >= *n) {
      return Bad(fmt::format(
          "--shard '{}': expected I/N with 0 <= I < N (shard I of N, counted from 0)", shard_flag));
    }
    if (shards_flag > 0 && shards_flag != *n) {
      return Bad(fmt::format("--shard {} and --shards {} disagree", shard_flag, shards_flag));
    }
    return ShardSpec{static_cast<int>(*i), static_cast<int>(*n), "--shard"};
  }
  if (std::optional<std::string> id = getenv("SLURM_ARRAY_TASK_ID")) {
    std::optional<int64_t> task = ParseCount(*id);
    std::optional<int64_t> min = int64_t{0};
    if (std::optional<std::string> m = getenv("SLURM_ARRAY_TASK_MIN")) min = ParseCount(*m);
    std::optional<int64_t> count;
    if (shards_flag > 0) {
      count = shards_flag;
    } else if (std::optional<std::string> c = getenv("SLURM_ARRAY_TASK_COUNT")) {
      count = ParseCount(*c);
    } else if (std::optional<std::string> m = getenv("SLURM_ARRAY_TASK_MAX")) {
      std::optional<int64_t> max = ParseCount(*m);
      if (max && min && *max >= *min) count = *max - *min + 1;
    }
    if (!task || !min || !count || *count < 1 || *task < *min || *task - *min >= *count) {
      return Bad(
          fmt::format("SLURM_ARRAY_TASK_ID={} does not name a shard (need SLURM_ARRAY_TASK_MIN and "
                      "SLURM_ARRAY_TASK_COUNT or _MAX of a contiguous array, or --shards N); "
                      "or pass --shard I/N",
                      *id));
    }
    return ShardSpec{static_cast<int>(*task - *min), static_cast<int>(*count),
                     "SLURM_ARRAY_TASK_ID"};
  }
  if (std::optional<std::string> k = getenv("JOB_COMPLETION_INDEX")) {
    std::optional<int64_t> index = ParseCount(*k);
    if (shards_flag < 1) {
      return Bad(
          "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): pass --shards N, the "
          "job's completions, or --shard I/N");
    }
    if (!index || *index >= shards_flag) {
      return Bad(fmt::format("JOB_COMPLETION_INDEX={} is not below --shards {}", *k, shards_flag));
    }
    return ShardSpec{static_cast<int>(*index), shards_flag, "JOB_COMPLETION_INDEX"};
  }
  if (shards_flag > 1) {
    return Bad(
        "--shards N needs a shard index: --shard I/N, or SLURM_ARRAY_TASK_ID or "
        "JOB_COMPLETION_INDEX in the environment");
  }
  return spec;
}

int64_t RunSizeBytes(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec) return 0;
  if (fs::is_regular_file(st)) {
    auto size = fs::file_size(path, ec);
    return ec ? 0 : static_cast<int64_t>(size);
  }
  if (!fs::is_directory(st)) return 0;
  int64_t total = 0;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code fec;
    if (it->is_regular_file(fec)) {
      auto size = it->file_size(fec);
      if (!fec) total += static_cast<int64_t>(size);
    }
  }
  return total;
}

std::vector<int> PartitionRuns(const std::vector<std::string>& paths,
                               const std::vector<int64_t>& sizes, int shards) {
  std::vector<int> shard_of(paths.size(), 0);
  if (shards <= 1) return shard_of;
  std::vector<size_t> order(paths.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    if (paths[a] != paths[b]) return paths[a] < paths[b];
    return a < b;
  });
  // Load is bytes, then runs (many empty or tiny runs still spread out).
  std::vector<std::pair<int64_t, int64_t>> load(shards, {0, 0});
  for (size_t i : order) {
    int best = 0;
    for (int s = 1; s < shards; ++s) {
      if (load[s] < load[best]) best = s;
    }
    shard_of[i] = best;
    load[best].first += sizes[i];
    load[best].second += 1;
  }
  return shard_of;
}

std::string HashParts(const std::vector<std::string>& parts) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
  };
  for (const std::string& p : parts) {
    mix(fmt::format("{}:", p.size()));
    mix(p);
  }
  return fmt::format("{:016x}", h);
}

}  // namespace tracelint
