#include "parsers/xplane/xplane_parser.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include <google/protobuf/arena.h>

#include "analyzer/base/status_macros.h"
#include "parsers/xplane/xplane.pb.h"
#include "parsers/xplane/xplane_convert.h"
#include "parsers/xplane/xplane_visitor.h"
#include "parsers/xplane/xplane_wire.h"

namespace tracelint {
namespace {

using xplane::PlaneClass;

// Read-only mapping of a whole file; unmapped on destruction.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_ != nullptr) munmap(data_, size_);
  }

  absl::Status Open(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return absl::NotFoundError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      int err = errno;
      close(fd);
      return absl::UnavailableError(fmt::format("{}: cannot stat: {}", path, std::strerror(err)));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        int err = errno;
        close(fd);
        size_ = 0;
        return absl::UnavailableError(fmt::format("{}: cannot map: {}", path, std::strerror(err)));
      }
      data_ = p;
      madvise(data_, size_, MADV_SEQUENTIAL);
    }
    close(fd);
    return absl::OkStatus();
  }
  std::string_view bytes() const {
    return {static_cast<const char*>(data_), data_ == nullptr ? 0 : size_};
  }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

struct PlaneRef {
  xplane::SerializedPlane serialized;
  int index = 0;
  std::string_view name;
  PlaneClass cls = PlaneClass::kOther;
  int ordinal = -1;
};

// Host planes first (blit copies look up their host call), then devices,
// then the rest; file order within each group.
int ProcessingRank(PlaneClass cls) {
  switch (cls) {
    case PlaneClass::kEnvironment: return 0;
    case PlaneClass::kHost: return 1;
    case PlaneClass::kGpu:
    case PlaneClass::kTpu: return 2;
    case PlaneClass::kOther: return 3;
    case PlaneClass::kMetadata: return 4;
  }
  return 4;
}

std::string PrintableName(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, 80)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

}  // namespace

std::string XSpaceHostNameFromPath(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view suffix : {".xplane.pb", ".pb"}) {
    if (base.ends_with(suffix) && base.size() > suffix.size()) {
      base.remove_suffix(suffix.size());
      break;
    }
  }
  return std::string(base);
}

bool SniffXSpace(std::string_view head_bytes) { return xplane::LooksLikeXSpace(head_bytes); }

