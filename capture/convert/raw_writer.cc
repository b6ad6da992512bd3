#include <cstring>
#include <type_traits>

#include "capture/convert/raw_format.h"

namespace tracelint::capture {
namespace {

// Fixed-width fields in host order (little-endian on every platform CUDA
// runs on), strings as a uint32 size and the bytes.
struct Encoder {
  std::string* out;
  template <class... T>
  void All(const T&... v) {
    (Field(v), ...);
  }
  void Field(const std::string& s) {
    Field(static_cast<uint32_t>(s.size()));
    out->append(s);
  }
  template <class T>
  void Field(const T& v) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out->append(bytes, sizeof(T));
  }
};

}  // namespace

RawWriter::RawWriter() {
  out_.append(kRawMagic);
  Encoder e{&out_};
  e.Field(kRawVersion);
  ids_.emplace("", 0);
}

void RawWriter::Begin(RawTag tag) {
  record_start_ = out_.size();
  out_.push_back(static_cast<char>(tag));
  out_.append(4, '\0');  // payload size, set by End()
}

void RawWriter::End() {
  uint32_t size = static_cast<uint32_t>(out_.size() - record_start_ - 5);
  std::memcpy(out_.data() + record_start_ + 1, &size, sizeof(size));
}

template <class R>
void RawWriter::Put(RawTag tag, const R& r) {
  Begin(tag);
  Encoder e{&out_};
  VisitRecordFields(e, r);
  End();
}

// Add() is inline in the header: every record type's Put is compiled here.
template void RawWriter::Put(RawTag, const ProcessInfo&);
template void RawWriter::Put(RawTag, const DeviceRecord&);
template void RawWriter::Put(RawTag, const ContextRecord&);
template void RawWriter::Put(RawTag, const KernelRecord&);
template void RawWriter::Put(RawTag, const MemcpyRecord&);
template void RawWriter::Put(RawTag, const MemsetRecord&);
template void RawWriter::Put(RawTag, const ApiRecord&);
template void RawWriter::Put(RawTag, const SyncRecord&);
template void RawWriter::Put(RawTag, const MarkerRecord&);
template void RawWriter::Put(RawTag, const GraphTraceRecord&);
template void RawWriter::Put(RawTag, const OverheadRecord&);
template void RawWriter::Put(RawTag, const DroppedRecord&);
template void RawWriter::Put(RawTag, const EndRecord&);

StrId RawWriter::Intern(std::string_view s) {
  auto it = ids_.find(std::string(s));
  if (it != ids_.end()) return it->second;
  StrId id = static_cast<StrId>(ids_.size());
  ids_.emplace(std::string(s), id);
  Begin(RawTag::kString);
  Encoder e{&out_};
  e.Field(id);
  e.Field(std::string(s));
  End();
  return id;
}

std::string RawWriter::Take() {
  std::string taken;
  taken.swap(out_);
  return taken;
}

std::string EncodeRawCapture(const CaptureRecords& r) {
  RawWriter w;
  w.Add(r.process);
  // The records' string ids index r.strings: keep them by interning in order.
  for (const std::string& s : r.strings) w.Intern(s);
  for (const auto& x : r.devices) w.Add(x);
  for (const auto& x : r.contexts) w.Add(x);
  for (const auto& x : r.kernels) w.Add(x);
  for (const auto& x : r.memcpys) w.Add(x);
  for (const auto& x : r.memsets) w.Add(x);
  for (const auto& x : r.apis) w.Add(x);
  for (const auto& x : r.syncs) w.Add(x);
  for (const auto& x : r.markers) w.Add(x);
  for (const auto& x : r.graphs) w.Add(x);
  for (const auto& x : r.overheads) w.Add(x);
  for (const auto& x : r.dropped) w.Add(x);
  if (r.has_end) w.Add(r.end);
  return w.Take();
}

}  // namespace tracelint::capture
