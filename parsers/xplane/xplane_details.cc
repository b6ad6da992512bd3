#include "parsers/xplane/xplane_details.h"

#include <charconv>
#include <cstdint>
#include <optional>

#include "analyzer/base/strings.h"
#include "analyzer/model/classify.h"

namespace tracelint::xplane {
namespace {

// Hardware bounds used to tell real values from garbage. Generous on
// purpose: the point is to drop uninitialised words, not to police vendors.
constexpr int64_t kMaxRegistersPerThread = 1024;      // NVIDIA 255, AMD 512 VGPRs
constexpr int64_t kMaxSharedMemoryBytes = 1 << 20;    // H100: 228 KiB per SM
constexpr int64_t kMaxThreadsPerBlock = 1024;         // CUDA and HIP
constexpr int64_t kMaxGridDim = (int64_t{1} << 31) - 1;

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "x,y,z" with every dimension in [1, max_dim].
bool ParseDim3(std::string_view s, int64_t max_dim, int32_t out[3]) {
  int32_t dims[3] = {1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    size_t comma = s.find(',');
    std::string_view part = s.substr(0, comma);
    std::optional<int64_t> v = ParseInt(part);
    if (!v.has_value() || *v < 1 || *v > max_dim) return false;
    dims[i] = static_cast<int32_t>(*v);
    if (comma == std::string_view::npos) {
      if (i != 2) return false;
      s = {};
    } else {
      s.remove_prefix(comma + 1);
    }
  }
  if (!s.empty()) return false;
  for (int i = 0; i < 3; ++i) out[i] = dims[i];
  return true;
}

// Calls fn(key, value) for each whitespace-separated `key:value` token.
// (A hand loop: find_first_of with a set calls memchr once per character.)
template <typename Fn>
void ForEachToken(std::string_view text, Fn&& fn) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    while (i < n && is_space(text[i])) ++i;
    size_t start = i;
    while (i < n && !is_space(text[i])) ++i;
    if (i == start) break;
    std::string_view token = text.substr(start, i - start);
    size_t colon = token.find(':');
    if (colon == std::string_view::npos) continue;
    fn(token.substr(0, colon), token.substr(colon + 1));
  }
}

// The size of a copy or memset: a non-negative integer, else rejected.
void ReadBytes(std::string_view value, DeviceDetails& out, DetailsOutcome& r) {
  std::optional<int64_t> n = ParseInt(value);
  if (n.has_value() && *n >= 0) {
    out.bytes = *n;
    ++r.fields_read;
  } else {
    ++r.fields_rejected;
  }
}

// "async:0" marks a copy or memset issued by a blocking API.
void ReadAsync(std::string_view value, DeviceDetails& out, DetailsOutcome& r) {
  if (value == "0" || value == "1") {
    out.synchronous = value == "0";
    ++r.fields_read;
  } else {
    ++r.fields_rejected;
  }
}

bool IsHostSpace(MemorySpace m) {
  return m == MemorySpace::kPageable || m == MemorySpace::kPinned;
}

}  // namespace

MemorySpace MemorySpaceFromXSpaceKind(std::string_view kind) {
  if (EqualsIgnoreCase(kind, "pageable")) return MemorySpace::kPageable;
  if (EqualsIgnoreCase(kind, "pinned")) return MemorySpace::kPinned;
  if (EqualsIgnoreCase(kind, "device")) return MemorySpace::kDevice;
  if (EqualsIgnoreCase(kind, "unified") || EqualsIgnoreCase(kind, "managed")) {
    return MemorySpace::kManaged;
  }
  if (EqualsIgnoreCase(kind, "array")) return MemorySpace::kArray;
  return MemorySpace::kUnknown;
}

