#include "parsers/xplane/xplane_parser.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "analyzer/model/accelerator.h"
#include "parsers/xplane/xplane_convert.h"
#include "tests/support/xspace_builder.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using tracelint::testing::XLineBuilder;
using tracelint::testing::XPlaneBuilder;
using tracelint::testing::XSpaceBuilder;

constexpr char kPath[] = "/logs/plugins/profile/2024_01_01_00_00_00/worker-3.xplane.pb";

Timeline MustParse(const XSpaceBuilder& space) {
  absl::StatusOr<Timeline> tl = ParseXSpaceBytes(space.Serialize(), kPath);
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? std::move(*tl) : Timeline();
}

std::vector<SliceId> Find(const Timeline& tl, std::string_view name) {
  std::vector<SliceId> out;
  for (SliceId s = 0; s < tl.slice_count(); ++s) {
    if (tl.str(tl.slices().name[s]) == name) out.push_back(s);
  }
  return out;
}

SliceId FindOne(const Timeline& tl, std::string_view name) {
  std::vector<SliceId> s = Find(tl, name);
  EXPECT_EQ(s.size(), 1u) << name;
  return s.empty() ? kNoIndex : s[0];
}

const Track& TrackOf(const Timeline& tl, SliceId s) { return tl.tracks()[tl.slices().track[s]]; }

std::string StrArg(const Timeline& tl, SliceId s, std::string_view key) {
  const Arg* a = tl.FindArg(s, key);
  if (a == nullptr || a->value.type != ArgValue::Type::kString) return "<none>";
  return std::string(tl.str(a->value.s));
}

TEST(XSpaceParserTest, StreamLinesKernelsAndCorrelation) {
  XSpaceBuilder space;
  XPlaneBuilder host = space.AddPlane("/host:CPU");
  XLineBuilder thread = host.AddLine(4242, "tf_Compute/4242", 0);
  host.SetEventDisplayName("dense/MatMul:MatMul", "MatMul");
  thread.AddEvent("dense/MatMul:MatMul", 1'000'000, 50'000'000);
  thread.AddEvent("cudaLaunchKernel", 2'000'000, 10'000'000).Stat("correlation_id", uint64_t{11});
  thread.AddEvent("cuLaunchKernel", 20'000'000, 10'000'000).Stat("correlation_id", uint64_t{12});

  XPlaneBuilder gpu = space.AddPlane("/device:GPU:1");
  gpu.Stat("core_count", int64_t{80})
      .Stat("compute_cap_major", int64_t{7})
      .Stat("compute_cap_minor", int64_t{0})
      .Stat("memory_size", uint64_t{16945512448})
      .Stat("gpu_device_name", "Tesla V100-SXM2-16GB")
      .Stat("device_vendor", "Nvidia");
  XLineBuilder stream = gpu.AddLine(134, "Stream #134(Kernel)", 0);
  stream.AddEvent("volta_sgemm_128x64_nn", 40'000'000, 5'000'000)
      .Stat("correlation_id", uint64_t{11})
      .RefStat("kernel_details", "regs:126 static_shared:16384 dynamic_shared:0 grid:8,4,1 "
                                 "block:256,1,1 occ_pct:12.5")
      .RefStat("tf_op", "dense/MatMul:MatMul");
  stream.AddEvent("triton_poi_fused", 46'000'000, 1'000'000).Stat("correlation_id", uint64_t{12});

  Timeline tl = MustParse(space);
  SliceId k = FindOne(tl, "volta_sgemm_128x64_nn");
  EXPECT_EQ(tl.slices().kind[k], EventKind::kKernel);
  EXPECT_EQ(TrackOf(tl, k).kind, TrackKind::kDeviceStream);
  EXPECT_EQ(TrackOf(tl, k).pid, 1);
  EXPECT_EQ(TrackOf(tl, k).tid, 134);
  EXPECT_EQ(TrackOf(tl, k).device, 1);
  EXPECT_EQ(tl.str(TrackOf(tl, k).name), "Stream #134(Kernel)");
  EXPECT_EQ(tl.slices().ts_ns[k], 40'000);
  EXPECT_EQ(tl.slices().dur_ns[k], 5'000);
  EXPECT_EQ(StrArg(tl, k, "tf_op"), "dense/MatMul:MatMul");
  const DeviceDetails* d = tl.details(k);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->registers_per_thread, 126);
  EXPECT_EQ(d->shared_memory_bytes, 16384);
  EXPECT_EQ(d->BlockCount(), 32);
  EXPECT_FLOAT_EQ(d->est_achieved_occupancy_pct, 12.5f);

  SliceId launch = FindOne(tl, "cudaLaunchKernel");
  EXPECT_EQ(tl.slices().kind[launch], EventKind::kRuntime);
  EXPECT_EQ(tl.slices().launch[k], launch);
  EXPECT_TRUE(tl.HasFlag(launch, kFlagLaunch));
  SliceId driver = FindOne(tl, "cuLaunchKernel");
  EXPECT_EQ(tl.slices().kind[driver], EventKind::kDriver);
  EXPECT_EQ(tl.slices().launch[FindOne(tl, "triton_poi_fused")], driver);

  SliceId op = FindOne(tl, "dense/MatMul:MatMul");
  EXPECT_EQ(tl.slices().kind[op], EventKind::kCpuOp);
  EXPECT_EQ(TrackOf(tl, op).kind, TrackKind::kHostThread);
  EXPECT_EQ(TrackOf(tl, op).tid, 4242);
  // The launch runs inside the op on the same thread: it nests.
  EXPECT_EQ(tl.slices().parent[launch], op);

  const RunMetadata& m = tl.metadata();
  EXPECT_EQ(m.format, "xspace");
  EXPECT_EQ(m.host_name, "worker-3");
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].id, 1);
  EXPECT_EQ(m.devices[0].vendor, "NVIDIA");
  EXPECT_EQ(m.devices[0].sm_count, 80);
  EXPECT_EQ(m.devices[0].compute_major, 7);
  EXPECT_EQ(m.devices[0].compute_minor, 0);
  EXPECT_EQ(m.devices[0].total_memory_bytes, 16945512448);
  EXPECT_EQ(m.devices[0].name, "Tesla V100-SXM2-16GB");
}

