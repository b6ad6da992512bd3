#include "parsers/kineto/chrome_device_tracks.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/kineto/chrome_test_traces.h"
#include "parsers/kineto/kineto_metadata.h"
#include "tests/support/kineto_test_util.h"

namespace tracelint {
namespace {

using testing::ParseText;
using testing::TempDir;

// Union of the device activities on device streams, per device: busy
// time, counted once however many tracks repeat it.
std::map<int, TimeNs> DeviceBusyNs(const Timeline& tl) {
  std::map<int, std::vector<std::pair<TimeNs, TimeNs>>> spans;
  const SliceColumns& c = tl.slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    const Track& t = tl.tracks()[c.track[s]];
    if (t.kind != TrackKind::kDeviceStream || !IsDeviceActivity(c.kind[s])) continue;
    spans[t.device].push_back({c.ts_ns[s], c.end_ns(s)});
  }
  std::map<int, TimeNs> out;
  for (auto& [device, v] : spans) {
    std::sort(v.begin(), v.end());
    TimeNs busy = 0, end = v.front().first;
    for (auto [a, b] : v) {
      if (b <= end) continue;
      busy += b - std::max(a, end);
      end = b;
    }
    out[device] = busy;
  }
  return out;
}

// Summed duration by kind over device streams.
std::map<EventKind, TimeNs> DeviceTimeByKind(const Timeline& tl) {
  std::map<EventKind, TimeNs> out;
  const SliceColumns& c = tl.slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (tl.tracks()[c.track[s]].kind == TrackKind::kDeviceStream) out[c.kind[s]] += c.dur_ns[s];
  }
  return out;
}