absl::Status ParseXSpaceInto(std::string_view bytes, const std::string& path,
                             TimelineBuilder& builder, int64_t max_events,
                             MemoryLedger::Account* account) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(fmt::format("{}: empty file, not an XSpace", path));
  }
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
      static_cast<uint8_t>(bytes[1]) == 0x8b) {
    return absl::InvalidArgumentError(
        fmt::format("{}: gzip-compressed; XSpace files are plain protobuf (gunzip it first)", path));
  }
  absl::StatusOr<xplane::XSpaceTopLevel> top = xplane::SplitXSpace(bytes);
  if (!top.ok()) {
    return absl::DataLossError(
        fmt::format("{}: not a readable XSpace: {}", path, std::string(top.status().message())));
  }
  if (top->planes.empty() && top->truncated_at >= 0) {
    return absl::DataLossError(
        fmt::format("{}: not a readable XSpace: {}", path, top->truncation));
  }
  if (top->planes.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: no XPlanes in the file (not an XSpace, or an empty profile)", path));
  }

  std::vector<PlaneRef> planes;
  planes.reserve(top->planes.size());
  for (size_t i = 0; i < top->planes.size(); ++i) {
    PlaneRef p;
    p.serialized = top->planes[i];
    p.index = static_cast<int>(i);
    p.name = xplane::PeekPlaneName(p.serialized.bytes);
    p.cls = xplane::ClassifyPlaneName(p.name, &p.ordinal);
    planes.push_back(p);
  }
  std::stable_sort(planes.begin(), planes.end(), [](const PlaneRef& a, const PlaneRef& b) {
    return ProcessingRank(a.cls) < ProcessingRank(b.cls);
  });

  RunMetadata& m = builder.metadata();
  m.source_path = path;
  m.format = "xspace";
  m.host_name = XSpaceHostNameFromPath(path);
  size_t slash = path.rfind('/');
  m.trace_name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (top->truncated_at >= 0) {
    // The planes before the cut are complete: analyse them, and say what
    // is missing.
    m.truncated = true;
    m.truncated_at_byte = top->truncated_at;
    builder.diagnostics().Add(
        "truncated_input", Severity::kWarning,
        fmt::format("{}; the {} complete plane(s) before byte {} were analysed", top->truncation,
                    top->planes.size(), top->truncated_at),
        1, top->truncated_at);
  }
  if (top->hostnames.size() > 1) {
    builder.diagnostics().Add(
        "xspace_several_hostnames", Severity::kWarning,
        "the XSpace lists several hostnames; its planes are read as one host", 1);
  }
  for (const std::string& e : top->errors) {
    builder.diagnostics().Add("xspace_profiler_error", Severity::kWarning,
                              fmt::format("profiler reported: {}", e.substr(0, 200)));
  }

  xplane::XSpaceConverter converter(builder);
  converter.set_max_events(max_events);
  converter.set_memory_account(account);
  for (const PlaneRef& p : planes) {
    if (p.cls == PlaneClass::kMetadata) continue;  // HLO protos, symbol tables
    const std::string_view data = p.serialized.bytes;
    if (data.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
      return absl::ResourceExhaustedError(fmt::format(
          "{}: plane #{} ('{}') at byte {} is {} bytes, over protobuf's 2 GiB message limit; "
          "libprotobuf cannot read it",
          path, p.index, PrintableName(p.name), p.serialized.offset, data.size()));
    }
    google::protobuf::Arena arena;
    auto* plane = google::protobuf::Arena::CreateMessage<tensorflow::profiler::XPlane>(&arena);
    if (!plane->ParseFromArray(data.data(), static_cast<int>(data.size()))) {
      std::string why = xplane::DescribeXPlaneWireError(data, p.serialized.offset);
      return absl::DataLossError(fmt::format(
          "{}: malformed XSpace: plane #{} ('{}') at byte {}: {}", path, p.index,
          PrintableName(p.name), p.serialized.offset,
          why.empty() ? "libprotobuf rejected it" : why));
    }
    xplane::PlaneVisitor visitor(*plane);
    switch (p.cls) {
      case PlaneClass::kEnvironment: converter.AddEnvironmentPlane(visitor); break;
      case PlaneClass::kHost: converter.AddHostPlane(visitor); break;
      case PlaneClass::kGpu:
      case PlaneClass::kTpu: converter.AddDevicePlane(visitor, p.cls, p.ordinal); break;
      case PlaneClass::kOther: converter.AddOtherPlane(visitor, p.index); break;
      case PlaneClass::kMetadata: break;
    }
  }
  converter.Finish();
  if (converter.memory_stopped() && account != nullptr && account->ledger() != nullptr) {
    builder.diagnostics().Add(
        "limit_reached", Severity::kWarning,
        fmt::format("{}; {} later events (in plane order: host planes, then devices) were not "
                    "read",
                    MemoryLimitText(*account->ledger(), account->bytes()),
                    converter.events_over_limit()),
        converter.events_over_limit());
  } else if (converter.events_over_limit() > 0) {
    builder.diagnostics().Add(
        "limit_reached", Severity::kWarning,
        fmt::format("stopped at the event limit of {} events: {} later events (in plane order: "
                    "host planes, then devices) were not read; raise the limit with "
                    "--max-events N (0: no limit)",
                    max_events, converter.events_over_limit()),
        converter.events_over_limit());
  }
  return absl::OkStatus();
}

absl::StatusOr<Timeline> ParseXSpaceBytes(std::string_view bytes, const std::string& path,
                                          int64_t max_events, MemoryLedger::Account* account) {
  TimelineBuilder builder;
  TL_RETURN_IF_ERROR(ParseXSpaceInto(bytes, path, builder, max_events, account));
  return std::move(builder).Finalize();
}

absl::StatusOr<Timeline> ParseXSpaceFile(const std::string& path) {
  MappedFile file;
  TL_RETURN_IF_ERROR(file.Open(path));
  return ParseXSpaceBytes(file.bytes(), path);
}

absl::StatusOr<Timeline> ParseXSpaceFile(const std::string& path, const ParseOptions& options) {
  MappedFile file;
  TL_RETURN_IF_ERROR(file.Open(path));
  std::unique_ptr<MemoryLedger> own_ledger;
  MemoryLedger::Account account = LedgerFor(options, own_ledger).Open();
  absl::StatusOr<Timeline> timeline =
      ParseXSpaceBytes(file.bytes(), path, ResolveMaxEvents(options.limits), &account);
  // A ledger of this parse's own ends with it.
  if (timeline.ok() && own_ledger == nullptr) timeline->KeepCharged(std::move(account));
  return timeline;
}

}  // namespace tracelint
