#include "parsers/common/device_track_names.h"

#include <charconv>
#include <limits>

#include "analyzer/base/strings.h"
#include "analyzer/model/classify.h"

namespace tracelint {
namespace {

std::optional<int64_t> ParseLeadingInt(std::string_view s, size_t* digits) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  *digits = static_cast<size_t>(p - s.data());
  return v;
}

// "Kernel,MemcpyH2D" of "Stream #7(Kernel,MemcpyH2D)".
std::optional<std::string_view> StreamLineTypes(std::string_view line_name) {
  size_t open = line_name.find('(');
  size_t close = line_name.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  return line_name.substr(open + 1, close - open - 1);
}

}  // namespace

std::optional<DeviceNamePrefix> ParseDeviceNamePrefix(std::string_view name) {
  DeviceNamePrefix out;
  std::string_view rest;
  if (name.starts_with("/device:GPU:")) {
    out.family = DeviceFamily::kGpu;
    rest = name.substr(12);
  } else if (name.starts_with("/device:TPU:")) {
    out.family = DeviceFamily::kTpu;
    rest = name.substr(12);
  } else {
    return std::nullopt;
  }
  size_t digits = 0;
  std::optional<int64_t> n = ParseLeadingInt(rest, &digits);
  if (!n.has_value() || *n < 0 || *n > std::numeric_limits<int>::max()) return std::nullopt;
  if (Contains(name, "SparseCore")) return std::nullopt;
  out.ordinal = static_cast<int>(*n);
  out.rest = rest.substr(digits);
  return out;
}

DeviceLineClass ClassifyDeviceLine(std::string_view line_name) {
  if (line_name.starts_with("Stream #")) return DeviceLineClass::kStream;
  if (line_name == "XLA Ops") return DeviceLineClass::kXlaOps;
  if (line_name == "CUPTI overhead") return DeviceLineClass::kOverhead;
  // xla/tsl/profiler/utils/xplane_schema.h; each repeats or groups the
  // activity of the stream (or XLA Ops) lines.
  static constexpr std::string_view kDerived[] = {
      "Steps", "XLA Modules", "Async XLA Ops", "Framework Ops", "TensorFlow Ops",
      "Framework Name Scope", "TensorFlow Name Scope", "Source code", "Launch Stats",
      "Host Offload Ops", "XLA TraceMe", "Sparse Core Steps", "Sparse Core Modules",
      "Sparse Core Ops", "Sparse Core Syncs", "Tensor Core Sync Flag",
  };
  for (std::string_view d : kDerived) {
    if (line_name == d) return DeviceLineClass::kDerived;
  }
  return DeviceLineClass::kOther;
}

bool IsTensorFlowDeviceLine(std::string_view line_name) {
  return line_name == "TensorFlow Ops" || line_name == "TensorFlow Name Scope";
}

std::optional<int64_t> StreamLineNumber(std::string_view line_name) {
  if (!line_name.starts_with("Stream #")) return std::nullopt;
  size_t digits = 0;
  std::optional<int64_t> n = ParseLeadingInt(line_name.substr(8), &digits);
  if (!n.has_value() || *n < 0) return std::nullopt;
  return n;
}

CopyDirection CopyDirectionFromName(std::string_view name) {
  CopyDirection d = ParseMemcpyName(name).direction;
  if (d != CopyDirection::kUnknown) return d;
  if (Contains(name, "HostToDevice")) return CopyDirection::kHtoD;
  if (Contains(name, "DeviceToHost")) return CopyDirection::kDtoH;
  if (Contains(name, "DeviceToDevice")) return CopyDirection::kDtoD;
  if (Contains(name, "PeerToPeer")) return CopyDirection::kPtoP;
  if (Contains(name, "HostToHost")) return CopyDirection::kHtoH;
  return CopyDirection::kUnknown;
}

bool IsCopyOnlyStreamLine(std::string_view line_name) {
  std::optional<std::string_view> types = StreamLineTypes(line_name);
  return types.has_value() && !Contains(*types, ",") && types->starts_with("Memcpy");
}

CopyDirection StreamLineCopyDirection(std::string_view line_name) {
  if (!IsCopyOnlyStreamLine(line_name)) return CopyDirection::kUnknown;
  return CopyDirectionFromName(*StreamLineTypes(line_name));
}

bool IsCopyEventName(std::string_view name) {
  return name.starts_with("Memcpy") ||
         (name.starts_with("Copy") && (Contains(name, "ToDevice") || Contains(name, "ToHost")));
}

bool IsMemsetEventName(std::string_view name) { return name.starts_with("Memset"); }

bool IsMemoryManagementName(std::string_view name) {
  return name.starts_with("MemoryAlloc") || name.starts_with("MemoryFree") ||
         name.starts_with("MemoryResidency") || name.starts_with("MemAlloc") ||
         name.starts_with("MemFree");
}

bool IsXlaAsyncCopyName(std::string_view name) {
  return name.starts_with("copy-start") || name.starts_with("copy-done");
}

}  // namespace tracelint
