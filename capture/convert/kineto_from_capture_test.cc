// Synthetic CUPTI records -> raw dump -> Kineto JSON -> the project's own
// Kineto parser and analysis passes: the whole capture conversion, with no
// GPU.
#include "capture/convert/kineto_from_capture.h"

#include <algorithm>
#include <random>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/model/timeline_invariants.h"
#include "capture/convert/capture_dir.h"
#include "capture/convert/raw_format.h"
#include "capture/convert/raw_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/kineto/kineto_parser.h"

namespace tracelint::capture {
namespace {

using ::testing::HasSubstr;
using ::tracelint::testing::TempDir;

constexpr int64_t kOffsetNs = 1'767'189'312'123'456'789;  // CUPTI ns -> epoch ns
constexpr uint64_t kStepNs = 10'000'000;                  // 10 ms per step
constexpr uint32_t kPid = 500;
constexpr uint32_t kTid = 11;

// A process that runs `steps` NVTX-marked steps, each with: a runtime
// kernel launch, a driver launch, a pageable and a pinned copy, a memset, a
// graph launch (two kernels), a stream sync, an NVTX "forward" range inside
// the step and an NVTX mark.
struct Synth {
  CaptureRecords r;
  uint32_t next_corr = 1;
  uint32_t next_marker = 1;

  StrId S(const std::string& s) {
    auto it = std::find(r.strings.begin(), r.strings.end(), s);
    if (it != r.strings.end()) return static_cast<StrId>(it - r.strings.begin());
    r.strings.push_back(s);
    return static_cast<StrId>(r.strings.size() - 1);
  }
  uint32_t Api(const std::string& name, ApiDomain domain, uint64_t start, uint64_t dur) {
    ApiRecord a;
    a.start_ns = start;
    a.end_ns = start + dur;
    a.pid = kPid;
    a.tid = kTid;
    a.correlation_id = next_corr++;
    a.cbid = 211;
    a.domain = domain;
    a.name = S(name);
    r.apis.push_back(a);
    return a.correlation_id;
  }
  void Kernel(const std::string& name, uint32_t corr, uint64_t start, uint64_t dur,
              uint32_t graph_id = 0) {
    KernelRecord k;
    k.start_ns = start;
    k.end_ns = start + dur;
    k.device_id = 0;
    k.context_id = 1;
    k.stream_id = 7;
    k.correlation_id = corr;
    k.grid[0] = 264;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = 128;
    k.block[1] = k.block[2] = 1;
    k.registers_per_thread = 96;
    k.static_shared_bytes = 1024;
    k.dynamic_shared_bytes = 2048;
    k.graph_id = graph_id;
    k.graph_node_id = graph_id ? 100 + next_corr : 0;
    k.name = S(name);
    r.kernels.push_back(k);
  }
  void Copy(MemoryKind src, uint32_t corr, uint64_t start, uint64_t dur) {
    MemcpyRecord m;
    m.start_ns = start;
    m.end_ns = start + dur;
    m.bytes = 1 << 20;
    m.context_id = 1;
    m.stream_id = 7;
    m.correlation_id = corr;
    m.copy_kind = CopyKind::kHtoD;
    m.src_kind = src;
    m.dst_kind = MemoryKind::kDevice;
    m.async = true;
    r.memcpys.push_back(m);
  }
  void Range(const std::string& name, uint64_t start, uint64_t end) {
    MarkerRecord b;
    b.ts_ns = start;
    b.id = next_marker++;
    b.flags = kMarkerStart;
    b.pid = kPid;
    b.tid = kTid;
    b.name = S(name);
    b.domain = S("train");
    MarkerRecord e = b;
    e.ts_ns = end;
    e.flags = kMarkerEnd;
    e.name = 0;
    // Ends reach the dump before their starts: the converter pairs by id.
    r.markers.push_back(e);
    r.markers.push_back(b);
  }

