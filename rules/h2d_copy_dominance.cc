#include "rules/h2d_copy_dominance.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/model/classify.h"
#include "fmt/format.h"
#include "rules/launch_context.h"

namespace tracelint {
namespace {

using rules_internal::ArgText;
using rules_internal::FindLaunchContext;
using rules_internal::LaunchContext;
using rules_internal::Percent;
using rules_internal::PythonStack;
using rules_internal::SafeShare;
using rules_internal::StepIndexAt;
using rules_internal::TensorDtypes;

constexpr std::string_view kMinExposedShare = "MinExposedShare";
constexpr std::string_view kMinPageableIdleShare = "MinPageableIdleShare";
constexpr std::string_view kSmallCopyBytes = "SmallCopyBytes";
constexpr size_t kMaxTopItems = 5;
constexpr size_t kMaxPythonFrames = 8;

struct SpaceStats {
  int64_t count = 0;
  int64_t bytes = 0;          // over copies whose size is known
  TimeNs sized_dur_ns = 0;    // duration of those same copies, for GB/s
  TimeNs dur_ns = 0;
  // bytes per ns is exactly GB/s (1e9 bytes per 1e9 ns).
  double GBps() const { return SafeShare(static_cast<double>(bytes), sized_dur_ns); }
};

// Everything the rule measures on one device, summed over analysed steps.
struct DeviceH2d {
  int device = -1;
  TimeNs htod_ns = 0;           // |H2D copies| inside steps
  TimeNs busy_ns = 0;           // |all GPU activity| inside steps
  TimeNs exposed_ns = 0;        // |H2D - kernels| inside steps
  TimeNs pageable_idle_ns = 0;  // idle charged to pageable copies
  // exposed + pageable idle of each steady step: the finding's per-step
  // values (Finding::recoverable_ns_steps), summing to saving_ns().
  std::vector<TimeNs> saving_steps_ns;
  TimeNs unattributed_idle_ns = 0;
  SpaceStats pageable, pinned, other_space;
  int64_t sync_count = 0;
  TimeNs sync_ns = 0;
  int64_t float32_count = 0;
  int64_t unlinked_count = 0;   // copies with no launch partner
  std::map<std::string, TopItem> by_op;
  SliceId worst_copy = kNoIndex;
  TimeNs worst_exposed_ns = -1;
  const IdlePiece* worst_idle = nullptr;

