// The cause inferred for idle before device work with no linked launch
// (docs/design/contract.md, "Unlinked device work"): what the recorded host
// threads were doing meanwhile. Evidence and the verdict's words, never a
// saving.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/interval_set.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// The host's recorded activity on every thread, by the cause it would
// suggest for idle time it covers: for idle before device work with no
// linked launch, where the launching thread is unknown.
class HostCover {
 public:
  explicit HostCover(const Timeline& tl) {
    const SliceColumns& c = tl.slices();
    std::vector<Interval> loader, sync, allocator, submission, work;
    for (SliceId s = 0; s < c.size(); ++s) {
      if (tl.tracks()[c.track[s]].kind != TrackKind::kHostThread || c.dur_ns[s] <= 0) continue;
      const EventKind k = c.kind[s];
      if (k != EventKind::kCpuOp && k != EventKind::kUserAnnotation &&
          k != EventKind::kPythonFunction && k != EventKind::kRuntime &&
          k != EventKind::kDriver && k != EventKind::kOther) {
        continue;
      }
      if (tl.HasFlag(s, kFlagStepMarker) || tl.HasFlag(s, kFlagProfilerCode)) continue;
      const Interval iv{c.ts_ns[s], c.end_ns(s)};
      if (tl.HasFlag(s, kFlagDataLoader)) loader.push_back(iv);
      if (tl.HasFlag(s, kFlagSyncCall) || tl.HasFlag(s, kFlagImplicitSync)) sync.push_back(iv);
      if (tl.HasFlag(s, kFlagAllocator)) allocator.push_back(iv);
      if (tl.HasFlag(s, kFlagJobSubmission)) submission.push_back(iv);
      work.push_back(iv);
    }
    layers_ = {{IdleCause::kDataLoader, IntervalSet::FromUnsorted(std::move(loader))},
               {IdleCause::kSyncCall, IntervalSet::FromUnsorted(std::move(sync))},
               {IdleCause::kAllocator, IntervalSet::FromUnsorted(std::move(allocator))},
               {IdleCause::kJobSubmission, IntervalSet::FromUnsorted(std::move(submission))},
               {IdleCause::kOtherHostWork, IntervalSet::FromUnsorted(std::move(work))}};
  }

  // Adds [a, b) to `out` by the first layer covering each instant; the
  // rest is host silence.
  void Charge(TimeNs a, TimeNs b, std::array<TimeNs, kIdleCauseCount>& out) const {
    IntervalSet left = IntervalSet::FromUnsorted({{a, b}});
    for (const auto& [cause, set] : layers_) {
      if (left.empty()) break;
      IntervalSet hit = set.Clip(a, b).Intersect(left);
      const TimeNs ns = hit.TotalNs();
      if (ns <= 0) continue;
      out[static_cast<int>(cause)] += ns;
      left = left.Subtract(hit);
    }
    out[static_cast<int>(IdleCause::kHostSilent)] += left.TotalNs();
  }

 private:
  std::vector<std::pair<IdleCause, IntervalSet>> layers_;
};

}  // namespace

namespace idle_internal {

void ChargeInferredCauses(const Timeline& tl, IdleAttribution& out) {
  if (out.total_ns[static_cast<int>(IdleCause::kUnattributed)] <= 0) return;
  const HostCover cover(tl);
  for (const IdlePiece& p : out.pieces) {
    if (p.cause == IdleCause::kUnattributed) cover.Charge(p.start_ns, p.end_ns, out.inferred_ns);
  }
}

}  // namespace idle_internal

// The share of the unattributed idle an inferred cause must cover.
constexpr double kMinInferredShare = 0.5;

std::pair<IdleCause, double> InferredUnattributedCause(const IdleAttribution& idle) {
  const TimeNs total = idle.total_ns[static_cast<int>(IdleCause::kUnattributed)];
  IdleCause best = IdleCause::kUnattributed;
  TimeNs best_ns = 0;
  for (int i = 0; i < kIdleCauseCount; ++i) {
    if (static_cast<IdleCause>(i) == IdleCause::kHostSilent) continue;
    if (idle.inferred_ns[i] > best_ns) {
      best_ns = idle.inferred_ns[i];
      best = static_cast<IdleCause>(i);
    }
  }
  const double share = total > 0 ? static_cast<double>(best_ns) / static_cast<double>(total) : 0.0;
  // A cause is named only for most of it: a sliver of host work in a silent
  // gap names nothing.
  if (share < kMinInferredShare) return {IdleCause::kUnattributed, share};
  return {best, share};
}

std::string InferredUnattributedText(const IdleAttribution& idle) {
  auto [cause, share] = InferredUnattributedCause(idle);
  if (cause == IdleCause::kUnattributed) return "";
  std::string_view what;
  switch (cause) {
    case IdleCause::kDataLoader: what = "waits for input (data loader, input pipeline)"; break;
    case IdleCause::kSyncCall: what = "is blocked in synchronizing calls"; break;
    case IdleCause::kAllocator: what = "is inside allocator calls"; break;
    case IdleCause::kJobSubmission: what = "prepares and submits jobs"; break;
    default: what = "runs framework and host code"; break;
  }
  return fmt::format("inferred: for {:.0f}% of it the recorded host {} ({})", share * 100, what,
                     IdleCauseName(cause));
}

}  // namespace tracelint
