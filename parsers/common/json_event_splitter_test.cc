#include "parsers/common/json_event_splitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

struct Split {
  absl::Status status;
  std::vector<std::string> parts;  // JSON text of each part
  std::vector<std::vector<uint64_t>> offsets;
  std::string meta;
  bool truncated = false;
  int64_t events = 0;
};

Split SplitAll(std::string_view input, size_t chunk, size_t split_bytes,
          size_t max_document = size_t{1} << 30) {
  Split out;
  JsonEventSplitter s(split_bytes, max_document);
  for (size_t i = 0; i < input.size() && out.status.ok(); i += chunk) {
    out.status = s.Feed(input.substr(i, chunk));
  }
  s.Finish();
  for (JsonPart& p : s.TakeParts()) {
    out.parts.emplace_back(p.text.json());
    out.offsets.push_back(p.stream_offsets);
    EXPECT_EQ(p.text.bytes.size(), p.text.json_size + kJsonPadding);
  }
  out.meta = std::string(s.TakeMeta().json());
  out.truncated = s.truncated();
  out.events = s.events_seen();
  return out;
}

constexpr std::string_view kTrace =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"A}[\\\"\"}],\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"name\": \"a \\\"}]{\", \"ts\": 1},\n"
    "  {\"ph\": \"X\", \"name\": \"b\\\\\", \"args\": {\"x\": [1, {\"y\": 2}]}},\n"
    "  {\"ph\": \"i\", \"name\": \"c\"}\n"
    " ],\n"
    " \"traceName\": \"t.json\"}\n";

TEST(JsonEventSplitter, EventsAndMetaAnyChunking) {
  Split whole = SplitAll(kTrace, kTrace.size(), 1 << 20);
  ASSERT_TRUE(whole.status.ok()) << whole.status;
  ASSERT_EQ(whole.parts.size(), 1u);
  EXPECT_EQ(whole.parts[0],
            "[{\"ph\": \"X\", \"name\": \"a \\\"}]{\", \"ts\": 1},"
            "{\"ph\": \"X\", \"name\": \"b\\\\\", \"args\": {\"x\": [1, {\"y\": 2}]}},"
            "{\"ph\": \"i\", \"name\": \"c\"}]");
  EXPECT_EQ(whole.meta,
            "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\": 0, \"name\": \"A}[\\\"\"}],"
            "\"traceName\":\"t.json\"}");
  EXPECT_EQ(whole.events, 3);
  EXPECT_FALSE(whole.truncated);
  EXPECT_EQ(whole.offsets[0][0], kTrace.find("{\"ph\""));
  for (size_t chunk : {1, 2, 3, 5, 17}) {
    Split s = SplitAll(kTrace, chunk, 1 << 20);
    EXPECT_EQ(s.parts, whole.parts) << chunk;
    EXPECT_EQ(s.meta, whole.meta) << chunk;
    EXPECT_EQ(s.offsets, whole.offsets) << chunk;
  }
}

// Long enough for the 64-byte block path; strings hold brackets, some
// events hold backslashes (byte-wise path), and quotes straddle blocks.
TEST(JsonEventSplitter, BlockPathAgreesWithByteWisePath) {
  std::string trace = "{\"traceEvents\": [";
  for (int i = 0; i < 300; ++i) {
    if (i > 0) trace += ",\n";
    trace += "{\"name\": \"" + std::string(i % 37, 'a') + (i % 5 == 0 ? "}]{[" : "") +
             (i % 11 == 0 ? "\\\"\\\\" : "") + "\", \"args\": {\"x\": [" +
             std::to_string(i) + ", {\"y\": \"]\"}]}}";
  }
  trace += "], \"traceName\": \"}\"}";
  Split bytewise = SplitAll(trace, 1, 1 << 20);
  ASSERT_TRUE(bytewise.status.ok()) << bytewise.status;
  EXPECT_EQ(bytewise.events, 300);
  EXPECT_FALSE(bytewise.truncated);
  for (size_t chunk : {63, 64, 100, 4096, 1 << 20}) {
    Split s = SplitAll(trace, chunk, 1 << 20);
    EXPECT_EQ(s.parts, bytewise.parts) << chunk;
    EXPECT_EQ(s.offsets, bytewise.offsets) << chunk;
    EXPECT_EQ(s.meta, bytewise.meta) << chunk;
  }
}

