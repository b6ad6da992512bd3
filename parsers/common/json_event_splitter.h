#ifndef TRACELINT_PARSERS_COMMON_JSON_EVENT_SPLITTER_H_
#define TRACELINT_PARSERS_COMMON_JSON_EVENT_SPLITTER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace tracelint {

// Bytes a JSON parser may read past the end of a document (simdjson's
// SIMDJSON_PADDING, restated so this header needs no simdjson).
inline constexpr size_t kJsonPadding = 64;

// A JSON text followed by kJsonPadding zero bytes.
struct PaddedJson {
  std::string bytes;   // json_size bytes of JSON, then the padding
  size_t json_size = 0;
  std::string_view json() const { return {bytes.data(), json_size}; }
};

// A run of complete trace events, as the JSON array text "[ev,ev,...]".
struct JsonPart {
  int index = 0;  // position among the parts, in input order
  PaddedJson text;
  // For each event: its offset in `text` and in the decompressed input,
  // so parse errors can name the input byte.
  std::vector<uint32_t> local_offsets;
  std::vector<uint64_t> stream_offsets;
  size_t event_count() const { return local_offsets.size(); }
  // Input byte of a position inside `text`.
  uint64_t StreamOffsetOf(size_t local_offset) const;
};

// One forward scan over a (decompressed) Chrome trace that cuts the
// traceEvents array (or a bare top-level array) at event boundaries into
// parts of about `split_bytes`, and collects every other top-level member as
// a small JSON object. It tracks only strings and bracket depth, so it runs
// much faster than a full parse and lets the parts be parsed in parallel
// while decompression continues. Input is fed in arbitrary chunks.
class JsonEventSplitter {
 public:
  // Per-file caps (ParseLimits); 0 = none.
  struct Limits {
    // Events read; the scan stops before the next one (stopped_at_event_limit()).
    int64_t max_events = 0;
    // An event holding a longer string, or nested deeper, is dropped and
    // counted (events_over_string_limit(), events_over_depth_limit()); its
    // text is not kept, so it costs no memory past the limit.
    uint64_t max_string_bytes = 0;
    int64_t max_nesting_depth = 0;
  };

  // What a string followed by a byte that cannot follow one is reported as.
  static constexpr const char* kQuoteOutOfPlace =
      "a quote out of place (a string followed by a byte that cannot follow one)";
  // An object member cannot start with '{': a '{' after a comma directly
  // inside an object is the next event's, the open one having lost a
  // closing bracket. Reading resumes at that '{'.
  static constexpr const char* kNextEventInside =
      "the next event starting inside this one (a lost closing bracket)";
  // A ']' closing an object or a '}' closing an array: a bracket was lost or
  // changed. The event is dropped and the scan resynchronises from there.
  static constexpr const char* kBracketOutOfPlace =
      "a closing bracket of the wrong kind (']' for an object or '}' for an array)";

  // Top-level keys longer than this stop the scan (an error); top-level
  // values (metadata) larger than this are dropped as they come and counted
  // (meta_values_over_limit()).
  static constexpr size_t kMaxTopLevelKeyBytes = size_t{1} << 20;
  static constexpr size_t kMaxMetaValueBytes = size_t{64} << 20;

  JsonEventSplitter(size_t split_bytes, size_t max_document_bytes);
  // Tests: off makes every byte go through the byte-wise path, which the
  // fast path must agree with.
  static void set_fast_scan(bool on) { fast_scan_enabled_ = on; }
  void set_limits(const Limits& limits) { limits_ = limits; }

  // Scans the next bytes. Fails when the input is not a JSON object or array
  // at the top level (INVALID_ARGUMENT: malformed JSON), or one event or
  // top-level value exceeds max_document_bytes (RESOURCE_EXHAUSTED); the
  // error names the offending byte, and bytes_seen() then stops there.
  //
  // Damage inside the event array is skipped: an event holding a raw newline
  // inside a string or a string followed by a byte that cannot follow one (a
  // lost or extra quote), or left open where a line opens the next event at
  // its indentation (a lost bracket), is dropped, and the scan resumes at the
  // next line that starts an event at that indentation or, where events do
  // not start lines (a trace on one line), at the next '{' after "}," (spaces
  // allowed between them). damage_count() and
  // events_lost() count them; the first is located by first_damage_offset().
  absl::Status Feed(std::string_view bytes);
  // The input ended: closes the last part. An unfinished top-level value
  // sets truncated() and drops the incomplete event.
  void Finish();

