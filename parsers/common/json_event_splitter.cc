#include "parsers/common/json_event_splitter.h"

#include <algorithm>
#include <cstring>

#include "fmt/format.h"
#include "parsers/common/json_scan.h"

namespace tracelint {
namespace {

using json_scan::FindStringEnd;
using json_scan::IsJsonSpace;

void AppendPadding(PaddedJson& j) {
  j.json_size = j.bytes.size();
  j.bytes.append(kJsonPadding, '\0');
}

}  // namespace

uint64_t JsonPart::StreamOffsetOf(size_t local_offset) const {
  auto it = std::upper_bound(local_offsets.begin(), local_offsets.end(),
                             static_cast<uint32_t>(local_offset));
  if (it == local_offsets.begin()) return stream_offsets.empty() ? 0 : stream_offsets.front();
  size_t i = static_cast<size_t>(it - local_offsets.begin()) - 1;
  return stream_offsets[i] + (local_offset - local_offsets[i]);
}

JsonEventSplitter::JsonEventSplitter(size_t split_bytes, size_t max_document_bytes)
    : split_bytes_(std::max<size_t>(split_bytes, 1)),
      // Part offsets are 32-bit; documents stay below 4 GiB.
      max_document_bytes_(std::clamp<size_t>(max_document_bytes, 64, 0xF0000000u)) {}

void JsonEventSplitter::StartPart() {
  part_ = JsonPart();
  if (!spare_buffers_.empty()) {
    part_.text.bytes = std::move(spare_buffers_.back());
    spare_buffers_.pop_back();
    part_.text.bytes.clear();
  }
  // A part closes once it reaches split_bytes_; reserving that (plus room
  // for the last event and the padding) saves the copies of growing by
  // doubling. Capped so that a huge split size (no splitting) does not
  // reserve a huge block for a small input.
  size_t expected = std::min({split_bytes_, max_document_bytes_, size_t{64} << 20});
  part_.text.bytes.reserve(expected + expected / 8 + 2 + kJsonPadding);
  part_.text.bytes.push_back('[');
}

void JsonEventSplitter::ClosePart() {
  if (part_.event_count() == 0) return;
  part_.text.bytes.push_back(']');
  AppendPadding(part_.text);
  part_.index = next_part_index_++;
  ready_.push_back(std::move(part_));
  StartPart();
}

void JsonEventSplitter::EndEvent() {
  ++events_seen_;
  std::string& bytes = part_.text.bytes;
  if (bytes.size() + 1 > max_document_bytes_ && part_.event_count() > 1) {
    // This event would push the part over the document limit: it starts
    // the next part instead.
    std::string last = bytes.substr(event_start_local_);
    uint64_t last_offset = part_.stream_offsets.back();
    part_.local_offsets.pop_back();
    part_.stream_offsets.pop_back();
    bytes.resize(event_start_local_ - 1);  // and its leading comma
    ClosePart();
    part_.local_offsets.push_back(static_cast<uint32_t>(part_.text.bytes.size()));
    part_.stream_offsets.push_back(last_offset);
    part_.text.bytes += last;
  }
  if (part_.text.bytes.size() >= split_bytes_) ClosePart();
}

absl::Status JsonEventSplitter::Feed(std::string_view input) {
  const char* begin = input.data();
  const char* end = begin + input.size();
  const char* p = begin;
  auto at = [&](const char* q) { return offset_ + static_cast<uint64_t>(q - begin); };
  auto unexpected = [&](const char* q, std::string_view expected) {
    uint64_t where = at(q);
    auto byte = static_cast<unsigned char>(*q);
    std::string found =
        byte >= 0x20 && byte < 0x7f ? std::string(1, *q) : fmt::format("\\x{:02x}", byte);
    offset_ = where;  // nothing from the offending byte on is read
    return absl::InvalidArgumentError(
        fmt::format("expected {} at byte {}, found '{}'", expected, where, found));
  };
  while (p < end) {
    char c = *p;
    switch (state_) {
      case State::kStart:
        if (IsJsonSpace(c)) {
          ++p;
        } else if (at(p) < 3 && static_cast<unsigned char>(c) >= 0xbb &&
                   static_cast<unsigned char>(c) <= 0xef) {
          ++p;  // UTF-8 byte order mark
        } else if (c == '{') {
          state_ = State::kTopKeyOrEnd;
          ++p;
        } else if (c == '[') {
          bare_array_ = true;
          events_started_ = true;
          StartPart();
          state_ = State::kEventsElemStart;
          ++p;
        } else {
          return unexpected(p, "a JSON object or array");
        }
        break;
      case State::kTopKeyOrEnd:
        if (IsJsonSpace(c) || c == ',') {
          ++p;
        } else if (c == '{' && events_array_closed_) {
          ResumeEventsAfterStrayBracket();  // "], {": re-examines c
        } else if (c == '"') {
          events_array_closed_ = false;
          key_.clear();
          key_backslash_carry_ = false;
          state_ = State::kTopKey;
          ++p;
        } else if (c == '}') {
          state_ = State::kEnd;
          ++p;
        } else {
          return unexpected(p, "a key");
        }
        break;
      case State::kTopKey: {
        const char* q = FindStringEnd<false>(p, end, &key_backslash_carry_);
        key_.append(p, q);
        if (key_.size() > kMaxTopLevelKeyBytes) {
          return unexpected(p, "a top-level key of at most 1 MiB");
        }
        p = q;
        if (q < end) {
          state_ = State::kTopColon;
          ++p;
        }
        break;
      }
      case State::kTopColon:
        if (IsJsonSpace(c)) {
          ++p;
        } else if (c == ':') {
          state_ = State::kTopValueStart;
          ++p;
        } else {
          return unexpected(p, "':'");
        }
        break;
      case State::kTopValueStart:
        if (IsJsonSpace(c)) {
          ++p;
        } else if (key_ == "traceEvents" && c == '[') {
          if (!events_started_) StartPart();
          events_started_ = true;
          state_ = State::kEventsElemStart;
          ++p;
        } else if (key_ == "traceEvents") {
          return unexpected(p, "an array as the value of traceEvents");
        } else {
          // Built in place as the object TakeMeta hands out ('{' first), so
          // handing it out copies nothing.
          meta_member_start_ = meta_.size();
          meta_.push_back(meta_.empty() ? '{' : ',');
          meta_.push_back('"');
          meta_ += key_;
          meta_ += "\":";
          value_ = ValueScan();
          skipping_meta_value_ = false;
          meta_value_start_offset_ = at(p);
          state_ = State::kTopValue;
        }
        break;
      case State::kTopValue: {
        bool done = false;
        const char* q = ScanValue(value_, p, end, &done);
        // Checked before appending, so the buffer never grows past the cap.
        if (!skipping_meta_value_ &&
            meta_.size() - meta_member_start_ + static_cast<size_t>(q - p) > kMaxMetaValueBytes) {
          // Metadata is kilobytes; a value this large is dropped as it
          // comes, so it costs this much once, not the document limit
          // several times over (held, copied, parsed).
          meta_.resize(meta_member_start_);
          meta_.shrink_to_fit();
          skipping_meta_value_ = true;
          if (meta_values_over_limit_++ == 0) {
            first_meta_over_limit_offset_ = meta_value_start_offset_;
            first_meta_over_limit_key_ = key_.substr(0, 200);
          }
        }
        if (!skipping_meta_value_) meta_.append(p, q);
        if (meta_.size() > max_document_bytes_) {
          offset_ = at(q);
          return absl::ResourceExhaustedError(fmt::format(
              "top-level value of \"{}\" ending at byte {} is larger than the {} byte "
              "document limit",
              key_, at(q), max_document_bytes_));
        }
        p = q;
        if (done) state_ = State::kTopAfterValue;
        break;
      }
      case State::kTopAfterValue:
        if (IsJsonSpace(c)) {
          ++p;
        } else if (c == '{' && events_array_closed_) {
          ResumeEventsAfterStrayBracket();  // re-examines c
        } else if (c == ',') {
          state_ = State::kTopKeyOrEnd;
          ++p;
        } else if (c == '}') {
          state_ = State::kEnd;
          events_array_closed_ = false;
          ++p;
        } else {
          return unexpected(p, "',' or '}'");
        }
        break;
      case State::kEventsElemStart:
        if (fast_scan_enabled_ && end - p >= 128) {
          const char* q = ScanEventsFast(p, end, begin);
          if (q != p || state_ != State::kEventsElemStart) {
            p = q;
            break;
          }
        }
        if (IsJsonSpace(c) || c == ',') {
          if (c == ',') last_element_was_string_ = false;
          in_junk_ = false;
          // An event's indentation, when it starts its line, tells the next
          // event's start from a nested object's (damage, in ScanValue).
          if (c == '\n') {
            elem_col_ = 0;
          } else if (elem_col_ >= 0 && (c == ' ' || c == '\t')) {
            ++elem_col_;
          } else {
            elem_col_ = -1;
          }
          ++p;
        } else if (c == ']') {
          state_ = bare_array_ ? State::kEnd : State::kTopAfterValue;
          events_array_closed_ = true;
          events_array_close_offset_ = at(p);
          ++p;
        } else if (c == '{' && limits_.max_events > 0 && events_seen_ >= limits_.max_events) {
          offset_ = at(p);  // the next event is not read
          state_ = State::kStopped;
          return absl::OkStatus();
        } else if (!CanStartJsonValue(c)) {
          // No element starts so: junk between events, skipped byte by
          // byte -- unless it follows a string element, whose quotes are
          // then wrong (the events after it are inside out): resynchronise
          // as after damage in an event.
          if (last_element_was_string_) {
            if (damage_count_++ == 0) {
              // The damaged event starts where the run of odd elements
              // after the last whole event does (a '{' flipped to junk).
              first_damaged_event_offset_ = gap_first_offset_;
              first_damage_offset_ = at(p);
              first_damage_what_ = kQuoteOutOfPlace;
            }
            ++events_lost_;
            last_element_was_string_ = false;
            resync_col_ = -1;
            // Events share one indentation: the last whole event's.
            resync_indent_ = last_event_indent_;
            resync_seq_ = 0;
            state_ = State::kResync;
            break;
          }
          if (!in_junk_) {
            if (junk_runs_++ == 0) first_junk_offset_ = at(p);
            in_junk_ = true;
          }
          if (gap_first_offset_ == UINT64_MAX) gap_first_offset_ = at(p);
          ++junk_bytes_;
          elem_col_ = -1;
          ++p;
        } else {
          in_junk_ = false;
          element_is_event_ = c == '{';
          last_element_was_string_ = c == '"';
          if (element_is_event_) {
            gap_first_offset_ = UINT64_MAX;
            last_event_indent_ = elem_col_;
          } else if (gap_first_offset_ == UINT64_MAX) {
            gap_first_offset_ = at(p);
          }
          dropping_over_limit_ = false;
          value_ = ValueScan();
          if (element_is_event_) {
            value_.lines = true;
            value_.indent = elem_col_;
            if (part_.event_count() > 0) part_.text.bytes.push_back(',');
            event_start_local_ = part_.text.bytes.size();
            string_scan_ = StringScan{event_start_local_};
            part_.local_offsets.push_back(static_cast<uint32_t>(event_start_local_));
            part_.stream_offsets.push_back(at(p));
          }
          elem_col_ = -1;
          state_ = State::kEventsElem;
        }
        break;
      case State::kEventsElem: {
        bool done = false;
        scan_start_ = p;
        const char* q = ScanValue(value_, p, end, &done);
        if (element_is_event_) {
          part_.text.bytes.append(p, q);
          if (part_.text.bytes.size() - event_start_local_ > max_document_bytes_) {
            offset_ = at(q);
            return absl::ResourceExhaustedError(fmt::format(
                "event starting at byte {} is larger than the {} byte document limit",
                part_.stream_offsets.back(), max_document_bytes_));
          }
        }
        p = q;
        if (value_.damage != nullptr) {
          // Drop the damaged event and look for the next one from the line
          // where the damage showed.
          if (damage_count_++ == 0) {
            first_damaged_event_offset_ = part_.stream_offsets.back();
            first_damage_offset_ = at(q);
            first_damage_what_ = value_.damage_what;
          }
          DropOpenEvent();
          ++events_lost_;
          if (value_.resume_at_damage) {
            // The damage is the next event's '{': read on from it.
            if (resumed_offset_ < 0) resumed_offset_ = static_cast<int64_t>(at(q));
            elem_col_ = -1;
            state_ = State::kEventsElemStart;
            break;
          }
          resync_col_ = -1;
          resync_indent_ = value_.indent;
          resync_seq_ = 0;
          state_ = State::kResync;
          break;
        }
        if (element_is_event_) CheckEventLimits(part_.text.bytes.size() - event_start_local_);
        if (done) {
          if (element_is_event_) {
            EndEvent();
          } else if (!dropping_over_limit_) {
            ++skipped_elements_;
          }
          state_ = State::kEventsElemStart;
        }
        break;
      }
      case State::kResync:
        // Skips to a line starting the next event (a '{' at the damaged
        // event's indentation, any when it had none) or the array's ']';
        // where the damaged event did not start its line, also to a '{'
        // after "}," (the string state is unknown here: a match inside a
        // string starts an "event" whose own damage resynchronises again).
        if (c == '\n') {
          resync_col_ = 0;
          ++p;
        } else if (resync_col_ >= 0 && (c == ' ' || c == '\t')) {
          ++resync_col_;
          ++p;
        } else if ((resync_col_ >= 0 &&
                    ((c == '{' && (resync_indent_ < 0 || resync_col_ == resync_indent_)) ||
                     (c == ']' && resync_indent_ >= 0 && resync_col_ < resync_indent_))) ||
                   (c == '{' && resync_seq_ == 2)) {
          elem_col_ = resync_col_;
          if (resumed_offset_ < 0) resumed_offset_ = static_cast<int64_t>(at(p));
          state_ = State::kEventsElemStart;  // re-examines c
        } else if (resync_indent_ < 0) {
          resync_col_ = -1;
          if (c == '}') {
            resync_seq_ = 1;
          } else if (c == ',' && resync_seq_ >= 1) {
            resync_seq_ = 2;
          } else if (!IsJsonSpace(c)) {
            resync_seq_ = 0;
          }
          ++p;
          if (resync_seq_ == 0) {
            while (p < end && *p != '}' && *p != '\n') ++p;
          }
        } else {
          resync_col_ = -1;
          const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
          p = nl != nullptr ? static_cast<const char*>(nl) : end;
        }
        break;
      case State::kEnd:
        if (c == '{' && bare_array_ && events_array_closed_) {
          ResumeEventsAfterStrayBracket();  // re-examines c
          break;
        }
        if (!IsJsonSpace(c)) {
          ++trailing_bytes_;
          events_array_closed_ = false;
        }
        ++p;
        break;
      case State::kStopped:
        return absl::OkStatus();
    }
  }
  if (state_ == State::kResync) {
    // The input's last byte that is not a space, for Finish.
    for (const char* q = end; q > begin;) {
      --q;
      if (!IsJsonSpace(*q)) {
        last_byte_ = *q;
        break;
      }
    }
  }
  offset_ += input.size();
  return absl::OkStatus();
}

void JsonEventSplitter::Finish() {
  // Damage in the last event leaves the scan resynchronising when the input
  // ends; an input that ends as a whole trace does (with '}', or ']' for a
  // bare array) was damaged, not cut short. (A cut that happens to end on
  // such a byte is then reported as the damage alone.)
  const bool ends_whole = state_ == State::kResync && last_byte_ == (bare_array_ ? ']' : '}');
  if (state_ != State::kEnd && state_ != State::kStart && state_ != State::kStopped &&
      !ends_whole) {
    truncated_ = true;
  }
  if (state_ == State::kEventsElem && element_is_event_) DropOpenEvent();
  if (state_ == State::kTopValue) meta_.resize(meta_member_start_);
  if (events_started_) ClosePart();
  finished_ = true;
  part_ = JsonPart();
  std::vector<std::string>().swap(spare_buffers_);
}

void JsonEventSplitter::ResumeEventsAfterStrayBracket() {
  // A ']' followed by an event's '{' closed no array: a damaged separator.
  if (junk_runs_++ == 0) first_junk_offset_ = events_array_close_offset_;
  ++junk_bytes_;
  events_array_closed_ = false;
  in_junk_ = false;
  elem_col_ = -1;
  state_ = State::kEventsElemStart;
}

void JsonEventSplitter::DropOpenEvent() {
  // The event and its separating comma.
  part_.local_offsets.pop_back();
  part_.stream_offsets.pop_back();
  part_.text.bytes.resize(part_.event_count() > 0 ? event_start_local_ - 1
                                                  : event_start_local_);
}

void JsonEventSplitter::RecycleBuffer(std::string bytes) {
  // More spares than parts in flight would only hold memory.
  constexpr size_t kMaxSpareBuffers = 16;
  if (finished_ || spare_buffers_.size() >= kMaxSpareBuffers) return;
  spare_buffers_.push_back(std::move(bytes));
}

std::vector<JsonPart> JsonEventSplitter::TakeParts() {
  std::vector<JsonPart> out;
  out.swap(ready_);
  return out;
}

PaddedJson JsonEventSplitter::TakeMeta() {
  PaddedJson j;
  if (meta_.empty()) return j;
  meta_.push_back('}');
  j.bytes = std::move(meta_);
  meta_ = std::string();
  AppendPadding(j);
  return j;
}

}  // namespace tracelint