TEST(JsonEventSplitter, SplitsAtEventBoundaries) {
  Split s = SplitAll(kTrace, 4, 1);
  ASSERT_TRUE(s.status.ok());
  ASSERT_EQ(s.parts.size(), 3u);
  EXPECT_EQ(s.parts[2], "[{\"ph\": \"i\", \"name\": \"c\"}]");
}

TEST(JsonEventSplitter, DocumentLimitMovesEventToNextPart) {
  // Two events fit the split size but not the document limit.
  std::string trace = "[{\"a\": \"" + std::string(100, 'x') + "\"}, {\"b\": \"" +
                      std::string(100, 'y') + "\"}]";
  Split s = SplitAll(trace, 9, 1 << 20, 150);
  ASSERT_TRUE(s.status.ok()) << s.status;
  ASSERT_EQ(s.parts.size(), 2u);
  EXPECT_EQ(s.parts[1].substr(0, 7), "[{\"b\": ");
  Split too_big = SplitAll(trace, 9, 1 << 20, 64);
  EXPECT_TRUE(absl::IsResourceExhausted(too_big.status));
}

TEST(JsonEventSplitter, BareArray) {
  Split s = SplitAll("  [{\"ph\":\"X\"} , {\"ph\":\"B\"}, 7, {\"ph\":\"E\"}]", 3, 1 << 20);
  ASSERT_TRUE(s.status.ok());
  ASSERT_EQ(s.parts.size(), 1u);
  EXPECT_EQ(s.parts[0], "[{\"ph\":\"X\"},{\"ph\":\"B\"},{\"ph\":\"E\"}]");
  EXPECT_EQ(s.meta, "");
}

TEST(JsonEventSplitter, TruncatedInsideAnEventKeepsCompleteOnes) {
  std::string_view cut = kTrace.substr(0, kTrace.find("{\"ph\": \"i\"") + 5);
  Split s = SplitAll(cut, 6, 1 << 20);
  ASSERT_TRUE(s.status.ok());
  EXPECT_TRUE(s.truncated);
  ASSERT_EQ(s.parts.size(), 1u);
  EXPECT_EQ(s.events, 2);
  EXPECT_EQ(s.parts[0].back(), ']');
  EXPECT_EQ(s.parts[0].find("\"c\""), std::string::npos);
}

TEST(JsonEventSplitter, NotJsonIsAnErrorWithOffset) {
  Split s = SplitAll("  hello", 100, 1 << 20);
  EXPECT_TRUE(absl::IsInvalidArgument(s.status));
  EXPECT_NE(s.status.message().find("byte 2"), std::string::npos) << s.status;
}

TEST(JsonEventSplitter, TraceEventsMustBeAnArray) {
  Split s = SplitAll("{\"traceEvents\": {}}", 100, 1 << 20);
  EXPECT_TRUE(absl::IsInvalidArgument(s.status));
}

