#include "parsers/xplane/xplane_details.h"

#include <gtest/gtest.h>

namespace tracelint::xplane {
namespace {

TEST(KernelDetailsTest, CurrentCudaForm) {
  DeviceDetails d;
  DetailsOutcome r = ApplyKernelDetails(
      "regs:32 static_shared:1024 dynamic_shared:4096 grid:80,2,1 block:256,1,1 occ_pct:62.5", d);
  EXPECT_EQ(r.fields_rejected, 0);
  EXPECT_EQ(d.registers_per_thread, 32);
  EXPECT_EQ(d.shared_memory_bytes, 5120);
  EXPECT_EQ(d.grid[0], 80);
  EXPECT_EQ(d.grid[1], 2);
  EXPECT_EQ(d.grid[2], 1);
  EXPECT_EQ(d.block[0], 256);
  EXPECT_EQ(d.BlockCount(), 160);
  EXPECT_FLOAT_EQ(d.est_achieved_occupancy_pct, 62.5f);
}

TEST(KernelDetailsTest, OldTensorFlowForm) {
  DeviceDetails d;
  DetailsOutcome r = ApplyKernelDetails("regs:38 shm:0 grid:160,1,1 block:1024,1,1", d);
  EXPECT_EQ(r.fields_read, 4);
  EXPECT_EQ(d.registers_per_thread, 38);
  EXPECT_EQ(d.shared_memory_bytes, 0);
  EXPECT_EQ(d.grid[0], 160);
  EXPECT_EQ(d.block[0], 1024);
  EXPECT_EQ(d.est_achieved_occupancy_pct, -1);
}

TEST(KernelDetailsTest, RocmFormWithLeadingSpaceAndZeroOccupancy) {
  DeviceDetails d;
  DetailsOutcome r = ApplyKernelDetails(
      " grid:16,18,1 block:256,1,1 private_mem:0 group_mem:65408 occ_pct:0", d);
  EXPECT_EQ(r.fields_rejected, 0);
  EXPECT_EQ(d.grid[1], 18);
  EXPECT_EQ(d.block[0], 256);
  EXPECT_EQ(d.shared_memory_bytes, 65408);  // LDS
  EXPECT_EQ(d.registers_per_thread, -1);
  // ROCm writes occ_pct:0 for every kernel: not a measurement.
  EXPECT_EQ(d.est_achieved_occupancy_pct, -1);
}

TEST(KernelDetailsTest, NewRocmFormPrefersStaticPlusDynamicShared) {
  DeviceDetails d;
  ApplyKernelDetails(
      "regs:64 static_shared:512 dynamic_shared:0 grid:4,1,1 block:64,1,1 private_mem:16 "
      "occ_pct:50",
      d);
  EXPECT_EQ(d.registers_per_thread, 64);
  EXPECT_EQ(d.shared_memory_bytes, 512);
  EXPECT_FLOAT_EQ(d.est_achieved_occupancy_pct, 50.0f);
}

TEST(KernelDetailsTest, GarbageValuesAreRejectedFieldByField) {
  DeviceDetails d;
  DetailsOutcome r = ApplyKernelDetails(
      "regs:18446744073709551615 shm:4294967297 grid:1,210453397508,0 "
      "block:139910371608800,96,18446744073709551536",
      d);
  EXPECT_EQ(r.fields_read, 0);
  EXPECT_EQ(r.fields_rejected, 4);
  EXPECT_EQ(d.registers_per_thread, -1);
  EXPECT_EQ(d.shared_memory_bytes, -1);
  EXPECT_EQ(d.BlockCount(), 0);
  EXPECT_EQ(d.block[0], 0);

  DeviceDetails e;
  r = ApplyKernelDetails("regs:2191500840 static_shared:32462 dynamic_shared:0 grid:1280,1,1 "
                         "block:256,1,1 occ_pct:0",
                         e);
  EXPECT_EQ(r.fields_rejected, 1);  // only regs
  EXPECT_EQ(e.registers_per_thread, -1);
  EXPECT_EQ(e.grid[0], 1280);
}

TEST(KernelDetailsTest, BlockOverThreadLimitIsRejected) {
  DeviceDetails d;
  DetailsOutcome r = ApplyKernelDetails("block:1024,2,1", d);
  EXPECT_EQ(r.fields_rejected, 1);
  EXPECT_EQ(d.block[0], 0);
  DetailsOutcome ok = ApplyKernelDetails("block:32,32,1", d);
  EXPECT_EQ(ok.fields_rejected, 0);
  EXPECT_EQ(d.block[1], 32);
}

TEST(MemcpyDetailsTest, CurrentFormGivesSpacesDirectionAndSync) {
  DeviceDetails d;
  ApplyMemcpyDetails("kind_src:pageable kind_dst:device size:4096 dest:0 async:0", d);
  EXPECT_EQ(d.bytes, 4096);
  EXPECT_EQ(d.src, MemorySpace::kPageable);
  EXPECT_EQ(d.dst, MemorySpace::kDevice);
  EXPECT_EQ(d.direction, CopyDirection::kHtoD);
  EXPECT_TRUE(d.synchronous);

  DeviceDetails back;
  ApplyMemcpyDetails("kind_src:device kind_dst:pinned size:8 dest:0 async:1", back);
  EXPECT_EQ(back.direction, CopyDirection::kDtoH);
  EXPECT_FALSE(back.synchronous);
}

TEST(MemcpyDetailsTest, OldFormsKeepAnExistingDirection) {
  DeviceDetails d;
  d.direction = CopyDirection::kDtoH;  // from the event name
  ApplyMemcpyDetails("kind:Unknown size:655360 dest:2 async:1", d);
  EXPECT_EQ(d.bytes, 655360);
  EXPECT_EQ(d.direction, CopyDirection::kDtoH);

  DeviceDetails e;
  ApplyMemcpyDetails("size:112 dest:4 async:0", e);
  EXPECT_EQ(e.bytes, 112);
  EXPECT_EQ(e.direction, CopyDirection::kUnknown);
  EXPECT_TRUE(e.synchronous);
}

TEST(MemsetDetailsTest, BytesAndKind) {
  DeviceDetails d;
  DetailsOutcome r = ApplyMemsetDetails("kind:device num_bytes:256 async:1", d);
  EXPECT_EQ(r.fields_rejected, 0);
  EXPECT_EQ(d.bytes, 256);
  EXPECT_EQ(d.dst, MemorySpace::kDevice);
  EXPECT_FALSE(d.synchronous);
}

}  // namespace
}  // namespace tracelint::xplane
