#include "analyzer/batch/batch_table.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

// The batch table's utilization column is named for the runs' devices.
TEST(BatchTable, UtilizationHeaderNamesTheDevice) {
  BatchRow gpu;
  gpu.run = "gpu-run";
  BatchRow tpu;
  tpu.run = "tpu-run";
  tpu.accelerator = "TPU";
  tpu.gpu_utilization = 0.5;
  BatchRow broken;  // not analysed: its device says nothing
  broken.run = "broken";
  broken.status = BatchStatus::kError;
  broken.accelerator = "MTIA";
  EXPECT_EQ(UtilizationHeader({gpu}), "GPU util");
  EXPECT_EQ(UtilizationHeader({tpu, broken}), "TPU util");
  EXPECT_EQ(UtilizationHeader({gpu, tpu}), "util");
  EXPECT_EQ(UtilizationHeader({broken}), "GPU util");
  EXPECT_THAT(RenderBatch(std::vector<BatchRow>{tpu}, "text"), ::testing::HasSubstr("TPU util"));
  EXPECT_THAT(RenderBatch(std::vector<BatchRow>{tpu}, "csv"), ::testing::HasSubstr(",TPU\n"));
}

}  // namespace
}  // namespace tracelint
