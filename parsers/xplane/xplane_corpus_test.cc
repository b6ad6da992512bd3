// Every .xplane.pb in ../shared/corpus must parse (the deliberately corrupt
// one must fail cleanly). Skips visibly when the corpus is absent.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "parsers/xplane/xplane.pb.h"
#include "parsers/xplane/xplane_parser.h"
#include "parsers/xplane/xplane_wire.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;
using ::testing::HasSubstr;

std::vector<fs::path> CorpusXSpaces() {
  std::vector<fs::path> out;
  fs::path dir = CorpusDir();
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.ends_with(".xplane.pb")) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Summary {
  int planes = 0;
  int lines = 0;
  int64_t events = 0;
  int device_streams = 0;
  int64_t kernels = 0;
  int64_t memcpys = 0;
  int64_t linked = 0;
  int steps = 0;
  double parse_ms = 0;
};

Summary Summarize(const fs::path& path, const Timeline& tl, double parse_ms) {
  Summary s;
  s.parse_ms = parse_ms;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto top = xplane::SplitXSpace(bytes);
  if (top.ok()) {
    s.planes = static_cast<int>(top->planes.size());
    for (const auto& p : top->planes) {
      tensorflow::profiler::XPlane plane;
      if (plane.ParseFromArray(p.bytes.data(), static_cast<int>(p.bytes.size()))) {
        s.lines += plane.lines_size();
      }
    }
  }
  s.events = tl.metadata().events_read;
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    auto [b, e] = tl.track_range(t);
    const Track& track = tl.tracks()[t];
    if (track.kind == TrackKind::kDeviceStream && track.overflow_of == kNoIndex && e > b) {
      ++s.device_streams;
    }
  }
  for (SliceId i = 0; i < tl.slice_count(); ++i) {
    if (tl.slices().kind[i] == EventKind::kKernel) ++s.kernels;
    if (tl.slices().kind[i] == EventKind::kMemcpy) ++s.memcpys;
    if (tl.slices().launch[i] != kNoIndex) ++s.linked;
    if (tl.HasFlag(i, kFlagStepMarker)) ++s.steps;
  }
  return s;
}

TEST(XSpaceCorpusTest, EveryCorpusFileParsesOrFailsCleanly) {
  std::vector<fs::path> files = CorpusXSpaces();
  if (files.empty()) GTEST_SKIP() << "no .xplane.pb under " << CorpusDir();
  int parsed = 0;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<Timeline> tl = ParseXSpaceFile(path.string());
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
    if (path.filename().string().find("corrupt") != std::string::npos) {
      ASSERT_FALSE(tl.ok());
      EXPECT_THAT(std::string(tl.status().message()), HasSubstr(path.string()));
      std::cout << "[corpus] " << path.filename().string() << ": error as expected: "
                << tl.status().message() << "\n";
      continue;
    }
    ASSERT_TRUE(tl.ok()) << tl.status();
    ++parsed;
    Summary s = Summarize(path, *tl, ms);
    std::cout << "[corpus] " << path.filename().string() << ": planes=" << s.planes
              << " lines=" << s.lines << " events=" << s.events
              << " device_streams=" << s.device_streams << " kernels=" << s.kernels
              << " memcpy=" << s.memcpys << " linked=" << s.linked << " steps=" << s.steps
              << " devices=" << tl->metadata().devices.size()
              << " framework=" << tl->metadata().framework << " parse_ms=" << s.parse_ms
              << "\n";
    for (const Diagnostic& d : tl->diagnostics().List()) {
      std::cout << "[corpus]   diagnostic " << d.name << " x" << d.count << "\n";
    }
    EXPECT_GT(s.events, 0);
    EXPECT_GT(s.kernels, 0);
    EXPECT_FALSE(tl->metadata().devices.empty());
    EXPECT_FALSE(tl->metadata().framework.empty());
  }
  EXPECT_GT(parsed, 0);
}

// Facts from MANIFEST.tsv, one file per producer family.
TEST(XSpaceCorpusTest, TensorFlowGpuMultiWorker) {
  fs::path path = CorpusDir() / "openxla__xprof/demo/plugins/profile/GPU-multi-worker/"
                                "34.83.195.179_6003.xplane.pb";
  if (!fs::exists(path)) GTEST_SKIP() << "absent: " << path;
  absl::StatusOr<Timeline> tl = ParseXSpaceFile(path.string());
  ASSERT_TRUE(tl.ok()) << tl.status();
  const RunMetadata& m = tl->metadata();
  EXPECT_EQ(m.framework, "TensorFlow");
  EXPECT_EQ(m.host_name, "34.83.195.179_6003");
  ASSERT_EQ(m.devices.size(), 8u);
  for (const DeviceInfo& d : m.devices) {
    EXPECT_EQ(d.compute_major, 7);
    EXPECT_EQ(d.compute_minor, 0);
    EXPECT_EQ(d.sm_count, 80);
    EXPECT_EQ(d.vendor, "NVIDIA");  // inferred: the file has no device_vendor
  }
  Summary s = Summarize(path, *tl, 0);
  EXPECT_GE(s.steps, 1);
  // GPU:4 runs its step 0 at 1.92 s, GPU:6 at 2.57 s.
  EXPECT_EQ(tl->diagnostics().Count("xspace_step_spans_disjoint"), 1);
  EXPECT_GT(s.memcpys, 0);
  EXPECT_GT(s.linked, 0);
  int64_t h2d = 0;
  for (SliceId i = 0; i < tl->slice_count(); ++i) {
    const DeviceDetails* d = tl->details(i);
    if (tl->slices().kind[i] == EventKind::kMemcpy && d != nullptr &&
        d->direction == CopyDirection::kHtoD && d->bytes >= 0) {
      ++h2d;
    }
  }
  EXPECT_GT(h2d, 0);
}

TEST(XSpaceCorpusTest, JaxTpu) {
  fs::path path = CorpusDir() / "openxla__xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";
  if (!fs::exists(path)) GTEST_SKIP() << "absent: " << path;
  absl::StatusOr<Timeline> tl = ParseXSpaceFile(path.string());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().framework, "JAX");
  ASSERT_EQ(tl->metadata().devices.size(), 4u);
  EXPECT_EQ(tl->metadata().devices[0].name, "TPU v6 Lite");
  EXPECT_GT(tl->metadata().base_time_ns, 0);  // profile_start_time applied
}

TEST(XSpaceCorpusTest, JaxRocm) {
  fs::path path = CorpusDir() / "AMD-AGI__TraceLens/tests/traces/mi300/jax08_gemm/tw003.xplane.pb";
  if (!fs::exists(path)) GTEST_SKIP() << "absent: " << path;
  absl::StatusOr<Timeline> tl = ParseXSpaceFile(path.string());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().framework, "JAX");
  ASSERT_EQ(tl->metadata().devices.size(), 8u);
  EXPECT_EQ(tl->metadata().devices[0].vendor, "AMD");
  EXPECT_EQ(tl->metadata().devices[0].sm_count, 304);
  Summary s = Summarize(path, *tl, 0);
  EXPECT_GT(s.linked, 0);
  // Every device activity here has a host call with the same correlation id.
  EXPECT_EQ(tl->diagnostics().Count("device_activity_without_launch"), 0);
}

}  // namespace
}  // namespace tracelint
