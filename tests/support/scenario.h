#ifndef TRACELINT_TESTS_SUPPORT_SCENARIO_H_
#define TRACELINT_TESTS_SUPPORT_SCENARIO_H_

// A fluent builder of Kineto-shaped traces for tests. One Scenario yields
// BOTH a finalized Timeline (through TimelineBuilder, as a parser would) and
// the equivalent Kineto Chrome-trace JSON text, from one list of events, so
// rule tests, testdata/*.json files and cross-format tests share one truth.
//
// The builder simulates the host and the device just enough to produce
// realistic gaps: every host thread has a cursor (ns) that host calls
// advance; every device stream has a "free at" time. A launch at host time t
// puts its activity at max(t + launch_ns, stream free time), so the GPU idles
// exactly when the host falls behind. All times are int64 ns; the JSON
// writes them as microseconds with three decimals (exact).
//
//   Scenario s;
//   s.Device(DeviceSpec::A100());
//   for (int k = 0; k < 5; ++k) {
//     s.BeginStep(k).DataLoaderNext(8 * kNsPerMs)
//      .BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 2 * kNsPerMs).End()
//      .Sync().EndStep();
//   }
//   absl::StatusOr<Timeline> tl = s.BuildTimeline();

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/base/time.h"
#include "analyzer/model/event_kinds.h"
#include "analyzer/model/timeline.h"

namespace tracelint::testing {

inline constexpr int64_t kHostPid = 4242;
inline constexpr int64_t kMainTid = 4242;       // the Python main thread
inline constexpr int64_t kAutogradTid = 4343;   // the autograd engine thread
inline constexpr int64_t kComputeStream = 7;    // PyTorch's default stream id
inline constexpr int64_t kCommStream = 23;      // a dedicated NCCL stream
inline constexpr int64_t kCopyStream = 31;      // a side stream for prefetch
// Timestamps start here so no event sits at 0 (ns, about 1 s).
inline constexpr TimeNs kScenarioStartNs = 1'000'000'000;

// deviceProperties entry.
struct DeviceSpec {
  int id = 0;
  std::string name;
  int compute_major = -1;
  int compute_minor = -1;
  int sm_count = -1;
  int64_t total_memory_bytes = -1;
  int max_threads_per_sm = 2048;
  // DeviceInfo::vendor in BuildTimeline ("Google" makes the run a TPU run);
  // Kineto JSON has no such field.
  std::string vendor = "NVIDIA";
  static DeviceSpec A100(int id = 0);   // 8.0, 108 SMs, 40 GB
  static DeviceSpec H100(int id = 0);   // 9.0, 132 SMs, 80 GB
  static DeviceSpec V100(int id = 0);   // 7.0, 80 SMs, 16 GB
  static DeviceSpec T4(int id = 0);     // 7.5, 40 SMs, 16 GB
};

// Where device work goes.
struct StreamRef {
  int device = 0;
  int64_t stream = kComputeStream;
};

// A JSON-representable argument value. Arrays are carried as their JSON
// text ("[32, 3, 224, 224]"), which is also how the Timeline stores them.
struct ScenarioArg {
  enum class Type : uint8_t { kInt, kDouble, kString, kRawJson };
  std::string key;
  Type type = Type::kInt;
  int64_t i = 0;
  double d = 0;
  std::string s;  // kString text or kRawJson text
  static ScenarioArg Int(std::string key, int64_t v);
  static ScenarioArg Double(std::string key, double v);
  static ScenarioArg String(std::string key, std::string v);
  static ScenarioArg RawJson(std::string key, std::string json);
};
using ScenarioArgs = std::vector<ScenarioArg>;

// Shapes for `record_shapes` args: Input Dims + Input type.
ScenarioArgs ShapeArgs(std::string_view input_dims_json, std::string_view input_types_json);

struct KernelOptions {
  StreamRef stream;
  TimeNs launch_ns = 5 * kNsPerUs;  // host cost of cudaLaunchKernel
  int32_t grid[3] = {1024, 1, 1};
  int32_t block[3] = {256, 1, 1};
  int32_t registers_per_thread = 64;
  int32_t shared_memory_bytes = 0;
  int32_t est_achieved_occupancy_pct = 50;
  bool driver_launch = false;  // cuLaunchKernel (cuda_driver) instead
  ScenarioArgs extra_args;     // added to the kernel's args
};

struct CopyOptions {
  StreamRef stream;
  TimeNs launch_ns = 8 * kNsPerUs;  // host cost of the memcpy API call
};

// The recorded events (also what the JSON lists, in this order).
struct ScenarioEvent {
  std::string cat;   // Kineto category: cpu_op, cuda_runtime, kernel, ...
  std::string name;
  int64_t pid = 0;
  int64_t tid = 0;
  TimeNs ts_ns = 0;
  TimeNs dur_ns = 0;
  int64_t correlation = 0;  // 0 = none
  int64_t external_id = 0;  // 0 = none
  ScenarioArgs args;
};

class Scenario {
 public:
  Scenario();

