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
  memory_account_.Set(MemoryBytes());
}

size_t Timeline::MemoryBytes() const {
  const SliceColumns& c = slices_;
  size_t bytes = 0;
  auto add = [&bytes](const auto& column) { bytes += column.capacity() * sizeof(column[0]); };
  add(c.ts_ns);
  add(c.dur_ns);
  add(c.track);
  add(c.name);
  add(c.kind);
  add(c.flags);
  add(c.depth);
  add(c.parent);
  add(c.correlation);
  add(c.external_id);
  add(c.args_begin);
  add(c.args_count);
  add(c.details);
  add(c.launch);
  add(tracks_);
  add(track_begin_);
  add(args_);
  add(device_details_);
  add(flows_);
  add(counters_);
  return bytes + strings_.MemoryBytes();
}

}  // namespace tracelint
