// Devices and accelerator families as the Kineto parser reads them: ROCm,
// MTIA, deviceProperties ids, and flow ends that name no device.

#include <string>

#include "analyzer/model/accelerator.h"
#include "analyzer/model/timeline_invariants.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/kineto/kineto_parser.h"
#include "tests/support/kineto_test_util.h"

namespace tracelint {
namespace {

using ::tracelint::testing::FindSlice;
using ::tracelint::testing::ParseText;
using ::tracelint::testing::TempDir;

TEST(KinetoParser, RocmTraceIsAmd) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "", "computeMajor": 9, "computeMinor": 4,
      "maxSharedMemoryPerMultiProcessor": 65536}],
    "roctracer_version": 4,
    "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 5, "tid": 5, "ts": 1,
     "dur": 2, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "Cijk_gemm", "pid": 2, "tid": 1, "ts": 4, "dur": 2,
     "args": {"correlation": 3, "device": 2, "stream": 1, "kind": "Dispatch Kernel"}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 5, "tid": 5,
     "ts": 3, "args": {"Total Reserved": 4096, "Total Allocated": 512, "Bytes": 512,
     "Device Id": 0, "Device Type": 6}},
    {"ph": "f", "cat": "ac2g", "id": 9, "pid": 5, "tid": 5, "ts": 2, "bp": "e", "name": "ac2g"}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().devices[0].vendor, "AMD");
  // The ac2g flow ending on the host pid (as ROCm traces have it) names no
  // second device.
  SliceId k = FindSlice(*tl, "Cijk_gemm");
  EXPECT_EQ(tl->slices().launch[k], FindSlice(*tl, "hipLaunchKernel"));
  EXPECT_TRUE(tl->HasFlag(FindSlice(*tl, "hipLaunchKernel"), kFlagLaunch));
  // The lone deviceProperties entry (id 0) is the device the events call 2.
  EXPECT_EQ(tl->metadata().devices[0].id, 2);
  EXPECT_NE(tl->metadata().FindDevice(2), nullptr);
  EXPECT_EQ(tl->diagnostics().Count("device_properties_id_matched"), 1);
  // The allocator numbers the device as deviceProperties did (HIP device 0):
  // its totals follow the entry to device 2.
  ASSERT_EQ(tl->counters().size(), 2u);
  for (const CounterSample& c : tl->counters()) EXPECT_EQ(c.device, 2) << tl->str(c.name);
}

// Kineto ends an ac2g flow on every runtime call it correlates, on the host
// pid, with no start. A host pid of 65536 or more is no device index: that
// end is not a device event without a device (it warned on every trace from
// such a host), and the launch links are untouched.
TEST(KinetoParser, HostSideFlowEndOnALargePidIsNoDeviceEvent) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"schemaVersion": 1,
    "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 2910249,
     "tid": 2910249, "ts": 1, "dur": 2, "args": {"correlation": 3}},
    {"ph": "s", "cat": "ac2g", "id": 3, "pid": 2910249, "tid": 2910249, "ts": 1, "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 4, "dur": 2,
     "args": {"correlation": 3, "device": 0, "stream": 7}},
    {"ph": "f", "cat": "ac2g", "id": 3, "pid": 0, "tid": 7, "ts": 4, "bp": "e", "name": "ac2g"},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceGetAttribute", "pid": 2910249,
     "tid": 2910249, "ts": 8, "dur": 1, "args": {"correlation": 9}},
    {"ph": "f", "cat": "ac2g", "id": 9, "pid": 2910249, "tid": 2910249, "ts": 8, "bp": "e",
     "name": "ac2g"}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->diagnostics().Count("device_event_without_device"), 0);
  EXPECT_EQ(tl->diagnostics().Count("flow_end_without_start"), 1);
  EXPECT_EQ(tl->slices().launch[FindSlice(*tl, "k")], FindSlice(*tl, "cudaLaunchKernel"));
  // A device event itself on such a pid still warns.
  absl::StatusOr<Timeline> odd = ParseText(dir, R"({"schemaVersion": 1,
    "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 2910249, "tid": 7, "ts": 4, "dur": 2}]})");
  ASSERT_TRUE(odd.ok()) << odd.status();
  EXPECT_EQ(odd->diagnostics().Count("device_event_without_device"), 1);
}

