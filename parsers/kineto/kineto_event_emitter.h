#ifndef TRACELINT_PARSERS_KINETO_KINETO_EVENT_EMITTER_H_
#define TRACELINT_PARSERS_KINETO_KINETO_EVENT_EMITTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "analyzer/base/time.h"
#include "analyzer/model/timeline_builder.h"
#include "parsers/kineto/kineto_raw.h"

namespace tracelint::kineto {

// Trace features that date the producer (docs/design/formats.md A.10).
enum Feature : uint32_t {
  kFeatLegacyCategories = 1 << 0,  // Operator / Runtime / Kernel ...
  kFeatCurrentCategories = 1 << 1,
  kFeatFlowAsync = 1 << 2,
  kFeatFlowAsyncCpuToGpu = 1 << 3,
  kFeatFlowAc2g = 1 << 4,
  kFeatGpuUserAnnotation = 1 << 5,
  kFeatCudaDriver = 1 << 6,
  kFeatKernelCollectiveArgs = 1 << 7,
  kFeatFractionalTs = 1 << 8,
  kFeatRecordFunctionId = 1 << 9,
  kFeatHipNames = 1 << 10,
  kFeatSpansPid = 1 << 11,
  kFeatMtia = 1 << 12,
  kFeatEvIdx = 1 << 13,
  // Kineto's own vocabulary, which other Chrome JSON producers do not write
  // (what makes a trace PyTorch's, FillMetadata): a Kineto category or flow
  // category, or an aten::/ProfilerStep#/[memory] name.
  kFeatKinetoCategory = 1 << 14,
  kFeatKinetoNames = 1 << 15,
};

// The pid of events written without one (bpftrace-to-Chrome converters omit
// it): process 0, as a missing tid is thread 0.
inline constexpr int64_t kMissingPid = 0;
inline constexpr int64_t kMissingTid = 0;

using TrackKey = std::tuple<TrackKind, int64_t, int64_t>;

// A ph B or E event. They are paired after all parts are merged, because a
// begin and its end may fall into different parts.
struct BeginEndEvent {
  bool is_begin = true;
  TrackKey track;
  TimeNs ts_ns = 0;
  EventKind kind = EventKind::kOther;
  std::string name;
};

// A thread_name metadata event; applied to whichever tracks exist for the
// (pid, tid) once all parts are merged.
struct TrackNameEvent {
  int64_t pid = 0;
  int64_t tid = 0;
  std::string name;
};

// A process_name metadata event of a numeric pid; device tracks of Chrome
// JSON from TensorFlow/JAX are named this way (chrome_device_tracks.h).
struct ProcessNameEvent {
  int64_t pid = 0;
  std::string name;
};

// Turns raw events into TimelineBuilder calls for one part of the input.
class EventEmitter : public RawEventSink {
 public:
  EventEmitter(TimelineBuilder& builder, TimeNs base_time_ns);

  void OnEvent(const RawEvent& ev) override;

  int64_t events() const { return events_; }
  uint32_t features() const { return features_; }
  std::vector<BeginEndEvent>& begin_end() { return begin_end_; }
  std::vector<TrackNameEvent>& track_names() { return track_names_; }
  std::vector<ProcessNameEvent>& process_names() { return process_names_; }
  const absl::flat_hash_set<TrackKey>& tracks() const { return tracks_; }
  // Devices whose streams hold slices (a flow's end alone names no device:
  // ROCm traces end some ac2g flows on the host pid).
  const absl::flat_hash_set<int64_t>& slice_devices() const { return slice_devices_; }

 private:
  struct Id {
    bool numeric = false;
    int64_t value = 0;
    std::string_view text;
  };
  TrackId Track(TrackKind kind, const Id& pid, const Id& tid);
  void ParseIds(const RawEvent& ev, bool device, Id* pid, Id* tid);
  // A flow end on a pid that is no device index is Kineto's host-side end
  // (bound to a runtime call, with no start), not a misplaced device event:
  // it is not warned about (`flow_end`).
  TrackKey ResolveTrackKey(bool device, const RawEvent& ev, const Id& pid, const Id& tid,
                           bool flow_end = false);
  // Microsecond text to ns; timestamps get the trace's base time added.
  // False when the value is not a time.
  bool Micros(const JsonScalar& value, bool add_base_time, TimeNs* out);
  StringId ArgKeyId(const RawArg& arg);
  void EmitSlice(const RawEvent& ev, EventKind kind, bool device, TimeNs ts_ns,
                 TimeNs dur_ns);
  void EmitFlow(const RawEvent& ev, char ph, TimeNs ts_ns);
  void EmitCounters(const RawEvent& ev, TimeNs ts_ns);
  void EmitMemoryInstant(const RawEvent& ev, TimeNs ts_ns);
  void Diag(std::string_view name, Severity severity, std::string_view description);

  TimelineBuilder& b_;
  TimeNs base_time_ns_;
  int64_t events_ = 0;
  uint32_t features_ = 0;
  std::vector<BeginEndEvent> begin_end_;
  std::vector<TrackNameEvent> track_names_;
  std::vector<ProcessNameEvent> process_names_;
  absl::flat_hash_set<TrackKey> tracks_;
  absl::flat_hash_set<int64_t> slice_devices_;
  std::vector<StringId> key_ids_;
};

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_KINETO_EVENT_EMITTER_H_