  // Completed parts since the last call, in input order.
  std::vector<JsonPart> TakeParts();
  // Hands back the text buffer of a part that has been parsed. Later parts
  // reuse it instead of a fresh allocation, whose first touch of every page
  // (a page fault each) would otherwise cost the scanning thread. Buffers
  // given after Finish() are dropped.
  void RecycleBuffer(std::string bytes);
  // Top-level members other than the event array seen since the last call,
  // as one JSON object; json_size == 0 when there were none.
  PaddedJson TakeMeta();

  bool events_started() const { return events_started_; }
  bool bare_array() const { return bare_array_; }
  bool saw_top_level() const { return state_ != State::kStart; }
  bool truncated() const { return truncated_; }
  uint64_t bytes_seen() const { return offset_; }
  int64_t events_seen() const { return events_seen_; }
  int64_t skipped_elements() const { return skipped_elements_; }
  int64_t trailing_bytes() const { return trailing_bytes_; }
  int64_t damage_count() const { return damage_count_; }
  // Bytes between events that start no JSON value (or a ']' followed by the
  // next event's '{'), skipped: how many runs of them, their bytes, and
  // where the first run starts.
  int64_t meta_values_over_limit() const { return meta_values_over_limit_; }
  uint64_t first_meta_over_limit_offset() const { return first_meta_over_limit_offset_; }
  const std::string& first_meta_over_limit_key() const { return first_meta_over_limit_key_; }
  int64_t junk_runs() const { return junk_runs_; }
  int64_t junk_bytes() const { return junk_bytes_; }
  uint64_t first_junk_offset() const { return first_junk_offset_; }
  int64_t events_lost() const { return events_lost_; }
  // Where the first damaged event starts, and where its damage showed.
  uint64_t first_damaged_event_offset() const { return first_damaged_event_offset_; }
  uint64_t first_damage_offset() const { return first_damage_offset_; }
  const char* first_damage_what() const { return first_damage_what_; }
  // Where the scan resumed after the first damage; -1 when it never did.
  int64_t resumed_offset() const { return resumed_offset_; }
  // Limits (set_limits): whether the scan stopped at max_events (then
  // bytes_seen() is where the next event starts), and the events dropped for
  // a string or a nesting over the limit, with the first one's offset.
  bool stopped_at_event_limit() const { return state_ == State::kStopped; }
  int64_t events_over_string_limit() const { return over_string_; }
  int64_t events_over_depth_limit() const { return over_depth_; }
  uint64_t first_over_string_offset() const { return first_over_string_offset_; }
  uint64_t first_over_depth_offset() const { return first_over_depth_offset_; }

 private:
  enum class State : uint8_t {
    kStart,
    kTopKeyOrEnd,
    kTopKey,
    kTopColon,
    kTopValueStart,
    kTopValue,
    kTopAfterValue,
    kEventsElemStart,
    kEventsElem,
    kResync,  // after damage in an event: looking for the next event's line
    kEnd,
    kStopped,  // at Limits::max_events: nothing more is read
  };
  // Generic value scan shared by top-level members and events.
  struct ValueScan {
    int64_t depth = 0;  // int would overflow past 2^31 nested brackets
    int64_t peak_depth = 0;
    bool in_string = false;
    bool scalar = false;
    bool backslash_carry = false;
    bool lines = false;   // an event: check its line ends for damage
    int64_t indent = -1;  // the event's column when it starts its line
    bool after_string = false;  // a string just closed: check the next byte
    uint64_t arrays = 0;        // json_scan::MarkContainer
    bool resume_at_damage = false;  // the damage is the next event's '{'

    const char* damage = nullptr;  // where damage showed, if it did
    const char* damage_what = "";
  };

