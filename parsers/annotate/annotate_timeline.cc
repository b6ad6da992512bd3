#include "parsers/annotate/annotate_timeline.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analyzer/base/json_escape.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

std::string_view KinetoCategory(EventKind kind) {
  switch (kind) {
    case EventKind::kCpuOp: return "cpu_op";
    case EventKind::kUserAnnotation: return "user_annotation";
    case EventKind::kPythonFunction: return "python_function";
    case EventKind::kRuntime: return "cuda_runtime";
    case EventKind::kDriver: return "cuda_driver";
    case EventKind::kKernel: return "kernel";
    case EventKind::kMemcpy: return "gpu_memcpy";
    case EventKind::kMemset: return "gpu_memset";
    case EventKind::kGpuUserAnnotation: return "gpu_user_annotation";
    case EventKind::kCudaSync: return "cuda_sync";
    case EventKind::kOverhead: return "overhead";
    case EventKind::kTraceSpan: return "Trace";
    default: return "other";
  }
}

std::string ArgJson(const Timeline& tl, const ArgValue& v) {
  switch (v.type) {
    case ArgValue::Type::kInt: return fmt::format("{}", v.i);
    case ArgValue::Type::kUInt: return fmt::format("{}", v.u);
    case ArgValue::Type::kDouble:
      return std::isfinite(v.d) ? fmt::format("{}", v.d) : std::string("null");
    case ArgValue::Type::kString: return "\"" + JsonEscape(tl.str(v.s)) + "\"";
    case ArgValue::Type::kBool: return v.b ? "true" : "false";
    default: return "null";
  }
}

}  // namespace

std::string ExactUs(TimeNs ns) {
  TimeNs magnitude = ns < 0 ? -ns : ns;
  return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", magnitude / kNsPerUs, magnitude % kNsPerUs);
}

std::pair<int64_t, int64_t> ConvertedPidTid(const Track& track, size_t rank_pos) {
  int64_t base = 1000 * (static_cast<int64_t>(rank_pos) + 1);
  if (track.kind == TrackKind::kDeviceStream && track.device >= 0) {
    // Devices past 998 (a hostile trace's) share the last slot rather than
    // a later rank's processes.
    return {base + 1 + std::min<int64_t>(track.device, 998), track.tid};
  }
  return {base, track.tid};
}

std::string DeviceProcessName(const Timeline& tl, size_t rank_pos, int64_t device) {
  return fmt::format("rank {} {} {}", RankOf(tl, rank_pos), AcceleratorName(tl.metadata()),
                     device);
}

std::string HostProcessName(const Timeline& tl, size_t rank_pos) {
  return fmt::format("rank {} host", RankOf(tl, rank_pos));
}

std::string TimelineAsChromeEvents(const Timeline& tl, size_t rank_pos) {
  std::string out;
  auto add = [&](const std::string& event) {
    if (!out.empty()) out += ",\n";
    out += event;
  };
  const TimeNs origin_ns = tl.metadata().base_time_ns;
  std::set<int64_t> named_pids;
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    const Track& track = tl.tracks()[t];
    // Overflow tracks from the nesting repair are drawn on their origin's
    // thread under another tid, so Chrome nests them separately.
    auto [pid, tid] = ConvertedPidTid(track, rank_pos);
    if (named_pids.insert(pid).second) {
      std::string pname = track.kind == TrackKind::kDeviceStream && track.device >= 0
                              ? DeviceProcessName(tl, rank_pos, track.device)
                              : HostProcessName(tl, rank_pos);
      add(fmt::format("{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,"
                      "\"args\":{{\"name\":\"{}\"}}}}",
                      pid, JsonEscape(pname)));
    }
    if (track.overflow_of != kNoIndex) tid = tid * 1000 + t;
    std::string tname(tl.str(track.name));
    if (tname.empty()) tname = fmt::format("thread {}", track.tid);
    add(fmt::format("{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},"
                    "\"args\":{{\"name\":\"{}\"}}}}",
                    pid, tid, JsonEscape(tname)));
    const SliceColumns& sc = tl.slices();
    auto [first, last] = tl.track_range(t);
    for (SliceId s = first; s < last; ++s) {
      std::string args;
      if (track.kind == TrackKind::kDeviceStream) {
        args = fmt::format("\"device\":{},\"stream\":{}", track.device, track.tid);
      }
      if (sc.correlation[s] != 0) {
        args += fmt::format("{}\"correlation\":{}", args.empty() ? "" : ",", sc.correlation[s]);
      }
      if (sc.external_id[s] != 0) {
        args += fmt::format("{}\"External id\":{}", args.empty() ? "" : ",", sc.external_id[s]);
      }
      for (const Arg& a : tl.args(s)) {
        std::string_view key = tl.str(a.key);
        if (key == "device" || key == "stream" || key == "correlation" || key == "External id") {
          continue;
        }
        args += fmt::format("{}\"{}\":{}", args.empty() ? "" : ",", JsonEscape(key),
                            ArgJson(tl, a.value));
      }
      add(fmt::format("{{\"ph\":\"X\",\"cat\":\"{}\",\"name\":\"{}\",\"pid\":{},\"tid\":{},"
                      "\"ts\":{},\"dur\":{},\"args\":{{{}}}}}",
                      KinetoCategory(sc.kind[s]), JsonEscape(tl.str(sc.name[s])), pid, tid,
                      ExactUs(sc.ts_ns[s] - origin_ns), ExactUs(sc.dur_ns[s]), args));
    }
  }
  return out;
}

}  // namespace tracelint
