#include "parsers/kineto/kineto_parser.h"

#include <string>
#include <vector>

#include "analyzer/model/accelerator.h"
#include "analyzer/model/timeline_invariants.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "tests/support/kineto_test_util.h"

namespace tracelint {
namespace {

using ::tracelint::testing::FindSlice;
using ::tracelint::testing::Gzip;
using ::tracelint::testing::ParseText;
using ::tracelint::testing::TempDir;

// A current (PyTorch 2.5-style) trace: relative fractional ts with a base,
// ac2g flows, op -> launch -> kernel, memcpy, memory counters, metadata.
constexpr std::string_view kCurrent = R"json({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000,
     "computeMajor": 9, "computeMinor": 0, "numSms": 132, "maxThreadsPerMultiprocessor": 2048}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8,
     "pg_config": [{"pg_name": "0", "ranks": "[0, 1, 2, 3]"}]},
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1767189312000000000,
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 10, "tid": 11,
   "ts": 100.000, "dur": 50.5, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 101.250,
   "dur": 10, "args": {"External id": 2, "Input Dims": [[2, 3], [3, 4]],
   "Input type": ["float", "float"], "Ev Idx": 5, "Record function id": 9, "flops": 48}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11,
   "ts": 102.001, "dur": 3, "args": {"cbid": 211, "correlation": 77, "External id": 2}},
  {"ph": "s", "id": 77, "pid": 10, "tid": 11, "ts": 102.001, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 110.5,
   "dur": 20.25, "args": {"queued": 0, "device": 0, "stream": 7, "correlation": 77,
   "External id": 2, "registers per thread": 168, "shared memory": 232448,
   "blocks per SM": 0.5, "warps per SM": 2, "grid": [66, 1, 1], "block": [384, 1, 1],
   "est. achieved occupancy %": 19}},
  {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 110.5, "cat": "ac2g", "name": "ac2g",
   "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
   "tid": 7, "ts": 140, "dur": 2, "args": {"bytes": 4096, "correlation": 78}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 10, "tid": 11,
   "ts": 105, "args": {"Total Reserved": 2097152, "Total Allocated": 512, "Bytes": 512,
   "Device Type": 1, "Device Id": 0}},
  {"ph": "M", "name": "thread_name", "pid": 10, "tid": 11, "args": {"name": "main thread"}},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
   "tid": "PyTorch Profiler", "ts": 90, "dur": 100, "args": {"Op count": 0}},
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 200.125}
  ],
  "traceName": "/tmp/x.json",
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}
})json";

constexpr TimeNs kBase = 1767189312000000000;