// Buffers handed back by RecycleBuffer() (dirty, larger or smaller than a
// part) are reused without changing any part's text or padding.
TEST(JsonEventSplitter, RecycledBuffersGiveTheSameParts) {
  Split plain = SplitAll(kTrace, 7, 16);
  ASSERT_TRUE(plain.status.ok());
  ASSERT_GT(plain.parts.size(), 2u);
  JsonEventSplitter s(16, size_t{1} << 30);
  std::vector<std::string> parts;
  std::string_view input = kTrace;
  for (size_t i = 0; i < input.size(); i += 7) {
    s.RecycleBuffer(std::string(3, 'x'));
    s.RecycleBuffer(std::string(500, '}'));
    ASSERT_TRUE(s.Feed(input.substr(i, 7)).ok());
    for (JsonPart& p : s.TakeParts()) {
      parts.emplace_back(p.text.json());
      EXPECT_EQ(p.text.bytes.size(), p.text.json_size + kJsonPadding);
      EXPECT_EQ(p.text.bytes.substr(p.text.json_size), std::string(kJsonPadding, '\0'));
      s.RecycleBuffer(std::move(p.text.bytes));
    }
  }
  s.Finish();
  for (JsonPart& p : s.TakeParts()) parts.emplace_back(p.text.json());
  EXPECT_EQ(parts, plain.parts);
}

// Feeds `input` in chunks of `chunk` bytes (stopping at an error), then
// finishes the scan.
absl::Status FeedInChunks(JsonEventSplitter& s, std::string_view input, size_t chunk) {
  absl::Status status;
  for (size_t k = 0; k < input.size() && status.ok(); k += chunk) {
    status = s.Feed(input.substr(k, chunk));
  }
  s.Finish();
  return status;
}

// Kineto writes one event per line (or a few lines, args indented deeper).
std::string LinedTrace(int events, bool multi_line) {
  std::string t = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  for (int i = 0; i < events; ++i) {
    if (i > 0) t += ",\n";
    if (multi_line) {
      t += "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k" + std::to_string(i) +
           "\", \"pid\": 0, \"tid\": 7,\n    \"ts\": " + std::to_string(i * 10) +
           ", \"dur\": 5,\n    \"args\": {\n      \"stream\": 7, \"grid\": [1, 1, 1]\n    }\n  }";
    } else {
      t += "  {\"ph\": \"X\", \"name\": \"op" + std::to_string(i) + "\", \"ts\": " +
           std::to_string(i * 10) + ", \"args\": {\"x\": [1, {\"y\": \"z\"}]}}";
    }
  }
  t += "\n  ],\n  \"traceName\": \"t\"\n}\n";
  return t;
}

// One flipped byte in event 40 of 100 costs that event only, whichever
// byte it is and however the input is chunked: the splitter resumes at the
// next event's line and says where the damage is.
TEST(JsonEventSplitter, FlippedByteCostsOneEvent) {
  for (bool multi_line : {false, true}) {
    std::string trace = LinedTrace(100, multi_line);
    size_t event_start = trace.find(multi_line ? "\"k40\"" : "\"op40\"");
    event_start = trace.rfind('{', event_start);
    size_t event_end = trace.find(multi_line ? "\n  }" : "}}", event_start);
    size_t next_event = trace.find("\n  {", event_end);
    int checked = 0;
    for (size_t i = event_start; i < event_end; ++i) {
      for (char flip : {'"', '}', '{', '\\'}) {
        if (trace[i] == flip || trace[i] == '\n' || trace[i] == ' ') continue;
        std::string bad = trace;
        bad[i] = flip;
        for (size_t chunk : {size_t{7}, size_t{64}, bad.size()}) {
          JsonEventSplitter s(512, size_t{1} << 20);
          absl::Status status = FeedInChunks(s, bad, chunk);
          ASSERT_TRUE(status.ok()) << status << " flip " << flip << " at " << i;
          EXPECT_FALSE(s.truncated()) << "flip " << flip << " at " << i;
          int64_t kept = 0;
          for (JsonPart& p : s.TakeParts()) kept += static_cast<int64_t>(p.event_count());
          // A flip may also leave the event whole but invalid (the JSON
          // parser drops it) or split it in two elements; never more.
          EXPECT_GE(kept, 99) << "flip '" << flip << "' at " << i << " chunk " << chunk;
          EXPECT_LE(s.events_lost(), 1);
          if (s.damage_count() > 0) {
            // Where the broken element begins: the event, or the part of
            // it left after a flip closed it early ("{}ph": ... ).
            EXPECT_GE(s.first_damaged_event_offset(), event_start);
            EXPECT_LE(s.first_damaged_event_offset(), s.first_damage_offset());
            EXPECT_GE(s.first_damage_offset(), i);
            EXPECT_LE(s.first_damage_offset(), next_event);
          }
        }
        ++checked;
      }
    }
    EXPECT_GT(checked, 100);
  }
}

