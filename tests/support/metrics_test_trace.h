#ifndef TRACELINT_TESTS_SUPPORT_METRICS_TEST_TRACE_H_
#define TRACELINT_TESTS_SUPPORT_METRICS_TEST_TRACE_H_

// Test-only: tiny timelines with exact, hand-placed times for the steps and
// metrics tests (a Scenario simulates timing; these tests need to put every
// event where the expected answer says). All times are microseconds to keep
// the expectations readable; the timeline gets ns.

#include <string>
#include <string_view>
#include <utility>

#include "analyzer/model/timeline_builder.h"

namespace tracelint::metrics_test {

inline constexpr int64_t kMainThread = 1;

struct DeviceOpts {
  int device = 0;
  int64_t stream = 7;
  int32_t grid_x = 0;            // 0: no launch configuration recorded
  float occupancy_pct = -1;      // est. achieved occupancy %; -1: absent
  int64_t tid = kMainThread;     // thread of the launch call
  TimeNs launch_dur_us = 1;
};

class TestTrace {
 public:
  TestTrace& Device(int id, int sm_count) {
    DeviceInfo d;
    d.id = id;
    d.name = "Test GPU";
    d.vendor = "NVIDIA";
    d.compute_major = 8;
    d.compute_minor = 0;
    d.sm_count = sm_count;
    d.total_memory_bytes = int64_t{40} << 30;
    b_.metadata().devices.push_back(d);
    return *this;
  }
  TestTrace& Step(int64_t n, TimeNs ts_us, TimeNs dur_us, int64_t tid = kMainThread) {
    return Host("ProfilerStep#" + std::to_string(n), EventKind::kUserAnnotation, ts_us, dur_us,
                tid);
  }
  TestTrace& Op(std::string_view name, TimeNs ts_us, TimeNs dur_us, int64_t tid = kMainThread,
                std::string_view input_types = {}) {
    Host(name, EventKind::kCpuOp, ts_us, dur_us, tid);
    if (!input_types.empty()) {
      b_.AddArg(b_.Intern("Input type"), ArgValue::String(b_.Intern(input_types)));
    }
    return *this;
  }
  TestTrace& Host(std::string_view name, EventKind kind, TimeNs ts_us, TimeNs dur_us,
                  int64_t tid = kMainThread) {
    SliceSpec s;
    s.track = b_.GetTrack(TrackKind::kHostThread, kPid, tid);
    s.ts_ns = ts_us * kNsPerUs;
    s.dur_ns = dur_us * kNsPerUs;
    s.name = b_.Intern(name);
    s.kind = kind;
    b_.AddSlice(s);
    return *this;
  }
  // A launch call at launch_us on the host and its device activity.
  TestTrace& Launch(EventKind kind, std::string_view name, TimeNs launch_us, TimeNs ts_us,
                    TimeNs dur_us, const DeviceOpts& o = {}) {
    int64_t corr = ++next_correlation_;
    SliceSpec call;
    call.track = b_.GetTrack(TrackKind::kHostThread, kPid, o.tid);
    call.ts_ns = launch_us * kNsPerUs;
    call.dur_ns = o.launch_dur_us * kNsPerUs;
    call.name = b_.Intern(kind == EventKind::kKernel   ? "cudaLaunchKernel"
                          : kind == EventKind::kMemset ? "cudaMemsetAsync"
                                                       : "cudaMemcpyAsync");
    call.kind = EventKind::kRuntime;
    call.correlation = corr;
    b_.AddSlice(call);
    Device(kind, name, ts_us, dur_us, o, corr);
    return *this;
  }
  TestTrace& Kernel(std::string_view name, TimeNs launch_us, TimeNs ts_us, TimeNs dur_us,
                    const DeviceOpts& o = {}) {
    return Launch(EventKind::kKernel, name, launch_us, ts_us, dur_us, o);
  }
  // Device activity with no launch (graph replay, lost correlation).
  TestTrace& Device(EventKind kind, std::string_view name, TimeNs ts_us, TimeNs dur_us,
                    const DeviceOpts& o = {}, int64_t correlation = 0) {
    SliceSpec k;
    k.track = b_.GetTrack(TrackKind::kDeviceStream, o.device, o.stream);
    k.ts_ns = ts_us * kNsPerUs;
    k.dur_ns = dur_us * kNsPerUs;
    k.name = b_.Intern(name);
    k.kind = kind;
    k.correlation = correlation;
    b_.AddSlice(k);
    if (kind == EventKind::kKernel && (o.grid_x > 0 || o.occupancy_pct >= 0)) {
      DeviceDetails& d = b_.AddDetails();
      d.grid[0] = o.grid_x;
      d.est_achieved_occupancy_pct = o.occupancy_pct;
    }
    return *this;
  }
  // The profiler's own span (a kOther track), which reaches past the work.
  TestTrace& ProfilerSpan(TimeNs ts_us, TimeNs dur_us) {
    SliceSpec s;
    s.track = b_.GetTrack(TrackKind::kOther, kPid, 0);
    s.ts_ns = ts_us * kNsPerUs;
    s.dur_ns = dur_us * kNsPerUs;
    s.name = b_.Intern("PyTorch Profiler (0)");
    s.kind = EventKind::kTraceSpan;
    b_.AddSlice(s);
    return *this;
  }
  Timeline Build() && {
    absl::StatusOr<Timeline> tl = std::move(b_).Finalize();
    if (!tl.ok()) return Timeline();
    return *std::move(tl);
  }

 private:
  static constexpr int64_t kPid = 100;
  TimelineBuilder b_;
  int64_t next_correlation_ = 0;
};

}  // namespace tracelint::metrics_test

#endif  // TRACELINT_TESTS_SUPPORT_METRICS_TEST_TRACE_H_