TEST(KinetoParser, CurrentTrace) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, kCurrent);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  const SliceColumns& c = tl->slices();
  SliceId step = FindSlice(*tl, "ProfilerStep#4");
  SliceId mm = FindSlice(*tl, "aten::mm");
  SliceId launch = FindSlice(*tl, "cudaLaunchKernel");
  SliceId kernel = FindSlice(*tl, "sm90_gemm");
  SliceId copy = FindSlice(*tl, "Memcpy HtoD (Pageable -> Device)");
  ASSERT_NE(kernel, kNoIndex);
  EXPECT_EQ(c.ts_ns[step], kBase + 100000);
  EXPECT_EQ(c.dur_ns[step], 50500);
  EXPECT_EQ(c.ts_ns[mm], kBase + 101250);
  EXPECT_EQ(c.ts_ns[launch], kBase + 102001);
  EXPECT_TRUE(tl->HasFlag(step, kFlagStepMarker));
  EXPECT_EQ(c.parent[mm], step);
  EXPECT_EQ(c.parent[launch], mm);
  EXPECT_EQ(c.launch[kernel], launch);
  EXPECT_EQ(c.external_id[mm], 2);
  EXPECT_EQ(c.correlation[kernel], 77);
  const Track& stream = tl->tracks()[c.track[kernel]];
  EXPECT_EQ(stream.kind, TrackKind::kDeviceStream);
  EXPECT_EQ(stream.device, 0);
  EXPECT_EQ(stream.tid, 7);
  const Track& host = tl->tracks()[c.track[mm]];
  EXPECT_EQ(host.kind, TrackKind::kHostThread);
  EXPECT_EQ(tl->str(host.name), "main thread");
  const DeviceDetails* d = tl->details(kernel);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->grid[0], 66);
  EXPECT_EQ(d->block[0], 384);
  EXPECT_EQ(d->registers_per_thread, 168);
  EXPECT_EQ(d->shared_memory_bytes, 232448);
  EXPECT_FLOAT_EQ(d->blocks_per_sm, 0.5f);
  EXPECT_FLOAT_EQ(d->est_achieved_occupancy_pct, 19);
  const DeviceDetails* cd = tl->details(copy);
  ASSERT_NE(cd, nullptr);
  EXPECT_EQ(cd->bytes, 4096);
  EXPECT_EQ(cd->direction, CopyDirection::kHtoD);
  EXPECT_EQ(cd->src, MemorySpace::kPageable);
  // Kept args: what the analyses read, normalized names, arrays as their
  // JSON text; the rest is skipped (the stream is the kernel's track).
  const Arg* dims = tl->FindArg(mm, "Input Dims");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(tl->str(dims->value.s), "[[2, 3], [3, 4]]");
  EXPECT_EQ(tl->FindArg(mm, "Ev Idx"), nullptr);
  ASSERT_NE(tl->FindArg(mm, "Input type"), nullptr);
  EXPECT_EQ(tl->str(tl->FindArg(mm, "Input type")->value.s), R"(["float", "float"])");
  ASSERT_NE(tl->FindArg(mm, "flops"), nullptr);
  EXPECT_EQ(tl->FindArg(mm, "flops")->value.AsInt(), 48);
  EXPECT_EQ(tl->FindArg(kernel, "warps per SM"), nullptr);
  EXPECT_EQ(tl->FindArg(kernel, "queued"), nullptr);
  EXPECT_EQ(tl->FindArg(kernel, "stream"), nullptr);
  EXPECT_EQ(tl->tracks()[tl->slices().track[kernel]].tid, 7);
  EXPECT_TRUE(tl->args(kernel).empty());
  ASSERT_EQ(tl->flows().size(), 1u);
  EXPECT_EQ(tl->flows()[0].from, launch);
  EXPECT_EQ(tl->flows()[0].to, kernel);
  ASSERT_EQ(tl->counters().size(), 2u);
  EXPECT_EQ(tl->counters()[0].device, 0);
  EXPECT_EQ(tl->counters()[0].ts_ns, kBase + 105000);
  SliceId span = FindSlice(*tl, "PyTorch Profiler (0)");
  ASSERT_NE(span, kNoIndex);
  EXPECT_EQ(c.kind[span], EventKind::kTraceSpan);
  EXPECT_EQ(tl->tracks()[c.track[span]].kind, TrackKind::kOther);
  SliceId end = FindSlice(*tl, "Record Window End");
  ASSERT_NE(end, kNoIndex);
  EXPECT_EQ(c.ts_ns[end], kBase + 200125);

  const RunMetadata& m = tl->metadata();
  EXPECT_EQ(m.format, "kineto-json");
  EXPECT_EQ(m.framework, "PyTorch");
  EXPECT_EQ(m.framework_version, "2.5+ (inferred from \"Record function id\" args)");
  EXPECT_EQ(m.rank, 3);
  EXPECT_EQ(m.world_size, 8);
  EXPECT_EQ(m.backend, "nccl");
  EXPECT_EQ(m.base_time_ns, kBase);
  EXPECT_EQ(m.trace_name, "/tmp/x.json");
  EXPECT_EQ(m.events_read, 11);
  EXPECT_FALSE(m.truncated);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].vendor, "NVIDIA");
  EXPECT_EQ(m.devices[0].sm_count, 132);
  EXPECT_EQ(m.devices[0].compute_major, 9);
  EXPECT_EQ(m.devices[0].total_memory_bytes, 85000000000);
}