  // ---- metadata
  Scenario& Device(const DeviceSpec& device);
  Scenario& Distributed(int rank, int world_size, std::string_view backend = "nccl");
  // Drops every correlation id and ac2g flow (traces that lost them).
  Scenario& WithoutCorrelation();
  // The framework the timeline reports ("PyTorch" by default; "TensorFlow"
  // and "JAX" as the XSpace converter names them). Only BuildTimeline()
  // carries it: a Kineto JSON file is always PyTorch's.
  Scenario& Framework(std::string_view name);
  // Marks the timeline as written by `tracelint capture`
  // (RunMetadata::tracelint_capture); BuildTimeline() only, like Framework().
  Scenario& TracelintCapture();

  // ---- host cursor
  // Subsequent host calls go to this thread (default kMainTid).
  Scenario& OnThread(int64_t tid);
  // Moves the current thread's cursor to ts_ns (must not go back in time).
  Scenario& At(TimeNs ts_ns);
  // Host time with no events at all ("host silent").
  Scenario& Idle(TimeNs dur_ns);
  // Self time of the innermost open scope (host busy, no launches).
  Scenario& Spend(TimeNs dur_ns);
  TimeNs now() const;
  TimeNs now(int64_t tid) const;
  // When the stream finishes its queued work.
  TimeNs stream_free_ns(StreamRef stream = {}) const;

  // ---- host scopes (closed by End/EndStep at the cursor)
  Scenario& BeginStep(int64_t number);  // user_annotation ProfilerStep#N
  Scenario& EndStep();
  Scenario& BeginOp(std::string_view name, ScenarioArgs args = {});  // cpu_op
  Scenario& BeginAnnotation(std::string_view name);                  // user_annotation
  Scenario& BeginPython(std::string_view frame);  // python_function frame
  // cpu_op "autograd::engine::evaluate_function: <node>" (backward).
  Scenario& BeginBackward(std::string_view node);
  Scenario& End();

  // ---- host leaves
  // A cpu_op with self time and no launches.
  Scenario& HostOp(std::string_view name, TimeNs self_ns, ScenarioArgs args = {});
  // enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ taking dur_ns.
  Scenario& DataLoaderNext(TimeNs dur_ns);

  // ---- device work (each is a runtime call on the host + device activity)
  Scenario& Kernel(std::string_view name, TimeNs dur_ns, const KernelOptions& options = {});
  // N kernels each inside its own cpu_op (op self time op_self_ns before the launch).
  Scenario& OpKernels(std::string_view op, std::string_view kernel, int count,
                      TimeNs kernel_dur_ns, TimeNs op_self_ns,
                      const KernelOptions& options = {});
  // cudaMemcpyAsync H2D. A pageable source makes the call block until the
  // copy ends (as CUDA does); a pinned one returns after launch_ns.
  Scenario& CopyH2D(int64_t bytes, TimeNs dur_ns, MemorySpace src, const CopyOptions& options = {});
  // cudaMemcpyAsync D2H; like H2D, a pageable destination blocks the host.
  Scenario& CopyD2H(int64_t bytes, TimeNs dur_ns, MemorySpace dst, const CopyOptions& options = {});
  // Synchronous cudaMemcpy (D2H when to_host, else H2D): blocks until done.
  // `api` names the call (hipMemcpyWithStream on ROCm).
  Scenario& CopySync(bool to_host, int64_t bytes, TimeNs dur_ns, const CopyOptions& options = {},
                     std::string_view api = "cudaMemcpy");
  Scenario& Memset(int64_t bytes, TimeNs dur_ns, const CopyOptions& options = {});
  // record_param_comms + NCCL kernel on `stream` (default: the comm stream).
  Scenario& AllReduce(int64_t bytes, TimeNs dur_ns, StreamRef stream = {0, kCommStream});
  // cudaStreamSynchronize: the host blocks until the stream is free.
  Scenario& Sync(StreamRef stream = {}, std::string_view api = "cudaStreamSynchronize");
  // cudaDeviceSynchronize on one device.
  Scenario& DeviceSync(int device = 0);
  // `waiter` waits (device side) for the work queued on `on`
  // (cudaEventRecord + cudaStreamWaitEvent on the host).
  Scenario& StreamWait(StreamRef waiter, StreamRef on);
  // tensor.item(): aten::item > aten::_local_scalar_dense > 4-byte D2H copy +
  // cudaStreamSynchronize; the host waits for all queued work.
  Scenario& Item(StreamRef stream = {});
  // cudaGraphLaunch replaying kernels back to back; they all carry the graph
  // launch's correlation id (as CUPTI reports them).
  Scenario& GraphLaunch(const std::vector<std::pair<std::string, TimeNs>>& kernels,
                        StreamRef stream = {});

