#include "parsers/kineto/kineto_parser.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/base/byte_size.h"
#include "analyzer/base/status_macros.h"
#include "analyzer/base/strings.h"
#include "analyzer/model/timeline_builder.h"
#include "fmt/format.h"
#include "parsers/common/input_stream.h"
#include "parsers/common/json_event_splitter.h"
#include "parsers/common/read_ahead.h"
#include "analyzer/base/worker_pool.h"
#include "parsers/kineto/chrome_device_tracks.h"
#include "parsers/kineto/chrome_generic_tracks.h"
#include "parsers/kineto/kineto_event_emitter.h"
#include "parsers/kineto/kineto_metadata.h"
#include "parsers/kineto/kineto_parse_diagnostics.h"

namespace tracelint {
namespace kineto {
namespace {

// Chunks read from the input: large enough that syscalls cost nothing, small
// enough that the read-ahead buffers are a small part of the peak memory.
constexpr size_t kReadBytes = size_t{1} << 20;

// What a part's events say beyond its slices; summed over parts in order.
struct PartFacts {
  std::vector<BeginEndEvent> begin_end;  // paired into slices after the merge
  std::vector<TrackNameEvent> track_names;
  std::vector<ProcessNameEvent> process_names;
  absl::flat_hash_set<TrackKey> tracks;
  absl::flat_hash_set<int64_t> slice_devices;
  uint32_t features = 0;
  int64_t events = 0;
  size_t name_bytes = 0;  // heap bytes of the names above (summed by Add)

  // What these facts hold on the heap, for the memory ledger.
  size_t MemoryBytes() const {
    return begin_end.capacity() * sizeof(BeginEndEvent) +
           track_names.capacity() * sizeof(TrackNameEvent) +
           process_names.capacity() * sizeof(ProcessNameEvent) + name_bytes +
           tracks.capacity() * (sizeof(TrackKey) + 1) +
           slice_devices.capacity() * (sizeof(int64_t) + 1);
  }

  void Add(PartFacts& later) {
    features |= later.features;
    events += later.events;
    auto heap = [](const std::string& s) {
      return s.capacity() > std::string().capacity() ? s.capacity() : 0;
    };
    for (const BeginEndEvent& e : later.begin_end) name_bytes += heap(e.name);
    for (const TrackNameEvent& n : later.track_names) name_bytes += heap(n.name);
    for (const ProcessNameEvent& n : later.process_names) name_bytes += heap(n.name);
    tracks.insert(later.tracks.begin(), later.tracks.end());
    slice_devices.insert(later.slice_devices.begin(), later.slice_devices.end());
    for (BeginEndEvent& e : later.begin_end) begin_end.push_back(std::move(e));
    for (TrackNameEvent& n : later.track_names) track_names.push_back(std::move(n));
    for (ProcessNameEvent& n : later.process_names) process_names.push_back(std::move(n));
  }
};

struct PartResult {
  TimelineBuilder builder;
  PartFacts facts;
  uint64_t stream_end = 0;  // input offset where the part's last event ends
  // Set by the worker when the fields above are final.
  std::atomic<bool> done{false};
};

// What the parts add up to, merged in input order.
struct Merged {
  TimelineBuilder builder;
  PartFacts facts;
  bool reserved = false;
  // What the merged arrays may grow to (the memory ledger's parse limit;
  // 0: no limit).
  uint64_t limit_bytes = 0;