// PyTorch 1.8 pre-release: a bare array, legacy categories, string tids,
// "stream 7" device tids, lowercase "external id", flow cat "async".
constexpr std::string_view kLegacy = R"json([
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#1", "pid": 25738, "tid": "25738",
   "ts": 1623142623460111, "dur": 100, "args": {"Input dims": [[1]], "external id": 5}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738",
   "ts": 1623142623460120, "dur": 5, "args": {"correlation": 9, "external id": 5}},
  {"ph": "s", "id": 9, "pid": 25738, "tid": 25738, "ts": 1623142623460120, "cat": "async",
   "name": "launch"},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm", "pid": 0, "tid": "stream 7",
   "ts": 1623142623460130, "dur": 7, "args": {"correlation": 9, "external id": 5,
   "device": 0, "stream": 7}},
  {"ph": "f", "id": 9, "pid": 0, "tid": "stream 7", "ts": 1623142623460130, "cat": "async",
   "name": "launch", "bp": "e"},
  {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7",
   "ts": 1623142623460140, "dur": 1, "args": {"bytes": 64}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 25738, "tid": 25738,
   "ts": 1623142623460112, "args": {"Total Allocated": 10, "Device Type": 0, "Device Id": -1}}
])json";

TEST(KinetoParser, LegacyBareArray) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, Gzip(kLegacy), "worker0.pt.trace.json.gz");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  const SliceColumns& c = tl->slices();
  SliceId step = FindSlice(*tl, "ProfilerStep#1");
  SliceId launch = FindSlice(*tl, "cudaLaunchKernel");
  SliceId kernel = FindSlice(*tl, "volta_sgemm");
  ASSERT_NE(kernel, kNoIndex);
  EXPECT_EQ(c.kind[step], EventKind::kCpuOp);
  EXPECT_TRUE(tl->HasFlag(step, kFlagStepMarker));
  EXPECT_EQ(c.ts_ns[step], 1623142623460111000);
  EXPECT_EQ(c.parent[launch], step);  // string tid "25738" is thread 25738
  EXPECT_EQ(c.launch[kernel], launch);
  EXPECT_EQ(c.external_id[kernel], 5);
  EXPECT_EQ(tl->tracks()[c.track[kernel]].tid, 7);
  EXPECT_NE(tl->FindArg(step, "Input Dims"), nullptr);
  ASSERT_EQ(tl->flows().size(), 1u);
  EXPECT_EQ(tl->flows()[0].to, kernel);
  ASSERT_EQ(tl->counters().size(), 1u);
  EXPECT_EQ(tl->counters()[0].device, -1);
  EXPECT_EQ(tl->metadata().framework_version,
            "~1.8 pre-release (inferred from bare event array)");
  EXPECT_EQ(tl->metadata().rank, -1);
}

TEST(KinetoParser, FractionalEpochMicrosAreExact) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1,
     "ts": 1712195495519695.8, "dur": 0.125},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1,
     "ts": "1712195495519696.123", "dur": 1e1}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  const SliceColumns& c = tl->slices();
  EXPECT_EQ(c.ts_ns[FindSlice(*tl, "a")], 1712195495519695800);
  EXPECT_EQ(c.dur_ns[FindSlice(*tl, "a")], 125);
  EXPECT_EQ(c.ts_ns[FindSlice(*tl, "b")], 1712195495519696123);
  EXPECT_EQ(c.dur_ns[FindSlice(*tl, "b")], 10000);
  EXPECT_EQ(tl->metadata().framework_version,
            "2.3+ (inferred from fractional-microsecond timestamps)");
}

TEST(KinetoParser, VersionFromAFeatureKinetoStillWritesIsALowerBound) {
  // A CPU-only 2.x trace has no flows or driver events to date it; "Ev Idx"
  // (PyTorch 2.0 on) still does, and the guess must not read the missing
  // newer features as an old version.
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10,
     "dur": 5, "args": {"External id": 3, "Ev Idx": 2}}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().framework_version, "2.0+ (inferred from \"Ev Idx\" args)");
  EXPECT_EQ(tl->FindArg(FindSlice(*tl, "aten::linear"), "Ev Idx"), nullptr);
}