// (device, stream) of every device stream holding slices.
std::vector<std::pair<int, int64_t>> DeviceStreams(const Timeline& tl) {
  std::vector<std::pair<int, int64_t>> out;
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    const Track& track = tl.tracks()[t];
    auto [first, last] = tl.track_range(t);
    if (track.kind == TrackKind::kDeviceStream && last > first) {
      out.push_back({track.device, track.tid});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TimeNs CopyTimeNs(const Timeline& tl, CopyDirection direction) {
  TimeNs sum = 0;
  for (SliceId s = 0; s < tl.slice_count(); ++s) {
    const DeviceDetails* d = tl.details(s);
    if (tl.slices().kind[s] == EventKind::kMemcpy && d != nullptr && d->direction == direction) {
      sum += tl.slices().dur_ns[s];
    }
  }
  return sum;
}

TEST(ChromeDeviceTracks, Tf1TimelineStreamsWithoutTheRepeats) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::Tf1TimelineTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(DeviceStreams(*tl), (std::vector<std::pair<int, int64_t>>{{0, 13}, {0, 14}}));
  // 175 us of work, not the 175 + 110 (stream:all) + 65 (memcpy) the tracks hold.
  EXPECT_EQ(DeviceBusyNs(*tl), (std::map<int, TimeNs>{{0, 175'000}}));
  std::map<EventKind, TimeNs> by_kind = DeviceTimeByKind(*tl);
  EXPECT_EQ(by_kind[EventKind::kKernel], 110'000);
  // The copy named after its op ("MatMul") is known by its /memcpy repeat.
  EXPECT_EQ(by_kind[EventKind::kMemcpy], 65'000);
  EXPECT_EQ(CopyTimeNs(*tl, CopyDirection::kHtoD), 40'000);
  EXPECT_EQ(CopyTimeNs(*tl, CopyDirection::kDtoH), 20'000);
  // The repeats stay visible as device annotations on 'other' tracks.
  SliceId all_streams = kNoIndex;
  for (SliceId s = 0; s < tl->slice_count(); ++s) {
    if (tl->str(tl->tracks()[tl->slices().track[s]].name) == "/device:GPU:0/stream:all Compute") {
      all_streams = s;
    }
  }
  ASSERT_NE(all_streams, kNoIndex);
  EXPECT_EQ(tl->tracks()[tl->slices().track[all_streams]].kind, TrackKind::kOther);
  EXPECT_EQ(tl->slices().kind[all_streams], EventKind::kGpuUserAnnotation);
  EXPECT_EQ(tl->diagnostics().Count("chrome_repeated_device_tracks"), 5);
  EXPECT_EQ(tl->diagnostics().Count("chrome_device_tracks"), 2);
  // The executor's ops stay on their host threads, as cpu ops.
  SliceId mean = testing::FindSlice(*tl, "Mean");
  ASSERT_NE(mean, kNoIndex);
  EXPECT_EQ(tl->tracks()[tl->slices().track[mean]].kind, TrackKind::kHostThread);
  EXPECT_EQ(tl->slices().kind[mean], EventKind::kCpuOp);

  const RunMetadata& m = tl->metadata();
  EXPECT_EQ(m.format, "chrome-json");
  EXPECT_EQ(m.framework, "TensorFlow");
  EXPECT_EQ(m.framework_version, "");
}

// Metadata at the end (where Kineto writes it) and parts parsed in
// parallel give the same timeline as metadata first in one part.
TEST(ChromeDeviceTracks, MetadataAnywhereAndAnySplit) {
  TempDir dir;
  absl::StatusOr<Timeline> first = ParseText(dir, testing::Tf1TimelineTrace(), "first.json");
  ParseOptions split;
  split.split_bytes = 256;
  split.threads = 3;
  absl::StatusOr<Timeline> last =
      ParseText(dir, testing::Tf1TimelineTrace(/*metadata_last=*/true), "last.json", split);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(DeviceStreams(*first), DeviceStreams(*last));
  EXPECT_EQ(DeviceBusyNs(*first), DeviceBusyNs(*last));
  EXPECT_EQ(DeviceTimeByKind(*first), DeviceTimeByKind(*last));
  EXPECT_EQ(CopyTimeNs(*last, CopyDirection::kHtoD), 40'000);
  EXPECT_EQ(last->metadata().framework, "TensorFlow");
}

TEST(ChromeDeviceTracks, Tf1OldGpuNames) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::Tf1OldGpuNamesTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(DeviceStreams(*tl), (std::vector<std::pair<int, int64_t>>{{0, 12}, {0, 14}}));
  EXPECT_EQ(DeviceBusyNs(*tl), (std::map<int, TimeNs>{{0, 350'000}}));
  EXPECT_EQ(CopyTimeNs(*tl, CopyDirection::kDtoH), 50'000);
  EXPECT_EQ(DeviceTimeByKind(*tl)[EventKind::kKernel], 300'000);
  EXPECT_EQ(tl->metadata().framework, "TensorFlow");
}

TEST(ChromeDeviceTracks, Tf1CpuOnlyStaysOnTheHost) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::Tf1CpuOnlyTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(DeviceStreams(*tl).empty());
  EXPECT_EQ(tl->slices().kind[testing::FindSlice(*tl, "MatMul")], EventKind::kCpuOp);
  EXPECT_EQ(tl->metadata().framework, "TensorFlow");
  EXPECT_EQ(tl->metadata().format, "chrome-json");
}

TEST(ChromeDeviceTracks, XprofGpuStreamsNotXlaOps) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::XprofGpuTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(DeviceStreams(*tl), (std::vector<std::pair<int, int64_t>>{{0, 13}, {0, 14}}));
  EXPECT_EQ(DeviceBusyNs(*tl), (std::map<int, TimeNs>{{0, 240'000}}));
  EXPECT_EQ(DeviceTimeByKind(*tl)[EventKind::kKernel], 200'000);
  // A copy-only stream's copies take its direction.
  EXPECT_EQ(CopyTimeNs(*tl, CopyDirection::kHtoD), 40'000);
  for (std::string_view derived : {"fusion.1", "jit_train_step(123)", "0"}) {
    SliceId s = testing::FindSlice(*tl, derived);
    ASSERT_NE(s, kNoIndex) << derived;
    EXPECT_EQ(tl->tracks()[tl->slices().track[s]].kind, TrackKind::kOther) << derived;
    EXPECT_EQ(tl->slices().kind[s], EventKind::kGpuUserAnnotation) << derived;
  }
  EXPECT_EQ(tl->diagnostics().Count("chrome_repeated_device_tracks"), 2);
  EXPECT_EQ(tl->diagnostics().Count("chrome_derived_device_tracks"), 2);
  SliceId host = testing::FindSlice(*tl, "PjitFunction(train_step)");
  EXPECT_EQ(tl->tracks()[tl->slices().track[host]].kind, TrackKind::kHostThread);
  EXPECT_EQ(tl->metadata().framework, "JAX");
  EXPECT_EQ(tl->metadata().format, "chrome-json");
}

// Without JAX's names the xprof names say TensorFlow (its own derived
// lines) or only "TensorFlow or JAX".
TEST(ChromeDeviceTracks, XprofFrameworkFromNames) {
  auto without_jax = [](std::string text) {
    for (auto [from, to] : {std::pair<std::string, std::string>{"py_xla_execute/100", "python3"},
                            {"jit_train_step(123)", "cluster_0(123)"}}) {
      text.replace(text.find(from), from.size(), to);
    }
    return text;
  };
  TempDir dir;
  std::string plain = without_jax(testing::XprofGpuTrace());
  absl::StatusOr<Timeline> xla = ParseText(dir, plain, "xla.json");
  ASSERT_TRUE(xla.ok()) << xla.status();
  EXPECT_EQ(xla->metadata().framework, "TensorFlow/JAX (XLA)");
  std::string tf = plain;
  tf.replace(tf.find("\"XLA Modules\""), 13, "\"TensorFlow Ops\"");
  absl::StatusOr<Timeline> tf_tl = ParseText(dir, tf, "tf.json");
  ASSERT_TRUE(tf_tl.ok()) << tf_tl.status();
  EXPECT_EQ(tf_tl->metadata().framework, "TensorFlow");
  EXPECT_EQ(DeviceBusyNs(*tf_tl), (std::map<int, TimeNs>{{0, 240'000}}));
  // A description after the device name changes nothing.
  absl::StatusOr<Timeline> described =
      ParseText(dir, testing::XprofGpuTrace("/device:GPU:0 (NVIDIA A100)"), "desc.json");
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(DeviceStreams(*described), DeviceStreams(*xla));
}

// A GPU's XLA Ops repeat its streams; with no stream lines they are all
// there is. A TPU core has no streams: its XLA Ops are its work.
TEST(ChromeDeviceTracks, XlaOpsWithoutStreams) {
  std::vector<std::string> meta = {testing::ProcessName(3, "/device:TPU:1"),
                                   testing::ThreadName(3, 1, "XLA Ops"),
                                   testing::ThreadName(3, 2, "XLA Modules")};
  std::vector<std::string> events = {
      testing::XprofOp(3, 1, "100", "50", "fusion.3"),
      testing::XprofOp(3, 1, "160", "20", "copy-start.4"),
      testing::XprofOp(3, 2, "100", "80", "jit_step(7)"),
  };
  TempDir dir;
  absl::StatusOr<Timeline> tpu = ParseText(dir, testing::ChromeTrace(meta, events), "tpu.json");
  ASSERT_TRUE(tpu.ok()) << tpu.status();
  EXPECT_EQ(DeviceStreams(*tpu), (std::vector<std::pair<int, int64_t>>{{1, 1}}));
  EXPECT_EQ(DeviceTimeByKind(*tpu)[EventKind::kKernel], 50'000);
  EXPECT_EQ(DeviceTimeByKind(*tpu)[EventKind::kMemcpy], 20'000);
  EXPECT_EQ(tpu->metadata().accelerator_from_events, "TPU");
  EXPECT_EQ(tpu->metadata().framework, "JAX");

  meta[0] = testing::ProcessName(3, "/device:GPU:1");
  absl::StatusOr<Timeline> gpu = ParseText(dir, testing::ChromeTrace(meta, events), "gpu.json");
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_EQ(DeviceStreams(*gpu), (std::vector<std::pair<int, int64_t>>{{1, 1}}));
  EXPECT_EQ(DeviceBusyNs(*gpu), (std::map<int, TimeNs>{{1, 70'000}}));
  EXPECT_EQ(gpu->metadata().accelerator_from_events, "");
}

TEST(ChromeDeviceTracks, GenericCpuTraceIsNoPytorch) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::GenericCpuTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  const RunMetadata& m = tl->metadata();
  EXPECT_EQ(m.format, "chrome-json");
  EXPECT_EQ(m.framework, "");
  EXPECT_EQ(m.framework_version, "");
  EXPECT_EQ(tl->tracks()[tl->slices().track[0]].kind, TrackKind::kHostThread);
}

TEST(ChromeDeviceTracks, StringTidsAreHostThreads) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::StringTidTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->slice_count(), 3u);
  std::vector<std::string> names;
  for (SliceId s = 0; s < tl->slice_count(); ++s) {
    const Track& t = tl->tracks()[tl->slices().track[s]];
    EXPECT_EQ(t.kind, TrackKind::kHostThread);
    EXPECT_EQ(t.pid, 27172);
    names.push_back(std::string(tl->str(t.name)));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ThreadId(1)", "ThreadId(1)", "ThreadId(2)"}));
  // Nested on one thread, as any host thread.
  EXPECT_EQ(tl->slices().parent[testing::FindSlice(*tl, "matmul")],
            testing::FindSlice(*tl, "forward_pass"));
  // Fractional timestamps alone do not make a PyTorch trace.
  EXPECT_EQ(tl->metadata().framework, "");
  EXPECT_EQ(tl->metadata().framework_version, "");
}

TEST(ChromeDeviceTracks, EventsWithoutPidGetTheDefaultPid) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::NoPidTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->slice_count(), 2u);
  for (SliceId s = 0; s < tl->slice_count(); ++s) {
    const Track& t = tl->tracks()[tl->slices().track[s]];
    EXPECT_EQ(t.kind, TrackKind::kHostThread);
    EXPECT_EQ(t.pid, kineto::kMissingPid);
  }
  EXPECT_EQ(tl->slices().dur_ns[testing::FindSlice(*tl, "bpftrace")], 30'500);
  EXPECT_EQ(tl->diagnostics().Count("unmatched_end"), 0);
}

// A string pid other than Kineto's own names a process tracelint cannot
// place: its events are kept aside, and counted.
TEST(ChromeDeviceTracks, StringPidsAreCounted) {
  TempDir dir;
  std::string text = testing::ChromeTrace(
      {}, {R"({"ph": "X", "pid": "Browser", "tid": 1, "ts": 10, "dur": 5, "name": "Paint"})",
           R"j({"ph": "X", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 10, "dur": 5, "name": "PyTorch Profiler (0)", "cat": "Trace"})j"});
  absl::StatusOr<Timeline> tl = ParseText(dir, text);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->diagnostics().Count("string_pid"), 1);
}

TEST(ChromeDeviceTracks, KinetoEvidence) {
  kineto::RawMeta none;
  EXPECT_FALSE(kineto::HasKinetoEvidence(0, none));
  EXPECT_FALSE(kineto::HasKinetoEvidence(kineto::kFeatFractionalTs, none));
  EXPECT_TRUE(kineto::HasKinetoEvidence(kineto::kFeatKinetoCategory, none));
  EXPECT_TRUE(kineto::HasKinetoEvidence(kineto::kFeatKinetoNames, none));
  kineto::RawMeta schema;
  schema.schema_version = 1;
  EXPECT_TRUE(kineto::HasKinetoEvidence(0, schema));
  kineto::RawMeta xprof;
  xprof.has_display_time_unit = true;
  EXPECT_FALSE(kineto::HasKinetoEvidence(0, xprof));
}

// A Kineto trace whose process names are Kineto's keeps every track.
TEST(ChromeDeviceTracks, KinetoNamesAreLeftAlone) {
  TempDir dir;
  std::string text = testing::ChromeTrace(
      {testing::ProcessName(0, "python3 1102"), testing::ProcessName(1, "GPU 1"),
       testing::ThreadName(1, 7, "stream 7 ")},
      {R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 0, "tid": 3, "ts": 10, "dur": 50})",
       R"({"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 1, "tid": 7, "ts": 20, "dur": 30})"},
      /*metadata_last=*/true);
  absl::StatusOr<Timeline> tl = ParseText(dir, text);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(DeviceStreams(*tl), (std::vector<std::pair<int, int64_t>>{{1, 7}}));
  EXPECT_EQ(tl->metadata().framework, "PyTorch");
  EXPECT_EQ(tl->metadata().format, "kineto-json");
  EXPECT_EQ(tl->diagnostics().Count("chrome_device_tracks"), 0);
}

// testdata/chrome holds what the generators above write.
TEST(ChromeDeviceTracks, TestdataIsGenerated) {
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  if (root == nullptr) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set (run under ctest)";
  const char* regenerate = std::getenv("TRACELINT_REGENERATE_TESTDATA");
  const bool write = regenerate != nullptr && std::string(regenerate) == "1";
  for (const auto& [name, text] : testing::ChromeTestdata()) {
    const std::string path = std::string(root) + "/testdata/chrome/" + name + ".json";
    if (write) {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << text;
      ASSERT_TRUE(out.good()) << "cannot write " << path;
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << "missing " << path
                           << " (regenerate with TRACELINT_REGENERATE_TESTDATA=1)";
    std::stringstream read;
    read << in.rdbuf();
    EXPECT_TRUE(read.str() == text)
        << path << " is stale; regenerate with TRACELINT_REGENERATE_TESTDATA=1";
  }
}

}  // namespace
}  // namespace tracelint
