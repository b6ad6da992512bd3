#include "analyzer/analysis/memory_usage.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "fmt/format.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/steps.h"

namespace tracelint {

std::string_view MemoryStateName(MemoryState s) {
  switch (s) {
    case MemoryState::kHeadroom: return "headroom";
    case MemoryState::kNormal: return "normal";
    case MemoryState::kPressure: return "pressure";
    case MemoryState::kUnknown: break;
  }
  return "unknown";
}

const DeviceMemoryUsage* MemoryUsage::Fullest() const {
  const DeviceMemoryUsage* best = nullptr;
  auto key = [](const DeviceMemoryUsage& m) {
    return m.peak_reserved_share.value_or(m.peak_allocated_share.value_or(-1));
  };
  for (const DeviceMemoryUsage& m : devices) {
    if (!m.peak_allocated_share) continue;
    if (best == nullptr || key(m) > key(*best)) best = &m;
  }
  return best;
}

namespace {

constexpr std::string_view kDeviceFrees[] = {"cudaFree", "hipFree", "cuMemFree", "cuMemFree_v2"};

// Releases inside the steady steps; slices are in time order per track, not
// overall, so every call is placed by binary search. Names are matched by
// their interned ids: a trace without these calls costs one pass of
// integer compares.
void CountReleases(const Timeline& tl, const StepSet& steady, int64_t* calls, TimeNs* ns) {
  std::vector<StringId> frees;
  for (std::string_view name : kDeviceFrees) {
    if (std::optional<StringId> id = tl.strings().Find(name)) frees.push_back(*id);
  }
  if (frees.empty() || steady.steps.empty()) return;
  const SliceColumns& c = tl.slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (std::find(frees.begin(), frees.end(), c.name[s]) == frees.end()) continue;
    if (c.kind[s] != EventKind::kRuntime && c.kind[s] != EventKind::kDriver) continue;
    if (StepIndexAt(steady, c.ts_ns[s]) < 0) continue;
    ++*calls;
    *ns += c.dur_ns[s];
  }
}

// Builds one device's curve from its samples as they stream past in time
// order, holding only the curve: a trace of millions of allocator events
// costs no copy of them.
class CurveBuilder {
 public:
  CurveBuilder(TimeNs first_ns, TimeNs last_ns, DeviceMemoryUsage& m)
      : t0_(first_ns), span_(SpanNs(first_ns, last_ns)), m_(m) {
    m.curve_end_ns = last_ns;
    m.curve.assign(static_cast<size_t>(std::min<TimeNs>(span_, kMemoryCurvePoints)), {});
    for (size_t b = 0; b < m.curve.size(); ++b) m.curve[b].ts_ns = SliceStart(b);
  }
  void Add(TimeNs ts_ns, int64_t allocated, int64_t reserved) {
    const size_t b = SliceOf(ts_ns);
    OpenThrough(b);
    if (allocated >= 0) allocated_ = allocated;
    if (reserved >= 0) reserved_ = reserved;
    MemoryCurvePoint& p = m_.curve[b];
    p.allocated_bytes = std::max(p.allocated_bytes, allocated_);
    p.reserved_bytes = std::max(p.reserved_bytes, reserved_);
  }
  void Finish() {
    if (!m_.curve.empty()) OpenThrough(m_.curve.size() - 1);
  }

 private:
  // last - first + 1, computed wide: hostile timestamps must not overflow.
  static TimeNs SpanNs(TimeNs first_ns, TimeNs last_ns) {
    const __int128 span = static_cast<__int128>(last_ns) - first_ns + 1;
    return static_cast<TimeNs>(
        std::clamp<__int128>(span, 1, std::numeric_limits<TimeNs>::max()));
  }
  TimeNs SliceStart(size_t b) const {
    return t0_ + static_cast<TimeNs>(static_cast<__int128>(span_) * b / m_.curve.size());
  }
  size_t SliceOf(TimeNs ts_ns) const {
    const __int128 d = std::clamp<__int128>(static_cast<__int128>(ts_ns) - t0_, 0, span_ - 1);
    return static_cast<size_t>(static_cast<__int128>(d) * m_.curve.size() / span_);
  }
  // Slices up to b start from the totals the last event left (a slice no
  // event reaches keeps them).
  void OpenThrough(size_t b) {
    for (; opened_ <= b; ++opened_) {
      m_.curve[opened_].allocated_bytes = allocated_;
      m_.curve[opened_].reserved_bytes = reserved_;
    }
  }
  TimeNs t0_;
  TimeNs span_;
  DeviceMemoryUsage& m_;
  int64_t allocated_ = 0;
  int64_t reserved_ = 0;
  size_t opened_ = 0;  // slices below this one have been opened
};

}  // namespace