// Several entries, or events on several devices: ids are left as they are.
TEST(KinetoParser, DevicePropertiesIdsKeptWhenAmbiguous) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],
    "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 2, "tid": 1, "ts": 4, "dur": 2},
    {"ph": "X", "cat": "kernel", "name": "k3", "pid": 3, "tid": 1, "ts": 4, "dur": 2}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().devices[0].id, 0);
  EXPECT_EQ(tl->diagnostics().Count("device_properties_id_matched"), 0);
}

// MTIA (Meta's accelerator): command-processor events on the device's
// streams are device work: DMA requests are copies, event record/wait are
// stream sync, graph executions are kernels; the device is "MTIA".
TEST(KinetoParser, MtiaDeviceEvents) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "ARTEMIS", "runtimeMajorVersion": 1}],
    "traceEvents": [
    {"ph": "X", "cat": "mtia_runtime", "name": "runFunction - job_prep_and_submit_for_execution",
     "pid": 865, "tid": 1828, "ts": 1, "dur": 2,
     "args": {"correlation": 7, "device": 17, "stream_id": 101}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "remote", "pid": 17, "tid": 3536, "ts": 5,
     "dur": 10, "args": {"correlation": 7, "stream": 101}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_request", "pid": 17, "tid": 3672,
     "ts": 6, "dur": 3, "args": {"stream": 105, "direction": "DEVICE_TO_HOST", "size": 1024}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "event_wait", "pid": 17, "tid": 3774,
     "ts": 7, "dur": 4, "args": {"stream": 108, "wait_on_stream": 104}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "event_record", "pid": 17, "tid": 3672,
     "ts": 12, "dur": 0.2, "args": {"stream": 105}},
    {"ph": "X", "cat": "user_annotation", "name": "hccl:all_reduce", "pid": 865, "tid": 1828,
     "ts": 20, "dur": 2}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  const SliceColumns& c = tl->slices();
  EXPECT_EQ(AcceleratorName(tl->metadata()), "MTIA");
  ASSERT_EQ(tl->metadata().devices.size(), 1u);
  EXPECT_EQ(tl->metadata().devices[0].id, 17);
  EXPECT_EQ(tl->metadata().devices[0].vendor, "Meta");
  SliceId remote = FindSlice(*tl, "remote");
  EXPECT_EQ(c.kind[remote], EventKind::kKernel);
  EXPECT_EQ(tl->tracks()[c.track[remote]].kind, TrackKind::kDeviceStream);
  EXPECT_EQ(tl->tracks()[c.track[remote]].device, 17);
  EXPECT_EQ(c.launch[remote], FindSlice(*tl, "runFunction - job_prep_and_submit_for_execution"));
  SliceId dma = FindSlice(*tl, "dma_request");
  EXPECT_EQ(c.kind[dma], EventKind::kMemcpy);
  ASSERT_NE(tl->details(dma), nullptr);
  EXPECT_EQ(tl->details(dma)->direction, CopyDirection::kDtoH);
  EXPECT_EQ(tl->details(dma)->bytes, 1024);
  EXPECT_EQ(c.kind[FindSlice(*tl, "event_wait")], EventKind::kCudaSync);
  EXPECT_EQ(c.kind[FindSlice(*tl, "event_record")], EventKind::kCudaEvent);
  EXPECT_TRUE(tl->HasFlag(FindSlice(*tl, "hccl:all_reduce"), kFlagCollective));
}

// Without deviceProperties the events still name the device family: an
// MTIA trace is never reported as a GPU.
TEST(KinetoParser, MtiaWithoutDevicePropertiesIsStillMtia) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "mtia_runtime", "name": "runFunction", "pid": 865, "tid": 1828,
     "ts": 1, "dur": 2, "args": {"correlation": 7, "device": 17, "stream_id": 101}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "remote", "pid": 17, "tid": 3536, "ts": 5,
     "dur": 10, "args": {"correlation": 7, "stream": 101}}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(tl->metadata().devices.empty());
  EXPECT_EQ(AcceleratorName(tl->metadata()), "MTIA");
  EXPECT_EQ(tl->slices().kind[FindSlice(*tl, "remote")], EventKind::kKernel);
}

}  // namespace
}  // namespace tracelint