TEST(KinetoParser, HugeIdsAndArgsKeepTheirBits) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 2, "ts": 1,
     "dur": 1, "args": {"In msg nelems": 10159970886766084423, "Collective name": "allreduce",
     "External id": 18446744073709551615}}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  SliceId s = FindSlice(*tl, "record_param_comms");
  const Arg* id = tl->FindArg(s, "In msg nelems");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->value.type, ArgValue::Type::kUInt);
  EXPECT_EQ(id->value.u, 10159970886766084423ull);
  EXPECT_EQ(tl->slices().external_id[s], -1);
  EXPECT_TRUE(tl->HasFlag(s, kFlagCollective));
}

TEST(KinetoParser, VintageQuirks) {
  TempDir dir;
  // 1.11-1.13: async_cpu_to_gpu flows, cuda_driver launch, GPU annotations,
  // a "stream 7 " tid with a trailing space, events without cat or dur, an
  // async phase tracelint does not model, and a timestamp that overflows.
  absl::StatusOr<Timeline> tl = ParseText(dir, R"json({"traceEvents": [
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 10,
     "dur": 2, "args": {"correlation": 4}},
    {"ph": "s", "id": 4, "pid": 1, "tid": 1, "ts": 10, "cat": "async_cpu_to_gpu",
     "name": "async_gpu"},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#2", "pid": 0,
     "tid": "stream 7 ", "ts": 11, "dur": 10},
    {"ph": "X", "cat": "kernel", "name": "triton_", "pid": 0, "tid": "stream 7 ", "ts": 12,
     "dur": 3, "args": {"correlation": 4}},
    {"ph": "f", "id": 4, "pid": 0, "tid": 7, "ts": 12, "cat": "async_cpu_to_gpu",
     "name": "async_gpu", "bp": "e"},
    {"ph": "X", "name": "no category", "pid": 1, "tid": 1, "ts": 20},
    {"ph": "X", "cat": "mtia_runtime", "name": "mtiaLaunch", "pid": 1, "tid": 1, "ts": 30,
     "dur": 1},
    {"ph": "b", "cat": "x", "name": "async", "id": 1, "pid": 1, "tid": 1, "ts": 1},
    {"ph": "X", "cat": "cpu_op", "name": "overflow", "pid": 1, "tid": 1,
     "ts": 99999999999999999, "dur": 1},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Traces",
     "tid": "PyTorch Profiler", "ts": 0, "dur": 40}]})json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  const SliceColumns& c = tl->slices();
  SliceId launch = FindSlice(*tl, "cuLaunchKernel");
  SliceId kernel = FindSlice(*tl, "triton_");
  SliceId step = FindSlice(*tl, "ProfilerStep#2");
  EXPECT_EQ(c.kind[launch], EventKind::kDriver);
  EXPECT_EQ(c.launch[kernel], launch);
  EXPECT_EQ(c.kind[step], EventKind::kGpuUserAnnotation);
  EXPECT_TRUE(tl->HasFlag(step, kFlagGpuStepMarker));
  EXPECT_EQ(c.parent[kernel], step);  // "stream 7 " and 7 are one stream
  ASSERT_EQ(tl->flows().size(), 1u);
  EXPECT_EQ(tl->flows()[0].to, kernel);
  EXPECT_EQ(c.kind[FindSlice(*tl, "no category")], EventKind::kOther);
  EXPECT_EQ(c.kind[FindSlice(*tl, "mtiaLaunch")], EventKind::kRuntime);
  EXPECT_EQ(FindSlice(*tl, "overflow"), kNoIndex);
  EXPECT_EQ(tl->diagnostics().Count("bad_timestamp"), 1);
  EXPECT_EQ(tl->diagnostics().Count("missing_duration"), 1);
  EXPECT_EQ(tl->diagnostics().Count("unsupported_phase"), 1);
  EXPECT_EQ(tl->tracks()[c.track[FindSlice(*tl, "PyTorch Profiler (0)")]].kind,
            TrackKind::kOther);
  EXPECT_EQ(tl->metadata().framework_version, "2.1+ (inferred from cuda_driver events)");
  EXPECT_EQ(tl->metadata().events_read, 10);
}

