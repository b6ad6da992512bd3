// The roofline pass (roofline.h): one walk over the device activities of the
// analysed steps, one step at a time so memory follows the longest step.
// Names, ops and shapes repeat every step, so each distinct name is
// classified once and each distinct (op, shapes) is modelled once.

#include "analyzer/analysis/roofline.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_peaks.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/perf_model.h"
#include "analyzer/analysis/roofline_internal.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/strings.h"
#include "analyzer/model/accelerator.h"

namespace tracelint {
namespace roofline_internal {
namespace {

// One device activity of the step being swept.
struct Item {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int32_t family = -1;  // index into Builder::families
  int32_t group = -1;   // op group, -1 none
  float fill = 1;       // min(1, blocks / SMs) of a kernel; 1 when unknown or not a kernel
  bool kernel = false;
  bool compute = false;        // a compute-family kernel
  bool small_grid = false;     // kernel-small-grids counts its SM-idle time
  bool claimable = false;      // kernel-efficiency may judge it
  bool modelled = false;       // its op group has a model that applies
  bool bytes_known = false;    // ... which knows the op's bytes
  double owned_ns = 0;
  double owned_after_ns = 0;   // after kernel-small-grids' SM-idle share
};

// What the host side says about one device activity.
struct HostSide {
  SliceId innermost_op = kNoIndex;
  SliceId modelled_op = kNoIndex;
  bool in_optimizer = false;
};

// "[\n  [\n    512\n  ],\n  []\n]" (pretty-printed traces) -> "[[512], []]".
std::string CompactList(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    out.push_back(c);
    if (c == ',') out.push_back(' ');
  }
  return out;
}

bool IsHostOp(EventKind k) { return k == EventKind::kCpuOp || k == EventKind::kUserAnnotation; }

bool IsNvidiaDevice(const DeviceInfo& info) {
  if (!info.vendor.empty()) return EqualsIgnoreCase(info.vendor, "NVIDIA");
  return ContainsIgnoreCase(info.name, "NVIDIA") || ContainsIgnoreCase(info.name, "Tesla") ||
         ContainsIgnoreCase(info.name, "GeForce") || ContainsIgnoreCase(info.name, "Quadro");
}

class Builder {
 public:
  explicit Builder(AnalysisContext& ctx)
      : tl_(ctx.timeline()), c_(tl_.slices()), steps_(ctx.steps()) {
    auto id = [this](std::string_view key) {
      std::optional<StringId> s = tl_.strings().Find(key);
      return s.has_value() ? *s : kNoIndex;
    };
    dims_key_ = id("Input Dims");
    types_key_ = id("Input type");
    concrete_key_ = id("Concrete Inputs");
    flops_key_ = id("flops");
    bytes_key_ = id("bytes_accessed");
    hlo_key_ = id("hlo_category");
    xspace_ = tl_.metadata().format == "xspace";
    for (uint16_t f : c_.flags) {
      if (f & kFlagOptimizer) {
        has_optimizer_ = true;
        break;
      }
    }
  }

  Collected Run();

 private:
  const Arg* ArgOf(SliceId s, StringId key) const {
    if (key == kNoIndex) return nullptr;
    for (const Arg& a : tl_.args(s)) {
      if (a.key == key) return &a;
    }
    return nullptr;
  }
  StringId StringArg(SliceId s, StringId key) const {
    const Arg* a = ArgOf(s, key);
    return a != nullptr && a->value.type == ArgValue::Type::kString ? a->value.s : kEmptyStringId;
  }
  std::optional<double> NumberArg(SliceId s, StringId key) const {
    const Arg* a = ArgOf(s, key);
    if (a == nullptr) return std::nullopt;
    return a->value.AsDouble();
  }

