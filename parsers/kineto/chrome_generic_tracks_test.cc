#include "parsers/kineto/chrome_generic_tracks.h"

#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tests/support/kineto_test_util.h"

namespace tracelint {
namespace {

using kineto::DeviceKindFromName;
using kineto::IsRuntimeApiName;
using testing::FindSlice;
using testing::ParseText;
using testing::TempDir;

// PyTorch's legacy autograd profiler export (export_chrome_trace before
// Kineto): a bare array, string pids, no "cat", flows "cpu_to_cuda".
std::string LegacyExport(int ops) {
  std::vector<std::string> events;
  for (int i = 0; i < ops; ++i) {
    const int ts = 100 + i * 50;
    events.push_back(fmt::format(
        R"({{"name": "aten::mm", "ph": "X", "ts": {}, "dur": 20, "tid": 7, "pid": "CPU functions", "args": {{}}}})",
        ts));
    events.push_back(fmt::format(
        R"({{"name": "aten::mm", "ph": "s", "ts": {}, "tid": 7, "pid": "CPU functions", "id": {}, "cat": "cpu_to_cuda", "args": {{}}}})",
        ts, i));
    events.push_back(fmt::format(
        R"({{"name": "mm", "ph": "f", "ts": {}, "tid": 0, "pid": "CUDA functions", "id": {}, "cat": "cpu_to_cuda", "args": {{}}}})",
        ts + 25, i));
    events.push_back(fmt::format(
        R"({{"name": "mm", "ph": "X", "ts": {}, "dur": 15, "tid": 0, "pid": "CUDA functions", "args": {{}}}})",
        ts + 25));
  }
  std::string out = "[";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "\n") + events[i];
  return out + "\n]";
}

int64_t CountKind(const Timeline& tl, TrackKind track_kind, EventKind kind) {
  int64_t n = 0;
  const SliceColumns& c = tl.slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (tl.tracks()[c.track[s]].kind == track_kind && c.kind[s] == kind) ++n;
  }
  return n;
}

TEST(ChromeGenericTracks, LegacyExportHostEventsAreHostThreads) {
  TempDir dir;
  auto tl = ParseText(dir, LegacyExport(4), "legacy.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(CountKind(*tl, TrackKind::kHostThread, EventKind::kCpuOp), 4);
  EXPECT_EQ(CountKind(*tl, TrackKind::kDeviceStream, EventKind::kKernel), 4);
  EXPECT_EQ(tl->diagnostics().Count("string_pid"), 0);
  EXPECT_EQ(tl->diagnostics().Count("legacy_profiler_tracks"), 2);
}

TEST(ChromeGenericTracks, OtherStringPidsStayOtherTracks) {
  TempDir dir;
  const std::string text =
      R"([{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2, "tid": 7, "pid": "Worker A"}])";
  auto tl = ParseText(dir, text, "named.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(CountKind(*tl, TrackKind::kHostThread, EventKind::kCpuOp), 0);
  EXPECT_EQ(tl->diagnostics().Count("string_pid"), 1);
}

// A GPU-only trace of a custom CUPTI tool: no cat, no process names, the
// device work named as such.
std::string CuptiToolTrace(bool with_host_api) {
  std::vector<std::string> events;
  for (int i = 0; i < 5; ++i) {
    const int ts = 1000 + i * 100;
    events.push_back(fmt::format(
        R"({{"name": "[MEMCPY] HtoD", "ph": "X", "ts": {}, "dur": 60, "pid": 0, "tid": 7}})", ts));
    events.push_back(fmt::format(
        R"json({{"name": "void add_kernel<float>(float*, int)", "ph": "X", "ts": {}, "dur": 10, "pid": 0, "tid": 7}})json",
        ts + 70));
    if (with_host_api) {
      events.push_back(fmt::format(
          R"({{"name": "cudaMemcpyAsync", "ph": "X", "ts": {}, "dur": 5, "pid": 4242, "tid": 1}})",
          ts - 10));
    }
  }
  return "{\"traceEvents\": [\n" + [&] {
    std::string out;
    for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "") + events[i];
    return out;
  }() + "\n]}";
}

TEST(ChromeGenericTracks, CuptiToolTraceReadsCopiesAndKernels) {
  TempDir dir;
  auto tl = ParseText(dir, CuptiToolTrace(/*with_host_api=*/true), "cupti.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(CountKind(*tl, TrackKind::kDeviceStream, EventKind::kMemcpy), 5);
  EXPECT_EQ(CountKind(*tl, TrackKind::kDeviceStream, EventKind::kKernel), 5);
  EXPECT_EQ(CountKind(*tl, TrackKind::kHostThread, EventKind::kRuntime), 5);
  const SliceId copy = FindSlice(*tl, "[MEMCPY] HtoD");
  ASSERT_NE(copy, kNoIndex);
  ASSERT_NE(tl->details(copy), nullptr);
  EXPECT_EQ(tl->details(copy)->direction, CopyDirection::kHtoD);
  EXPECT_EQ(tl->diagnostics().Count("inferred_device_tracks"), 1);
}

TEST(ChromeGenericTracks, HostFunctionTraceStaysHost) {
  TempDir dir;
  std::string text = "{\"traceEvents\": [\n";
  for (int i = 0; i < 5; ++i) {
    text += fmt::format(
        R"({}{{"name": "load_batch", "ph": "X", "ts": {}, "dur": 10, "pid": 1, "tid": 1}})",
        i ? ",\n" : "", 100 * i);
  }
  text += "\n]}";
  auto tl = ParseText(dir, text, "host.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(CountKind(*tl, TrackKind::kDeviceStream, EventKind::kKernel), 0);
  EXPECT_EQ(tl->diagnostics().Count("inferred_device_tracks"), 0);
}

TEST(ChromeGenericTracks, NamesOfDeviceWork) {
  EXPECT_EQ(DeviceKindFromName("[MEMCPY] HtoD"), EventKind::kMemcpy);
  EXPECT_EQ(DeviceKindFromName("[CUDA memset]"), EventKind::kMemset);
  EXPECT_EQ(DeviceKindFromName("_Z10add_kernelPfi"), EventKind::kKernel);
  EXPECT_EQ(DeviceKindFromName("void gemm<float>(...)"), EventKind::kKernel);
  EXPECT_EQ(DeviceKindFromName("cudaMemcpyAsync"), EventKind::kUnknown);
  EXPECT_EQ(DeviceKindFromName("load_batch"), EventKind::kUnknown);
  EXPECT_TRUE(IsRuntimeApiName("cudaLaunchKernel"));
  EXPECT_TRUE(IsRuntimeApiName("cuLaunchKernel"));
  EXPECT_TRUE(IsRuntimeApiName("hipMalloc"));
  EXPECT_FALSE(IsRuntimeApiName("cute_kernel"));
}

}  // namespace
}  // namespace tracelint
