#include <string>

#include "capture/convert/raw_format.h"
#include "capture/convert/raw_reader.h"
#include "gtest/gtest.h"

namespace tracelint::capture {
namespace {

CaptureRecords Sample() {
  CaptureRecords r;
  r.process.pid = 4242;
  r.process.host = "node7";
  r.process.rank = 3;
  r.process.world_size = 8;
  r.process.clock_offset_ns = 1'700'000'000'000'000'000;
  r.process.command = "python train.py";
  r.strings = {"", "_Z6kernelPf", "cudaLaunchKernel_v7000"};
  KernelRecord k;
  k.start_ns = 100;
  k.end_ns = 200;
  k.grid[0] = 7;
  k.block[2] = 3;
  k.name = 1;
  k.graph_node_id = 1ull << 40;
  r.kernels.push_back(k);
  ApiRecord a;
  a.start_ns = 90;
  a.end_ns = 95;
  a.name = 2;
  a.domain = ApiDomain::kDriver;
  r.apis.push_back(a);
  MemcpyRecord m;
  m.copy_kind = CopyKind::kHtoD;
  m.src_kind = MemoryKind::kPageable;
  m.src_device = -1;
  m.bytes = 1ull << 33;
  r.memcpys.push_back(m);
  r.has_end = true;
  r.end.reason = kEndSignal;
  r.end.dropped_total = 5;
  return r;
}

TEST(RawFormat, RoundTripsEveryField) {
  CaptureRecords in = Sample();
  absl::StatusOr<CaptureRecords> out = DecodeRawCapture(EncodeRawCapture(in), "t");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->process.pid, 4242u);
  EXPECT_EQ(out->process.host, "node7");
  EXPECT_EQ(out->process.rank, 3);
  EXPECT_EQ(out->process.world_size, 8);
  EXPECT_EQ(out->process.clock_offset_ns, in.process.clock_offset_ns);
  EXPECT_EQ(out->process.command, "python train.py");
  EXPECT_EQ(out->strings, in.strings);
  ASSERT_EQ(out->kernels.size(), 1u);
  EXPECT_EQ(out->kernels[0].grid[0], 7);
  EXPECT_EQ(out->kernels[0].block[2], 3);
  EXPECT_EQ(out->kernels[0].graph_node_id, 1ull << 40);
  EXPECT_EQ(out->str(out->kernels[0].name), "_Z6kernelPf");
  ASSERT_EQ(out->apis.size(), 1u);
  EXPECT_EQ(out->apis[0].domain, ApiDomain::kDriver);
  ASSERT_EQ(out->memcpys.size(), 1u);
  EXPECT_EQ(out->memcpys[0].bytes, 1ull << 33);
  EXPECT_EQ(out->memcpys[0].src_kind, MemoryKind::kPageable);
  EXPECT_TRUE(out->has_end);
  EXPECT_EQ(out->end.reason, kEndSignal);
  EXPECT_EQ(out->end.dropped_total, 5u);
  EXPECT_FALSE(out->truncated);
}

TEST(RawFormat, WriterAppendsChunksAndInterns) {
  RawWriter w;
  StrId a = w.Intern("kernel_a");
  EXPECT_EQ(w.Intern("kernel_a"), a);
  EXPECT_EQ(w.Intern(""), 0u);
  std::string bytes = w.Take();
  EXPECT_TRUE(w.pending().empty());
  KernelRecord k;
  k.name = a;
  w.Add(k);
  bytes += w.Take();  // a later buffer, appended to the same file
  absl::StatusOr<CaptureRecords> out = DecodeRawCapture(bytes, "t");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->kernels.size(), 1u);
  EXPECT_EQ(out->str(out->kernels[0].name), "kernel_a");
  EXPECT_FALSE(out->has_end);
}

TEST(RawFormat, CutDumpKeepsTheRecordsBeforeTheCut) {
  std::string bytes = EncodeRawCapture(Sample());
  for (size_t cut = bytes.size() - 1; cut > 100; cut -= 7) {
    absl::StatusOr<CaptureRecords> out = DecodeRawCapture(bytes.substr(0, cut), "t");
    ASSERT_TRUE(out.ok()) << cut << ": " << out.status();
    EXPECT_TRUE(out->truncated || !out->has_end) << cut;
    EXPECT_EQ(out->process.pid, 4242u);
  }
}

TEST(RawFormat, RejectsOtherFilesAndSkipsUnknownRecords) {
  EXPECT_FALSE(DecodeRawCapture("{\"traceEvents\": []}", "x.json").ok());
  EXPECT_FALSE(DecodeRawCapture("", "empty").ok());
  std::string bytes = EncodeRawCapture(Sample());
  // A record of a newer writer: tag 200, three bytes of payload.
  bytes += std::string("\xc8\x03\x00\x00\x00", 5) + "abc";
  absl::StatusOr<CaptureRecords> out = DecodeRawCapture(bytes, "t");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->kernels.size(), 1u);
}

}  // namespace
}  // namespace tracelint::capture