  HostSide Walk(SliceId launch);
  bool Modelled(StringId name);
  int32_t OpDtype(SliceId op);
  KernelClass Classify(SliceId s, const HostSide& host);
  int32_t FamilyIndex(const KernelClass& k);
  int32_t GroupFor(SliceId s, const HostSide& host, const KernelClass& k, bool* modelled,
                   SliceId* instance);
  void ShareOutWork();
  void Sweep(std::vector<Item>& items, size_t step, bool small_grids_judged, double& busy_ns,
             double& compute_ns);
  Item MakeItem(SliceId s, TimeNs start_ns, TimeNs end_ns);
  // On AMD Matrix Cores or MTIA's matrix engines, whose float32 matmuls
  // tensor-cores-idle judges (fp32_matrix_units).
  bool OnMatrixUnits(SliceId s) const {
    if (AcceleratorName(tl_.metadata()) == "MTIA") return true;
    const DeviceInfo* info = tl_.metadata().FindDevice(tl_.tracks()[c_.track[s]].device);
    return info != nullptr && EqualsIgnoreCase(info->vendor, "AMD");
  }

  using Streams = std::vector<std::pair<SliceId, SliceId>>;
  // Calls fn(step, slice, start, end) for every device activity of one step
  // on the streams, clipped to the step and outside its one-time cuts
  // (docs/steady-state.md): an activity a cut splits is called once per
  // judged piece.
  template <typename Fn>
  void ForEachActivityInStep(const Streams& streams, size_t step, Fn&& fn) const {
    const Step& st = steps_.steps[step];
    const IntervalSet judged = st.Judged();
    for (const auto& [begin, end] : streams) {
      // A track's slices are sorted by start.
      const TimeNs* first = c_.ts_ns.data();
      SliceId s = static_cast<SliceId>(
          std::lower_bound(first + begin, first + end, st.start_ns) - first);
      for (; s < end && c_.ts_ns[s] < st.end_ns; ++s) {
        if (!IsDeviceActivity(c_.kind[s])) continue;
        const TimeNs end_ns = std::min(c_.end_ns(s), st.end_ns);
        if (end_ns <= c_.ts_ns[s]) continue;
        if (st.cut.empty()) {
          fn(step, s, c_.ts_ns[s], end_ns);
          continue;
        }
        // Named: a range-for over a temporary's intervals() would read the
        // set after it is destroyed (ASan: stack-use-after-scope).
        const IntervalSet clipped = judged.Clip(c_.ts_ns[s], end_ns);
        for (const Interval& piece : clipped.intervals()) {
          fn(step, s, piece.start_ns, piece.end_ns);
        }
      }
    }
  }
  template <typename Fn>
  void ForEachActivity(const Streams& streams, Fn&& fn) const {
    for (size_t step = 0; step < steps_.steps.size(); ++step) {
      ForEachActivityInStep(streams, step, fn);
    }
  }

