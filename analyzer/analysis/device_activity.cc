#include "analyzer/analysis/device_activity.h"

#include <map>

#include "analyzer/model/classify.h"

namespace tracelint {
namespace {

struct Pending {
  std::vector<Interval> kernels;
  std::vector<Interval> compute_kernels;
  std::vector<Interval> collective_kernels;
  std::vector<Interval> memcpy;
  std::vector<Interval> memset;
  std::vector<Interval> htod;
  int64_t kernel_count = 0;
  int64_t memcpy_count = 0;
  int64_t memset_count = 0;
};

CopyDirection DirectionOf(const Timeline& tl, SliceId s) {
  const DeviceDetails* d = tl.details(s);
  if (d != nullptr && d->direction != CopyDirection::kUnknown) return d->direction;
  return ParseMemcpyName(tl.str(tl.slices().name[s])).direction;
}

}  // namespace

std::vector<DeviceActivity> ComputeDeviceActivity(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  // Ordered by device index: deterministic output.
  std::map<int, Pending> by_device;
  for (SliceId s = 0; s < c.size(); ++s) {
    const Track& track = tl.tracks()[c.track[s]];
    if (track.kind != TrackKind::kDeviceStream) continue;
    EventKind kind = c.kind[s];
    if (!IsDeviceActivity(kind)) continue;
    Pending& p = by_device[track.device];
    Interval iv{c.ts_ns[s], c.end_ns(s)};
    switch (kind) {
      case EventKind::kKernel:
        ++p.kernel_count;
        p.kernels.push_back(iv);
        if (tl.HasFlag(s, kFlagCollective)) {
          p.collective_kernels.push_back(iv);
        } else {
          p.compute_kernels.push_back(iv);
        }
        break;
      case EventKind::kMemcpy:
        ++p.memcpy_count;
        p.memcpy.push_back(iv);
        if (DirectionOf(tl, s) == CopyDirection::kHtoD) p.htod.push_back(iv);
        break;
      case EventKind::kMemset:
        ++p.memset_count;
        p.memset.push_back(iv);
        break;
      default:
        break;
    }
  }

  std::vector<DeviceActivity> out;
  out.reserve(by_device.size());
  for (auto& [device, p] : by_device) {
    DeviceActivity a;
    a.device = device;
    a.kernels = IntervalSet::FromUnsorted(std::move(p.kernels));
    a.compute_kernels = IntervalSet::FromUnsorted(std::move(p.compute_kernels));
    a.collective_kernels = IntervalSet::FromUnsorted(std::move(p.collective_kernels));
    a.memcpy = IntervalSet::FromUnsorted(std::move(p.memcpy));
    a.memset = IntervalSet::FromUnsorted(std::move(p.memset));
    a.htod = IntervalSet::FromUnsorted(std::move(p.htod));
    a.all = a.kernels.Union(a.memcpy).Union(a.memset);
    a.kernel_count = p.kernel_count;
    a.memcpy_count = p.memcpy_count;
    a.memset_count = p.memset_count;
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace tracelint