TEST(KinetoParser, BeginEndPairsAcrossSplits) {
  TempDir dir;
  std::string text = R"({"traceEvents": [
    {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 1},
    {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 3},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 9},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 9},
    {"ph": "C", "name": "Queue", "pid": 1, "ts": 4, "args": {"length": 3}}]})";
  ParseOptions tiny;
  tiny.split_bytes = 1;
  tiny.threads = 3;
  for (const ParseOptions& options : {ParseOptions{}, tiny}) {
    absl::StatusOr<Timeline> tl = ParseText(dir, text, "be.json", options);
    ASSERT_TRUE(tl.ok()) << tl.status();
    SliceId outer = FindSlice(*tl, "outer");
    SliceId inner = FindSlice(*tl, "inner");
    ASSERT_NE(inner, kNoIndex);
    EXPECT_EQ(tl->slices().dur_ns[outer], 8000);
    EXPECT_EQ(tl->slices().parent[inner], outer);
    EXPECT_EQ(tl->diagnostics().Count("unmatched_end"), 1);
    ASSERT_EQ(tl->counters().size(), 1u);
    EXPECT_EQ(tl->str(tl->counters()[0].name), "Queue.length");
    EXPECT_EQ(tl->counters()[0].value, 3);
  }
}

TEST(KinetoParser, RankFromDistributedInfoStringOrFileName) {
  TempDir dir;
  absl::StatusOr<Timeline> a = ParseText(
      dir, R"({"distributedInfo": {"rank": "5", "world_size": "16"}, "traceEvents": []})");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->metadata().rank, 5);
  EXPECT_EQ(a->metadata().world_size, 16);
  absl::StatusOr<Timeline> list = ParseText(dir, R"({"distributedInfo": {"rank": 1,
      "world_size": 2, "pg_config": [{"pg_name": "0", "ranks": [0, 1]}]}, "traceEvents": []})");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->metadata().rank, 1);
  absl::StatusOr<Timeline> b =
      ParseText(dir, R"({"traceEvents": []})", "rank-34.Jul_15_10_52_41.1074.pt.trace.json");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->metadata().rank, 34);
  EXPECT_EQ(kineto::RankFromFileName("/a/rank_2_trace.json.gz"), 2);
  EXPECT_EQ(kineto::RankFromFileName("/a/rank7.json.gz"), 7);
  EXPECT_EQ(kineto::RankFromFileName("/rank-9/worker0.json"), -1);
}

TEST(KinetoParser, TruncatedInputKeepsCompleteEvents) {
  TempDir dir;
  std::string text(kCurrent);
  size_t cut = text.find("\"cat\": \"gpu_memcpy\"");
  for (bool gz : {false, true}) {
    std::string bytes = text.substr(0, cut);
    absl::StatusOr<Timeline> tl =
        ParseText(dir, gz ? Gzip(bytes) : bytes, gz ? "cut.json.gz" : "cut.json");
    ASSERT_TRUE(tl.ok()) << tl.status();
    EXPECT_TRUE(CheckTimelineInvariants(*tl).ok());
    const RunMetadata& m = tl->metadata();
    EXPECT_TRUE(m.truncated);
    EXPECT_EQ(m.truncated_at_byte, static_cast<int64_t>(cut));
    EXPECT_EQ(m.events_read, 6);
    EXPECT_EQ(tl->diagnostics().Count("truncated_input"), 1);
    EXPECT_NE(FindSlice(*tl, "sm90_gemm"), kNoIndex);
    EXPECT_EQ(m.rank, 3);  // metadata before the events is kept
  }
  // A gzip stream cut short is truncated input too.
  std::string gz = Gzip(text);
  absl::StatusOr<Timeline> tl = ParseText(dir, gz.substr(0, gz.size() - 30), "short.json.gz");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(tl->metadata().truncated);
}