  // Advances through a value from p; returns the pointer just past the value
  // when it completed (set *done), else end.
  const char* ScanValue(ValueScan& v, const char* p, const char* end, bool* done);
  // Whether the last byte before `brace` that is not a space, in the event
  // being scanned (its text kept so far, then the bytes of this ScanValue
  // call from scan_start_), is a comma.
  bool CommaBefore(const char* brace) const;
  // From p, between two elements of the event array: reads whole events
  // from the 64-byte blocks of [p, end) (json_event_splitter_fast.cc) and
  // returns where the byte-wise path must go on. `begin` is where the
  // bytes fed start.
  const char* ScanEventsFast(const char* p, const char* end, const char* begin);
  void StartPart();
  void ClosePart();
  void EndEvent();
  void DropOpenEvent();  // the event being scanned, and its comma
  void ResumeEventsAfterStrayBracket();
  static bool CanStartJsonValue(char c) {
    return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
           c == 'f' || c == 'n';
  }
  // Checks the open event against limits_; drops it when over one.
  void CheckEventLimits(size_t event_bytes);
  // Whether the open event's text, scanned on from string_scan_.pos, holds
  // a string longer than limits_.max_string_bytes.
  bool HasOverlongString();

  static bool fast_scan_enabled_;
  const char* scan_start_ = nullptr;  // where the current ScanValue call began
  size_t split_bytes_;
  size_t max_document_bytes_;
  State state_ = State::kStart;
  bool bare_array_ = false;
  bool events_started_ = false;
  bool truncated_ = false;
  uint64_t offset_ = 0;  // input offset of the next byte fed
  int64_t events_seen_ = 0;
  int64_t skipped_elements_ = 0;
  int64_t trailing_bytes_ = 0;
  int64_t damage_count_ = 0;
  int64_t events_lost_ = 0;
  uint64_t first_damaged_event_offset_ = 0;
  uint64_t first_damage_offset_ = 0;
  const char* first_damage_what_ = "";
  int64_t resumed_offset_ = -1;
  int64_t elem_col_ = -1;    // column in the event array's whitespace; -1: mid-line
  int64_t resync_col_ = -1;  // the same while resynchronising
  int64_t resync_indent_ = -1;
  // Single-line resynchronisation: 1 after '}', 2 after '}' and ',' (spaces
  // between them allowed); a '{' then starts the next event.
  int resync_seq_ = 0;
  // The last byte fed that is not a space, while resynchronising.
  char last_byte_ = 0;
  bool skipping_meta_value_ = false;
  uint64_t meta_value_start_offset_ = 0;
  int64_t meta_values_over_limit_ = 0;
  uint64_t first_meta_over_limit_offset_ = 0;
  std::string first_meta_over_limit_key_;
  int64_t junk_runs_ = 0;
  int64_t junk_bytes_ = 0;
  uint64_t first_junk_offset_ = 0;
  bool in_junk_ = false;
  // The last element of the event array, for junk after a string element.
  bool last_element_was_string_ = false;
  // The first junk byte or element that is no event since the last event
  // started, and the column the last event started at (-1: mid-line).
  uint64_t gap_first_offset_ = UINT64_MAX;
  int64_t last_event_indent_ = -1;
  // The event array's ']' was the last byte that was not a space.
  bool events_array_closed_ = false;
  uint64_t events_array_close_offset_ = 0;

  std::string key_;
  bool key_backslash_carry_ = false;
  ValueScan value_;
  bool element_is_event_ = false;
  bool dropping_over_limit_ = false;  // the element was an event over a limit
  Limits limits_;
  struct StringScan {
    size_t pos = 0;  // in part_.text.bytes
    bool in_string = false;
    bool escape = false;
    uint64_t length = 0;
  } string_scan_;
  int64_t over_string_ = 0;
  int64_t over_depth_ = 0;
  uint64_t first_over_string_offset_ = 0;
  uint64_t first_over_depth_offset_ = 0;
  size_t event_start_local_ = 0;  // where the current event begins in part_

  JsonPart part_;
  int next_part_index_ = 0;
  std::vector<JsonPart> ready_;
  std::vector<std::string> spare_buffers_;  // from RecycleBuffer()
  bool finished_ = false;
  std::string meta_;  // members "k":v joined by ','
  size_t meta_member_start_ = 0;
};

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_COMMON_JSON_EVENT_SPLITTER_H_
