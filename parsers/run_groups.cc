#include "parsers/run_groups.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <set>
#include <tuple>

#include "fmt/format.h"
#include "parsers/format_registry.h"
#include "parsers/kineto/kineto_stamp.h"

namespace tracelint {
namespace {

// The profiler family: a Kineto file and an XSpace file are never one run
// (one job is profiled by one framework's profiler).
std::string_view Family(std::string_view format) {
  return format == "xspace" ? "XSpace" : "Kineto";
}

bool Disjoint(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  return common.empty();
}

std::string FileLabel(const RunFileFacts& f) {
  std::string label = f.path;
  if (f.rank >= 0) {
    label += f.world_size > 0 ? fmt::format(" (rank {} of {})", f.rank, f.world_size)
                              : fmt::format(" (rank {})", f.rank);
  }
  if (!f.note.empty()) label += fmt::format(" [{}]", f.note);
  return label;
}

}  // namespace

bool IsWallClock(TimeNs ns) {
  // 2001-09-09 in ns since the epoch; relative traces start near zero.
  return ns >= 1'000'000'000LL * kNsPerS;
}

// What a file's metadata says of its run (a full parse or a Kineto stamp).
RunFileFacts FactsFromMetadata(const std::string& path, const RunMetadata& m) {
  RunFileFacts f;
  f.path = path;
  f.format = m.format;
  f.framework = m.framework;
  f.rank = m.rank;
  f.world_size = m.world_size;
  f.host_name = m.host_name;
  std::set<std::string> names;
  for (const DeviceInfo& d : m.devices) {
    if (!d.name.empty()) names.insert(d.name);
  }
  f.device_names.assign(names.begin(), names.end());
  return f;
}

RunFileFacts FactsOf(const Timeline& timeline) {
  return FactsOf(timeline.metadata(), timeline.Bounds());
}

RunFileFacts FactsOf(const RunMetadata& m, std::pair<TimeNs, TimeNs> bounds) {
  RunFileFacts f = FactsFromMetadata(m.source_path, m);
  std::tie(f.start_ns, f.end_ns) = bounds;
  // Kineto writes baseTimeNanoseconds after the events; timestamps stay
  // relative to it then, but the capture time is what tells two runs apart.
  f.start_ns += m.late_base_time_ns;
  f.end_ns += m.late_base_time_ns;
  return f;
}

absl::StatusOr<RunFileFacts> ReadRunFileFacts(const std::string& path,
                                              const ParseOptions& options) {
  absl::StatusOr<InputFormat> format = SniffTraceFile(path);
  if (!format.ok()) return format.status();
  if (*format != InputFormat::kKinetoJson) {
    absl::StatusOr<Timeline> tl = ParseTraceFile(path, options);
    if (!tl.ok()) return tl.status();
    return FactsOf(*tl);
  }
  absl::StatusOr<KinetoStamp> stamp = ReadKinetoStamp(path);
  if (!stamp.ok()) return stamp.status();
  const RunMetadata& m = stamp->metadata;
  RunFileFacts f = FactsFromMetadata(path, m);
  f.start_ns = std::max<TimeNs>(stamp->first_event_ns, 0) + m.late_base_time_ns;
  f.end_ns = f.start_ns;
  if (!stamp->tail_read) {
    f.note = fmt::format("gzip over {} MiB: keys after the events not read",
                         kKinetoFullScanBytes >> 20);
  }
  return f;
}

std::optional<std::string> WhyNotOneRun(const RunFileFacts& a, const RunFileFacts& b) {
  if (a.run_folder != b.run_folder) {
    return fmt::format("different TensorBoard runs ({} and {})", a.run_folder, b.run_folder);
  }
  if (Family(a.format) != Family(b.format)) {
    return fmt::format("a {} trace and an {} trace are never one run", Family(a.format),
                       Family(b.format));
  }
  if (!a.framework.empty() && !b.framework.empty() && a.framework != b.framework) {
    return fmt::format("frameworks differ ({} and {})", a.framework, b.framework);
  }
  if (a.world_size > 0 && b.world_size > 0 && a.world_size != b.world_size) {
    return fmt::format("world sizes differ ({} and {})", a.world_size, b.world_size);
  }
  if (a.rank >= 0 && a.rank == b.rank) {
    return fmt::format("both are rank {}", a.rank);
  }
  if (!a.device_names.empty() && !b.device_names.empty() &&
      Disjoint(a.device_names, b.device_names)) {
    return fmt::format("device types differ ({} and {})", fmt::join(a.device_names, ", "),
                       fmt::join(b.device_names, ", "));
  }
  if (IsWallClock(a.start_ns) && IsWallClock(b.start_ns) &&
      std::llabs(a.start_ns - b.start_ns) > kSameRunSlackNs) {
    return fmt::format("captured at different times ({} and {})", FormatStartTime(a.start_ns),
                       FormatStartTime(b.start_ns));
  }
  return std::nullopt;
}

RunGrouping GroupIntoRuns(const std::vector<RunFileFacts>& files) {
  // Files are taken by start time, then rank, then path, whatever the order
  // they were found in, so the grouping is deterministic.
  std::vector<size_t> order(files.size());
  std::iota(order.begin(), order.end(), 0);
  auto rank_key = [&](size_t i) { return files[i].rank < 0 ? INT32_MAX : files[i].rank; };
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return std::make_tuple(files[x].start_ns, rank_key(x), files[x].path) <
           std::make_tuple(files[y].start_ns, rank_key(y), files[y].path);
  });
  RunGrouping out;
  for (size_t i : order) {
    RunGroup* home = nullptr;
    std::optional<std::string> first_reason;
    for (RunGroup& g : out.runs) {
      std::optional<std::string> why;
      for (size_t j : g.files) {
        why = WhyNotOneRun(files[j], files[i]);
        if (why) break;
      }
      if (!why) {
        home = &g;
        break;
      }
      if (!first_reason) first_reason = fmt::format("{} is not a rank of the run of {}: {}",
                                                    files[i].path, files[g.files[0]].path, *why);
    }
    if (home == nullptr) {
      home = &out.runs.emplace_back();
      home->start_ns = files[i].start_ns;
      if (first_reason) out.reasons.push_back(*first_reason);
    }
    home->files.push_back(i);
  }
  for (RunGroup& g : out.runs) {
    std::sort(g.files.begin(), g.files.end(), [&](size_t x, size_t y) {
      return std::make_tuple(rank_key(x), files[x].path) <
             std::make_tuple(rank_key(y), files[y].path);
    });
  }
  return out;
}

std::string FormatStartTime(TimeNs ns) {
  if (!IsWallClock(ns)) {
    return fmt::format("relative (+{:.6f} s)", static_cast<double>(ns) / kNsPerS);
  }
  std::time_t seconds = static_cast<std::time_t>(ns / kNsPerS);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &utc);
  return fmt::format("{} UTC", buf);
}

std::string DescribeRuns(const std::vector<RunFileFacts>& files, const RunGrouping& grouping) {
  std::string out;
  for (size_t r = 0; r < grouping.runs.size(); ++r) {
    const RunGroup& g = grouping.runs[r];
    const RunFileFacts& first = files[g.files[0]];
    std::string what = first.framework.empty() ? std::string(Family(first.format))
                                               : first.framework;
    std::string folder =
        first.run_folder.empty() ? "" : fmt::format(" (--run {})", first.run_folder);
    out += fmt::format("run {}{}: started {}, {} {}, {}\n", r + 1, folder,
                       FormatStartTime(g.start_ns), g.files.size(),
                       g.files.size() == 1 ? "file" : "files", what);
    for (size_t i : g.files) out += fmt::format("  {}\n", FileLabel(files[i]));
  }
  return out;
}

}  // namespace tracelint