TEST(XSpaceParserTest, CopiesAndMemsets) {
  XSpaceBuilder space;
  XPlaneBuilder gpu = space.AddPlane("/device:GPU:0");
  // Old TF: direction only in the event and line names.
  gpu.AddLine(63, "Stream #63(MemcpyH2D)", 0)
      .AddEvent("MemcpyH2D", 0, 3'072'000)
      .Stat("memcpy_details", "size:112 dest:4 async:0");
  // Current XLA: spaces in memcpy_details, direction from them.
  gpu.AddLine(64, "Stream #64(MemcpyD2H,MemcpyH2D)", 0)
      .AddEvent("Memcpy", 10'000'000, 1'000'000)
      .RefStat("memcpy_details", "kind_src:device kind_dst:pinned size:4096 dest:0 async:1");
  // ROCm legacy name.
  gpu.AddLine(8, "Stream #8(MemcpyOther)", 0)
      .AddEvent("CopyDeviceToDevice", 20'000'000, 1'000'000)
      .Stat("memcpy_details", "kind:Unknown size:655360 dest:2 async:1");
  gpu.AddLine(9, "Stream #9(Memset)", 0)
      .AddEvent("Memset", 30'000'000, 1'000'000)
      .Stat("Memset_details", "kind:device num_bytes:256 async:1");
  gpu.AddLine(10, "Stream #10(MemoryAlloc)", 0).AddEvent("MemoryAlloc", 40'000'000, 0);

  Timeline tl = MustParse(space);
  SliceId h2d = FindOne(tl, "MemcpyH2D");
  EXPECT_EQ(tl.slices().kind[h2d], EventKind::kMemcpy);
  ASSERT_NE(tl.details(h2d), nullptr);
  EXPECT_EQ(tl.details(h2d)->direction, CopyDirection::kHtoD);
  EXPECT_EQ(tl.details(h2d)->bytes, 112);
  EXPECT_TRUE(tl.details(h2d)->synchronous);
  EXPECT_EQ(tl.slices().dur_ns[h2d], 3'072);

  SliceId d2h = FindOne(tl, "Memcpy");
  EXPECT_EQ(tl.details(d2h)->direction, CopyDirection::kDtoH);
  EXPECT_EQ(tl.details(d2h)->dst, MemorySpace::kPinned);
  EXPECT_EQ(tl.details(d2h)->bytes, 4096);

  SliceId d2d = FindOne(tl, "CopyDeviceToDevice");
  EXPECT_EQ(tl.slices().kind[d2d], EventKind::kMemcpy);
  EXPECT_EQ(tl.details(d2d)->direction, CopyDirection::kDtoD);
  EXPECT_EQ(tl.details(d2d)->bytes, 655360);

  SliceId memset = FindOne(tl, "Memset");
  EXPECT_EQ(tl.slices().kind[memset], EventKind::kMemset);
  EXPECT_EQ(tl.details(memset)->bytes, 256);

  EXPECT_EQ(tl.slices().kind[FindOne(tl, "MemoryAlloc")], EventKind::kOther);
}

TEST(XSpaceParserTest, DerivedLinesAreAnnotationsAndStepsBecomeMarkers) {
  XSpaceBuilder space;
  for (int dev : {4, 6}) {
    XPlaneBuilder gpu = space.AddPlane(fmt::format("/device:GPU:{}", dev));
    gpu.AddLine(134, "Stream #134(Compute)", 0)
        .AddEvent("Eigen_kernel", 100'000'000, 10'000'000)
        .Stat("group_id", int64_t{0});
    gpu.AddLine(-559038734, "TensorFlow Ops", 0)
        .AddEvent("replica/add:AddV2", 100'000'000, 10'000'000);
    XLineBuilder steps = gpu.AddLine(-559038737, "Steps", 0);
    // Device 6's step 0 ends later; step 1 starts inside it.
    steps.AddEvent("0", 90'000'000, dev == 4 ? 30'000'000 : 40'000'000)
        .Stat("group_id", int64_t{0})
        .Stat("step_name", "0");
    steps.AddEvent("1", 125'000'000, 20'000'000).Stat("group_id", int64_t{1});
  }
  Timeline tl = MustParse(space);

  std::vector<SliceId> ops = Find(tl, "replica/add:AddV2");
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(tl.slices().kind[ops[0]], EventKind::kGpuUserAnnotation);
  EXPECT_EQ(TrackOf(tl, ops[0]).kind, TrackKind::kOther);
  EXPECT_FALSE(IsDeviceActivity(tl.slices().kind[ops[0]]));

  SliceId step0 = FindOne(tl, "ProfilerStep#0");
  SliceId step1 = FindOne(tl, "ProfilerStep#1");
  EXPECT_TRUE(tl.HasFlag(step0, kFlagStepMarker));
  EXPECT_EQ(tl.slices().kind[step0], EventKind::kUserAnnotation);
  EXPECT_EQ(TrackOf(tl, step0).kind, TrackKind::kHostThread);
  EXPECT_EQ(TrackOf(tl, step0).tid, xplane::kStepTrackTid);
  // Merged over both devices: 90 us .. 130 us.
  EXPECT_EQ(tl.slices().ts_ns[step0], 90'000);
  EXPECT_EQ(tl.slices().end_ns(step0), 130'000);
  // Step 1 starts where step 0 ends, not inside it.
  EXPECT_EQ(tl.slices().ts_ns[step1], 130'000);
  EXPECT_EQ(tl.slices().end_ns(step1), 145'000);
  EXPECT_EQ(StrArg(tl, step1, "xspace_step_source"), "device Steps line");
  EXPECT_EQ(tl.diagnostics().Count("xspace_step_overlap_clipped"), 1);
  EXPECT_EQ(tl.metadata().framework, "TensorFlow");
}

TEST(XSpaceParserTest, DeviceStepMovesToTheHostSpanOfItsLaunches) {
  XSpaceBuilder space;
  XLineBuilder api = space.AddPlane("/host:CPU").AddLine(77, "Host Threads/77", 0);
  api.AddEvent("cuLaunchKernel", 10'000'000, 2'000'000).Stat("correlation_id", uint64_t{1});
  api.AddEvent("cuLaunchKernel", 30'000'000, 2'000'000).Stat("correlation_id", uint64_t{2});
  XPlaneBuilder gpu = space.AddPlane("/device:GPU:0");
  XLineBuilder stream = gpu.AddLine(3, "Stream #3(Kernel)", 0);
  stream.AddEvent("k1", 20'000'000, 5'000'000).Stat("correlation_id", uint64_t{1});
  stream.AddEvent("k2", 40'000'000, 10'000'000).Stat("correlation_id", uint64_t{2});
  gpu.AddLine(9, "Steps", 0).AddEvent("0", 20'000'000, 30'000'000).Stat("group_id", int64_t{0});
  Timeline tl = MustParse(space);
  SliceId step = FindOne(tl, "ProfilerStep#0");
  // From the first launch's start to the last launch's end; the step rule
  // then extends the step to the end of k2.
  EXPECT_EQ(tl.slices().ts_ns[step], 10'000);
  EXPECT_EQ(tl.slices().end_ns(step), 32'000);
  EXPECT_EQ(tl.diagnostics().Count("xspace_steps_from_launch_span"), 1);
}

TEST(XSpaceParserTest, HostStepNumWinsOverDeviceSteps) {
  XSpaceBuilder space;
  XLineBuilder main = space.AddPlane("/host:CPU").AddLine(1, "python", 0);
  main.AddEvent("train", 0, 1'000'000'000).Stat("step_num", int64_t{7});
  main.AddEvent("train", 1'000'000'000, 1'000'000'000).Stat("step_num", int64_t{8});
  space.AddPlane("/device:GPU:0")
      .AddLine(5, "Steps", 0)
      .AddEvent("7", 0, 3'000'000'000)
      .Stat("group_id", int64_t{7});
  Timeline tl = MustParse(space);
  SliceId s7 = FindOne(tl, "ProfilerStep#7");
  SliceId s8 = FindOne(tl, "ProfilerStep#8");
  EXPECT_EQ(tl.slices().dur_ns[s7], 1'000'000);
  EXPECT_EQ(tl.slices().ts_ns[s8], 1'000'000);
  EXPECT_EQ(StrArg(tl, s7, "xspace_step_source"), "host step_num");
  // The markers replace the step events on their own thread, as Kineto
  // records ProfilerStep#N on the loop's thread.
  EXPECT_EQ(TrackOf(tl, s7).tid, 1);
  EXPECT_EQ(StrArg(tl, s7, "xspace_step_event"), "train");
  EXPECT_TRUE(Find(tl, "train").empty());
}

TEST(XSpaceParserTest, HostStepEventsOnSeveralThreadsKeepTheirOwnTrack) {
  XSpaceBuilder space;
  XPlaneBuilder host = space.AddPlane("/host:CPU");
  host.AddLine(1, "python", 0).AddEvent("train", 0, 1'000'000'000).Stat("step_num", int64_t{3});
  host.AddLine(2, "worker", 0)
      .AddEvent("eval", 500'000'000, 1'000'000'000)
      .Stat("step_num", int64_t{4});
  Timeline tl = MustParse(space);
  SliceId s3 = FindOne(tl, "ProfilerStep#3");
  EXPECT_EQ(TrackOf(tl, s3).tid, xplane::kStepTrackTid);
  EXPECT_EQ(StrArg(tl, s3, "xspace_step_event"), "<none>");
  SliceId train = FindOne(tl, "train");
  EXPECT_EQ(TrackOf(tl, train).tid, 1);
  EXPECT_EQ(tl.slices().kind[train], EventKind::kUserAnnotation);
  EXPECT_EQ(TrackOf(tl, FindOne(tl, "eval")).tid, 2);
  // Step 4 starts where step 3 ends.
  EXPECT_EQ(tl.slices().ts_ns[FindOne(tl, "ProfilerStep#4")], 1'000'000);
}

TEST(XSpaceParserTest, TimestampsAreExactAndShiftedByProfileStart) {
  constexpr int64_t kStartNs = 1'700'000'000'123'456'789;
  XSpaceBuilder space;
  space.AddPlane("Task Environment").Stat("profile_start_time", uint64_t{kStartNs});
  XPlaneBuilder host = space.AddPlane("/host:CPU");
  // offset 1.4995 ns rounds to 1; the end at 2.9995 ns rounds to 3.
  host.AddLine(1, "relative", 5).AddEvent("a", 1'499, 1'500);
  // Already absolute: not shifted again.
  host.AddLine(2, "absolute", kStartNs).AddEvent("b", 2'000, 1'000);
  Timeline tl = MustParse(space);
  SliceId a = FindOne(tl, "a");
  EXPECT_EQ(tl.slices().ts_ns[a], kStartNs + 5 + 1);
  EXPECT_EQ(tl.slices().dur_ns[a], 2);
  SliceId b = FindOne(tl, "b");
  EXPECT_EQ(tl.slices().ts_ns[b], kStartNs + 2);
  EXPECT_EQ(tl.metadata().base_time_ns, kStartNs);
}

TEST(XSpaceParserTest, HostEventKindsAndMemoryCounters) {
  XSpaceBuilder space;
  XPlaneBuilder host = space.AddPlane("/host:CPU");
  XLineBuilder py = host.AddLine(9, "python", 0);
  py.AddEvent("$train.py:12 step", 0, 10'000'000);
  py.AddEvent("ExecutorState::Process", 1'000'000, 1'000'000);
  py.AddEvent("MemoryAllocation", 3'000'000, 0)
      .Stat("allocator_name", "GPU_0_bfc")
      .Stat("bytes_allocated", int64_t{1 << 20})
      .Stat("bytes_reserved", int64_t{1 << 21});
  XLineBuilder api = host.AddLine(1083, "Host Threads/1083", 0);
  api.AddEvent("hipStreamSynchronize", 4'000'000, 1'000'000);
  Timeline tl = MustParse(space);
  EXPECT_EQ(tl.slices().kind[FindOne(tl, "train.py:12 step")], EventKind::kPythonFunction);
  EXPECT_EQ(tl.slices().kind[FindOne(tl, "ExecutorState::Process")], EventKind::kUserAnnotation);
  EXPECT_EQ(tl.slices().kind[FindOne(tl, "MemoryAllocation")], EventKind::kInstant);
  SliceId sync = FindOne(tl, "hipStreamSynchronize");
  EXPECT_EQ(tl.slices().kind[sync], EventKind::kRuntime);
  EXPECT_TRUE(tl.HasFlag(sync, kFlagSyncCall));
  ASSERT_EQ(tl.counters().size(), 2u);
  EXPECT_EQ(tl.counters()[0].device, 0);
  EXPECT_EQ(tl.str(tl.counters()[0].name), "Total Allocated");
  EXPECT_EQ(tl.counters()[0].value, 1 << 20);
}

TEST(XSpaceParserTest, TpuOpsAreDeviceWorkWithShortNames) {
  XSpaceBuilder space;
  XPlaneBuilder tpu = space.AddPlane("/device:TPU:2");
  tpu.Stat("device_type_string", "TPU v6 Lite");
  const char* kHlo = "%all-reduce = f32[8]{0} all-reduce(f32[8]{0} %p), to_apply=%add";
  tpu.SetEventDisplayName(kHlo, "all-reduce");
  tpu.MetadataStats(kHlo).Stat("hlo_category", "all-reduce");
  tpu.AddLine(2, "XLA Modules", 0).AddEvent("jit_step(123)", 0, 10'000'000);
  tpu.AddLine(3, "XLA Ops", 0).AddEvent(kHlo, 1'000'000, 2'000'000);
  Timeline tl = MustParse(space);
  SliceId op = FindOne(tl, "all-reduce");
  EXPECT_EQ(tl.slices().kind[op], EventKind::kKernel);
  EXPECT_TRUE(tl.HasFlag(op, kFlagCollective));
  EXPECT_EQ(TrackOf(tl, op).kind, TrackKind::kDeviceStream);
  EXPECT_EQ(TrackOf(tl, op).device, 2);
  EXPECT_EQ(StrArg(tl, op, "long_name"), kHlo);
  EXPECT_EQ(StrArg(tl, op, "hlo_category"), "all-reduce");
  SliceId module = FindOne(tl, "jit_step(123)");
  EXPECT_EQ(TrackOf(tl, module).kind, TrackKind::kOther);
  ASSERT_EQ(tl.metadata().devices.size(), 1u);
  EXPECT_EQ(tl.metadata().devices[0].name, "TPU v6 Lite");
  EXPECT_EQ(tl.metadata().devices[0].vendor, "Google");
  EXPECT_EQ(tl.metadata().framework, "JAX");
}

// XLA's async copies on a TPU (copy-start/copy-done pairs) move bytes; the
// core waits in copy-done. They are copies, not compute, and the run's
// devices are TPUs.
TEST(XSpaceParserTest, TpuAsyncCopiesAreNotCompute) {
  XSpaceBuilder space;
  XPlaneBuilder tpu = space.AddPlane("/device:TPU:0");
  tpu.Stat("device_type_string", "TPU v6 Lite");
  XLineBuilder ops = tpu.AddLine(3, "XLA Ops", 0);
  ops.AddEvent("copy-start.4", 1'000'000, 10);
  ops.AddEvent("fusion.1", 1'000'100, 500'000);
  ops.AddEvent("copy-done.4", 1'600'000, 2'000'000);
  Timeline tl = MustParse(space);
  EXPECT_EQ(AcceleratorName(tl.metadata()), "TPU");
  EXPECT_EQ(tl.slices().kind[FindOne(tl, "copy-start.4")], EventKind::kMemcpy);
  EXPECT_EQ(tl.slices().kind[FindOne(tl, "copy-done.4")], EventKind::kMemcpy);
  EXPECT_EQ(tl.slices().kind[FindOne(tl, "fusion.1")], EventKind::kKernel);
}

TEST(XSpaceParserTest, RocmBlitKernelBecomesTheHostCallsCopy) {
  XSpaceBuilder space;
  space.AddPlane("/host:CPU")
      .AddLine(1565, "Host Threads/1565", 0)
      .AddEvent("hipMemcpyHtoDAsync", 0, 5'000'000)
      .Stat("correlation_id", uint64_t{49});
  XPlaneBuilder gpu = space.AddPlane("/device:GPU:0");
  gpu.Stat("device_vendor", "AMD").Stat("compute_cap_major", int64_t{9});
  gpu.AddLine(17, "Stream #17(Kernel)", 0)
      .AddEvent("__amd_rocclr_copyBuffer.kd", 6'000'000, 1'000'000)
      .Stat("correlation_id", uint64_t{49})
      .Stat("kernel_details", " grid:1,1,1 block:512,1,1 private_mem:0 group_mem:0 occ_pct:0");
  Timeline tl = MustParse(space);
  SliceId copy = FindOne(tl, "__amd_rocclr_copyBuffer.kd");
  EXPECT_EQ(tl.slices().kind[copy], EventKind::kMemcpy);
  EXPECT_EQ(tl.details(copy)->direction, CopyDirection::kHtoD);
  EXPECT_FALSE(tl.details(copy)->synchronous);
  EXPECT_EQ(tl.slices().launch[copy], FindOne(tl, "hipMemcpyHtoDAsync"));
  EXPECT_EQ(tl.metadata().devices[0].vendor, "AMD");
  EXPECT_EQ(tl.diagnostics().Count("xspace_blit_kernel_as_memcpy"), 1);
}

TEST(XSpaceParserTest, VendorInferredWhenOnlyComputeCapabilityIsGiven) {
  XSpaceBuilder space;
  space.AddPlane("/device:GPU:0").Stat("compute_cap_major", int64_t{8});
  Timeline tl = MustParse(space);
  EXPECT_EQ(tl.metadata().devices[0].vendor, "NVIDIA");
  EXPECT_EQ(tl.diagnostics().Count("xspace_device_vendor_inferred"), 1);
}

TEST(XSpaceParserTest, AggregatedAndDanglingEventsAreCountedNotPlaced) {
  XSpaceBuilder space;
  XLineBuilder line = space.AddPlane("/host:CPU").AddLine(1, "t", 0);
  line.AddAggregatedEvent("agg", 10, 1000);
  line.AddEvent("ok", 0, 1000).DanglingStat(12345, 1);
  Timeline tl = MustParse(space);
  EXPECT_EQ(Find(tl, "agg").size(), 0u);
  EXPECT_EQ(Find(tl, "ok").size(), 1u);
  EXPECT_EQ(tl.diagnostics().Count("xspace_aggregated_events_skipped"), 1);
  EXPECT_EQ(tl.diagnostics().Count("xspace_unknown_metadata_id"), 1);
}

TEST(XSpaceParserTest, ErrorsNameTheFileAndTheProblem) {
  XSpaceBuilder space;
  space.AddPlane("/host:CPU").AddLine(1, "t", 0).AddEvent("e", 0, 10);
  std::string good = space.Serialize();

  auto empty = ParseXSpaceBytes("", "a.xplane.pb");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("a.xplane.pb: empty"));

  auto truncated = ParseXSpaceBytes(std::string_view(good).substr(0, good.size() - 3), "t.pb");
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(std::string(truncated.status().message()), HasSubstr("t.pb"));
  EXPECT_THAT(std::string(truncated.status().message()), HasSubstr("truncated"));

  // A file cut inside its last plane keeps the planes before it.
  XSpaceBuilder two;
  two.AddPlane("/host:CPU").AddLine(1, "t", 0).AddEvent("host_op", 0, 10);
  two.AddPlane("/device:GPU:0").AddLine(7, "Stream #7(Kernel)", 0).AddEvent("k", 10, 20);
  std::string both = two.Serialize();
  auto salvaged = ParseXSpaceBytes(std::string_view(both).substr(0, both.size() - 3), "s.pb");
  ASSERT_TRUE(salvaged.ok()) << salvaged.status();
  EXPECT_TRUE(salvaged->metadata().truncated);
  EXPECT_GT(salvaged->metadata().truncated_at_byte, 0);
  EXPECT_EQ(salvaged->diagnostics().Count("truncated_input"), 1);
  EXPECT_EQ(Find(*salvaged, "host_op").size(), 1u);
  EXPECT_TRUE(Find(*salvaged, "k").empty());

  auto json = ParseXSpaceBytes("{\"traceEvents\":[]}", "x.json");
  ASSERT_FALSE(json.ok());
  EXPECT_THAT(std::string(json.status().message()), HasSubstr("x.json"));

  auto gz = ParseXSpaceBytes(std::string("\x1f\x8b\x08\x00", 4), "g.pb");
  ASSERT_FALSE(gz.ok());
  EXPECT_THAT(std::string(gz.status().message()), HasSubstr("gzip"));

  // A plane whose inside is broken while the top level is intact.
  std::string bad = good;
  size_t pos = bad.find(std::string("\x18\x0a", 2));  // the event's duration_ps
  ASSERT_NE(pos, std::string::npos);
  bad[pos] = static_cast<char>(0x1F);
  auto malformed = ParseXSpaceBytes(bad, "m.pb");
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(std::string(malformed.status().message()),
              HasSubstr("plane #0 ('/host:CPU')"));
  EXPECT_THAT(std::string(malformed.status().message()), HasSubstr("lines[0].events[0]"));

  auto missing = ParseXSpaceFile("/nonexistent/dir/h.xplane.pb");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/nonexistent/dir/h.xplane.pb"));
}

TEST(XSpaceParserTest, PlaneOverTwoGibSaysSo) {
  // A sparse file whose one plane declares 2.5 GiB: the check happens
  // before any of it is read, so no memory is needed.
  char path[] = "/tmp/xplane_big_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  constexpr uint64_t kPlaneBytes = (uint64_t{5} << 29);  // 2.5 GiB
  std::string head = "\x0a";
  for (uint64_t v = kPlaneBytes; ; v >>= 7) {
    head.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    if (v < 0x80) break;
  }
  head += std::string("\x12\x09/host:CPU", 11);
  ASSERT_EQ(write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  off_t total = static_cast<off_t>(1 + (head.size() - 1 - 11) + kPlaneBytes);
  if (ftruncate(fd, total) != 0) {
    close(fd);
    unlink(path);
    GTEST_SKIP() << "cannot create a sparse 2.5 GiB file in /tmp";
  }
  close(fd);
  absl::StatusOr<Timeline> tl = ParseXSpaceFile(path);
  unlink(path);
  ASSERT_FALSE(tl.ok());
  EXPECT_THAT(std::string(tl.status().message()), HasSubstr("2 GiB"));
  EXPECT_THAT(std::string(tl.status().message()), HasSubstr("/host:CPU"));
}

TEST(XSpaceParserTest, RegistrySignatureReadsTheFile) {
  XSpaceBuilder space;
  space.AddPlane("/host:CPU").AddLine(1, "t", 0).AddEvent("e", 0, 10);
  char path[] = "/tmp/xplane_registry_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string bytes = space.Serialize();
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
  absl::StatusOr<Timeline> (*parse)(const std::string&, const ParseOptions&) = &ParseXSpaceFile;
  absl::StatusOr<Timeline> tl = parse(path, ParseOptions{});
  unlink(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(Find(*tl, "e").size(), 1u);
}

// Deterministic mutations of a small XSpace (byte flips, cuts, inserted
// bytes) must each give a Timeline or an error, never a crash; run under
// TRACELINT_SANITIZE for memory errors.
TEST(XSpaceParserTest, MutatedInputNeverCrashes) {
  XSpaceBuilder space;
  XPlaneBuilder host = space.AddPlane("/host:CPU");
  host.AddLine(1, "Host Threads/1", 0)
      .AddEvent("cudaLaunchKernel", 0, 1000)
      .Stat("correlation_id", uint64_t{1})
      .CompressedStat("source_stack", "a.py:1");
  XPlaneBuilder gpu = space.AddPlane("/device:GPU:0");
  gpu.Stat("compute_cap_major", int64_t{8});
  gpu.AddLine(7, "Stream #7(Kernel)", 0)
      .AddEvent("k", 500, 2000)
      .Stat("correlation_id", uint64_t{1})
      .RefStat("kernel_details", "regs:32 grid:1,1,1 block:64,1,1");
  gpu.AddLine(8, "Steps", 0).AddEvent("0", 0, 5000).Stat("group_id", int64_t{0});
  const std::string good = space.Serialize();
  uint64_t state = 0x9E3779B97F4A7C15u;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int ok = 0;
  int failed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = good;
    switch (i % 3) {
      case 0: bytes[next() % bytes.size()] = static_cast<char>(next()); break;
      case 1: bytes.resize(next() % bytes.size()); break;
      case 2: bytes.insert(next() % bytes.size(), 1, static_cast<char>(next())); break;
    }
    absl::StatusOr<Timeline> tl = ParseXSpaceBytes(bytes, "fuzz.xplane.pb");
    if (!tl.ok()) {
      ++failed;
      EXPECT_THAT(std::string(tl.status().message()), HasSubstr("fuzz.xplane.pb"));
      continue;
    }
    ++ok;
    for (SliceId s = 0; s < tl->slice_count(); ++s) ASSERT_GE(tl->slices().dur_ns[s], 0);
  }
  // Both outcomes occur: the mutations reach past the wire checks.
  EXPECT_GT(ok, 100);
  EXPECT_GT(failed, 100);
}

TEST(XSpaceParserTest, SniffAndHostName) {
  XSpaceBuilder space;
  space.AddPlane("/host:CPU").AddLine(1, "t", 0).AddEvent("e", 0, 10);
  EXPECT_TRUE(SniffXSpace(space.Serialize()));
  EXPECT_FALSE(SniffXSpace("{\"schemaVersion\":1}"));
  EXPECT_EQ(XSpaceHostNameFromPath("/a/b/10.0.0.1_6009.xplane.pb"), "10.0.0.1_6009");
  EXPECT_EQ(XSpaceHostNameFromPath("localhost.xplane.pb"), "localhost");
}

}  // namespace
}  // namespace tracelint