TEST(KinetoParser, MalformedEventIsSkippedOthersKept) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "good1", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "bad", "pid": 1, "tid": 1, "ts": 2, "dur": tru},
    {"ph": "X", "cat": "cpu_op", "name": "good2", "pid": 1, "tid": 1, "ts": 3, "dur": 1}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_NE(FindSlice(*tl, "good1"), kNoIndex);
  EXPECT_NE(FindSlice(*tl, "good2"), kNoIndex);
  EXPECT_EQ(FindSlice(*tl, "bad"), kNoIndex);
  EXPECT_EQ(tl->diagnostics().Count("malformed_event"), 1);
  EXPECT_TRUE(tl->diagnostics().HasAtLeast(Severity::kError));
}

TEST(KinetoParser, NotATraceErrorsNameTheFile) {
  TempDir dir;
  struct Case {
    const char* name;
    std::string bytes;
    const char* expect;
  };
  std::string bad_gzip = Gzip("{\"traceEvents\": []}");
  bad_gzip[2] = 0x07;  // compression method other than deflate
  const Case cases[] = {
      {"empty.json", "", "is empty"},
      {"spaces.json", "   \n", "is empty"},
      {"config.json", R"({"lr": 0.1, "layers": [1, 2]})", "without a traceEvents array"},
      {"text.json", "hello world", "not a trace"},
      {"bad.json.gz", bad_gzip, "compressed byte"},
      {"cut.json", R"({"schemaVersion": 1, "deviceProp)", "before the first trace event"},
  };
  for (const Case& k : cases) {
    absl::StatusOr<Timeline> tl = ParseText(dir, k.bytes, k.name);
    ASSERT_FALSE(tl.ok()) << k.name;
    EXPECT_TRUE(absl::IsInvalidArgument(tl.status())) << tl.status();
    EXPECT_NE(tl.status().message().find(k.name), std::string::npos) << tl.status();
    EXPECT_NE(tl.status().message().find(k.expect), std::string::npos) << tl.status();
  }
}

// Every prefix and many single-byte corruptions of a trace: the parser may
// reject the input or keep part of it, but never crashes, and whatever it
// returns satisfies the invariants.
TEST(KinetoParser, DamagedInputsNeverBreakInvariants) {
  TempDir dir;
  std::string text(kCurrent);
  std::string path = (dir.path() / "damaged.json").string();
  int ok = 0;
  auto check = [&](const std::string& bytes) {
    dir.Write("damaged.json", bytes);
    ParseOptions options;
    options.split_bytes = 200;
    options.threads = 2;
    absl::StatusOr<Timeline> tl = ParseKinetoJsonFile(path, options);
    if (!tl.ok()) {
      EXPECT_NE(tl.status().message().find("damaged.json"), std::string::npos) << tl.status();
      return;
    }
    ++ok;
    absl::Status invariants = CheckTimelineInvariants(*tl);
    ASSERT_TRUE(invariants.ok()) << invariants;
  };
  for (size_t cut = 0; cut < text.size(); cut += 7) check(text.substr(0, cut));
  const char replacements[] = {'"', '{', '}', '[', ']', ',', '\\', 'x', '\0', '\xff'};
  for (size_t i = 0; i < text.size(); i += 13) {
    std::string bytes = text;
    bytes[i] = replacements[i % sizeof(replacements)];
    check(bytes);
  }
  EXPECT_GT(ok, 100);
}