  const Timeline& tl_;
  const SliceColumns& c_;
  const StepSet& steps_;
  StringId dims_key_, types_key_, concrete_key_, flops_key_, bytes_key_, hlo_key_;
  bool xspace_ = false;
  bool has_optimizer_ = false;  // any Optimizer.step annotation in the trace
  Collected out_;
  absl::flat_hash_map<StringId, bool> modelled_names_;
  // "Input type" text -> index into dtype_texts_ of its first float dtype.
  absl::flat_hash_map<StringId, int32_t> dtype_by_types_;
  std::vector<std::string> dtype_texts_ = {""};
  absl::flat_hash_map<std::tuple<StringId, StringId, int32_t, bool, bool>, KernelClass> classes_;
  absl::flat_hash_map<uint32_t, int32_t> family_index_;
  absl::flat_hash_map<std::tuple<StringId, StringId, StringId, StringId>, int32_t> group_index_;
  absl::flat_hash_set<SliceId> counted_instances_;
  absl::flat_hash_set<SliceId> modelled_instances_;
  // The modelled kernels of each op instance of the step being swept: its
  // FLOPs and bytes are shared among them by duration (ShareOutWork).
  // A vector in first-seen order, so the sums are the same on every run.
  struct InstanceWork {
    int32_t group = -1;
    std::vector<std::pair<int32_t, double>> family_ns;  // (family, kernel ns)
  };
  std::vector<InstanceWork> step_work_;
  absl::flat_hash_map<SliceId, size_t> step_work_index_;
};

HostSide Builder::Walk(SliceId launch) {
  HostSide h;
  for (SliceId p = c_.parent[launch]; p != kNoIndex; p = c_.parent[p]) {
    if (tl_.HasFlag(p, kFlagOptimizer)) h.in_optimizer = true;
    if (!IsHostOp(c_.kind[p]) || tl_.HasFlag(p, kFlagStepMarker)) continue;
    if (h.innermost_op == kNoIndex) h.innermost_op = p;
    if (h.modelled_op == kNoIndex && Modelled(c_.name[p])) h.modelled_op = p;
    // Python stacks make the chain deep: stop once nothing is left to find.
    if (h.modelled_op != kNoIndex && !has_optimizer_) break;
  }
  return h;
}

bool Builder::Modelled(StringId name) {
  auto [it, added] = modelled_names_.try_emplace(name, false);
  if (added) it->second = IsModelledOpName(tl_.str(name));
  return it->second;
}

// The first floating-point dtype of the op's "Input type", as written, as an
// index into dtype_texts_ (0: none). Ops repeat a few type lists.
int32_t Builder::OpDtype(SliceId op) {
  if (op == kNoIndex) return 0;
  const StringId types = StringArg(op, types_key_);
  if (types == kEmptyStringId) return 0;
  auto [it, added] = dtype_by_types_.try_emplace(types, 0);
  if (added) {
    std::string_view s = tl_.str(types);
    while (true) {
      const size_t open = s.find('"');
      if (open == std::string_view::npos) break;
      const size_t close = s.find('"', open + 1);
      if (close == std::string_view::npos) break;
      std::string_view item = s.substr(open + 1, close - open - 1);
      if (ComputeDtypeOf(item) != ComputeDtype::kUnknown) {
        auto known = std::find(dtype_texts_.begin(), dtype_texts_.end(), item);
        if (known == dtype_texts_.end()) {
          dtype_texts_.emplace_back(item);
          known = dtype_texts_.end() - 1;
        }
        it->second = static_cast<int32_t>(known - dtype_texts_.begin());
        break;
      }
      s.remove_prefix(close + 1);
    }
  }
  return it->second;
}

KernelClass Builder::Classify(SliceId s, const HostSide& host) {
  const EventKind kind = c_.kind[s];
  if (kind != EventKind::kKernel) return ClassifyDeviceActivity(kind, tl_.str(c_.name[s]), {});
  const StringId op_name = host.innermost_op != kNoIndex ? c_.name[host.innermost_op]
                                                         : kEmptyStringId;
  const int32_t dtype = OpDtype(host.innermost_op);
  const bool collective = tl_.HasFlag(s, kFlagCollective);
  const auto key = std::make_tuple(c_.name[s], op_name, dtype, host.in_optimizer, collective);
  auto it = classes_.find(key);
  if (it != classes_.end()) return it->second;
  LaunchHints hints;
  hints.op_name = tl_.str(op_name);
  hints.op_dtype = dtype_texts_[dtype];
  hints.in_optimizer = host.in_optimizer;
  hints.collective = collective;
  hints.collective_known = true;
  if (xspace_) hints.hlo_category = tl_.str(StringArg(s, hlo_key_));
  KernelClass k = ClassifyDeviceActivity(kind, tl_.str(c_.name[s]), hints);
  classes_.emplace(key, k);
  out_.architecture =
      HigherArchitecture(out_.architecture, ArchitectureFromKernelName(tl_.str(c_.name[s])));
  return k;
}

int32_t Builder::FamilyIndex(const KernelClass& k) {
  const uint32_t key = static_cast<uint32_t>(k.device_family) << 16 |
                       static_cast<uint32_t>(k.dtype) << 8 | static_cast<uint32_t>(k.attention);
  auto [it, added] = family_index_.try_emplace(key, static_cast<int32_t>(out_.families.size()));
  if (added) {
    FamilyAcc& f = out_.families.emplace_back();
    f.family = k.device_family;
    f.dtype = k.dtype;
    f.attention = k.attention;
    f.device_ns_steps.assign(steps_.steps.size(), 0);
  }
  return it->second;
}

// The op group of a compute kernel: its nearest modelled op when that
// model describes it, else its innermost op (unmodelled); -1 without an op.
int32_t Builder::GroupFor(SliceId s, const HostSide& host, const KernelClass& k,
                          bool* modelled, SliceId* instance) {
  *modelled = false;
  SliceId op = kNoIndex;
  std::optional<OpModel> model;
  StringId key_name = kEmptyStringId, dims = kEmptyStringId, types = kEmptyStringId,
           concrete = kEmptyStringId;
  // XLA ops carry their own cost analysis.
  if (xspace_) {
    if (std::optional<double> flops = NumberArg(s, flops_key_);
        flops.has_value() && *flops > 0 && *flops < 1e21) {
      key_name = c_.name[s];
      dims = kNoIndex;  // marks an XLA op group
    }
  }
  if (key_name == kEmptyStringId) {
    op = host.modelled_op != kNoIndex ? host.modelled_op : host.innermost_op;
    if (op == kNoIndex) return -1;
    key_name = c_.name[op];
    dims = StringArg(op, dims_key_);
    types = StringArg(op, types_key_);
    concrete = StringArg(op, concrete_key_);
  }
  const auto key = std::make_tuple(key_name, dims, types, concrete);
  auto [it, added] = group_index_.try_emplace(key, static_cast<int32_t>(out_.groups.size()));
  GroupAcc* g = nullptr;
  if (added) {
    g = &out_.groups.emplace_back();
    g->op.name = std::string(tl_.str(key_name));
    if (dims == kNoIndex) {
      OpModel m;
      m.flops = *NumberArg(s, flops_key_);
      m.bytes = NumberArg(s, bytes_key_).value_or(-1);
      if (!(m.bytes > 0 && m.bytes < 1e18)) m.bytes = -1;
      m.family = k.device_family;
      m.dtype = k.dtype;
      m.params = "XLA cost analysis";
      g->model = m;
    } else {
      g->op.shapes = CompactList(tl_.str(dims));
      if (op == host.modelled_op && op != kNoIndex) {
        OpInputs in;
        in.name = tl_.str(key_name);
        in.input_dims = tl_.str(dims);
        in.input_types = tl_.str(types);
        in.concrete_inputs = tl_.str(concrete);
        in.kineto_flops = NumberArg(op, flops_key_);
        g->model = ModelOp(in);
      }
    }
  } else {
    g = &out_.groups[it->second];
  }
  *modelled = g->model.has_value() && (dims == kNoIndex || ModelAppliesTo(g->model->family,
                                                                          k.device_family));
  if (!*modelled && g->model.has_value() && op == host.modelled_op && op != host.innermost_op &&
      host.innermost_op != kNoIndex) {
    // The nearest modelled op does not describe this kernel (a fill inside
    // an attention op): it belongs to its innermost op, unmodelled.
    HostSide inner = host;
    inner.modelled_op = kNoIndex;
    return GroupFor(s, inner, k, modelled, instance);
  }
  // Count the call once per op instance (XLA ops: once per event), and its
  // model once, at its first kernel the model describes.
  *instance = dims == kNoIndex ? s : op;
  if (counted_instances_.insert(*instance).second) {
    if (g->op.calls == 0) {
      g->family = k.device_family;
      g->dtype = k.dtype;
    }
    ++g->op.calls;
  }
  if (*modelled && modelled_instances_.insert(*instance).second) {
    ++g->modelled_calls;
    step_work_index_[*instance] = step_work_.size();
    step_work_.push_back({it->second, {}});
  }
  return it->second;
}

// An op instance's FLOPs and bytes go to the families of its modelled
// kernels in proportion to their durations, so that each family's rate is
// the op's own rate: a whole convolution's FLOPs counted on its 10 us first
// kernel would read as 40 times the device's peak.
void Builder::ShareOutWork() {
  for (const InstanceWork& work : step_work_) {
    if (work.family_ns.empty()) continue;
    const OpModel& m = *out_.groups[work.group].model;
    double total_ns = 0;
    for (const auto& [family, ns] : work.family_ns) total_ns += ns;
    for (const auto& [family, ns] : work.family_ns) {
      const double share = total_ns > 0 ? ns / total_ns
                                        : 1.0 / static_cast<double>(work.family_ns.size());
      FamilyAcc& f = out_.families[family];
      f.flops += m.flops * share;
      if (m.bytes >= 0) f.bytes += m.bytes * share;
    }
  }
  step_work_.clear();
  step_work_index_.clear();
}

Item Builder::MakeItem(SliceId s, TimeNs start_ns, TimeNs end_ns) {
  const EventKind kind = c_.kind[s];
  Item it;
  it.start_ns = start_ns;
  it.end_ns = end_ns;
  HostSide host;
  if (kind == EventKind::kKernel && c_.launch[s] != kNoIndex) host = Walk(c_.launch[s]);
  const KernelClass k = Classify(s, host);
  it.family = FamilyIndex(k);
  it.kernel = kind == EventKind::kKernel;
  if (!it.kernel) return it;
  it.compute = IsComputeFamily(k.device_family);
  std::optional<double> fill = KernelSmFill(tl_, s);
  if (fill.has_value()) it.fill = static_cast<float>(std::min(1.0, *fill));
  const bool matrix = k.family == KernelFamily::kGemm || k.family == KernelFamily::kConv ||
                      k.family == KernelFamily::kAttention;
  // A matmul off Tensor Cores (or undecided) fills the GPU for
  // kernel-small-grids, which leaves it to tensor-cores-idle; one known to be
  // off Tensor Cores is tensor-cores-idle's dtype gap, not judged here.
  const bool tc_not_yes = matrix && k.tc != TensorCoreUse::kYes;
  if (tc_not_yes) it.fill = 1;
  it.small_grid = fill.has_value() && *fill < 1.0 && !tl_.HasFlag(s, kFlagCollective) &&
                  k.family != KernelFamily::kCollective && !tc_not_yes;
  // float32 matmuls on AMD Matrix Cores or MTIA are tensor-cores-idle's
  // (cause fp32_matrix_units): claimed there, not twice.
  const bool fp32_on_matrix_units = matrix && k.dtype == ComputeDtype::kFp32 && OnMatrixUnits(s);
  it.claimable = it.compute && !(matrix && k.tc == TensorCoreUse::kNo) && !fp32_on_matrix_units;
  if (it.compute) {
    SliceId instance = kNoIndex;
    it.group = GroupFor(s, host, k, &it.modelled, &instance);
    if (it.modelled) {
      // An instance counted in an earlier step has no entry: its work was
      // shared out there.
      auto work = step_work_index_.find(instance);
      if (work != step_work_index_.end()) {
        step_work_[work->second].family_ns.emplace_back(it.family,
                                                        static_cast<double>(end_ns - start_ns));
      }
    }
    if (it.group < 0) out_.unlinked_compute_ns += static_cast<double>(end_ns - start_ns);
    if (it.group >= 0) {
      GroupAcc& g = out_.groups[it.group];
      it.bytes_known = it.modelled && g.model->bytes >= 0;
      const double dur = static_cast<double>(end_ns - start_ns);
      // The op's family and dtype (its peak) are those of the work it
      // models: its longest modelled kernel.
      if (it.modelled && dur > g.longest_modelled_ns) {
        g.longest_modelled_ns = dur;
        g.family = k.device_family;
        g.dtype = k.dtype;
      }
      if (dur > g.longest_ns) {
        g.longest_ns = dur;
        g.op.kernel = std::string(tl_.str(c_.name[s]));
      }
    }
  }
  return it;
}

void Builder::Sweep(std::vector<Item>& items, size_t step, bool small_grids_judged,
                    double& busy_ns, double& compute_ns) {
  std::vector<std::tuple<TimeNs, int8_t, uint32_t>> edges;
  edges.reserve(items.size() * 2);
  for (uint32_t i = 0; i < items.size(); ++i) {
    edges.emplace_back(items[i].start_ns, 1, i);
    edges.emplace_back(items[i].end_ns, -1, i);
  }
  // Ends before starts at the same instant (the -1 sorts first).
  std::sort(edges.begin(), edges.end());
  std::vector<uint32_t> active;
  for (size_t e = 0; e + 1 <= edges.size(); ++e) {
    const auto [t, delta, i] = edges[e];
    if (delta > 0) {
      active.push_back(i);
    } else {
      auto pos = std::find(active.begin(), active.end(), i);
      if (pos != active.end()) {
        *pos = active.back();
        active.pop_back();
      }
    }
    if (e + 1 == edges.size() || active.empty()) continue;
    const TimeNs next = std::get<0>(edges[e + 1]);
    if (next <= t) continue;
    const double dt = static_cast<double>(next - t);
    const double k = static_cast<double>(active.size());
    double level = 0;
    bool candidate = false, any_compute = false;
    for (uint32_t a : active) {
      const Item& it = items[a];
      if (it.kernel) level += it.fill;
      candidate |= it.small_grid;
      any_compute |= it.compute;
    }
    const double idle = small_grids_judged && candidate && level < 1.0 ? (1.0 - level) * dt : 0;
    for (uint32_t a : active) {
      items[a].owned_ns += dt / k;
      items[a].owned_after_ns += (dt - idle) / k;
    }
    busy_ns += dt;
    if (any_compute) compute_ns += dt;
  }
  for (Item& it : items) {
    FamilyAcc& f = out_.families[it.family];
    f.device_ns_steps[step] += it.owned_ns;
    if (it.modelled) f.modelled_ns += it.owned_ns;
    if (it.modelled && it.bytes_known) f.bytes_known_ns += it.owned_ns;
    if (it.group >= 0) {
      GroupAcc& g = out_.groups[it.group];
      g.raw_ns += static_cast<double>(it.end_ns - it.start_ns);
      if (it.modelled) g.modelled_raw_ns += static_cast<double>(it.end_ns - it.start_ns);
      if (it.claimable && it.modelled && it.owned_after_ns > 0) {
        if (!g.owned_steps.empty() && g.owned_steps.back().first == step) {
          g.owned_steps.back().second += it.owned_after_ns;
        } else {
          g.owned_steps.emplace_back(static_cast<uint32_t>(step), it.owned_after_ns);
        }
      }
    }
  }
}

Collected Builder::Run() {
  const size_t n = steps_.steps.size();
  out_.compute_busy_ns.assign(n, 0);
  out_.busy_ns.assign(n, 0);
  // Device streams per device.
  std::vector<std::pair<int, std::vector<std::pair<SliceId, SliceId>>>> devices;
  for (TrackId t = 0; t < tl_.tracks().size(); ++t) {
    const Track& track = tl_.tracks()[t];
    if (track.kind != TrackKind::kDeviceStream) continue;
    auto it = std::find_if(devices.begin(), devices.end(),
                           [&](const auto& d) { return d.first == track.device; });
    if (it == devices.end()) {
      devices.push_back({track.device, {}});
      it = devices.end() - 1;
    }
    it->second.push_back(tl_.track_range(t));
  }
  std::sort(devices.begin(), devices.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const bool gpu = AcceleratorName(tl_.metadata()) == "GPU";
  std::vector<Item> items;
  for (const auto& [device, streams] : devices) {
    const DeviceInfo* info = tl_.metadata().FindDevice(device);
    // kernel-small-grids judges NVIDIA GPUs whose launch dimensions cover
    // at least half the kernel time; elsewhere it claims nothing.
    bool small_grids = gpu && (info == nullptr || IsNvidiaDevice(*info));
    if (small_grids) {
      double kernel_ns = 0, dims_ns = 0;
      ForEachActivity(streams, [&](size_t, SliceId s, TimeNs start_ns, TimeNs end_ns) {
        if (c_.kind[s] != EventKind::kKernel) return;
        kernel_ns += static_cast<double>(end_ns - start_ns);
        if (KernelSmFill(tl_, s).has_value()) dims_ns += static_cast<double>(end_ns - start_ns);
      });
      small_grids = kernel_ns > 0 && dims_ns >= 0.5 * kernel_ns;
    }
    bool active_device = false;
    for (size_t step = 0; step < n; ++step) {
      items.clear();
      ForEachActivityInStep(streams, step, [&](size_t, SliceId s, TimeNs start_ns,
                                               TimeNs end_ns) {
        items.push_back(MakeItem(s, start_ns, end_ns));
      });
      if (!items.empty()) active_device = true;
      Sweep(items, step, small_grids, out_.busy_ns[step], out_.compute_busy_ns[step]);
      ShareOutWork();
    }
    if (active_device) out_.devices.push_back(device);
  }
  return std::move(out_);
}

}  // namespace

Collected Collect(AnalysisContext& ctx) { return Builder(ctx).Run(); }

}  // namespace roofline_internal
}  // namespace tracelint