  int64_t copies() const { return pageable.count + pinned.count + other_space.count; }
  TimeNs saving_ns() const { return exposed_ns + pageable_idle_ns; }
};

CopyKind CopyKindOf(const Timeline& tl, SliceId s) {
  CopyKind kind;
  if (const DeviceDetails* d = tl.details(s)) {
    kind.direction = d->direction;
    kind.src = d->src;
    kind.dst = d->dst;
  }
  // Parsers fill the details from the name; fall back to it when they did not.
  if (kind.direction == CopyDirection::kUnknown || kind.src == MemorySpace::kUnknown) {
    CopyKind named = ParseMemcpyName(tl.str(tl.slices().name[s]));
    if (kind.direction == CopyDirection::kUnknown) kind.direction = named.direction;
    if (kind.src == MemorySpace::kUnknown) kind.src = named.src;
    if (kind.dst == MemorySpace::kUnknown) kind.dst = named.dst;
  }
  return kind;
}

// The dtype that crossed the bus: for copy_(dst, src) it is the source's.
std::string CopiedDtype(const Timeline& tl, SliceId op) {
  if (op == kNoIndex) return "";
  std::vector<std::string> dtypes = TensorDtypes(ArgText(tl, op, "Input type"));
  std::string_view name = tl.str(tl.slices().name[op]);
  if (name == "aten::copy_" && dtypes.size() >= 2 && !dtypes[1].empty()) return dtypes[1];
  for (const std::string& d : dtypes) {
    if (!d.empty()) return d;
  }
  return "";
}

void AddCopy(const Timeline& tl, const DeviceActivity& da, SliceId s, DeviceH2d& out) {
  const SliceColumns& c = tl.slices();
  const CopyKind kind = CopyKindOf(tl, s);
  const DeviceDetails* details = tl.details(s);
  const TimeNs dur_ns = c.dur_ns[s];
  const int64_t bytes = details != nullptr ? details->bytes : -1;
  SpaceStats& space = kind.src == MemorySpace::kPageable ? out.pageable
                      : kind.src == MemorySpace::kPinned ? out.pinned
                                                         : out.other_space;
  ++space.count;
  space.dur_ns = SaturatingAddNs(space.dur_ns, dur_ns);
  if (bytes >= 0) {
    space.bytes += bytes;
    space.sized_dur_ns = SaturatingAddNs(space.sized_dur_ns, dur_ns);
  }

  const LaunchContext launch = FindLaunchContext(tl, s);
  if (launch.launch == kNoIndex) ++out.unlinked_count;
  if ((details != nullptr && details->synchronous) ||
      (launch.launch != kNoIndex && tl.HasFlag(launch.launch, kFlagSyncCall))) {
    ++out.sync_count;
    out.sync_ns = SaturatingAddNs(out.sync_ns, dur_ns);
  }
  const std::string dtype = CopiedDtype(tl, launch.op);
  if (dtype == "float32") ++out.float32_count;

  const TimeNs exposed_ns = dur_ns - da.kernels.OverlapNs(c.ts_ns[s], c.end_ns(s));
  if (exposed_ns > out.worst_exposed_ns) {
    out.worst_exposed_ns = exposed_ns;
    out.worst_copy = s;
  }

  // With no framework op above it (a CUPTI capture, a C++ program), the
  // runtime call that issued the copy is the best name the trace has.
  const SliceId named = launch.op != kNoIndex ? launch.op : launch.launch;
  const std::string op_name =
      named != kNoIndex ? std::string(tl.str(c.name[named])) : "(no linked host call)";
  const std::string dims = ArgText(tl, launch.op, "Input Dims");
  const std::string key = fmt::format("{}|{}|{}|{}", op_name, dims, dtype,
                                      MemorySpaceName(kind.src));
  TopItem& item = out.by_op[key];
  if (item.count == 0) {
    item.name = op_name;
    item.detail = fmt::format("{}{}{}, {} source", dtype.empty() ? "dtype unknown" : dtype,
                              dims.empty() ? "" : " ", dims, MemorySpaceName(kind.src));
  }
  item.total_ns = SaturatingAddNs(item.total_ns, dur_ns);
  ++item.count;
}

DeviceH2d MeasureDevice(AnalysisContext& ctx, const DeviceActivity& da) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  DeviceH2d out;
  out.device = da.device;
  const IntervalSet exposed = da.htod.Subtract(da.kernels);
  for (const Step& step : steps.steps) {
    out.htod_ns += step.OverlapNs(da.htod);
    out.busy_ns += step.OverlapNs(da.all);
    TimeNs exposed_ns = step.OverlapNs(exposed);
    out.exposed_ns += exposed_ns;
    out.saving_steps_ns.push_back(exposed_ns);
  }
  const SliceColumns& c = tl.slices();
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    const Track& track = tl.tracks()[t];
    if (track.kind != TrackKind::kDeviceStream || track.device != da.device) continue;
    auto [begin, end] = tl.track_range(t);
    for (SliceId s = begin; s < end; ++s) {
      if (c.kind[s] != EventKind::kMemcpy) continue;
      if (CopyKindOf(tl, s).direction != CopyDirection::kHtoD) continue;
      if (StepIndexAt(steps, c.ts_ns[s]) < 0) continue;
      AddCopy(tl, da, s, out);
    }
  }
  for (const IdlePiece& piece : ctx.idle_attribution().pieces) {
    if (piece.device != da.device || piece.step_index < 0) continue;
    const TimeNs len_ns = piece.end_ns - piece.start_ns;
    if (piece.cause == IdleCause::kPageableCopy) {
      out.pageable_idle_ns += len_ns;
      if (static_cast<size_t>(piece.step_index) < out.saving_steps_ns.size()) {
        out.saving_steps_ns[piece.step_index] += len_ns;
      }
      if (out.worst_idle == nullptr ||
          len_ns > out.worst_idle->end_ns - out.worst_idle->start_ns) {
        out.worst_idle = &piece;
      }
    } else if (piece.cause == IdleCause::kUnattributed) {
      out.unattributed_idle_ns += len_ns;
    }
  }
  return out;
}