TEST(KinetoParser, SniffAcceptsKinetoOnly) {
  EXPECT_TRUE(SniffKinetoJson(R"({"schemaVersion": 1, "deviceProperties": [)"));
  EXPECT_TRUE(SniffKinetoJson("\n[\n  {\"name\": \"x\""));
  EXPECT_TRUE(SniffKinetoJson(R"({"traceEvents": [)"));
  EXPECT_FALSE(SniffKinetoJson(
      R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)"));
  EXPECT_FALSE(SniffKinetoJson(R"({"lr": 0.1})"));
  EXPECT_FALSE(SniffKinetoJson("[1, 2]"));
  EXPECT_FALSE(SniffKinetoJson(""));
}

// Parses kCurrent-like synthetic traces under many split sizes and thread
// counts, and with every simdjson kernel in the binary: all results must be
// identical, slice by slice.
std::string SyntheticTrace(int steps) {
  std::string out = R"({"schemaVersion": 1, "traceEvents": [)";
  int64_t t = 1000;
  int corr = 1;
  for (int s = 0; s < steps; ++s) {
    out += fmt::format(R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}",
      "pid": 1, "tid": 1, "ts": {}, "dur": 990}},)", s, t);
    for (int k = 0; k < 30; ++k) {
      int64_t op = t + 1 + k * 32;
      out += fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "aten::op{}", "pid": 1,
        "tid": 1, "ts": {}.{:03}, "dur": 30, "args": {{"External id": {}}}}},)", k % 7, op,
        k * 37 % 1000, corr);
      out += fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
        "pid": 1, "tid": 1, "ts": {}, "dur": 4, "args": {{"correlation": {}}}}},)", op + 2, corr);
      out += fmt::format(R"({{"ph": "s", "id": {}, "pid": 1, "tid": 1, "ts": {}, "cat": "ac2g",
        "name": "ac2g"}},)", corr, op + 2);
      out += fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "k\"{}\"", "pid": 0,
        "tid": {}, "ts": {}, "dur": 20, "args": {{"correlation": {}, "grid": [{}, 1, 1]}}}},)",
        k % 5, 7 + k % 2, op + 10, corr, k + 1);
      out += fmt::format(R"({{"ph": "f", "id": {}, "pid": 0, "tid": {}, "ts": {}, "cat": "ac2g",
        "name": "ac2g", "bp": "e"}},)", corr, 7 + k % 2, op + 10);
      out += fmt::format(R"({{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
        "ts": {}, "args": {{"Total Allocated": {}, "Device Type": 1, "Device Id": 0}}}},)",
        op + 3, corr * 512);
      ++corr;
    }
    t += 1000;
  }
  out += R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},)";
  out += R"({"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 1}]})";
  return out;
}

void ExpectSameTimeline(const Timeline& a, const Timeline& b) {
  const SliceColumns& x = a.slices();
  const SliceColumns& y = b.slices();
  ASSERT_EQ(x.size(), y.size());
  for (SliceId s = 0; s < x.size(); ++s) {
    ASSERT_EQ(x.ts_ns[s], y.ts_ns[s]) << s;
    ASSERT_EQ(x.dur_ns[s], y.dur_ns[s]) << s;
    ASSERT_EQ(a.str(x.name[s]), b.str(y.name[s])) << s;
    ASSERT_EQ(x.kind[s], y.kind[s]) << s;
    ASSERT_EQ(x.flags[s], y.flags[s]) << s;
    ASSERT_EQ(x.parent[s], y.parent[s]) << s;
    ASSERT_EQ(x.launch[s], y.launch[s]) << s;
    ASSERT_EQ(x.correlation[s], y.correlation[s]) << s;
    ASSERT_EQ(x.external_id[s], y.external_id[s]) << s;
    ASSERT_EQ(x.args_count[s], y.args_count[s]) << s;
    for (size_t i = 0; i < x.args_count[s]; ++i) {
      const Arg& p = a.args(s)[i];
      const Arg& q = b.args(s)[i];
      ASSERT_EQ(a.str(p.key), b.str(q.key)) << s;
      ASSERT_EQ(p.value.type, q.value.type) << s;
      if (p.value.type == ArgValue::Type::kString) {
        ASSERT_EQ(a.str(p.value.s), b.str(q.value.s)) << s;
      } else {
        ASSERT_EQ(p.value.AsDouble(), q.value.AsDouble()) << s;
      }
    }
    ASSERT_EQ(a.details(s) == nullptr, b.details(s) == nullptr) << s;
    if (a.details(s) != nullptr) {
      ASSERT_EQ(a.details(s)->grid[0], b.details(s)->grid[0]) << s;
    }
    const Track& ta = a.tracks()[x.track[s]];
    const Track& tb = b.tracks()[y.track[s]];
    ASSERT_EQ(ta.kind, tb.kind) << s;
    ASSERT_EQ(ta.pid, tb.pid) << s;
    ASSERT_EQ(ta.tid, tb.tid) << s;
    ASSERT_EQ(a.str(ta.name), b.str(tb.name)) << s;
  }
  ASSERT_EQ(a.counters().size(), b.counters().size());
  ASSERT_EQ(a.flows().size(), b.flows().size());
  for (size_t i = 0; i < a.flows().size(); ++i) {
    EXPECT_EQ(a.flows()[i].from, b.flows()[i].from);
    EXPECT_EQ(a.flows()[i].to, b.flows()[i].to);
  }
  EXPECT_EQ(a.metadata().events_read, b.metadata().events_read);
  EXPECT_EQ(a.diagnostics().List().size(), b.diagnostics().List().size());
}

