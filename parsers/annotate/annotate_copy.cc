// WriteAnnotatedTrace: the input's events copied (checked, pids remapped),
// then the tracelint events of each rank (annotate_writer.cc).

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/base/json_escape.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"
#include "parsers/annotate/annotate_timeline.h"
#include "parsers/annotate/annotate_writer.h"
#include "parsers/annotate/event_scan.h"
#include "parsers/common/input_stream.h"
#include "parsers/common/json_event_splitter.h"

namespace tracelint {
namespace {

// Each rank's processes in the copy: a block of pids per rank position,
// devices first (device d -> base + 1 + d), then the rank's other
// processes in the order they appear. Far below kAnnotatePidBase for any
// run of fewer than 2,000 ranks.
constexpr int64_t kRankPidBlock = 1'000'000;
constexpr int64_t kMaxDevice = 99'998;
constexpr int64_t kOtherPidsFrom = 100'000;
// Flow and async ids of rank position r > 0 are moved up by r << 36, so
// ranks whose profilers counted ids alike do not link to each other.
constexpr int kFlowIdShift = 36;

std::optional<int64_t> IntegerOf(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// One rank's pid remapping (JSON input).
class PidRemap {
 public:
  PidRemap(const Timeline& tl, size_t rank_pos)
      : tl_(tl), rank_pos_(rank_pos),
        base_(kRankPidBlock * (static_cast<int64_t>(rank_pos) + 1)) {
    // Kineto writes device activity under the device's index as pid, which
    // is what the timeline's device tracks are keyed by. Chrome JSON from
    // TensorFlow/JAX names its device processes instead; those keep their
    // own names.
    if (tl.metadata().format != "kineto-json") return;
    for (const Track& t : tl.tracks()) {
      if (t.kind == TrackKind::kDeviceStream && t.overflow_of == kNoIndex && t.pid >= 0 &&
          t.pid <= kMaxDevice) {
        device_pids_.insert(t.pid);
      }
    }
  }

  // The new pid of an event's pid value (its JSON text).
  int64_t Map(std::string_view raw) {
    auto it = pids_.find(raw);
    if (it != pids_.end()) return it->second.pid;
    Process p;
    std::optional<int64_t> numeric = IntegerOf(raw);
    if (numeric && device_pids_.contains(*numeric)) {
      p.pid = base_ + 1 + *numeric;
      p.device = *numeric;
    } else {
      p.pid = base_ + kOtherPidsFrom + static_cast<int64_t>(others_++);
    }
    p.raw = std::string(raw);
    int64_t pid = p.pid;
    if (numeric) by_number_.emplace(*numeric, pid);
    pids_.emplace(p.raw, std::move(p));
    return pid;
  }

  // The pid a host track of the timeline (keyed by the source's pid) got.
  int64_t MapTrackPid(int64_t source_pid) {
    auto it = by_number_.find(source_pid);
    return it != by_number_.end() ? it->second : Map(std::to_string(source_pid));
  }

  // A process_name event's name (its JSON string, checked).
  void SetOriginalName(std::string_view raw_pid, std::string_view name_json) {
    Map(raw_pid);
    pids_.find(raw_pid)->second.original_name = std::string(name_json);
  }

  // process_name and process_sort_index for every process seen.
  std::vector<std::string> MetadataEvents() const {
    std::vector<std::string> out;
    for (const auto& [raw, p] : pids_) {
      std::string name;
      if (p.device >= 0) {
        name = Quote(DeviceProcessName(tl_, rank_pos_, p.device));
      } else if (p.original_name.size() >= 2) {
        // "rank R <the process's own name> (pid P)", its escapes kept.
        std::string_view inner(p.original_name);
        inner = inner.substr(1, inner.size() - 2);
        name = "\"" + JsonEscape(fmt::format("rank {} ", RankOf(tl_, rank_pos_))) +
               std::string(inner) + JsonEscape(fmt::format(" (pid {})", Unquoted(p.raw))) +
               "\"";
      } else {
        name = Quote(fmt::format("{} (pid {})", HostProcessName(tl_, rank_pos_), Unquoted(p.raw)));
      }
      out.push_back(fmt::format(
          "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}}",
          p.pid, name));
      out.push_back(fmt::format("{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},"
                                "\"tid\":0,\"args\":{{\"sort_index\":{}}}}}",
                                p.pid, p.pid));
    }
    return out;
  }

 private:
  struct Process {
    int64_t pid = 0;
    int64_t device = -1;
    std::string raw;
    std::string original_name;  // a checked JSON string, or empty
  };
  static std::string Quote(std::string_view s) { return "\"" + JsonEscape(s) + "\""; }
  // A pid written as a JSON string keeps its text, not its quotes.
  static std::string_view Unquoted(std::string_view raw) {
    if (raw.size() >= 2 && raw.front() == '"') return raw.substr(1, raw.size() - 2);
    return raw;
  }

  const Timeline& tl_;
  size_t rank_pos_;
  int64_t base_;
  std::set<int64_t> device_pids_;
  std::map<std::string, Process, std::less<>> pids_;
  std::map<int64_t, int64_t> by_number_;
  size_t others_ = 0;
};

// Events, joined by ",\n", into `out`; the first write failure is kept.
class EventSink {
 public:
  explicit EventSink(std::ostream& out) : out_(out) {}
  void Add(std::string_view event) {
    out_ << (first_ ? "" : ",\n") << event;
    first_ = false;
  }
  void AddAll(const std::vector<std::string>& events) {
    for (const std::string& e : events) Add(e);
  }
  void AddJoined(std::string_view events) {
    if (!events.empty()) Add(events);
  }
  bool ok() const { return static_cast<bool>(out_); }

 private:
  std::ostream& out_;
  bool first_ = true;
};

// Drops counted per reason, for the metadata event.
struct Dropped {
  int64_t invalid = 0;      // not valid JSON or UTF-8 (the parser rejects these)
  int64_t over_limit = 0;   // a string or nesting over the limits
  int64_t damaged = 0;      // lost to damage in the file
  int64_t not_objects = 0;  // array elements that are not events
  int64_t total() const { return invalid + over_limit + damaged + not_objects; }
};

// "[ev,\n ev]" -> each event's own text.
std::string_view EventText(const JsonPart& part, size_t i) {
  std::string_view text = part.text.json();
  size_t begin = part.local_offsets[i];
  size_t end = i + 1 < part.event_count() ? part.local_offsets[i + 1] : text.size() - 1;
  std::string_view ev = text.substr(begin, end - begin);
  auto trim = [&ev] {
    while (!ev.empty() && (ev.back() == ' ' || ev.back() == '\n' || ev.back() == '\r' ||
                           ev.back() == '\t')) {
      ev.remove_suffix(1);
    }
  };
  trim();
  if (!ev.empty() && ev.back() == ',') ev.remove_suffix(1);
  trim();
  return ev;
}

bool IsFlowOrAsync(std::string_view ph) {
  return ph == "s" || ph == "t" || ph == "f" || ph == "b" || ph == "e" || ph == "n" ||
         ph == "S" || ph == "T" || ph == "F";
}

// One checked event with its pid (and flow id) rewritten; empty when the
// event is dropped (process_name events, which the remap writes itself).
std::string Rewrite(std::string_view ev, const EventScan& scan, PidRemap& remap,
                    size_t rank_pos) {
  const std::string_view ph = PlainString(scan.ph.Of(ev));
  if (ph == "M" && PlainString(scan.name.Of(ev)) == "process_name" && scan.pid.found) {
    std::string_view name = scan.args_name.Of(ev);
    if (name.size() >= 2 && name.front() == '"') remap.SetOriginalName(scan.pid.Of(ev), name);
    return {};
  }
  struct Edit {
    EventScan::Span span;
    std::string text;
  };
  std::vector<Edit> edits;
  if (scan.pid.found) {
    edits.push_back({scan.pid, std::to_string(remap.Map(scan.pid.Of(ev)))});
  }
  if (rank_pos > 0 && scan.id.found && IsFlowOrAsync(ph)) {
    std::optional<int64_t> id = IntegerOf(scan.id.Of(ev));
    if (id && *id >= 0 && *id < (int64_t{1} << kFlowIdShift)) {
      edits.push_back({scan.id, std::to_string(*id + (static_cast<int64_t>(rank_pos)
                                                      << kFlowIdShift))});
    }
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.span.begin < b.span.begin; });
  std::string out;
  out.reserve(ev.size() + 16);
  size_t at = 0;
  for (const Edit& e : edits) {
    out.append(ev.substr(at, e.span.begin - at));
    out += e.text;
    at = e.span.end;
  }
  out.append(ev.substr(at));
  return out;
}

// The top-level members of a splitter's meta object, checked; empty when
// there are none or they are not valid JSON.
std::string CheckedMembers(const PaddedJson& meta, int64_t max_depth) {
  std::string_view members = meta.json();
  if (members.size() <= 2 || !ScanEvent(members, max_depth).valid) return {};
  members = members.substr(1, members.size() - 2);
  size_t first = members.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? std::string() : std::string(members);
}

// Copies one JSON rank's events. `header` is written before the first
// event of the first rank ("{members,\"traceEvents\":[").
absl::Status CopyJsonRank(const Timeline& tl, size_t rank_pos, const std::string& path,
                          const ParseLimits& limits, bool first_rank, std::ostream& out,
                          EventSink& sink, bool& header_written, std::string& trailing_members,
                          PidRemap& remap, AnnotateStats& stats, Dropped& dropped) {
  absl::StatusOr<std::unique_ptr<InputStream>> stream = InputStream::Open(path);
  if (!stream.ok()) return stream.status();
  const RunMetadata& md = tl.metadata();
  // The parser stopped there (a limit, or the input ended): later events
  // were never analysed and are not copied.
  const uint64_t stop_byte = md.truncated && md.truncated_at_byte >= 0
                                 ? static_cast<uint64_t>(md.truncated_at_byte)
                                 : UINT64_MAX;
  JsonEventSplitter splitter(size_t{8} << 20, size_t{1} << 30);
  splitter.set_limits({0, limits.max_string_bytes, limits.max_nesting_depth});
  (*stream)->set_max_output_bytes(ResolveMaxDecompressedBytes(
      limits, (*stream)->file_bytes(), (*stream)->compressed()));
  std::string chunk(size_t{4} << 20, '\0');
  bool stopped = false;
  auto write_header = [&] {
    if (header_written) return;
    std::string members = CheckedMembers(splitter.TakeMeta(), limits.max_nesting_depth);
    out << "{" << members << (members.empty() ? "" : ",") << "\"traceEvents\":[\n";
    header_written = true;
  };
  auto drain = [&] {
    if (first_rank && splitter.events_started()) write_header();
    for (JsonPart& part : splitter.TakeParts()) {
      for (size_t i = 0; i < part.event_count() && !stopped; ++i) {
        if (part.stream_offsets[i] >= stop_byte) {
          stopped = true;
          break;
        }
        std::string_view ev = EventText(part, i);
        EventScan scan = ScanEvent(ev, limits.max_nesting_depth);
        if (!scan.valid) {
          ++dropped.invalid;
          continue;
        }
        std::string rewritten = Rewrite(ev, scan, remap, rank_pos);
        if (rewritten.empty()) continue;
        sink.Add(rewritten);
        ++stats.events_written;
      }
      splitter.RecycleBuffer(std::move(part.text.bytes));
    }
  };
  while (!stopped) {
    absl::StatusOr<size_t> n = (*stream)->Read(chunk.data(), chunk.size());
    // Read errors past what the parser read cost nothing: the analysis was
    // of the events before them, and those are copied.
    if (!n.ok() || *n == 0) break;
    if (!splitter.Feed(std::string_view(chunk.data(), *n)).ok()) break;
    drain();
    if (!sink.ok()) return absl::UnavailableError("write failed");
  }
  splitter.Finish();
  drain();
  if (first_rank) {
    write_header();
    // Members after the event array (newer Kineto writes
    // baseTimeNanoseconds there) close the document.
    trailing_members = CheckedMembers(splitter.TakeMeta(), limits.max_nesting_depth);
  }
  dropped.over_limit += splitter.events_over_string_limit() + splitter.events_over_depth_limit();
  dropped.damaged += splitter.events_lost();
  dropped.not_objects += splitter.skipped_elements();
  sink.AddAll(remap.MetadataEvents());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AnnotateStats> WriteAnnotatedTrace(const ReportInput& in, std::ostream& out,
                                                  const AnnotateOptions& options) {
  AnnotateStats stats;
  bool all_json = !in.ranks.empty();
  for (const Timeline* tl : in.ranks) {
    const std::string& format = tl->metadata().format;
    if (format != "kineto-json" && format != "chrome-json") all_json = false;
  }
  EventSink sink(out);
  if (!all_json) {
    // XSpace (or mixed) input: the converted timeline stands for the events.
    out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    for (size_t r = 0; r < in.ranks.size(); ++r) {
      sink.AddJoined(TimelineAsChromeEvents(*in.ranks[r], r));
      sink.AddJoined(AnnotationEvents(in, r, in.ranks[r]->metadata().base_time_ns,
                                      [r](const Track& t) { return ConvertedPidTid(t, r); }));
    }
    out << "\n]}\n";
    if (!out) return absl::UnavailableError("write failed");
    return stats;
  }

  // Chrome JSON input: the files' events, checked and remapped, then ours.
  // The first file's other top-level members go first, so a reader sees
  // baseTimeNanoseconds before the events, as Kineto writes it.
  bool header_written = false;
  std::string trailing_members;
  Dropped dropped;
  for (size_t r = 0; r < in.ranks.size(); ++r) {
    const Timeline& tl = *in.ranks[r];
    const std::string& path = r < options.source_paths.size() && !options.source_paths[r].empty()
                                  ? options.source_paths[r]
                                  : tl.metadata().source_path;
    PidRemap remap(tl, r);
    if (absl::Status s = CopyJsonRank(tl, r, path, options.limits, r == 0, out, sink,
                                      header_written, trailing_members, remap, stats, dropped);
        !s.ok()) {
      return s;
    }
    sink.AddJoined(AnnotationEvents(in, r, tl.metadata().base_time_ns, [&remap](const Track& t) {
      return std::make_pair(remap.MapTrackPid(t.pid), t.tid);
    }));
  }
  stats.events_dropped = dropped.total();
  sink.Add(fmt::format(
      "{{\"ph\":\"M\",\"name\":\"tracelint_dropped_events\",\"pid\":{},\"tid\":0,\"args\":{{"
      "\"count\":{},\"not_valid_json_or_utf8\":{},\"over_a_limit\":{},\"damaged\":{},"
      "\"not_objects\":{}}}}}",
      kAnnotatePidBase, dropped.total(), dropped.invalid, dropped.over_limit, dropped.damaged,
      dropped.not_objects));
  out << "\n]";
  if (!trailing_members.empty()) out << "," << trailing_members;
  out << "}\n";
  if (!out) return absl::UnavailableError("write failed");
  return stats;
}

}  // namespace tracelint