std::string MiB(int64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

std::string SpaceLine(std::string_view label, const SpaceStats& s, int64_t steps) {
  return fmt::format("{} H2D copies: {} per step, {} per step, {} achieved", label,
                     fmt::format("{:.1f}", SafeShare(s.count, steps)),
                     MiB(static_cast<int64_t>(SafeShare(s.bytes, steps))),
                     s.sized_dur_ns > 0 ? fmt::format("{:.2f} GB/s", s.GBps())
                                        : std::string("unknown GB/s (no byte counts)"));
}

std::string BuildFix(const DeviceH2d& d, int64_t steps, double small_copy_bytes,
                     const JobProfile& job) {
  const bool tf = job.framework == JobFramework::kTensorFlow;
  const bool jax = job.framework == JobFramework::kJax;
  std::vector<std::string> fixes;
  // TensorFlow and JAX stage host buffers themselves: their lever is feeding
  // the device ahead of the step, not pinning.
  if (tf) {
    fixes.push_back(
        "let tf.data copy ahead of the step: end the pipeline with "
        "tf.data.experimental.prefetch_to_device(\"/gpu:0\") (or a distribution strategy's "
        "experimental_distribute_dataset) so copies overlap compute");
  } else if (jax) {
    fixes.push_back(
        "put the next batch on the device while the current step runs (jax.device_put ahead "
        "of time, flax.jax_utils.prefetch_to_device) and keep arrays on the device between "
        "steps instead of round trips through NumPy");
  } else if (d.pageable.count > 0 && !job.is_pytorch()) {
    fixes.push_back(
        "copy from pinned (page-locked) host buffers (cudaMallocHost/hipHostMalloc, or "
        "cudaHostRegister on an existing buffer) with cudaMemcpyAsync, so copies overlap "
        "compute and run at full bandwidth");
  } else if (d.pageable.count > 0) {
    fixes.push_back(
        "pin the host buffers (DataLoader(pin_memory=True), or tensor.pin_memory()) and copy "
        "with .to(device, non_blocking=True) so copies are asynchronous and run at full "
        "bandwidth");
  }
  if (d.sync_count > 0 && !tf && !jax && !job.is_pytorch()) {
    fixes.push_back(fmt::format(
        "replace the {} synchronous copies per step by asynchronous copies from pinned memory",
        fmt::format("{:.1f}", SafeShare(d.sync_count, steps))));
  } else if (d.sync_count > 0 && !tf && !jax) {
    fixes.push_back(fmt::format(
        "replace the {} synchronous copies per step (cudaMemcpy, .to() without "
        "non_blocking) by non_blocking copies from pinned memory",
        fmt::format("{:.1f}", SafeShare(d.sync_count, steps))));
  }
  if (d.float32_count * 2 > d.copies()) {
    fixes.push_back(
        "the copied tensors are float32: if they are images or token ids, copy the compact "
        "dtype (uint8 is 4x fewer bytes than float32) and cast/normalize on the GPU");
  }
  const int64_t sized = d.pageable.bytes + d.pinned.bytes + d.other_space.bytes;
  const int64_t sized_count = d.copies();
  if (sized_count > 0 && SafeShare(sized, sized_count) < small_copy_bytes &&
      SafeShare(sized_count, steps) >= 8) {
    fixes.push_back("batch the many small copies into one contiguous buffer per step");
  }
  if (job.is_pytorch()) {
    fixes.push_back(
        "prefetch the next batch on a side CUDA stream so copies overlap compute");
  }
  std::string out;
  for (size_t i = 0; i < fixes.size(); ++i) {
    out += (i == 0 ? "" : "; ") + fixes[i];
  }
  out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out + ".";
}

Finding BuildFinding(AnalysisContext& ctx, const DeviceH2d& d, const RuleOptions& options) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  const int64_t n = static_cast<int64_t>(steps.steps.size());
  const TimeNs step_total_ns = steps.TotalNs();
  const double exposed_share = SafeShare(d.exposed_ns, step_total_ns);
  const double idle_share = SafeShare(d.pageable_idle_ns, step_total_ns);
  const double htod_share = SafeShare(d.htod_ns, step_total_ns);
  const double busy_share = SafeShare(d.htod_ns, d.busy_ns);
  const double min_exposed = options.Get(kMinExposedShare);
  const double min_idle = options.Get(kMinPageableIdleShare);
  // "TPU busy time" on a TPU: the words of the device the trace ran on.
  const std::string_view accel = AcceleratorName(ctx.timeline().metadata());

  // A rank's idle findings are per device on average (idle_findings.cc
  // divides by the devices judged); the copy's saving is taken the same way,
  // or a copy on one device and idle on another could claim more than the
  // step between them.
  const int64_t device_count =
      std::max<int64_t>(1, static_cast<int64_t>(ctx.device_activity().size()));
  Finding f;
  f.recoverable_ns_per_step = n > 0 ? d.saving_ns() / n / device_count : 0;
  f.recoverable_ns_steps = d.saving_steps_ns;
  for (TimeNs& v : f.recoverable_ns_steps) v /= device_count;
  f.recoverable_share = SafeShare(d.saving_ns(), step_total_ns * device_count);
  f.confidence = Confidence::kMeasured;
  f.cause = d.pageable_idle_ns > d.exposed_ns ? "pageable_copy" : "exposed_h2d_copy";
  f.title = fmt::format("Host-to-device copies cost {} of the step ({} per step)",
                        Percent(f.recoverable_share), FormatDurationNs(f.recoverable_ns_per_step));
  f.message = fmt::format(
      "On device {}, H2D copies take {} of the step and {} of {} busy time; {} of the step "
      "they run with no kernel beside them (exposed){}. ",
      d.device, Percent(htod_share), Percent(busy_share), accel, Percent(exposed_share),
      d.htod_ns > d.exposed_ns
          ? fmt::format(", {} is hidden under compute", Percent(SafeShare(d.htod_ns - d.exposed_ns,
                                                                          step_total_ns)))
          : std::string());
  if (d.pageable.count > 0) {
    f.message += fmt::format(
        "{} of {} copies read pageable host memory; the {} sat idle {} of the step while the "
        "host staged them. ",
        d.pageable.count, d.copies(), accel, Percent(idle_share));
  }
  if (d.sync_count > 0) {
    f.message += fmt::format("{} copies were synchronous ({} in total). ", d.sync_count,
                             FormatDurationNs(d.sync_ns));
  }
  if (d.unattributed_idle_ns > 0) {
    f.message += fmt::format(
        "{} of idle time has no linked host launch (missing correlation or graph replay) and "
        "could not be judged; pageable-copy idle may be higher. ",
        FormatDurationNs(d.unattributed_idle_ns / std::max<int64_t>(n, 1)));
  }
  if (device_count > 1) {
    f.message += fmt::format(
        "The saving is averaged over the rank's {} devices, as the idle findings are. ",
        device_count);
  }
  f.message += rules_internal::StepCaveat(steps);
  while (!f.message.empty() && f.message.back() == ' ') f.message.pop_back();

  f.evidence.push_back({fmt::format("Exposed H2D copy time {} of step (threshold {})",
                                    Percent(exposed_share), Percent(min_exposed)),
                        exposed_share, min_exposed, "share"});
  f.evidence.push_back({fmt::format("{} idle during pageable copies {} of step (threshold {})",
                                    accel, Percent(idle_share), Percent(min_idle)),
                        idle_share, min_idle, "share"});
  f.evidence.push_back({fmt::format("H2D copy time {} of step, {} of {} busy time",
                                    Percent(htod_share), Percent(busy_share), accel),
                        htod_share, 0, "share"});
  if (d.pageable.count > 0) {
    f.evidence.push_back({SpaceLine("Pageable", d.pageable, n), d.pageable.GBps(), 0, "GB/s"});
  }
  if (d.pinned.count > 0) {
    f.evidence.push_back({SpaceLine("Pinned", d.pinned, n), d.pinned.GBps(), 0, "GB/s"});
  }
  if (d.sync_count > 0) {
    f.evidence.push_back({fmt::format("Synchronous H2D copies: {}", d.sync_count),
                          static_cast<double>(d.sync_count), 0, "count"});
  }
  f.fix = BuildFix(d, n, options.Get(kSmallCopyBytes), ctx.job_profile());

  f.location.first_step = steps.steps.front().number;
  f.location.last_step = steps.steps.back().number;
  if (d.worst_idle != nullptr && d.pageable_idle_ns > d.exposed_ns) {
    f.location.start_ns = d.worst_idle->start_ns;
    f.location.end_ns = d.worst_idle->end_ns;
    f.location.track = d.worst_idle->host_slice != kNoIndex
                           ? rules_internal::HostThreadName(tl, d.worst_idle->host_slice)
                           : fmt::format("device {}", d.device);
    f.location.python_stack = PythonStack(tl, d.worst_idle->host_slice, kMaxPythonFrames);
  } else if (d.worst_copy != kNoIndex) {
    f.location.start_ns = tl.slices().ts_ns[d.worst_copy];
    f.location.end_ns = tl.slices().end_ns(d.worst_copy);
    f.location.track = rules_internal::StreamName(tl, d.worst_copy);
    const SliceId launch = tl.slices().launch[d.worst_copy];
    if (launch != kNoIndex) f.location.python_stack = PythonStack(tl, launch, kMaxPythonFrames);
  }
  std::vector<TopItem> items;
  for (auto& [key, item] : d.by_op) items.push_back(item);
  std::sort(items.begin(), items.end(), [](const TopItem& a, const TopItem& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    if (a.name != b.name) return a.name < b.name;
    return a.detail < b.detail;
  });
  if (items.size() > kMaxTopItems) items.resize(kMaxTopItems);
  f.location.top_items = std::move(items);
  return f;
}

}  // namespace

