#ifndef TRACELINT_PARSERS_XPLANE_XPLANE_CONVERT_H_
#define TRACELINT_PARSERS_XPLANE_XPLANE_CONVERT_H_

// xspace_to_timeline: maps XPlanes onto the shared model through
// TimelineBuilder. Internal to the xplane parser; xplane_parser.h is the
// public entry point.
//
// Mapping (see also the README design notes):
//   /host:* planes        -> kHostThread tracks (pid 0, tid = line id, so a
//                            CUPTI line and a TraceMe line with the same
//                            thread id share a track and nest)
//   /device:GPU:N streams -> kDeviceStream (pid N, tid = line id): kernels,
//                            memcpy, memset carrying correlation_id
//   /device:TPU:N XLA Ops -> kDeviceStream kernels (a TPU has no kernels;
//                            its ops are its busy time)
//   derived device lines  -> kOther tracks (pid N, tid = line id) holding
//   (Steps, XLA Modules,     kGpuUserAnnotation slices: visible, never
//    TensorFlow Ops, ...)    counted as device activity
//   step spans            -> ProfilerStep#N slices so the shared step logic
//                            applies: in place of the host step_num events
//                            when they share one thread (where Kineto puts
//                            them), else on a synthetic host track
//   other planes          -> kOther tracks

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/base/memory_budget.h"
#include "analyzer/model/timeline_builder.h"
#include "parsers/xplane/xplane_details.h"
#include "parsers/xplane/xplane_visitor.h"

namespace tracelint::xplane {

enum class PlaneClass : uint8_t {
  kHost,        // /host:CPU, /host:CUPTI, /host:ROCTRACER, python tracer, ...
  kGpu,         // /device:GPU:N
  kTpu,         // /device:TPU:N (and its SparseCore planes)
  kEnvironment, // Task Environment: profile start/stop time
  kMetadata,    // /host:metadata and other planes without timeline events
  kOther,       // anything else with lines (/device:CUSTOM:..., #Chip, ...)
};

// `ordinal` receives N of /device:GPU:N and /device:TPU:N, else -1.
PlaneClass ClassifyPlaneName(std::string_view name, int* ordinal);

// The synthetic host track holding ProfilerStep#N slices.
inline constexpr int64_t kStepTrackPid = 0;
inline constexpr int64_t kStepTrackTid = -1;

class XSpaceConverter {
 public:
  explicit XSpaceConverter(TimelineBuilder& builder) : b_(builder) {}

  // Reads profile_start_time; later relative timestamps are shifted by it.
  void AddEnvironmentPlane(const PlaneVisitor& plane);
  // Host planes must come before device planes: device copies done by blit
  // kernels take their direction from the host API call they correlate to.
  void AddHostPlane(const PlaneVisitor& plane);
  void AddDevicePlane(const PlaneVisitor& plane, PlaneClass cls, int ordinal);
  void AddOtherPlane(const PlaneVisitor& plane, int plane_index);

  // Events (slices) converted at most (ParseLimits::max_events); later
  // ones are counted, not kept. 0: no cap.
  void set_max_events(int64_t max_events) { max_events_ = max_events; }
  int64_t events_over_limit() const { return events_over_limit_; }
  // What the builder holds is charged to `account` every few thousand
  // events; once the ledger says it is over the budget, later events are
  // counted as over the limit and not kept (memory_stopped()).
  void set_memory_account(MemoryLedger::Account* account) { account_ = account; }
  bool memory_stopped() const { return memory_stopped_; }

  // Emits the step markers, framework guess and per-file diagnostics.
  void Finish();

 private:
  struct StepSpan {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  // A host API call carrying a correlation id.
  struct HostCall {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    bool is_copy = false;
    CopyDirection direction = CopyDirection::kUnknown;
    bool synchronous = false;
  };
  struct DeviceWork {
    int64_t start_ns = 0;
    int64_t correlation = 0;
  };

  int64_t LineBaseNs(const LineVisitor& line) const;
  // Adds the slice and its stats as args; returns false if skipped.
  bool AddEvent(const PlaneVisitor& plane, const LineVisitor& line, const EventVisitor& e,
                TrackId track, EventKind kind, std::string_view name, uint16_t extra_flags,
                int64_t correlation);
  void AddArgs(const PlaneVisitor& plane, const EventVisitor& e);
  void AddHostEvent(const PlaneVisitor& plane, const LineVisitor& line, const EventVisitor& e,
                    TrackId track, bool api_line, bool python_plane);
  void AddStreamEvent(const PlaneVisitor& plane, const LineVisitor& line, const EventVisitor& e,
                      TrackId track, CopyDirection line_direction);
  void AddMemoryCounters(const EventVisitor& e, int64_t ts_ns);
  // The step number, or nullopt (with a diagnostic) when there is none.
  std::optional<int64_t> RecordStep(std::map<int64_t, StepSpan>& steps, const EventVisitor& e, int64_t base_ns);
  // Moves device step spans to the host span of the calls that launched
  // their work; returns how many steps moved.
  int64_t DeviceStepsToLaunchSpans();
  void EmitStepMarkers();
  void CountPlaneDiagnostics(const PlaneVisitor& plane);

  // Interning and decoding done once per metadata entry of the current
  // plane (ids are per plane), not once per event.
  struct PlaneCache {
    absl::flat_hash_map<int64_t, StringId> event_names;  // by event metadata id
    absl::flat_hash_map<int64_t, StringId> stat_keys;    // by stat metadata id
    absl::flat_hash_map<uint64_t, StringId> ref_values;  // by ref_value
    absl::flat_hash_map<uint64_t, std::pair<DeviceDetails, DetailsOutcome>> kernel_details;
  };
  StringId InternRefOrString(const StatVisitor& stat);

  TimelineBuilder& b_;
  PlaneCache cache_;
  int64_t profile_start_ns_ = 0;
  absl::flat_hash_map<int64_t, HostCall> host_calls_;  // by correlation id
  std::vector<DeviceWork> device_work_;                 // correlated device activities
  // A host event with step_num, held back: when all of them sit on one
  // thread they become that thread's ProfilerStep#N markers (as Kineto puts
  // them), otherwise they are added as they are.
  struct HostStepEvent {
    TrackId track = 0;
    StringId name = kEmptyStringId;
    int64_t number = 0;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  std::map<int64_t, StepSpan> host_steps_;    // events with step_num on host planes
  std::vector<HostStepEvent> host_step_events_;
  std::map<int64_t, StepSpan> device_steps_;  // "Steps" lines, merged over devices
  absl::flat_hash_set<TrackId> named_tracks_;
  int tf_evidence_ = 0;
  int jax_evidence_ = 0;
  bool jax_module_seen_ = false;
  bool rocm_evidence_ = false;
  // Counters for diagnostics.
  int64_t aggregated_events_ = 0;
  int64_t max_events_ = 0;
  int64_t events_over_limit_ = 0;
  MemoryLedger::Account* account_ = nullptr;
  int64_t events_since_charge_ = 0;
  bool memory_stopped_ = false;
  int64_t unknown_metadata_refs_ = 0;
  int64_t bad_compressed_ = 0;
  int64_t kernel_fields_rejected_ = 0;
  int64_t blit_copies_ = 0;
  int64_t bytes_stats_skipped_ = 0;
};

}  // namespace tracelint::xplane

#endif  // TRACELINT_PARSERS_XPLANE_XPLANE_CONVERT_H_