  // A `[memory]` allocator event (profile_memory=True) at the cursor:
  // `bytes` allocated on `device` (negative: freed). The totals follow; the
  // reserved total grows in 2 MiB segments and never shrinks, as the
  // caching allocator's does.
  Scenario& Allocate(int64_t bytes, int device = 0);
  // Raises the reserved total to `bytes` without allocating (an allocator
  // that reserves the device up front, as TensorFlow's and JAX's do).
  Scenario& Reserve(int64_t bytes, int device = 0);

  // A runtime call of dur_ns that puts no work on the device (e.g. a
  // cudaStreamSynchronize waiting on work the trace lost).
  Scenario& HostCall(std::string_view name, TimeNs dur_ns);
  // Rewrites the recorded events, for traces that lost or shifted records
  // (GPU-only or host-only captures, filtered files, clock skew): `edit` may
  // change an event and returns false to drop it; flows to dropped events go
  // too. Call it last, with every scope closed.
  Scenario& Edit(const std::function<bool(ScenarioEvent&)>& edit);

  // ---- outputs
  const std::vector<ScenarioEvent>& events() const { return events_; }
  const std::vector<DeviceSpec>& devices() const { return devices_; }
  absl::StatusOr<Timeline> BuildTimeline() const;
  absl::StatusOr<std::string> ToKinetoJson() const;

 private:
  struct HostThread {
    TimeNs cursor_ns = kScenarioStartNs;
    std::vector<size_t> open;  // indices of open scope events
  };
  struct MemoryEvent {
    TimeNs ts_ns;
    int64_t tid;
    int device;
    int64_t bytes;
    int64_t total_allocated;
    int64_t total_reserved;
  };
  struct Flow {
    int64_t id;
    size_t from;  // event index
    size_t to;
  };

  HostThread& thread() { return threads_[tid_]; }
  // "thread 4242 (python3)": the track and thread_name of a host thread.
  static std::string ThreadName(int64_t tid);
  size_t AddEvent(ScenarioEvent e);
  size_t BeginScope(std::string cat, std::string name, ScenarioArgs args);
  // A runtime call of at least call_ns starting at the cursor; returns its index.
  size_t RuntimeCall(std::string_view name, TimeNs call_ns, bool driver = false);
  // Places device work after `launch` on `stream`; returns its index.
  size_t DeviceWork(size_t launch, std::string cat, std::string name, StreamRef stream,
                    TimeNs dur_ns, ScenarioArgs args);
  size_t Copy(std::string_view api, std::string name, int64_t bytes, TimeNs dur_ns,
              const CopyOptions& options, bool host_waits);
  // Host blocks in the innermost scope until ts_ns (a sync call's length).
  void ExtendCallTo(size_t call, TimeNs ts_ns);
  absl::Status Validate() const;

  std::vector<ScenarioEvent> events_;
  std::vector<Flow> flows_;
  std::vector<MemoryEvent> memory_;
  std::map<int, std::pair<int64_t, int64_t>> memory_totals_;  // device: allocated, reserved
  std::vector<DeviceSpec> devices_;
  std::map<int64_t, HostThread> threads_;
  std::map<std::pair<int, int64_t>, TimeNs> stream_free_ns_;
  int64_t tid_ = kMainTid;
  int64_t next_correlation_ = 1000;
  int64_t next_external_id_ = 1;
  int rank_ = -1;
  int world_size_ = -1;
  std::string backend_;
  std::string framework_ = "PyTorch";
  bool tracelint_capture_ = false;
  bool with_correlation_ = true;
  bool unbalanced_end_ = false;
};

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_SCENARIO_H_