std::vector<RuleOptionSpec> H2dCopyDominanceRule::options() const {
  return {
      {std::string(kMinExposedShare), 0.05, "share",
       "Fire when H2D copy time not overlapped by any kernel reaches this share of the step.",
       0, 1},
      {std::string(kMinPageableIdleShare), 0.02, "share",
       "Fire when GPU idle time charged to pageable host copies reaches this share of the "
       "step.",
       0, 1},
      {std::string(kSmallCopyBytes), 65536, "bytes",
       "Mean copy size under which many copies per step are reported as worth batching.", 0,
       1e12},
  };
}

RuleOutcome H2dCopyDominanceRule::Check(AnalysisContext& ctx, const RuleOptions& options) const {
  RuleOutcome outcome;
  if (!rules_internal::HasDeviceActivityAndSteps(ctx, outcome)) return outcome;
  const std::vector<DeviceActivity>& devices = ctx.device_activity();
  const StepSet& steps = ctx.steps();
  const double min_exposed = options.Get(kMinExposedShare);
  const double min_idle = options.Get(kMinPageableIdleShare);
  const TimeNs step_total_ns = steps.TotalNs();

  // One finding per rank: the device that loses the most.
  std::vector<DeviceH2d> measured;
  for (const DeviceActivity& da : devices) measured.push_back(MeasureDevice(ctx, da));
  const DeviceH2d* worst = nullptr;
  for (const DeviceH2d& d : measured) {
    if (worst == nullptr || d.saving_ns() > worst->saving_ns()) worst = &d;
  }
  const double exposed_share = SafeShare(worst->exposed_ns, step_total_ns);
  const double idle_share = SafeShare(worst->pageable_idle_ns, step_total_ns);
  const bool fires = (worst->exposed_ns > 0 && exposed_share >= min_exposed) ||
                     (worst->pageable_idle_ns > 0 && idle_share >= min_idle);
  if (fires) {
    outcome.findings.push_back(BuildFinding(ctx, *worst, options));
    return outcome;
  }
  // Pageable copies whose idle could not be attributed: say so rather than
  // reporting "no problem".
  if (worst->pageable.count > 0 &&
      SafeShare(worst->unattributed_idle_ns, step_total_ns) >= min_idle) {
    outcome.applicable = false;
    outcome.not_judged_reason = fmt::format(
        "pageable H2D copies are present but {} of the step's idle time has no linked host "
        "launch (missing correlation or graph replay), so the idle they cause could not be "
        "judged",
        Percent(SafeShare(worst->unattributed_idle_ns, step_total_ns)));
  }
  return outcome;
}

}  // namespace tracelint