// A trace on one line (Kineto writes some so) has no line to resume at: a
// quote flipped to any other byte turns the strings after it inside out,
// which shows where a string is followed by a byte no string is followed by;
// the scan drops that event and resumes after the next "}," -- never losing
// the rest of the file as if it ended early.
TEST(JsonEventSplitter, OneLineTraceResumesAfterAFlippedQuote) {
  std::string trace = LinedTrace(100, false);
  std::replace(trace.begin(), trace.end(), '\n', ' ');
  const size_t event_start = trace.rfind('{', trace.find("\"op40\""));
  const size_t event_end = trace.find("}}", event_start) + 2;
  const size_t event_42 = trace.rfind('{', trace.find("\"op42\""));
  int checked = 0;
  for (size_t i = event_start; i < event_end; ++i) {
    if (trace[i] != '"') continue;
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = trace;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      for (size_t chunk : {size_t{7}, size_t{64}, bad.size()}) {
        JsonEventSplitter s(512, size_t{1} << 20);
        absl::Status status = FeedInChunks(s, bad, chunk);
        const std::string where = fmt::format("quote at {} bit {} chunk {}", i, bit, chunk);
        ASSERT_TRUE(status.ok()) << status << " " << where;
        EXPECT_FALSE(s.truncated()) << where;
        int64_t kept = 0;
        for (JsonPart& p : s.TakeParts()) kept += static_cast<int64_t>(p.event_count());
        // The event's last quote pairs with the next event's first: both go.
        EXPECT_GE(kept, 98) << where;
        EXPECT_EQ(s.damage_count(), 1) << where;
        EXPECT_EQ(s.first_damaged_event_offset(), event_start) << where;
        EXPECT_STREQ(s.first_damage_what(), JsonEventSplitter::kQuoteOutOfPlace) << where;
        EXPECT_GT(s.resumed_offset(), static_cast<int64_t>(i)) << where;
        EXPECT_LE(s.resumed_offset(), static_cast<int64_t>(event_42)) << where;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 8 * 10);
}

// The last event of a one-line trace loses a closing bracket: no event
// follows to resume at, but the array's ']' then closes an object, which
// names the damage; the trace still ends whole, so it is not cut short.
TEST(JsonEventSplitter, LastEventsLostBracketIsDamageNotACut) {
  std::string trace = LinedTrace(100, false);
  std::replace(trace.begin(), trace.end(), '\n', ' ');
  const size_t event_start = trace.rfind('{', trace.find("\"op99\""));
  const size_t event_end = trace.find("}}", event_start) + 2;
  for (size_t lost : {event_end - 1, event_end - 2}) {
    for (size_t chunk : {size_t{7}, size_t{64}, trace.size()}) {
      std::string bad = trace;
      bad[lost] = ' ';
      JsonEventSplitter s(512, size_t{1} << 20);
      absl::Status status;
      for (size_t k = 0; k < bad.size() && status.ok(); k += chunk) {
        status = s.Feed(std::string_view(bad).substr(k, chunk));
      }
      s.Finish();
      const std::string where = fmt::format("lost {} chunk {}", lost, chunk);
      ASSERT_TRUE(status.ok()) << status << " " << where;
      EXPECT_FALSE(s.truncated()) << where;
      int64_t kept = 0;
      for (JsonPart& p : s.TakeParts()) kept += static_cast<int64_t>(p.event_count());
      EXPECT_EQ(kept, 99) << where;
      EXPECT_EQ(s.damage_count(), 1) << where;
      EXPECT_EQ(s.first_damaged_event_offset(), event_start) << where;
      EXPECT_STREQ(s.first_damage_what(), JsonEventSplitter::kBracketOutOfPlace) << where;
    }
  }
}

// A lost closing bracket on one line: the next event's '{' then follows a
// comma directly inside an object, which valid JSON never has; the open
// event is dropped and reading resumes at that '{' (no other event lost).
TEST(JsonEventSplitter, OneLineTraceLosesOnlyTheEventThatLostItsBracket) {
  std::string trace = LinedTrace(100, false);
  std::replace(trace.begin(), trace.end(), '\n', ' ');
  const size_t event_start = trace.rfind('{', trace.find("\"op40\""));
  const size_t event_end = trace.find("}}", event_start) + 2;
  const size_t next_event = trace.find('{', event_end);
  for (size_t lost : {event_end - 1, event_end - 2}) {
    for (char flip : {' ', 'x'}) {
      std::string bad = trace;
      bad[lost] = flip;
      for (size_t chunk : {size_t{7}, size_t{64}, bad.size()}) {
        JsonEventSplitter s(512, size_t{1} << 20);
        absl::Status status;
        for (size_t k = 0; k < bad.size() && status.ok(); k += chunk) {
          status = s.Feed(std::string_view(bad).substr(k, chunk));
        }
        s.Finish();
        const std::string where = fmt::format("'{}' at {} chunk {}", flip, lost, chunk);
        ASSERT_TRUE(status.ok()) << status << " " << where;
        EXPECT_FALSE(s.truncated()) << where;
        int64_t kept = 0;
        for (JsonPart& p : s.TakeParts()) kept += static_cast<int64_t>(p.event_count());
        EXPECT_EQ(s.first_damaged_event_offset(), event_start) << where;
        if (chunk < 64) {
          // The key after the brace may lie in the next chunk: undecided,
          // the scan resynchronises later instead (two more events).
          EXPECT_GE(kept, 97) << where;
          continue;
        }
        EXPECT_EQ(kept, 99) << where;
        EXPECT_EQ(s.damage_count(), 1) << where;
        EXPECT_STREQ(s.first_damage_what(), JsonEventSplitter::kNextEventInside) << where;
        EXPECT_EQ(s.resumed_offset(), static_cast<int64_t>(next_event)) << where;
      }
    }
  }
}

// Syntax errors name their own byte, not the start of the chunk holding it.
TEST(JsonEventSplitter, SyntaxErrorNamesItsByte) {
  std::string trace = LinedTrace(50, false);
  size_t bad = trace.rfind("\"traceName\"") - 1;
  trace[bad] = 'x';
  for (size_t chunk : {size_t{100}, size_t{4096}, trace.size()}) {
    JsonEventSplitter s(512, size_t{1} << 20);
    absl::Status status;
    for (size_t k = 0; k < trace.size() && status.ok(); k += chunk) {
      status = s.Feed(std::string_view(trace).substr(k, chunk));
    }
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("at byte " + std::to_string(bad)), std::string::npos)
        << status;
    EXPECT_EQ(s.bytes_seen(), bad);
  }
}

}  // namespace
}  // namespace tracelint