TEST(KinetoParser, ForcedSplitsAndKernelsGiveIdenticalTimelines) {
  TempDir dir;
  std::string path = dir.Write("synthetic.json.gz", Gzip(SyntheticTrace(60)));
  ParseOptions one_part;
  one_part.threads = 1;
  one_part.split_bytes = size_t{1} << 30;
  absl::StatusOr<Timeline> reference = ParseKinetoJsonFile(path, one_part);
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_EQ(reference->slice_count(), 60u * (1 + 30 * 3) + 1);
  EXPECT_TRUE(CheckTimelineInvariants(*reference).ok()) << CheckTimelineInvariants(*reference);
  EXPECT_EQ(reference->flows().size(), 1800u);
  for (size_t split : {size_t{1}, size_t{1000}, size_t{65536}}) {
    for (int threads : {1, 4}) {
      ParseOptions options;
      options.split_bytes = split;
      options.threads = threads;
      options.max_document_bytes = 4096;
      absl::StatusOr<Timeline> tl = ParseKinetoJsonFile(path, options);
      ASSERT_TRUE(tl.ok()) << tl.status();
      SCOPED_TRACE(fmt::format("split {} threads {}", split, threads));
      ExpectSameTimeline(*reference, *tl);
    }
  }
  for (const kineto::JsonReader* reader : kineto::AllJsonReaders()) {
    // Only the kernels this CPU can run: the portable one, the active one
    // and, under icelake, haswell.
    std::string_view active = kineto::ActiveJsonReader().kernel;
    bool runnable = reader->kernel == "fallback" || reader->kernel == active ||
                    (reader->kernel == "haswell" && active == "icelake");
    if (!runnable) continue;
    absl::StatusOr<Timeline> tl = kineto::ParseKinetoJsonFileWith(path, one_part, *reader);
    ASSERT_TRUE(tl.ok()) << tl.status();
    SCOPED_TRACE(reader->kernel);
    ExpectSameTimeline(*reference, *tl);
  }
}

TEST(KinetoParser, ActiveReaderMatchesCpu) {
  const kineto::JsonReader& active = kineto::ActiveJsonReader();
  // The portable copy is always built; on x86-64 the best copy is used.
  EXPECT_FALSE(active.kernel.empty());
  bool found = false;
  for (const kineto::JsonReader* r : kineto::AllJsonReaders()) found |= r == &active;
  EXPECT_TRUE(found);
  std::printf("simdjson kernel for Kineto JSON: %.*s (built: ", static_cast<int>(active.kernel.size()),
              active.kernel.data());
  for (const kineto::JsonReader* r : kineto::AllJsonReaders()) {
    std::printf("%.*s ", static_cast<int>(r->kernel.size()), r->kernel.data());
  }
  std::printf(")\n");
}

}  // namespace
}  // namespace tracelint
