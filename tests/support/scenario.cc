#include "tests/support/scenario.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "analyzer/base/strings.h"
#include "analyzer/model/classify.h"
#include "analyzer/model/timeline_builder.h"
#include "fmt/format.h"

namespace tracelint::testing {
namespace {

constexpr TimeNs kSyncCallNs = 2 * kNsPerUs;  // a sync call on an idle stream
constexpr TimeNs kGraphLaunchNs = 10 * kNsPerUs;

bool IsDeviceCategory(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" ||
         cat == "gpu_user_annotation" || cat == "cuda_sync";
}

EventKind KindOf(std::string_view cat) {
  if (cat == "cpu_op") return EventKind::kCpuOp;
  if (cat == "user_annotation") return EventKind::kUserAnnotation;
  if (cat == "python_function") return EventKind::kPythonFunction;
  if (cat == "cuda_runtime") return EventKind::kRuntime;
  if (cat == "cuda_driver") return EventKind::kDriver;
  if (cat == "kernel") return EventKind::kKernel;
  if (cat == "gpu_memcpy") return EventKind::kMemcpy;
  if (cat == "gpu_memset") return EventKind::kMemset;
  if (cat == "gpu_user_annotation") return EventKind::kGpuUserAnnotation;
  if (cat == "cuda_sync") return EventKind::kCudaSync;
  return EventKind::kOther;
}

std::string Triple(const int32_t v[3]) { return fmt::format("[{}, {}, {}]", v[0], v[1], v[2]); }

const ScenarioArg* FindArg(const ScenarioArgs& args, std::string_view key) {
  for (const ScenarioArg& a : args) {
    if (a.key == key) return &a;
  }
  return nullptr;
}


}  // namespace

DeviceSpec DeviceSpec::A100(int id) {
  return {id, "NVIDIA A100-SXM4-40GB", 8, 0, 108, 42'314'694'656, 2048};
}
DeviceSpec DeviceSpec::H100(int id) {
  return {id, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85'029'158'912, 2048};
}
DeviceSpec DeviceSpec::V100(int id) {
  return {id, "Tesla V100-SXM2-16GB", 7, 0, 80, 16'945'512'448, 2048};
}
DeviceSpec DeviceSpec::T4(int id) { return {id, "Tesla T4", 7, 5, 40, 15'843'721'216, 1024}; }

ScenarioArg ScenarioArg::Int(std::string key, int64_t v) {
  ScenarioArg a;
  a.key = std::move(key);
  a.type = Type::kInt;
  a.i = v;
  return a;
}
ScenarioArg ScenarioArg::Double(std::string key, double v) {
  ScenarioArg a;
  a.key = std::move(key);
  a.type = Type::kDouble;
  a.d = v;
  return a;
}
ScenarioArg ScenarioArg::String(std::string key, std::string v) {
  ScenarioArg a;
  a.key = std::move(key);
  a.type = Type::kString;
  a.s = std::move(v);
  return a;
}
ScenarioArg ScenarioArg::RawJson(std::string key, std::string json) {
  ScenarioArg a;
  a.key = std::move(key);
  a.type = Type::kRawJson;
  a.s = std::move(json);
  return a;
}

ScenarioArgs ShapeArgs(std::string_view input_dims_json, std::string_view input_types_json) {
  return {ScenarioArg::RawJson("Input Dims", std::string(input_dims_json)),
          ScenarioArg::RawJson("Input type", std::string(input_types_json))};
}

Scenario::Scenario() { threads_[kMainTid]; }

Scenario& Scenario::Device(const DeviceSpec& device) {
  devices_.push_back(device);
  return *this;
}

Scenario& Scenario::Distributed(int rank, int world_size, std::string_view backend) {
  rank_ = rank;
  world_size_ = world_size;
  backend_ = std::string(backend);
  return *this;
}

Scenario& Scenario::Framework(std::string_view name) {
  framework_ = std::string(name);
  return *this;
}

Scenario& Scenario::TracelintCapture() {
  tracelint_capture_ = true;
  return *this;
}

Scenario& Scenario::WithoutCorrelation() {
  with_correlation_ = false;
  return *this;
}

Scenario& Scenario::OnThread(int64_t tid) {
  tid_ = tid;
  threads_[tid];
  return *this;
}

Scenario& Scenario::At(TimeNs ts_ns) {
  thread().cursor_ns = std::max(thread().cursor_ns, ts_ns);
  return *this;
}

Scenario& Scenario::Idle(TimeNs dur_ns) {
  thread().cursor_ns += std::max<TimeNs>(0, dur_ns);
  return *this;
}

Scenario& Scenario::Spend(TimeNs dur_ns) { return Idle(dur_ns); }

TimeNs Scenario::now() const { return now(tid_); }

TimeNs Scenario::now(int64_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? kScenarioStartNs : it->second.cursor_ns;
}

TimeNs Scenario::stream_free_ns(StreamRef stream) const {
  auto it = stream_free_ns_.find({stream.device, stream.stream});
  return it == stream_free_ns_.end() ? kScenarioStartNs : it->second;
}

size_t Scenario::AddEvent(ScenarioEvent e) {
  events_.push_back(std::move(e));
  return events_.size() - 1;
}

size_t Scenario::BeginScope(std::string cat, std::string name, ScenarioArgs args) {
  ScenarioEvent e;
  e.cat = std::move(cat);
  e.name = std::move(name);
  e.pid = kHostPid;
  e.tid = tid_;
  e.ts_ns = thread().cursor_ns;
  e.dur_ns = -1;  // open until End()
  if (e.cat != "python_function") e.external_id = next_external_id_++;
  e.args = std::move(args);
  size_t index = AddEvent(std::move(e));
  thread().open.push_back(index);
  return index;
}

Scenario& Scenario::BeginStep(int64_t number) {
  BeginScope("user_annotation", fmt::format("ProfilerStep#{}", number), {});
  return *this;
}

Scenario& Scenario::EndStep() { return End(); }

Scenario& Scenario::BeginOp(std::string_view name, ScenarioArgs args) {
  BeginScope("cpu_op", std::string(name), std::move(args));
  return *this;
}

Scenario& Scenario::BeginAnnotation(std::string_view name) {
  BeginScope("user_annotation", std::string(name), {});
  return *this;
}

Scenario& Scenario::BeginPython(std::string_view frame) {
  BeginScope("python_function", std::string(frame), {});
  return *this;
}

Scenario& Scenario::BeginBackward(std::string_view node) {
  BeginScope("cpu_op", fmt::format("autograd::engine::evaluate_function: {}", node), {});
  return *this;
}

Scenario& Scenario::End() {
  HostThread& t = thread();
  if (t.open.empty()) {
    // Recorded and reported by Validate() rather than thrown: tests see a Status.
    unbalanced_end_ = true;
    return *this;
  }
  ScenarioEvent& e = events_[t.open.back()];
  e.dur_ns = t.cursor_ns - e.ts_ns;
  t.open.pop_back();
  return *this;
}

Scenario& Scenario::HostOp(std::string_view name, TimeNs self_ns, ScenarioArgs args) {
  return BeginOp(name, std::move(args)).Spend(self_ns).End();
}

Scenario& Scenario::DataLoaderNext(TimeNs dur_ns) {
  BeginScope("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
             {});
  return Spend(dur_ns).End();
}

size_t Scenario::RuntimeCall(std::string_view name, TimeNs call_ns, bool driver) {
  ScenarioEvent e;
  e.cat = driver ? "cuda_driver" : "cuda_runtime";
  e.name = std::string(name);
  e.pid = kHostPid;
  e.tid = tid_;
  e.ts_ns = thread().cursor_ns;
  e.dur_ns = call_ns;
  if (with_correlation_) e.correlation = next_correlation_++;
  // Kineto gives a runtime call the External id of the op it runs in.
  for (auto it = thread().open.rbegin(); it != thread().open.rend(); ++it) {
    if (events_[*it].external_id != 0 && events_[*it].cat == "cpu_op") {
      e.external_id = events_[*it].external_id;
      break;
    }
  }
  thread().cursor_ns += call_ns;
  return AddEvent(std::move(e));
}

void Scenario::ExtendCallTo(size_t call, TimeNs ts_ns) {
  ScenarioEvent& e = events_[call];
  e.dur_ns = std::max(e.dur_ns, ts_ns - e.ts_ns);
  thread().cursor_ns = std::max(thread().cursor_ns, e.ts_ns + e.dur_ns);
}

size_t Scenario::DeviceWork(size_t launch, std::string cat, std::string name, StreamRef stream,
                            TimeNs dur_ns, ScenarioArgs args) {
  const ScenarioEvent& call = events_[launch];
  TimeNs& free_ns = stream_free_ns_.try_emplace({stream.device, stream.stream},
                                                kScenarioStartNs).first->second;
  ScenarioEvent e;
  e.cat = std::move(cat);
  e.name = std::move(name);
  e.pid = stream.device;
  e.tid = stream.stream;
  // The activity cannot start before its launch call has returned nor
  // before the stream finished earlier work.
  e.ts_ns = std::max(call.ts_ns + call.dur_ns, free_ns);
  e.dur_ns = dur_ns;
  e.correlation = call.correlation;
  e.external_id = call.external_id;
  e.args.push_back(ScenarioArg::Int("device", stream.device));
  e.args.push_back(ScenarioArg::Int("stream", stream.stream));
  for (ScenarioArg& a : args) e.args.push_back(std::move(a));
  free_ns = e.ts_ns + e.dur_ns;
  int64_t correlation = e.correlation;
  size_t index = AddEvent(std::move(e));
  if (correlation != 0) flows_.push_back({correlation, launch, index});
  return index;
}

Scenario& Scenario::Kernel(std::string_view name, TimeNs dur_ns, const KernelOptions& options) {
  size_t call = RuntimeCall(options.driver_launch ? "cuLaunchKernel" : "cudaLaunchKernel",
                            options.launch_ns, options.driver_launch);
  ScenarioArgs args;
  args.push_back(ScenarioArg::Int("registers per thread", options.registers_per_thread));
  args.push_back(ScenarioArg::Int("shared memory", options.shared_memory_bytes));
  int64_t blocks = int64_t{std::max(1, options.grid[0])} * std::max(1, options.grid[1]) *
                   std::max(1, options.grid[2]);
  for (const DeviceSpec& d : devices_) {
    if (d.id == options.stream.device && d.sm_count > 0) {
      args.push_back(ScenarioArg::Double("blocks per SM",
                                         static_cast<double>(blocks) / d.sm_count));
    }
  }
  args.push_back(ScenarioArg::RawJson("grid", Triple(options.grid)));
  args.push_back(ScenarioArg::RawJson("block", Triple(options.block)));
  args.push_back(
      ScenarioArg::Int("est. achieved occupancy %", options.est_achieved_occupancy_pct));
  for (const ScenarioArg& a : options.extra_args) args.push_back(a);
  DeviceWork(call, "kernel", std::string(name), options.stream, dur_ns, std::move(args));
  return *this;
}

Scenario& Scenario::OpKernels(std::string_view op, std::string_view kernel, int count,
                              TimeNs kernel_dur_ns, TimeNs op_self_ns,
                              const KernelOptions& options) {
  for (int i = 0; i < count; ++i) {
    BeginOp(op).Spend(op_self_ns).Kernel(kernel, kernel_dur_ns, options).End();
  }
  return *this;
}

size_t Scenario::Copy(std::string_view api, std::string name, int64_t bytes, TimeNs dur_ns,
                      const CopyOptions& options, bool host_waits) {
  size_t call = RuntimeCall(api, options.launch_ns);
  ScenarioArgs args;
  args.push_back(ScenarioArg::Int("bytes", bytes));
  // bytes per ns is GB/s.
  args.push_back(ScenarioArg::Double(
      "memory bandwidth (GB/s)",
      dur_ns > 0 ? static_cast<double>(bytes) / static_cast<double>(dur_ns) : 0.0));
  std::string cat = Contains(name, "Memset") ? "gpu_memset" : "gpu_memcpy";
  size_t dev = DeviceWork(call, std::move(cat), std::move(name), options.stream, dur_ns,
                          std::move(args));
  if (host_waits) ExtendCallTo(call, events_[dev].ts_ns + events_[dev].dur_ns);
  return dev;
}

Scenario& Scenario::CopyH2D(int64_t bytes, TimeNs dur_ns, MemorySpace src,
                            const CopyOptions& options) {
  bool pageable = src != MemorySpace::kPinned;
  Copy("cudaMemcpyAsync",
       fmt::format("Memcpy HtoD ({} -> Device)", pageable ? "Pageable" : "Pinned"), bytes,
       dur_ns, options, pageable);
  return *this;
}

Scenario& Scenario::CopyD2H(int64_t bytes, TimeNs dur_ns, MemorySpace dst,
                            const CopyOptions& options) {
  bool pageable = dst != MemorySpace::kPinned;
  Copy("cudaMemcpyAsync",
       fmt::format("Memcpy DtoH (Device -> {})", pageable ? "Pageable" : "Pinned"), bytes,
       dur_ns, options, pageable);
  return *this;
}

Scenario& Scenario::CopySync(bool to_host, int64_t bytes, TimeNs dur_ns,
                             const CopyOptions& options, std::string_view api) {
  Copy(api,
       to_host ? "Memcpy DtoH (Device -> Pageable)" : "Memcpy HtoD (Pageable -> Device)", bytes,
       dur_ns, options, /*host_waits=*/true);
  return *this;
}

Scenario& Scenario::Memset(int64_t bytes, TimeNs dur_ns, const CopyOptions& options) {
  Copy("cudaMemsetAsync", "Memset (Device)", bytes, dur_ns, options, /*host_waits=*/false);
  return *this;
}

Scenario& Scenario::AllReduce(int64_t bytes, TimeNs dur_ns, StreamRef stream) {
  int64_t nelems = bytes / 4;
  int group = world_size_ > 0 ? world_size_ : 1;
  ScenarioArgs op_args = {ScenarioArg::String("Collective name", "allreduce"),
                          ScenarioArg::String("dtype", "Float"),
                          ScenarioArg::Int("In msg nelems", nelems),
                          ScenarioArg::Int("Out msg nelems", nelems),
                          ScenarioArg::Int("Group size", group),
                          ScenarioArg::String("Process Group Name", "0"),
                          ScenarioArg::String("Process Group Description", "default_pg")};
  KernelOptions k;
  k.stream = stream;
  k.grid[0] = 2;
  k.block[0] = 640;
  k.registers_per_thread = 96;
  k.est_achieved_occupancy_pct = 0;
  k.extra_args = op_args;
  BeginOp("record_param_comms", op_args)
      .Spend(10 * kNsPerUs)
      .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
              dur_ns, k)
      .End();
  return *this;
}

Scenario& Scenario::Sync(StreamRef stream, std::string_view api) {
  size_t call = RuntimeCall(api, kSyncCallNs);
  ExtendCallTo(call, stream_free_ns(stream));
  return *this;
}

Scenario& Scenario::DeviceSync(int device) {
  size_t call = RuntimeCall("cudaDeviceSynchronize", kSyncCallNs);
  TimeNs until_ns = 0;
  for (const auto& [key, free_ns] : stream_free_ns_) {
    if (key.first == device) until_ns = std::max(until_ns, free_ns);
  }
  ExtendCallTo(call, until_ns);
  return *this;
}

Scenario& Scenario::StreamWait(StreamRef waiter, StreamRef on) {
  RuntimeCall("cudaEventRecord", 2 * kNsPerUs);
  RuntimeCall("cudaStreamWaitEvent", 2 * kNsPerUs);
  TimeNs& free_ns = stream_free_ns_.try_emplace({waiter.device, waiter.stream},
                                                kScenarioStartNs).first->second;
  free_ns = std::max(free_ns, stream_free_ns(on));
  return *this;
}

Scenario& Scenario::Item(StreamRef stream) {
  CopyOptions copy;
  copy.stream = stream;
  BeginOp("aten::item").BeginOp("aten::_local_scalar_dense");
  Copy("cudaMemcpyAsync", "Memcpy DtoH (Device -> Pageable)", 4, 2 * kNsPerUs, copy,
       /*host_waits=*/false);
  return Sync(stream).End().End();
}

Scenario& Scenario::GraphLaunch(const std::vector<std::pair<std::string, TimeNs>>& kernels,
                                StreamRef stream) {
  size_t call = RuntimeCall("cudaGraphLaunch", kGraphLaunchNs);
  size_t flows_before = flows_.size();
  for (const auto& [name, dur_ns] : kernels) {
    DeviceWork(call, "kernel", name, stream, dur_ns, {});
  }
  // Kineto draws one arrow per launch; the replayed kernels share its id.
  if (flows_.size() > flows_before + 1) flows_.resize(flows_before + 1);
  return *this;
}

Scenario& Scenario::Allocate(int64_t bytes, int device) {
  constexpr int64_t kSegment = 2 << 20;
  auto& [allocated, reserved] = memory_totals_[device];
  allocated = std::max<int64_t>(0, allocated + bytes);
  reserved = std::max(reserved, (allocated + kSegment - 1) / kSegment * kSegment);
  memory_.push_back({thread().cursor_ns, tid_, device, bytes, allocated, reserved});
  return *this;
}

Scenario& Scenario::Reserve(int64_t bytes, int device) {
  auto& [allocated, reserved] = memory_totals_[device];
  reserved = std::max(reserved, bytes);
  memory_.push_back({thread().cursor_ns, tid_, device, 0, allocated, reserved});
  return *this;
}

Scenario& Scenario::HostCall(std::string_view name, TimeNs dur_ns) {
  RuntimeCall(name, dur_ns);
  return *this;
}

Scenario& Scenario::Edit(const std::function<bool(ScenarioEvent&)>& edit) {
  std::vector<size_t> new_index(events_.size(), SIZE_MAX);
  std::vector<ScenarioEvent> kept;
  for (size_t i = 0; i < events_.size(); ++i) {
    ScenarioEvent e = events_[i];
    if (!edit(e)) continue;
    new_index[i] = kept.size();
    kept.push_back(std::move(e));
  }
  std::vector<Flow> flows;
  for (const Flow& f : flows_) {
    if (new_index[f.from] != SIZE_MAX && new_index[f.to] != SIZE_MAX) {
      flows.push_back({f.id, new_index[f.from], new_index[f.to]});
    }
  }
  for (auto& [tid, t] : threads_) {
    std::erase_if(t.open, [&](size_t i) { return new_index[i] == SIZE_MAX; });
    for (size_t& i : t.open) i = new_index[i];
  }
  events_ = std::move(kept);
  flows_ = std::move(flows);
  return *this;
}

absl::Status Scenario::Validate() const {
  if (unbalanced_end_) return absl::FailedPreconditionError("End() without an open scope");
  for (const auto& [tid, t] : threads_) {
    if (!t.open.empty()) {
      return absl::FailedPreconditionError(fmt::format(
          "thread {}: scope '{}' never closed", tid, events_[t.open.back()].name));
    }
  }
  return absl::OkStatus();
}

std::string Scenario::ThreadName(int64_t tid) {
  return fmt::format("thread {} ({})", tid, tid == kMainTid ? "python3" : "pt_autograd_0");
}

absl::StatusOr<Timeline> Scenario::BuildTimeline() const {
  if (absl::Status s = Validate(); !s.ok()) return s;
  TimelineBuilder b;
  RunMetadata& m = b.metadata();
  m.format = "kineto-json";
  m.framework = framework_;
  m.tracelint_capture = tracelint_capture_;
  m.trace_name = "scenario";
  m.rank = rank_;
  m.world_size = world_size_;
  m.backend = backend_;
  for (const DeviceSpec& d : devices_) {
    DeviceInfo info;
    info.id = d.id;
    info.name = d.name;
    info.vendor = d.vendor;
    info.compute_major = d.compute_major;
    info.compute_minor = d.compute_minor;
    info.sm_count = d.sm_count;
    info.total_memory_bytes = d.total_memory_bytes;
    info.max_threads_per_sm = d.max_threads_per_sm;
    m.devices.push_back(info);
  }
  std::vector<TrackId> track_of(events_.size());
  for (size_t i = 0; i < events_.size(); ++i) {
    const ScenarioEvent& e = events_[i];
    bool device = IsDeviceCategory(e.cat);
    TrackId track = b.GetTrack(device ? TrackKind::kDeviceStream : TrackKind::kHostThread,
                               e.pid, e.tid);
    b.SetTrackName(track, b.Intern(device ? fmt::format("stream {}", e.tid)
                                          : ThreadName(e.tid)));
    track_of[i] = track;
    SliceSpec spec;
    spec.ts_ns = e.ts_ns;
    spec.dur_ns = e.dur_ns;
    spec.track = track;
    spec.name = b.Intern(e.name);
    spec.kind = KindOf(e.cat);
    spec.correlation = e.correlation;
    spec.external_id = e.external_id;
    b.AddSlice(spec);
    for (const ScenarioArg& a : e.args) {
      StringId key = b.Intern(a.key);
      switch (a.type) {
        case ScenarioArg::Type::kInt: b.AddArg(key, ArgValue::Int(a.i)); break;
        case ScenarioArg::Type::kDouble: b.AddArg(key, ArgValue::Double(a.d)); break;
        case ScenarioArg::Type::kString:
        case ScenarioArg::Type::kRawJson:
          b.AddArg(key, ArgValue::String(b.Intern(a.s)));
          break;
      }
    }
    if (spec.kind == EventKind::kKernel) {
      DeviceDetails& d = b.AddDetails();
      // Grid and block come back from the same text the JSON carries.
      auto parse3 = [](const ScenarioArg* a, int32_t out[3]) {
        if (a == nullptr) return;
        int x = 0, y = 0, z = 0;
        if (std::sscanf(a->s.c_str(), "[%d, %d, %d]", &x, &y, &z) == 3) {
          out[0] = x;
          out[1] = y;
          out[2] = z;
        }
      };
      parse3(FindArg(e.args, "grid"), d.grid);
      parse3(FindArg(e.args, "block"), d.block);
      if (const ScenarioArg* a = FindArg(e.args, "registers per thread")) {
        d.registers_per_thread = static_cast<int32_t>(a->i);
      }
      if (const ScenarioArg* a = FindArg(e.args, "shared memory")) {
        d.shared_memory_bytes = static_cast<int32_t>(a->i);
      }
      if (const ScenarioArg* a = FindArg(e.args, "blocks per SM")) {
        d.blocks_per_sm = static_cast<float>(a->d);
      }
      if (const ScenarioArg* a = FindArg(e.args, "est. achieved occupancy %")) {
        d.est_achieved_occupancy_pct = static_cast<float>(a->i);
      }
    } else if (spec.kind == EventKind::kMemcpy || spec.kind == EventKind::kMemset) {
      DeviceDetails& d = b.AddDetails();
      if (const ScenarioArg* a = FindArg(e.args, "bytes")) d.bytes = a->i;
      if (spec.kind == EventKind::kMemcpy) {
        CopyKind kind = ParseMemcpyName(e.name);
        d.direction = kind.direction;
        d.src = kind.src;
        d.dst = kind.dst;
      }
    }
  }
  for (const MemoryEvent& m : memory_) {
    // The JSON lists "Total Reserved" first, so the parser adds it first.
    b.AddCounter({b.Intern("Total Reserved"), m.device, m.ts_ns,
                  static_cast<double>(m.total_reserved)});
    b.AddCounter({b.Intern("Total Allocated"), m.device, m.ts_ns,
                  static_cast<double>(m.total_allocated)});
  }
  StringId ac2g = b.Intern("ac2g");
  for (const Flow& f : flows_) {
    b.AddFlowPoint({f.id, ac2g, /*is_start=*/true, /*bind_enclosing=*/false, track_of[f.from],
                    events_[f.from].ts_ns});
    b.AddFlowPoint({f.id, ac2g, /*is_start=*/false, /*bind_enclosing=*/true, track_of[f.to],
                    events_[f.to].ts_ns});
  }
  return std::move(b).Finalize();
}

}  // namespace tracelint::testing