MemoryUsage ComputeMemoryUsage(const Timeline& tl, const StepSet& steps, const StepSet& steady) {
  const std::vector<CounterSample>& counters = tl.counters();
  if (counters.empty()) return {};
  // Parsers intern these names only when they see allocator events, so a
  // trace without them never matches (and a generic Chrome counter named
  // otherwise is not memory).
  std::optional<StringId> allocated_id = tl.strings().Find("Total Allocated");
  std::optional<StringId> reserved_id = tl.strings().Find("Total Reserved");
  if (!allocated_id && !reserved_id) return {};
  // An allocator total on a device: {is the allocated total, bytes}.
  auto sample_of = [&](const CounterSample& c) -> std::optional<std::pair<bool, int64_t>> {
    // Host allocations (device -1) cost no device memory.
    if (c.device < 0 || !(c.value >= 0) || c.value > 9.0e18) return std::nullopt;
    const bool allocated = allocated_id && c.name == *allocated_id;
    const bool reserved = reserved_id && c.name == *reserved_id;
    if (!allocated && !reserved) return std::nullopt;
    return std::make_pair(allocated, static_cast<int64_t>(c.value));
  };
  std::map<int, DeviceMemoryUsage> by_device;
  std::map<int, std::pair<TimeNs, TimeNs>> window_of;  // first and last sample
  for (const CounterSample& c : counters) {
    std::optional<std::pair<bool, int64_t>> sample = sample_of(c);
    if (!sample) continue;
    const auto [allocated, bytes] = *sample;
    DeviceMemoryUsage& m = by_device[c.device];
    m.device = c.device;
    auto [w, fresh] = window_of.try_emplace(c.device, c.ts_ns, c.ts_ns);
    if (!fresh) w->second.second = std::max(w->second.second, c.ts_ns);
    if (allocated) {
      ++m.samples;
      if (bytes > m.peak_allocated_bytes) {
        m.peak_allocated_bytes = bytes;
        m.peak_allocated_ts_ns = c.ts_ns;
      }
    } else {
      m.peak_reserved_bytes = std::max(m.peak_reserved_bytes, bytes);
    }
  }
  // TensorFlow's and JAX's allocators reserve most of the device up front
  // (allow_growth off, XLA_PYTHON_CLIENT_PREALLOCATE), so their reserved
  // total says nothing of pressure: only what is allocated does.
  const std::string& framework = tl.metadata().framework;
  const bool preallocates = framework == "TensorFlow" || framework == "JAX";
  int64_t release_calls = 0;
  TimeNs release_ns = 0;
  CountReleases(tl, steady, &release_calls, &release_ns);
  // Second pass: the curves, one builder per device.
  std::map<int, CurveBuilder> curves;
  for (const auto& [device, w] : window_of) {
    curves.try_emplace(device, w.first, w.second, by_device[device]);
  }
  for (const CounterSample& c : counters) {
    if (std::optional<std::pair<bool, int64_t>> sample = sample_of(c)) {
      const auto [allocated, bytes] = *sample;
      curves.at(c.device).Add(c.ts_ns, allocated ? bytes : -1, allocated ? -1 : bytes);
    }
  }
  for (auto& [device, builder] : curves) builder.Finish();
  MemoryUsage out;
  for (auto& [device, m] : by_device) {
    m.release_calls = release_calls;
    m.release_ns = release_ns;
    if (m.samples == 0) continue;  // reserved totals alone say too little
    for (const DeviceInfo& d : tl.metadata().devices) {
      if (d.id == device && d.total_memory_bytes > 0) m.total_memory_bytes = d.total_memory_bytes;
    }
    for (const Step& s : HasSteps(steps) ? steps.steps : std::vector<Step>{}) {
      const TimeNs end = s.host_end_ns > s.start_ns ? s.host_end_ns : s.end_ns;
      if (m.peak_allocated_ts_ns >= s.start_ns && m.peak_allocated_ts_ns < end) {
        m.peak_step = s.number;
        break;
      }
    }
    if (m.total_memory_bytes > 0) {
      const double total = static_cast<double>(m.total_memory_bytes);
      m.peak_allocated_share = m.peak_allocated_bytes / total;
      if (m.peak_reserved_bytes > 0) m.peak_reserved_share = m.peak_reserved_bytes / total;
      const double held =
          preallocates ? *m.peak_allocated_share
                       : std::max(*m.peak_allocated_share, m.peak_reserved_share.value_or(0));
      m.held_share = held;
      if (held >= kMemoryPressureMinShare) {
        m.state = MemoryState::kPressure;
      } else if (*m.peak_allocated_share < kMemoryHeadroomMaxShare) {
        m.state = MemoryState::kHeadroom;
      } else {
        m.state = MemoryState::kNormal;
      }
    }
    out.devices.push_back(m);
  }
  return out;
}