  // Moves `r` in after the parts before it; what it held is freed.
  // `input_bytes` is the size of the (uncompressed) input, 0 if unknown.
  void Absorb(PartResult& r, uint64_t input_bytes) {
    const size_t have = builder.slice_count();
    const size_t needed = have + r.builder.slice_count();
    if (limit_bytes > 0 && have > 0 && needed > builder.slice_capacity()) {
      // Growth by doubling would jump past the memory budget in one step
      // (and, under RLIMIT_AS, hold the old and the new array at once);
      // near the limit the arrays grow only to it, and the read stops at
      // the next check (docs/robustness.md, "Memory budget").
      const double per_slice =
          static_cast<double>(builder.MemoryBytes()) / static_cast<double>(have);
      const size_t limit_slices = static_cast<size_t>(static_cast<double>(limit_bytes) / per_slice);
      if (2 * builder.slice_capacity() > limit_slices) {
        const size_t target = std::max(needed, std::min(2 * builder.slice_capacity(), limit_slices));
        builder.ReserveScaled(static_cast<double>(target) / static_cast<double>(have));
      }
    }
    builder.Append(r.builder);
    if (!reserved && input_bytes > 0 && r.stream_end >= input_bytes / 16) {
      // Once a sixteenth is read, the rest is projected from it: the merged
      // arrays are reserved once (10% spare) instead of grown by doubling,
      // whose copies would briefly hold the old and the new array. Never
      // past the memory budget: a file larger than it is read up to it.
      reserved = true;
      double factor =
          1.1 * static_cast<double>(input_bytes) / static_cast<double>(r.stream_end);
      const size_t now = builder.MemoryBytes();
      if (limit_bytes > 0 && now > 0) {
        factor = std::min(factor, std::max(1.0, static_cast<double>(limit_bytes) /
                                                    static_cast<double>(now)));
      }
      builder.ReserveScaled(factor);
    }
    facts.Add(r.facts);
  }
  size_t MemoryBytes() const { return builder.MemoryBytes() + facts.MemoryBytes(); }
};

// Parses one part; a malformed event costs only itself: the rest of the part
// is read again one event at a time.
void ParsePart(const JsonPart& part, TimeNs base_time_ns, const JsonReader& reader,
               PartResult* out) {
  // Most events are slices with an arg or two: reserving for that spares
  // the copies of growing the part's arrays by doubling.
  out->builder.Reserve(part.event_count(), part.event_count());
  EventEmitter emitter(out->builder, base_time_ns);
  ReadResult whole = reader.read_events(part.text.json(), emitter);
  if (!whole.status.ok()) {
    size_t count = part.event_count();
    PaddedJson single;
    for (size_t i = static_cast<size_t>(whole.events_emitted); i < count; ++i) {
      size_t begin = part.local_offsets[i];
      size_t end = i + 1 < count ? part.local_offsets[i + 1] - 1 : part.text.json_size - 1;
      single.bytes.clear();
      single.bytes.push_back('[');
      if (end > begin) single.bytes.append(part.text.bytes, begin, end - begin);
      single.bytes.push_back(']');
      single.json_size = single.bytes.size();
      single.bytes.append(kJsonPadding, '\0');
      ReadResult one = reader.read_events(single.json(), emitter);
      if (!one.status.ok()) {
        out->builder.diagnostics().Add(
            "malformed_event", Severity::kError,
            fmt::format("events that are not valid JSON, skipped (first: {})",
                        std::string(one.status.message())),
            1, static_cast<int64_t>(part.stream_offsets[i]));
      }
    }
  }
  out->facts.begin_end = std::move(emitter.begin_end());
  out->facts.track_names = std::move(emitter.track_names());
  out->facts.process_names = std::move(emitter.process_names());
  out->facts.tracks = emitter.tracks();
  out->facts.slice_devices = emitter.slice_devices();
  out->facts.features = emitter.features();
  out->facts.events = emitter.events();
}

void PairBeginEnd(std::vector<BeginEndEvent>& events, TimelineBuilder& b) {
  absl::flat_hash_map<TrackKey, std::vector<const BeginEndEvent*>> open;
  int64_t unmatched_end = 0;
  for (const BeginEndEvent& e : events) {
    std::vector<const BeginEndEvent*>& stack = open[e.track];
    if (e.is_begin) {
      stack.push_back(&e);
      continue;
    }
    if (stack.empty()) {
      ++unmatched_end;
      continue;
    }
    const BeginEndEvent& begin = *stack.back();
    stack.pop_back();
    SliceSpec spec;
    spec.ts_ns = begin.ts_ns;
    spec.dur_ns = e.ts_ns - begin.ts_ns;
    auto [kind, pid, tid] = begin.track;
    spec.track = b.GetTrack(kind, pid, tid);
    spec.name = b.Intern(begin.name);
    spec.kind = begin.kind;
    b.AddSlice(spec);
  }
  int64_t unclosed = 0;
  for (const auto& [key, stack] : open) unclosed += static_cast<int64_t>(stack.size());
  if (unmatched_end > 0) {
    b.diagnostics().Add("unmatched_end", Severity::kWarning,
                        "ph E events with no open B on their thread, skipped", unmatched_end);
  }
  if (unclosed > 0) {
    b.diagnostics().Add("unclosed_begin", Severity::kWarning,
                        "ph B events never closed by an E, skipped", unclosed);
  }
}

absl::Status ReadMetaInto(const JsonReader& reader, PaddedJson text, RawMeta& meta,
                          TimelineBuilder& diagnostics_sink) {
  if (text.json_size == 0) return absl::OkStatus();
  absl::Status s = reader.read_meta(text.json(), meta);
  if (!s.ok()) {
    diagnostics_sink.diagnostics().Add("bad_top_level_keys", Severity::kWarning,
                                       fmt::format("top-level keys not read: {}", std::string(s.message())));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Timeline> ParseKinetoJsonFileWith(const std::string& path,
                                                 const ParseOptions& options,
                                                 const JsonReader& json_reader) {
  TL_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, InputStream::Open(path));
  size_t split_bytes = options.split_bytes > 0
                           ? options.split_bytes
                           : AutoSplitBytes(in->file_bytes(), in->compressed());
  JsonEventSplitter splitter(split_bytes, options.max_document_bytes);
  const ParseLimits& limits = options.limits;
  in->set_max_output_bytes(
      ResolveMaxDecompressedBytes(limits, in->file_bytes(), in->compressed()));
  splitter.set_limits({ResolveMaxEvents(limits), limits.max_string_bytes,
                       limits.max_nesting_depth});
  int threads = WorkerPool::ResolveThreads(options.threads);
  // What the merged builder holds is charged to the ledger after each part
  // is merged (a few MiB of input apart: cheap); the read stops once the
  // ledger is over its parse limit and this read holds the most.
  std::unique_ptr<MemoryLedger> own_ledger;
  MemoryLedger& ledger = LedgerFor(options, own_ledger);
  MemoryLedger::Account account = ledger.Open();
  uint64_t memory_stop_bytes = 0;
  // Declared here, not with the others below, so Absorb knows the limit.
  Merged all;
  all.limit_bytes = ledger.parse_limit_bytes();
  // Slots stay put as parts are added (deque), so workers fill them in place.
  // Finished parts are appended to `all` in input order while later parts
  // are still parsed, and freed at once: only the parts in flight exist
  // beside the merged builder, instead of a second copy of every slice.
  std::deque<std::unique_ptr<PartResult>> results;
  // Absorbed parts, emptied with their capacity kept: later parts refill
  // them instead of faulting in fresh memory for every part.
  std::vector<std::unique_ptr<PartResult>> spare_results;
  TimelineBuilder& merged = all.builder;
  RawMeta meta;
  bool prefix_read = false;
  TimeNs base_time_ns = 0;
  absl::Status scan_error;
  {
    // Two parts per thread in flight: enough to keep the threads busy while
    // the calling thread splits, without holding the whole file in memory.
    // Parsed parts' text buffers go back to the splitter for reuse. Declared
    // before the pool, which finishes its tasks when destroyed.
    std::mutex spare_mu;
    std::vector<std::string> spare;
    WorkerPool pool(threads, 2 * threads);
    auto submit = [&](std::vector<JsonPart> parts) {
      for (JsonPart& part : parts) {
        if (spare_results.empty()) {
          results.push_back(std::make_unique<PartResult>());
        } else {
          results.push_back(std::move(spare_results.back()));
          spare_results.pop_back();
        }
        PartResult* slot = results.back().get();
        slot->stream_end = part.StreamOffsetOf(part.text.json_size);
        auto shared = std::make_shared<JsonPart>(std::move(part));
        pool.Submit([shared, slot, base_time_ns, &json_reader, &spare_mu, &spare] {
          ParsePart(*shared, base_time_ns, json_reader, slot);
          {
            std::lock_guard<std::mutex> lock(spare_mu);
            spare.push_back(std::move(shared->text.bytes));
          }
          slot->done.store(true, std::memory_order_release);
        });
      }
    };
    auto absorb_done = [&] {
      bool absorbed = false;
      while (!results.empty() && results.front()->done.load(std::memory_order_acquire)) {
        std::unique_ptr<PartResult> r = std::move(results.front());
        results.pop_front();
        all.Absorb(*r, in->compressed() ? 0 : in->file_bytes());
        r->facts = PartFacts();
        r->stream_end = 0;
        r->done.store(false, std::memory_order_relaxed);
        spare_results.push_back(std::move(r));
        absorbed = true;
      }
      if (absorbed) account.Set(all.MemoryBytes());
    };
    auto recycle = [&] {
      std::lock_guard<std::mutex> lock(spare_mu);
      for (std::string& bytes : spare) splitter.RecycleBuffer(std::move(bytes));
      spare.clear();
    };
    // With threads to spare, decompression runs ahead on its own thread.
    // A small file needs no 4 MiB chunks: zero-filling them cost more than
    // parsing a few KB (fuzzing runs thousands of those).
    // An input of unknown size (a pipe) starts at 64 KiB chunks.
    uint64_t expected_bytes = in->file_bytes() == 0 ? uint64_t{64} << 10
                              : in->compressed()    ? in->file_bytes() * 8
                                                    : in->file_bytes() + 1;
    size_t read_bytes = static_cast<size_t>(
        std::clamp<uint64_t>(expected_bytes, uint64_t{4} << 10, kReadBytes));
    ReadAhead chunks(*in, read_bytes, threads > 1 ? 2 : 0);
    for (;;) {
      absl::StatusOr<std::string_view> chunk = chunks.Next();
      if (!chunk.ok()) return chunk.status();
      if (chunk->empty()) break;
      recycle();
      absl::Status s = splitter.Feed(*chunk);
      if (!s.ok()) {
        if (splitter.events_seen() == 0) {
          return absl::InvalidArgumentError(
              fmt::format("{}: not a trace: {}; expected Kineto/Chrome trace JSON", path,
                          std::string(s.message())));
        }
        scan_error = s;
        break;
      }
      if (splitter.events_started() && !prefix_read) {
        // Keys before the event array (baseTimeNanoseconds above all) are
        // needed before any event is converted.
        prefix_read = true;
        TL_RETURN_IF_ERROR(ReadMetaInto(json_reader, splitter.TakeMeta(), meta, merged));
        if (meta.base_time_text) {
          base_time_ns = ParseIntText(meta.base_time_text).value_or(0);
        }
      }
      submit(splitter.TakeParts());
      absorb_done();
      if (splitter.stopped_at_event_limit()) break;
      if (account.OverBudget()) {
        memory_stop_bytes = std::max<uint64_t>(account.bytes(), 1);
        break;
      }
    }
    splitter.Finish();
    if (memory_stop_bytes == 0) submit(splitter.TakeParts());
    pool.Wait();
    absorb_done();
  }
  if (in->limit_reached() && all.facts.events == 0) {
    return absl::ResourceExhaustedError(
        fmt::format("{}: {} before the first complete trace event", path,
                    DecompressedLimitText(*in)));
  }
  if (memory_stop_bytes > 0 && all.facts.events == 0) {
    return absl::ResourceExhaustedError(
        fmt::format("{}: {} before the first complete trace event", path,
                    MemoryLimitText(ledger, memory_stop_bytes)));
  }
  if (!splitter.saw_top_level()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: not a trace: the {} is empty; expected Kineto/Chrome trace JSON", path,
        in->compressed() ? "decompressed stream" : "file"));
  }
  bool truncated = splitter.truncated() || !scan_error.ok();
  if (!splitter.events_started()) {
    if (truncated) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: input ends at byte {} of the decompressed stream, before the first trace event",
          path, splitter.bytes_seen()));
    }
    return absl::InvalidArgumentError(fmt::format(
        "{}: not a trace: JSON object without a traceEvents array; expected Kineto/Chrome "
        "trace JSON",
        path));
  }
  std::optional<std::string> base_before_tail = meta.base_time_text;
  TL_RETURN_IF_ERROR(ReadMetaInto(json_reader, splitter.TakeMeta(), meta, merged));
  if (!base_before_tail && meta.base_time_text) {
    merged.diagnostics().Add("base_time_after_events", Severity::kWarning,
                             "baseTimeNanoseconds follows traceEvents; timestamps were left "
                             "relative to it");
  }

  const PartFacts& facts = all.facts;
  const int64_t events = facts.events;
  PairBeginEnd(all.facts.begin_end, merged);
  for (const TrackNameEvent& n : facts.track_names) {
    for (TrackKind kind : {TrackKind::kHostThread, TrackKind::kDeviceStream}) {
      if (facts.tracks.contains(TrackKey{kind, n.pid, n.tid})) {
        merged.SetTrackName(merged.GetTrack(kind, n.pid, n.tid), merged.Intern(n.name));
      }
    }
  }

  // Metadata may come anywhere in the file (TensorFlow writes it first,
  // Kineto last), so tracks named as device timelines are retagged only now
  // that every part is merged; Kineto's own names never match, and then
  // this costs only a look at the names.
  const ChromeDeviceTracks chrome =
      ApplyChromeDeviceTracks(facts.process_names, facts.track_names, merged);
  // Chrome traces of no Kineto and no TensorFlow/XLA: the legacy autograd
  // profiler's pids, and GPU-only traces of CUPTI tools.
  if (chrome.producer == ChromeProducer::kNone) {
    ApplyGenericChromeTracks((facts.features & kFeatKinetoCategory) != 0, merged);
  }
  RunMetadata& m = merged.metadata();
  FillMetadata(path, meta, facts.features, splitter.bare_array(), base_time_ns, chrome, m);
  if (!base_before_tail && meta.base_time_text) {
    m.late_base_time_ns = ParseIntText(meta.base_time_text).value_or(0);
  }
  if (std::optional<std::pair<int, int>> moved =
          MatchLoneDevice(facts.slice_devices, m, merged.diagnostics())) {
    merged.RenumberCounterDevice(moved->first, moved->second);
  }
  DescribeUnlistedDevices(facts.slice_devices, m, merged.diagnostics());
  m.events_read = events;
  AddSplitterDiagnostics(splitter, merged.diagnostics());
  const StreamDamage* damage = in->damage();
  if (damage != nullptr && damage->truncated && !truncated) {
    // All the JSON arrived, but not the gzip trailer that checks it.
    merged.diagnostics().Add(
        "truncated_input", Severity::kWarning,
        fmt::format("{} at compressed byte {}; the JSON itself is complete", damage->what,
                    damage->compressed_offset),
        1, damage->compressed_offset);
  }
  if (damage != nullptr && !damage->truncated) {
    merged.diagnostics().Add(
        "corrupt_compressed_stream", Severity::kError,
        fmt::format("{} at compressed byte {}", damage->what, damage->compressed_offset), 1,
        damage->compressed_offset);
  }
  AddLimitDiagnostics(*in, splitter, limits, events, ledger, memory_stop_bytes,
                      merged.diagnostics());
  if (in->limit_reached() || splitter.stopped_at_event_limit() || memory_stop_bytes > 0) {
    // Partial by the user's (or the default) limit, not damaged: the
    // limit_reached warning says so instead of truncated_input.
    m.truncated = true;
    m.truncated_at_byte = static_cast<int64_t>(splitter.bytes_seen());
  } else if (truncated) {
    m.truncated = true;
    m.truncated_at_byte = static_cast<int64_t>(splitter.bytes_seen());
    if (absl::IsResourceExhausted(scan_error)) {
      // One event or value over the document limit: a limit, not damage.
      merged.diagnostics().Add(
          "limit_reached", Severity::kWarning,
          fmt::format("stopped at byte {} of the decompressed stream: {}; the {} complete "
                      "events before it were analysed",
                      m.truncated_at_byte, std::string(scan_error.message()), events),
          1, m.truncated_at_byte);
    } else if (!scan_error.ok()) {
      // bytes_seen() stops at the offending byte: the message and the
      // offset name the damage itself, not the chunk that held it.
      m.truncated_reason = "malformed JSON";
      merged.diagnostics().Add(
          "malformed_json", Severity::kError,
          fmt::format("malformed JSON at byte {} of the decompressed stream ({}); reading "
                      "stopped there and the {} complete events before it were analysed",
                      m.truncated_at_byte, std::string(scan_error.message()), events),
          1, m.truncated_at_byte);
    } else {
      std::string why = damage != nullptr ? damage->what
                                          : "the JSON ends before its last closing bracket";
      merged.diagnostics().Add(
          "truncated_input", Severity::kWarning,
          fmt::format("input ends early ({}) at byte {} of the decompressed stream; the {} "
                      "complete events before it were analysed",
                      why, m.truncated_at_byte, events),
          1, m.truncated_at_byte);
    }
  }
  FinalizeOptions finalize;
  finalize.threads = threads;
  account.Set(all.MemoryBytes());
  absl::StatusOr<Timeline> timeline = std::move(merged).Finalize(finalize);
  // A ledger of this parse's own ends with it.
  if (timeline.ok() && own_ledger == nullptr) timeline->KeepCharged(std::move(account));
  return timeline;
}

}  // namespace kineto

