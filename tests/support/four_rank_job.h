#ifndef TRACELINT_TESTS_SUPPORT_FOUR_RANK_JOB_H_
#define TRACELINT_TESTS_SUPPORT_FOUR_RANK_JOB_H_

// Test fixture: the four ranks of one data-parallel job (distinct ranks of
// world size 4), each with its own problem and an exposed all-reduce per
// step, written as rank<R>.json into a directory. Tests that need a
// multi-rank run use this instead of unrelated traces copied together:
// those are several runs (parsers/run_groups.h).

#include <filesystem>
#include <fstream>

#include "tests/support/scenario.h"
#include "gtest/gtest.h"

namespace tracelint {

inline void WriteFourRankJob(const std::filesystem::path& dir) {
  using testing::DeviceSpec;
  using testing::Scenario;
  for (int rank = 0; rank < 4; ++rank) {
    Scenario s;
    s.Device(DeviceSpec::A100()).Distributed(rank, 4);
    for (int k = 0; k < 4; ++k) {
      s.BeginStep(k);
      if (rank == 0) s.DataLoaderNext(6 * kNsPerMs);
      for (int i = 0; i < 4; ++i) {
        s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 2 * kNsPerMs).End();
      }
      if (rank == 1) s.Item();
      s.AllReduce(8 << 20, (4 + rank) * kNsPerMs, {0, testing::kComputeStream});
      s.Sync().EndStep();
    }
    absl::StatusOr<std::string> json = s.ToKinetoJson();
    ASSERT_TRUE(json.ok()) << json.status();
    std::ofstream(dir / ("rank" + std::to_string(rank) + ".json"), std::ios::binary) << *json;
  }
}

}  // namespace tracelint

#endif  // TRACELINT_TESTS_SUPPORT_FOUR_RANK_JOB_H_