  explicit Synth(int steps) {
    r.process.pid = kPid;
    r.process.host = "node7";
    r.process.clock_offset_ns = kOffsetNs;
    r.process.cupti_version = 28;
    r.process.command = "./train --steps 3";
    DeviceRecord d;
    d.id = 0;
    d.name = S("NVIDIA H100 80GB HBM3");
    d.global_memory_bytes = 85'000'000'000;
    d.sm_count = 132;
    d.compute_major = 9;
    d.threads_per_warp = 32;
    d.max_warps_per_sm = 64;
    r.devices.push_back(d);
    r.contexts.push_back({1, 0});
    for (int s = 0; s < steps; ++s) {
      uint64_t t = 1'000'000 + s * kStepNs;
      Range("train_step", t, t + kStepNs - 1000);
      Range("forward", t + 1000, t + 400'000);
      uint32_t c = Api("cudaLaunchKernel_v7000", ApiDomain::kRuntime, t + 2000, 5000);
      Kernel("_Z4gemmPfS_i", c, t + 10'000, 2'000'000);
      c = Api("cuLaunchKernel", ApiDomain::kDriver, t + 10'000, 4000);
      Kernel("triton_fused_add", c, t + 2'020'000, 500'000);
      c = Api("cudaMemcpyAsync_v3020", ApiDomain::kRuntime, t + 20'000, 3000);
      Copy(MemoryKind::kPageable, c, t + 2'600'000, 300'000);
      c = Api("cudaMemcpyAsync_v3020", ApiDomain::kRuntime, t + 30'000, 3000);
      Copy(MemoryKind::kPinned, c, t + 3'000'000, 100'000);
      c = Api("cudaMemsetAsync_v3020", ApiDomain::kRuntime, t + 40'000, 2000);
      MemsetRecord m;
      m.start_ns = t + 3'200'000;
      m.end_ns = m.start_ns + 10'000;
      m.bytes = 4096;
      m.context_id = 1;
      m.stream_id = 7;
      m.correlation_id = c;
      m.memory_kind = MemoryKind::kDevice;
      r.memsets.push_back(m);
      c = Api("cudaGraphLaunch_v10000", ApiDomain::kRuntime, t + 50'000, 8000);
      Kernel("graph_kernel_a", c, t + 3'300'000, 1'000'000, 5);
      Kernel("graph_kernel_b", c, t + 4'400'000, 1'000'000, 5);
      c = Api("cudaStreamSynchronize_v3020", ApiDomain::kRuntime, t + 60'000, 5'400'000);
      SyncRecord y;
      y.start_ns = t + 60'000;
      y.end_ns = t + 5'460'000;
      y.correlation_id = c;
      y.context_id = 1;
      y.stream_id = 7;
      y.kind = SyncKind::kStreamSynchronize;
      r.syncs.push_back(y);
      MarkerRecord mark;
      mark.ts_ns = t + 5'500'000;
      mark.id = next_marker++;
      mark.flags = kMarkerInstant;
      mark.pid = kPid;
      mark.tid = kTid;
      mark.name = S("checkpoint?");
      r.markers.push_back(mark);
    }
    r.has_end = true;
    r.end.ts_ns = 1'000'000 + steps * kStepNs;
    r.end.reason = kEndAtExit;
  }
};

// Records -> dump -> records -> JSON -> Timeline.
Timeline ConvertAndParse(const TempDir& dir, const CaptureRecords& records,
                         const ConvertOptions& options, ConvertSummary* summary = nullptr,
                         std::string* json_out = nullptr) {
  absl::StatusOr<CaptureRecords> back = DecodeRawCapture(EncodeRawCapture(records), "synthetic");
  EXPECT_TRUE(back.ok()) << back.status();
  std::string json = CaptureToKinetoJson(*back, options, summary);
  if (json_out) *json_out = json;
  absl::StatusOr<Timeline> tl =
      ParseKinetoJsonFile(dir.Write(CaptureTraceFileName(back->process), json), {});
  EXPECT_TRUE(tl.ok()) << tl.status() << "\n" << json.substr(0, 2000);
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  return std::move(*tl);
}

std::vector<SliceId> SlicesOfKind(const Timeline& tl, EventKind kind) {
  std::vector<SliceId> out;
  for (SliceId s = 0; s < tl.slice_count(); ++s) {
    if (tl.slices().kind[s] == kind) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [&](SliceId a, SliceId b) {
    return tl.slices().ts_ns[a] < tl.slices().ts_ns[b];
  });
  return out;
}

SliceId Named(const Timeline& tl, std::string_view name, int nth = 0) {
  std::vector<SliceId> found;
  for (SliceId s = 0; s < tl.slice_count(); ++s) {
    if (tl.str(tl.slices().name[s]) == name) found.push_back(s);
  }
  std::sort(found.begin(), found.end(), [&](SliceId a, SliceId b) {
    return tl.slices().ts_ns[a] < tl.slices().ts_ns[b];
  });
  return nth < static_cast<int>(found.size()) ? found[nth] : kNoIndex;
}

TEST(CaptureToKineto, KernelsKeepTimesCorrelationsAndLaunchConfig) {
  TempDir dir;
  Synth synth(3);
  Timeline tl = ConvertAndParse(dir, synth.r, {});
  const SliceColumns& c = tl.slices();
  EXPECT_EQ(SlicesOfKind(tl, EventKind::kKernel).size(), 12u);
  SliceId gemm = Named(tl, "gemm(float*, float*, int)");  // demangled
  ASSERT_NE(gemm, kNoIndex);
  EXPECT_EQ(c.ts_ns[gemm], kOffsetNs + 1'010'000);  // exact to the nanosecond
  EXPECT_EQ(c.dur_ns[gemm], 2'000'000);
  EXPECT_EQ(tl.tracks()[c.track[gemm]].kind, TrackKind::kDeviceStream);
  EXPECT_EQ(tl.tracks()[c.track[gemm]].tid, 7);
  ASSERT_NE(c.launch[gemm], kNoIndex);
  EXPECT_EQ(tl.str(c.name[c.launch[gemm]]), "cudaLaunchKernel");  // _v7000 dropped
  EXPECT_EQ(c.correlation[gemm], c.correlation[c.launch[gemm]]);
  const DeviceDetails* d = tl.details(gemm);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->grid[0], 264);
  EXPECT_EQ(d->block[0], 128);
  EXPECT_EQ(d->registers_per_thread, 96);
  EXPECT_EQ(d->shared_memory_bytes, 3072);
  // The driver launch is a driver call and links like a runtime one.
  SliceId triton = Named(tl, "triton_fused_add");
  ASSERT_NE(c.launch[triton], kNoIndex);
  EXPECT_EQ(c.kind[c.launch[triton]], EventKind::kDriver);
  // Metadata: the device, the host, no rank without RANK.
  ASSERT_EQ(tl.metadata().devices.size(), 1u);
  EXPECT_EQ(tl.metadata().devices[0].sm_count, 132);
  EXPECT_EQ(tl.metadata().devices[0].compute_major, 9);
  EXPECT_EQ(tl.metadata().rank, -1);
}

// The capture writes Kineto's keys (baseTimeNanoseconds) but no framework
// recorded anything: no PyTorch version is guessed, nothing says the job only
// ran forward, and the host is known only by its API calls.
TEST(CaptureToKineto, TheCaptureNamesNoFrameworkAndNoInference) {
  TempDir dir;
  Synth synth(3);
  Timeline tl = ConvertAndParse(dir, synth.r, {});
  EXPECT_TRUE(tl.metadata().tracelint_capture);
  EXPECT_EQ(tl.metadata().framework, "");
  EXPECT_EQ(tl.metadata().framework_version, "");
  EXPECT_EQ(tl.metadata().format, "kineto-json");
  JobProfile job = ComputeJobProfile(tl);
  EXPECT_EQ(job.kind, JobKind::kUnknown);
  EXPECT_EQ(job.framework, JobFramework::kOther);
  EXPECT_TRUE(job.capture);
  EXPECT_TRUE(job.host_api_only);
  EXPECT_EQ(job.host_ops, 0);
}

// A captured PyTorch training loop: its kernel names say both.
TEST(CaptureToKineto, BackwardAndAtenKernelsSayPyTorchTraining) {
  TempDir dir;
  Synth synth(3);
  uint64_t t = 1'000'000 + 5'600'000;
  uint32_t c = synth.Api("cudaLaunchKernel_v7000", ApiDomain::kRuntime, t, 5000);
  synth.Kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
               c, t + 10'000, 100'000);
  Timeline forward = ConvertAndParse(dir, synth.r, {});
  JobProfile p = ComputeJobProfile(forward);
  EXPECT_EQ(p.framework, JobFramework::kPyTorch);
  EXPECT_TRUE(p.framework_from_kernels);
  EXPECT_EQ(p.kind, JobKind::kUnknown);  // forward kernels alone prove no inference

  TempDir dir2;
  c = synth.Api("cudaLaunchKernel_v7000", ApiDomain::kRuntime, t + 200'000, 5000);
  synth.Kernel("sm90_xmma_dgrad_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc", c, t + 300'000,
               100'000);
  JobProfile q = ComputeJobProfile(ConvertAndParse(dir2, synth.r, {}));
  EXPECT_EQ(q.kind, JobKind::kTraining);
  EXPECT_EQ(q.backward_kernels, 1);
}

TEST(CaptureToKineto, CopiesAndMemsetsKeepKindAndMemory) {
  TempDir dir;
  Synth synth(1);
  Timeline tl = ConvertAndParse(dir, synth.r, {});
  std::vector<SliceId> copies = SlicesOfKind(tl, EventKind::kMemcpy);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(tl.str(tl.slices().name[copies[0]]), "Memcpy HtoD (Pageable -> Device)");
  const DeviceDetails* pageable = tl.details(copies[0]);
  const DeviceDetails* pinned = tl.details(copies[1]);
  ASSERT_NE(pageable, nullptr);
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pageable->direction, CopyDirection::kHtoD);
  EXPECT_EQ(pageable->src, MemorySpace::kPageable);
  EXPECT_EQ(pinned->src, MemorySpace::kPinned);
  EXPECT_EQ(pinned->dst, MemorySpace::kDevice);
  EXPECT_EQ(pageable->bytes, 1 << 20);
  EXPECT_NE(tl.slices().launch[copies[0]], kNoIndex);
  std::vector<SliceId> memsets = SlicesOfKind(tl, EventKind::kMemset);
  ASSERT_EQ(memsets.size(), 1u);
  EXPECT_EQ(tl.str(tl.slices().name[memsets[0]]), "Memset (Device)");
  EXPECT_EQ(tl.str(tl.slices().name[tl.slices().launch[memsets[0]]]), "cudaMemsetAsync");
}

TEST(CaptureToKineto, GraphLaunchesSyncsAndNvtx) {
  TempDir dir;
  Synth synth(2);
  std::string json;
  Timeline tl = ConvertAndParse(dir, synth.r, {}, nullptr, &json);
  const SliceColumns& c = tl.slices();
  // Both kernels of a graph replay carry the cudaGraphLaunch's correlation.
  SliceId a = Named(tl, "graph_kernel_a"), b = Named(tl, "graph_kernel_b");
  ASSERT_NE(a, kNoIndex);
  EXPECT_EQ(c.correlation[a], c.correlation[b]);
  ASSERT_NE(c.launch[a], kNoIndex);
  EXPECT_TRUE(tl.HasFlag(c.launch[a], kFlagGraphLaunch));
  EXPECT_EQ(c.launch[b], c.launch[a]);
  // The parser keeps no graph ids; the file has them for other readers.
  EXPECT_THAT(json, HasSubstr("\"graph id\": 5, \"graph node id\": "));
  // The host sync call blocks; the CUPTI sync record is a device-side wait.
  SliceId sync = Named(tl, "cudaStreamSynchronize");
  ASSERT_NE(sync, kNoIndex);
  EXPECT_TRUE(tl.HasFlag(sync, kFlagSyncCall));
  EXPECT_EQ(SlicesOfKind(tl, EventKind::kCudaSync).size(), 2u);
  // NVTX: "forward" nests inside its step range on the same thread.
  SliceId step = Named(tl, "train_step"), fwd = Named(tl, "forward");
  ASSERT_NE(step, kNoIndex);
  ASSERT_NE(fwd, kNoIndex);
  EXPECT_EQ(c.kind[step], EventKind::kUserAnnotation);
  EXPECT_EQ(c.parent[fwd], step);
  EXPECT_EQ(c.ts_ns[step], kOffsetNs + 1'000'000);
  EXPECT_EQ(c.dur_ns[step], static_cast<int64_t>(kStepNs) - 1000);
  EXPECT_NE(Named(tl, "checkpoint?"), kNoIndex);  // the mark, an instant
  // Without --steps the run is one window.
  AnalysisContext ctx(tl);
  EXPECT_FALSE(ctx.steps().from_markers);
}

TEST(CaptureToKineto, StepsOptionMakesProfilerStepMarkers) {
  TempDir dir;
  Synth synth(4);
  ConvertOptions options;
  options.steps_range = "train_step";
  ConvertSummary summary;
  Timeline tl = ConvertAndParse(dir, synth.r, options, &summary);
  EXPECT_EQ(summary.steps, 4);
  EXPECT_TRUE(summary.warnings.empty());
  SliceId first = Named(tl, "ProfilerStep#0");
  ASSERT_NE(first, kNoIndex);
  EXPECT_TRUE(tl.HasFlag(first, kFlagStepMarker));
  EXPECT_EQ(tl.slices().parent[Named(tl, "forward")], first);
  AnalysisContext ctx(tl);
  const StepSet& steps = ctx.steps();
  EXPECT_TRUE(steps.from_markers);
  ASSERT_GE(steps.steps.size(), 3u);
  EXPECT_EQ(steps.steps[0].number, 0);
  EXPECT_EQ(steps.steps[1].number, 1);
  EXPECT_EQ(steps.steps[0].start_ns, kOffsetNs + 1'000'000);
  EXPECT_GT(steps.steps[0].device_activities, 0);
}

TEST(CaptureToKineto, UnknownStepsNameIsAWarningNamingTheRangesSeen) {
  TempDir dir;
  Synth synth(1);
  ConvertOptions options;
  options.steps_range = "iteration";
  ConvertSummary summary;
  ConvertAndParse(dir, synth.r, options, &summary);
  EXPECT_EQ(summary.steps, 0);
  ASSERT_EQ(summary.warnings.size(), 1u);
  EXPECT_THAT(summary.warnings[0], HasSubstr("--steps iteration"));
  EXPECT_THAT(summary.warnings[0], HasSubstr("forward, train_step"));
}

TEST(CaptureToKineto, OutOfOrderBuffersGiveTheSameTrace) {
  Synth synth(3);
  std::string ordered = CaptureToKinetoJson(synth.r, {});
  CaptureRecords shuffled = synth.r;
  std::mt19937 rng(7);
  std::shuffle(shuffled.kernels.begin(), shuffled.kernels.end(), rng);
  std::shuffle(shuffled.apis.begin(), shuffled.apis.end(), rng);
  std::shuffle(shuffled.memcpys.begin(), shuffled.memcpys.end(), rng);
  std::shuffle(shuffled.markers.begin(), shuffled.markers.end(), rng);
  std::reverse(shuffled.syncs.begin(), shuffled.syncs.end());
  // Records of equal time keep their relative order, so compare the parse.
  TempDir dir;
  Timeline a = ConvertAndParse(dir, synth.r, {});
  Timeline b = ConvertAndParse(dir, shuffled, {});
  ASSERT_EQ(a.slice_count(), b.slice_count());
  for (SliceId s = 0; s < a.slice_count(); ++s) {
    EXPECT_EQ(a.slices().ts_ns[s], b.slices().ts_ns[s]);
    EXPECT_EQ(a.str(a.slices().name[s]), b.str(b.slices().name[s]));
    EXPECT_EQ(a.slices().correlation[s], b.slices().correlation[s]);
    EXPECT_EQ(a.slices().parent[s], b.slices().parent[s]);
  }
  // Within the file, events are in time order.
  EXPECT_LT(ordered.find("train_step"), ordered.find("graph_kernel_a"));
}

TEST(CaptureToKineto, DroppedRecordsReachTheIntegrityCheck) {
  TempDir dir;
  Synth synth(3);
  synth.r.dropped.push_back({5'000'000, 1, 7, 1234});
  ConvertSummary summary;
  std::string json;
  Timeline tl = ConvertAndParse(dir, synth.r, {}, &summary, &json);
  EXPECT_EQ(summary.dropped_records, 1234u);
  ASSERT_FALSE(summary.warnings.empty());
  EXPECT_THAT(summary.warnings[0], HasSubstr("dropped 1234"));
  EXPECT_THAT(json, HasSubstr("\"dropped_records\": 1234"));
  AnalysisContext ctx(tl);
  const TraceIntegrity& t = ctx.trace_integrity();
  bool found = false;
  for (const IntegrityCheck& check : t.checks) {
    if (check.id != "dropped_records") continue;
    found = true;
    EXPECT_EQ(check.status, CheckStatus::kLimited);
    EXPECT_EQ(check.value, 1);
  }
  EXPECT_TRUE(found);
  EXPECT_NE(t.verdict, IntegrityVerdict::kTrusted);
}

TEST(CaptureToKineto, ACleanCaptureHasNoDroppedRecordCheck) {
  TempDir dir;
  Synth synth(3);
  Timeline tl = ConvertAndParse(dir, synth.r, {});
  AnalysisContext ctx(tl);
  for (const IntegrityCheck& check : ctx.trace_integrity().checks) {
    if (check.id == "dropped_records") {
      EXPECT_EQ(check.status, CheckStatus::kOk);
    }
  }
}

TEST(CaptureToKineto, AProcessKilledBeforeItsLastFlushIsMarkedDamaged) {
  TempDir dir;
  Synth synth(2);
  synth.r.has_end = false;
  ConvertSummary summary;
  Timeline tl = ConvertAndParse(dir, synth.r, {}, &summary);
  ASSERT_FALSE(summary.warnings.empty());
  EXPECT_THAT(summary.warnings.back(), HasSubstr("ended before its capture was finished"));
  AnalysisContext ctx(tl);
  for (const IntegrityCheck& check : ctx.trace_integrity().checks) {
    if (check.id == "dropped_records") {
      EXPECT_EQ(check.status, CheckStatus::kLimited);
    }
  }
}

TEST(CaptureToKineto, UnmatchedRangesAreCountedNotInvented) {
  TempDir dir;
  Synth synth(1);
  MarkerRecord open;
  open.ts_ns = 2'000'000;
  open.id = 999;
  open.flags = kMarkerStart;
  open.pid = kPid;
  open.tid = kTid;
  open.name = synth.S("never_closed");
  synth.r.markers.push_back(open);
  ConvertSummary summary;
  Timeline tl = ConvertAndParse(dir, synth.r, {}, &summary);
  EXPECT_EQ(summary.unmatched_ranges, 1);
  EXPECT_EQ(Named(tl, "never_closed"), kNoIndex);
}

TEST(CaptureToKineto, GraphLevelTraceIsOneDeviceActivityPerReplay) {
  TempDir dir;
  Synth synth(1);
  synth.r.kernels.clear();
  uint32_t corr = synth.Api("cudaGraphLaunch_v10000", ApiDomain::kRuntime, 1'100'000, 5000);
  synth.r.graphs.push_back({1'200'000, 1'900'000, 0, 1, 7, corr, 42});
  Timeline tl = ConvertAndParse(dir, synth.r, {});
  SliceId g = Named(tl, "CUDA graph 42");
  ASSERT_NE(g, kNoIndex);
  EXPECT_EQ(tl.slices().kind[g], EventKind::kKernel);
  EXPECT_EQ(tl.slices().dur_ns[g], 700'000);
  ASSERT_NE(tl.slices().launch[g], kNoIndex);
  EXPECT_TRUE(tl.HasFlag(tl.slices().launch[g], kFlagGraphLaunch));
}

TEST(CaptureToKineto, RankFromTheLauncherNamesTheFileAndTheRun) {
  TempDir dir;
  Synth synth(1);
  synth.r.process.rank = 2;
  synth.r.process.world_size = 4;
  EXPECT_EQ(CaptureTraceFileName(synth.r.process), "node7.500.rank2.pt.trace.json");
  Timeline tl = ConvertAndParse(dir, synth.r, {});
  EXPECT_EQ(tl.metadata().rank, 2);
  EXPECT_EQ(tl.metadata().world_size, 4);
  synth.r.process.rank = -1;
  EXPECT_EQ(CaptureTraceFileName(synth.r.process), "node7.500.pt.trace.json");
}

TEST(CaptureToKineto, DriverCallsInsideRuntimeCallsAreLeftOut) {
  TempDir dir;
  Synth synth(1);
  // The runtime's own cuMemAlloc inside a cudaMalloc: dropped.
  synth.Api("cudaMalloc_v3020", ApiDomain::kRuntime, 7'000'000, 50'000);
  synth.Api("cuMemAlloc_v2", ApiDomain::kDriver, 7'010'000, 30'000);
  ConvertSummary summary;
  Timeline tl = ConvertAndParse(dir, synth.r, {}, &summary);
  EXPECT_EQ(summary.nested_driver_calls, 1);
  EXPECT_EQ(Named(tl, "cuMemAlloc_v2"), kNoIndex);
  EXPECT_NE(Named(tl, "cudaMalloc"), kNoIndex);
  // A driver launch outside any runtime call stays (Triton's cuLaunchKernel).
  EXPECT_NE(Named(tl, "cuLaunchKernel"), kNoIndex);
}

TEST(CaptureToKineto, NamesFollowKineto) {
  EXPECT_EQ(ApiDisplayName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(ApiDisplayName("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(ApiDisplayName("cuMemcpyHtoD_v2"), "cuMemcpyHtoD_v2");
  EXPECT_EQ(ApiDisplayName("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(MemcpyName(CopyKind::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned),
            "Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(DemangleKernelName("_Z4gemmPfS_i"), "gemm(float*, float*, int)");
  EXPECT_EQ(DemangleKernelName("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(DemangleKernelName("_Znot a name"), "_Znot a name");
}

TEST(CaptureDirectory, ConvertsEveryDumpAndReportsBadOnes) {
  TempDir dir;
  Synth one(1), two(1);
  two.r.process.pid = 501;
  two.r.process.rank = 1;
  dir.Write("raw/node7.500.tlraw", EncodeRawCapture(one.r));
  dir.Write("raw/node7.501.tlraw", EncodeRawCapture(two.r));
  dir.Write("raw/junk.tlraw", "not a dump");
  dir.Write("raw/ignored.txt", "x");
  std::filesystem::create_directories(dir.path() / "out");
  absl::StatusOr<ConvertedCapture> out = ConvertCaptureDirectory(
      (dir.path() / "raw").string(), (dir.path() / "out").string(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->trace_files.size(), 2u);
  EXPECT_THAT(out->trace_files[0], HasSubstr("node7.500.pt.trace.json"));
  EXPECT_THAT(out->trace_files[1], HasSubstr("node7.501.rank1.pt.trace.json"));
  EXPECT_EQ(out->totals.kernels, 8);
  ASSERT_EQ(out->warnings.size(), 1u);
  EXPECT_THAT(out->warnings[0], HasSubstr("not a tracelint capture dump"));
  // No raw directory: nothing was injected, nothing written.
  absl::StatusOr<ConvertedCapture> none = ConvertCaptureDirectory(
      (dir.path() / "absent").string(), (dir.path() / "out").string(), {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->trace_files.empty());
}

}  // namespace
}  // namespace tracelint::capture