bool SniffKinetoJson(std::string_view head) {
  size_t i = 0;
  if (head.starts_with("\xEF\xBB\xBF")) i = 3;
  auto skip_space = [&] {
    while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' ||
                               head[i] == '\t')) {
      ++i;
    }
  };
  skip_space();
  if (i >= head.size()) return false;
  if (head[i] == '[') {
    ++i;
    skip_space();
    return i < head.size() && (head[i] == '{' || head[i] == ']');
  }
  if (head[i] != '{') return false;
  std::string_view rest = head.substr(i);
  if (Contains(rest, "\"highres-ticks\"")) return false;
  // Kineto writes schemaVersion and deviceProperties first; post-processed
  // files may start with other keys of Kineto's.
  for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"",
                               "\"distributedInfo\"", "\"baseTimeNanoseconds\""}) {
    if (Contains(rest, key)) return true;
  }
  return false;
}

bool SniffKinetoJsonBeyondHead(const std::string& path, uint64_t max_bytes) {
  absl::StatusOr<std::unique_ptr<InputStream>> in = InputStream::Open(path);
  if (!in.ok()) return false;
  // Top-level keys only: the event array's start is enough to know.
  JsonEventSplitter splitter(size_t{1} << 20, size_t{1} << 30);
  std::string buf(size_t{1} << 20, '\0');
  uint64_t read = 0;
  while (read < max_bytes && !splitter.events_started()) {
    absl::StatusOr<size_t> n = (*in)->Read(buf.data(), buf.size());
    if (!n.ok() || *n == 0) break;
    read += *n;
    if (!splitter.Feed(std::string_view(buf.data(), *n)).ok()) return false;
    splitter.TakeParts();
    PaddedJson meta = splitter.TakeMeta();  // bounded: dropped as it comes
    if (Contains(meta.json(), "\"highres-ticks\"")) return false;
  }
  return splitter.events_started() && !splitter.bare_array();
}

absl::StatusOr<Timeline> ParseKinetoJsonFile(const std::string& path,
                                             const ParseOptions& options) {
  return kineto::ParseKinetoJsonFileWith(path, options, kineto::ActiveJsonReader());
}

}  // namespace tracelint
