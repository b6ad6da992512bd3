#include "parsers/kineto/kineto_parse_diagnostics.h"

#include "analyzer/base/byte_size.h"
#include "fmt/format.h"

namespace tracelint::kineto {

std::string DecompressedLimitText(const InputStream& in) {
  uint64_t cap = in.max_output_bytes();
  std::string what =
      in.compressed()
          ? fmt::format("the {}-byte gzip input inflates to more (over {}x)", in.file_bytes(),
                        in.file_bytes() > 0 ? cap / in.file_bytes() : cap)
          : fmt::format("the file is {} bytes", in.file_bytes());
  return fmt::format(
      "stopped at the decompressed-size limit of {} bytes ({}): {}; raise the limit with "
      "--max-decompressed-bytes SIZE (e.g. {}; 0: no limit)",
      cap, FormatByteSize(cap), what, FormatByteSize(cap * 4));
}

void AddLimitDiagnostics(const InputStream& in, const JsonEventSplitter& splitter,
                         const ParseLimits& limits, int64_t events, const MemoryLedger& ledger,
                         uint64_t memory_stop_bytes, ImportDiagnostics& diagnostics) {
  if (memory_stop_bytes > 0) {
    diagnostics.Add("limit_reached", Severity::kWarning,
                    fmt::format("{}; the {} complete events in the first {} bytes were analysed",
                                MemoryLimitText(ledger, memory_stop_bytes), events,
                                splitter.bytes_seen()),
                    1, static_cast<int64_t>(splitter.bytes_seen()));
  } else if (in.limit_reached()) {
    diagnostics.Add("limit_reached", Severity::kWarning,
                    fmt::format("{}; the {} complete events in the first {} bytes were analysed",
                                DecompressedLimitText(in), events, splitter.bytes_seen()),
                    1, static_cast<int64_t>(in.max_output_bytes()));
  } else if (splitter.stopped_at_event_limit()) {
    diagnostics.Add(
        "limit_reached", Severity::kWarning,
        fmt::format("stopped at the event limit of {} events at byte {} of the decompressed "
                    "stream; the events before it were analysed; raise the limit with "
                    "--max-events N (0: no limit)",
                    ResolveMaxEvents(limits), splitter.bytes_seen()),
        1, static_cast<int64_t>(splitter.bytes_seen()));
  }
  if (splitter.events_over_string_limit() > 0) {
    diagnostics.Add(
        "event_over_string_limit", Severity::kWarning,
        fmt::format("event(s) holding a string longer than the {}-byte limit, dropped (first at "
                    "byte {}); raise the limit with --max-string-bytes SIZE (0: no limit)",
                    limits.max_string_bytes, splitter.first_over_string_offset()),
        splitter.events_over_string_limit(),
        static_cast<int64_t>(splitter.first_over_string_offset()));
  }
  if (splitter.events_over_depth_limit() > 0) {
    diagnostics.Add(
        "event_over_depth_limit", Severity::kWarning,
        fmt::format("event(s) nested deeper than the {}-level limit, dropped (first at byte {}); "
                    "raise the limit with --max-nesting-depth N (0: no limit)",
                    limits.max_nesting_depth, splitter.first_over_depth_offset()),
        splitter.events_over_depth_limit(),
        static_cast<int64_t>(splitter.first_over_depth_offset()));
  }
}

void AddSplitterDiagnostics(const JsonEventSplitter& splitter, ImportDiagnostics& diagnostics) {
  if (splitter.skipped_elements() > 0) {
    diagnostics.Add("non_object_event", Severity::kWarning,
                             "elements of the event array that are not objects, skipped",
                             splitter.skipped_elements());
  }
  if (splitter.trailing_bytes() > 0) {
    diagnostics.Add("trailing_data", Severity::kWarning,
                             "bytes after the end of the top-level JSON value, ignored",
                             splitter.trailing_bytes());
  }
  if (splitter.meta_values_over_limit() > 0) {
    const int64_t first = static_cast<int64_t>(splitter.first_meta_over_limit_offset());
    diagnostics.Add(
        "metadata_over_limit", Severity::kWarning,
        fmt::format("{} top-level value(s) larger than {} MiB (metadata is kilobytes), dropped "
                    "unread; the first is \"{}\" at byte {}",
                    splitter.meta_values_over_limit(),
                    JsonEventSplitter::kMaxMetaValueBytes >> 20,
                    splitter.first_meta_over_limit_key(), first),
        splitter.meta_values_over_limit(), first);
  }
  if (splitter.junk_runs() > 0) {
    const int64_t first = static_cast<int64_t>(splitter.first_junk_offset());
    diagnostics.Add(
        "malformed_json", Severity::kError,
        fmt::format("malformed JSON at byte {} of the decompressed stream: {} byte(s) between "
                    "events in {} place(s) are no JSON value, skipped; reading went on",
                    first, splitter.junk_bytes(), splitter.junk_runs()),
        splitter.junk_runs(), first);
  }
  if (splitter.damage_count() > 0) {
    const int64_t first = static_cast<int64_t>(splitter.first_damaged_event_offset());
    diagnostics.Add(
        "damaged_json", Severity::kError,
        fmt::format("malformed event at byte {} of the decompressed stream; {} event{} skipped "
                    "(first: {} at byte {}); {}",
                    first, splitter.events_lost(), splitter.events_lost() == 1 ? "" : "s",
                    splitter.first_damage_what(), splitter.first_damage_offset(),
                    splitter.resumed_offset() >= 0
                        ? fmt::format("reading resumed at byte {}", splitter.resumed_offset())
                        : std::string("no event after it could be found")),
        splitter.events_lost(), first);
  }
}

}  // namespace tracelint::kineto