std::string MemoryAdvice(const DeviceMemoryUsage& m, const JobProfile& job,
                         std::string_view accelerator) {
  const std::string where = fmt::format("{} {}", accelerator, m.device);
  if (m.state == MemoryState::kHeadroom) {
    return fmt::format(
        "{} holds under {:.0f}% of its memory at the peak: there is room for {} where small "
        "kernels or launch overhead bound the step",
        where, 100 * kMemoryHeadroomMaxShare,
        job.is_inference() ? "more requests per batch" : "a larger batch");
  }
  if (m.state != MemoryState::kPressure) return "";
  const int held_pct = static_cast<int>(std::lround(100 * m.held_share.value_or(0)));
  if (m.release_calls == 0) {
    // Full but stable: a tuned job or an engine that reserves the device
    // for its KV cache on purpose. Nothing to fix, one thing to know.
    return fmt::format("{} holds {}% of its memory at the peak: a larger batch will not fit{}",
                       where, held_pct,
                       job.is_inference() && job.llm ? " (serving engines such as vLLM reserve most of "
                                            "the device for the KV cache on purpose)"
                                          : "");
  }
  std::string fix;
  switch (job.framework) {
    case JobFramework::kTensorFlow:
      fix = "a smaller batch, mixed precision (tf.keras.mixed_precision) or recomputing "
            "activations (tf.recompute_grad)";
      break;
    case JobFramework::kJax:
      fix = "a smaller batch, bfloat16 activations or rematerialization (jax.checkpoint)";
      break;
    case JobFramework::kOther:
      fix = "a smaller batch, 16-bit activations or recomputing activations in the backward "
            "pass, and no allocator cache release inside the loop";
      break;
    default:
      fix = job.is_inference()
                ? "a smaller batch or KV cache, or PYTORCH_CUDA_ALLOC_CONF="
                  "expandable_segments:True against fragmentation, and no "
                  "torch.cuda.empty_cache() in the loop"
                : "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation, no "
                  "torch.cuda.empty_cache() in the loop, activation checkpointing "
                  "(torch.utils.checkpoint) or a smaller micro-batch with gradient "
                  "accumulation";
      break;
  }
  return fmt::format(
      "{} holds {}% of its memory at the peak and the allocator gave memory back inside the "
      "steps ({} free call{}, {}; each waits for the device): make room with {}",
      where, held_pct, m.release_calls, m.release_calls == 1 ? "" : "s",
      FormatDurationNs(m.release_ns), fix);
}

std::string MemoryBytes(int64_t bytes) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  constexpr double kMiB = 1024.0 * 1024;
  const double b = static_cast<double>(bytes);
  if (b >= kGiB) return fmt::format("{:.2f} GiB", b / kGiB);
  return fmt::format("{:.1f} MiB", b / kMiB);
}

std::string DescribeMemory(const DeviceMemoryUsage& m) {
  std::string line = "peak allocated " + MemoryBytes(m.peak_allocated_bytes);
  if (m.peak_allocated_share) {
    line += fmt::format(" ({:.1f}% of {})", 100 * *m.peak_allocated_share,
                        MemoryBytes(m.total_memory_bytes));
  }
  if (m.peak_reserved_bytes > 0) {
    line += ", reserved " + MemoryBytes(m.peak_reserved_bytes);
    if (m.peak_reserved_share) line += fmt::format(" ({:.1f}%)", 100 * *m.peak_reserved_share);
  }
  return line;
}

}  // namespace tracelint