DetailsOutcome ApplyKernelDetails(std::string_view text, DeviceDetails& out) {
  DetailsOutcome r;
  std::optional<int64_t> static_shared;
  std::optional<int64_t> dynamic_shared;
  std::optional<int64_t> other_shared;  // shm (old TF) or group_mem (ROCm LDS)
  auto shared_value = [&](std::string_view v) -> std::optional<int64_t> {
    std::optional<int64_t> n = ParseInt(v);
    if (!n.has_value() || *n < 0 || *n > kMaxSharedMemoryBytes) {
      ++r.fields_rejected;
      return std::nullopt;
    }
    return n;
  };
  ForEachToken(text, [&](std::string_view key, std::string_view value) {
    if (key == "regs") {
      std::optional<int64_t> n = ParseInt(value);
      if (n.has_value() && *n > 0 && *n <= kMaxRegistersPerThread) {
        out.registers_per_thread = static_cast<int32_t>(*n);
        ++r.fields_read;
      } else {
        ++r.fields_rejected;
      }
    } else if (key == "static_shared") {
      static_shared = shared_value(value);
    } else if (key == "dynamic_shared") {
      dynamic_shared = shared_value(value);
    } else if (key == "shm" || key == "group_mem") {
      other_shared = shared_value(value);
    } else if (key == "grid") {
      if (ParseDim3(value, kMaxGridDim, out.grid)) {
        ++r.fields_read;
      } else {
        ++r.fields_rejected;
      }
    } else if (key == "block") {
      int32_t block[3];
      if (ParseDim3(value, kMaxThreadsPerBlock, block) &&
          int64_t{block[0]} * block[1] * block[2] <= kMaxThreadsPerBlock) {
        for (int i = 0; i < 3; ++i) out.block[i] = block[i];
        ++r.fields_read;
      } else {
        ++r.fields_rejected;
      }
    } else if (key == "occ_pct") {
      std::optional<double> d = ParseDouble(value);
      if (!d.has_value() || *d < 0 || *d > 100) {
        ++r.fields_rejected;
      } else if (*d > 0) {
        out.est_achieved_occupancy_pct = static_cast<float>(*d);
        ++r.fields_read;
      }
    }
  });
  if (static_shared.has_value() || dynamic_shared.has_value()) {
    int64_t total = static_shared.value_or(0) + dynamic_shared.value_or(0);
    if (total <= kMaxSharedMemoryBytes) {
      out.shared_memory_bytes = static_cast<int32_t>(total);
      ++r.fields_read;
    }
  } else if (other_shared.has_value()) {
    out.shared_memory_bytes = static_cast<int32_t>(*other_shared);
    ++r.fields_read;
  }
  return r;
}

DetailsOutcome ApplyMemcpyDetails(std::string_view text, DeviceDetails& out) {
  DetailsOutcome r;
  ForEachToken(text, [&](std::string_view key, std::string_view value) {
    if (key == "size") {
      ReadBytes(value, out, r);
    } else if (key == "kind_src") {
      out.src = MemorySpaceFromXSpaceKind(value);
      ++r.fields_read;
    } else if (key == "kind_dst") {
      out.dst = MemorySpaceFromXSpaceKind(value);
      ++r.fields_read;
    } else if (key == "kind") {
      // Old form: a copy kind such as "HtoD" (or "Unknown").
      CopyDirection d = ParseMemcpyName(value).direction;
      if (d != CopyDirection::kUnknown && out.direction == CopyDirection::kUnknown) {
        out.direction = d;
        ++r.fields_read;
      }
    } else if (key == "async") {
      ReadAsync(value, out, r);
    }
  });
  if (out.direction == CopyDirection::kUnknown) {
    if (IsHostSpace(out.src) && out.dst == MemorySpace::kDevice) {
      out.direction = CopyDirection::kHtoD;
    } else if (out.src == MemorySpace::kDevice && IsHostSpace(out.dst)) {
      out.direction = CopyDirection::kDtoH;
    } else if (out.src == MemorySpace::kDevice && out.dst == MemorySpace::kDevice) {
      out.direction = CopyDirection::kDtoD;
    } else if (IsHostSpace(out.src) && IsHostSpace(out.dst)) {
      out.direction = CopyDirection::kHtoH;
    }
  }
  return r;
}

DetailsOutcome ApplyMemsetDetails(std::string_view text, DeviceDetails& out) {
  DetailsOutcome r;
  ForEachToken(text, [&](std::string_view key, std::string_view value) {
    if (key == "num_bytes") {
      ReadBytes(value, out, r);
    } else if (key == "kind") {
      out.dst = MemorySpaceFromXSpaceKind(value);
      ++r.fields_read;
    } else if (key == "async") {
      ReadAsync(value, out, r);
    }
  });
  return r;
}

}  // namespace tracelint::xplane
