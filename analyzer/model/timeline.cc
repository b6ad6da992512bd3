#include "analyzer/model/timeline.h"

#include <algorithm>
#include <limits>

namespace tracelint {

std::optional<int64_t> ArgValue::AsInt() const {
  switch (type) {
    case Type::kInt: return i;
    case Type::kUInt:
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return static_cast<int64_t>(u);
    case Type::kDouble: return static_cast<int64_t>(d);
    case Type::kBool: return b ? 1 : 0;
    default: return std::nullopt;
  }
}

std::optional<double> ArgValue::AsDouble() const {
  switch (type) {
    case Type::kInt: return static_cast<double>(i);
    case Type::kUInt: return static_cast<double>(u);
    case Type::kDouble: return d;
    case Type::kBool: return b ? 1.0 : 0.0;
    default: return std::nullopt;
  }
}

const Arg* Timeline::FindArg(SliceId s, std::string_view key) const {
  // Slices hold a few args and strings are interned once, so comparing the
  // keys' text (mostly rejected on length) is the same test as comparing
  // ids, without hashing `key` on every call: analyses ask per kernel.
  for (const Arg& a : args(s)) {
    if (strings_.Get(a.key) == key) return &a;
  }
  return nullptr;
}

std::pair<TimeNs, TimeNs> Timeline::Bounds() const {
  if (released_bounds_) return *released_bounds_;
  if (slices_.size() == 0) return {0, 0};
  TimeNs lo = std::numeric_limits<TimeNs>::max();
  TimeNs hi = std::numeric_limits<TimeNs>::min();
  for (size_t i = 0; i < slices_.size(); ++i) {
    lo = std::min(lo, slices_.ts_ns[i]);
    hi = std::max(hi, slices_.ts_ns[i] + slices_.dur_ns[i]);
  }
  return {lo, hi};
}

void Timeline::ReleaseEvents() {
  if (released_bounds_) return;
  released_bounds_ = Bounds();
  slices_ = SliceColumns();
  std::vector<Arg>().swap(args_);
  std::vector<DeviceDetails>().swap(device_details_);
  std::vector<Flow>().swap(flows_);
  std::vector<CounterSample>().swap(counters_);
  // Every track becomes an empty range.
  track_begin_.assign(tracks_.size() + 1, 0);
}

size_t Timeline::MemoryBytes() const {
  const SliceColumns& c = slices_;
  size_t per_slice = sizeof(TimeNs) * 2 + sizeof(TrackId) + sizeof(StringId) +
                     sizeof(EventKind) + sizeof(uint16_t) * 2 + sizeof(SliceId) * 2 +
                     sizeof(int64_t) * 2 + sizeof(uint32_t) * 3;
  return c.ts_ns.capacity() * per_slice + args_.capacity() * sizeof(Arg) +
         device_details_.capacity() * sizeof(DeviceDetails) +
         flows_.capacity() * sizeof(Flow) +
         counters_.capacity() * sizeof(CounterSample) + strings_.arena_bytes() +
         strings_.size() * (sizeof(std::string_view) * 2 + sizeof(StringId));
}

}  // namespace tracelint