namespace tracelint {
namespace {

struct Outcome {
  std::vector<std::string> parts;
  std::vector<std::vector<uint64_t>> offsets;
  int64_t events = 0, lost = 0, damage = 0, skipped = 0;
  uint64_t first_damaged = 0, first_damage = 0, seen = 0;
  int64_t resumed = 0;
  bool truncated = false;
  bool ok = true;
  bool operator==(const Outcome&) const = default;
};

Outcome RunSplitter(std::string_view input, size_t chunk, bool fast) {
  JsonEventSplitter::set_fast_scan(fast);
  Outcome o;
  JsonEventSplitter s(700, size_t{1} << 20);
  absl::Status status;
  for (size_t k = 0; k < input.size() && status.ok(); k += chunk) {
    status = s.Feed(input.substr(k, chunk));
  }
  s.Finish();
  JsonEventSplitter::set_fast_scan(true);
  o.ok = status.ok();
  for (JsonPart& p : s.TakeParts()) {
    o.parts.emplace_back(p.text.json());
    o.offsets.push_back(p.stream_offsets);
  }
  o.events = s.events_seen();
  o.lost = s.events_lost();
  o.damage = s.damage_count();
  o.skipped = s.skipped_elements();
  o.first_damaged = s.first_damaged_event_offset();
  o.first_damage = s.first_damage_offset();
  o.resumed = s.resumed_offset();
  o.seen = s.bytes_seen();
  o.truncated = s.truncated();
  return o;
}

// A string that ends on the last byte of a 64-byte block and is followed by
// text a JSON value never has there is damage only inside an event: in any
// other element (skipped unread) it must not cost an event. Before the fix
// the block path flagged it in any element, dropped the last event before
// it and, with no event yet in the part, read past an empty offset list.
TEST(JsonEventSplitter, QuoteOutOfPlaceOutsideAnEventCostsNothing) {
  for (size_t pad = 0; pad < 70; ++pad) {
    const std::string odd = "[\"" + std::string(pad, 'a') + "\"x, 1]";
    for (bool event_before : {false, true}) {
      std::string trace = "{\"traceEvents\": [";
      if (event_before) trace += "{\"ph\": \"X\", \"name\": \"a\"}, ";
      trace += odd + ", {\"ph\": \"X\", \"name\": \"b\"}]}";
      for (size_t chunk : {size_t{7}, size_t{64}, trace.size()}) {
        for (bool fast : {false, true}) {
          Outcome o = RunSplitter(trace, chunk, fast);
          ASSERT_TRUE(o.ok) << trace;
          EXPECT_EQ(o.events, event_before ? 2 : 1) << trace << " chunk " << chunk;
          EXPECT_EQ(o.lost, 0) << trace << " chunk " << chunk;
          EXPECT_EQ(o.damage, 0) << trace << " chunk " << chunk;
          EXPECT_EQ(o.skipped, 1) << trace << " chunk " << chunk;
        }
      }
    }
  }
}

// The 64-byte fast path through the event array reads exactly what the
// byte-wise path reads: the same parts, offsets and damage accounting, on
// whole and damaged traces (one byte replaced by a quote, bracket,
// backslash or newline anywhere), single- and multi-line, in any chunking.
TEST(JsonEventSplitter, FastPathAgreesWithByteWisePathOnDamage) {
  for (int shape = 0; shape < 3; ++shape) {
    // One event per line, events over several lines, the whole array on
    // one line (json.dumps's ", " separators).
    std::string trace = LinedTrace(60, shape == 1);
    if (shape == 2) std::replace(trace.begin(), trace.end(), '\n', ' ');
    const bool multi_line = shape == 1;
    uint64_t seed = 12345;
    auto next = [&seed] {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      return seed >> 33;
    };
    for (int round = 0; round < 400; ++round) {
      std::string bad = trace;
      if (round > 0) {
        const char flips[] = {'"', '{', '}', '[', ']', '\\', '\n', ',', 'x'};
        bad[next() % bad.size()] = flips[next() % sizeof(flips)];
      }
      for (size_t chunk : {size_t{200}, size_t{4096}, bad.size()}) {
        Outcome slow = RunSplitter(bad, chunk, false);
        Outcome fast = RunSplitter(bad, chunk, true);
        ASSERT_TRUE(fast == slow) << "round " << round << " chunk " << chunk << " shape "
                                  << shape << " multi_line " << multi_line;
      }
    }
  }
}

}  // namespace
}  // namespace tracelint
