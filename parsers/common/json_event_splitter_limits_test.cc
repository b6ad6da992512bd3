// JsonEventSplitter::Limits: each fires on a small input and not just below.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/common/json_event_splitter.h"

namespace tracelint {
namespace {

struct Scan {
  int64_t events = 0;  // events handed out in parts
  bool stopped = false;
  bool truncated = false;
  int64_t over_string = 0;
  int64_t over_depth = 0;
  uint64_t first_over = 0;
  uint64_t bytes_seen = 0;
};

// Fed in `chunk` bytes at a time, or cut at `cuts` (ascending) when given.
Scan ScanWith(std::string_view input, const JsonEventSplitter::Limits& limits,
              size_t chunk = 5, std::vector<size_t> cuts = {}) {
  JsonEventSplitter s(64, size_t{1} << 30);
  s.set_limits(limits);
  Scan out;
  if (cuts.empty()) {
    for (size_t i = chunk; i < input.size(); i += chunk) cuts.push_back(i);
  }
  cuts.push_back(input.size());
  for (size_t i = 0, k = 0; i < input.size() && !s.stopped_at_event_limit(); i = cuts[k++]) {
    EXPECT_TRUE(s.Feed(input.substr(i, cuts[k] - i)).ok());
  }
  s.Finish();
  for (const JsonPart& p : s.TakeParts()) out.events += static_cast<int64_t>(p.event_count());
  out.stopped = s.stopped_at_event_limit();
  out.truncated = s.truncated();
  out.over_string = s.events_over_string_limit();
  out.over_depth = s.events_over_depth_limit();
  out.first_over = std::max(s.first_over_string_offset(), s.first_over_depth_offset());
  out.bytes_seen = s.bytes_seen();
  return out;
}

std::string Trace(int events, const std::string& special = "", int special_at = -1) {
  std::string t = "{\"traceEvents\": [\n";
  for (int i = 0; i < events; ++i) {
    if (i > 0) t += ",\n";
    t += i == special_at ? special
                         : "{\"ph\": \"X\", \"name\": \"op" + std::to_string(i) + "\", \"ts\": " +
                               std::to_string(i) + ", \"args\": {\"a\": [1, 2]}}";
  }
  return t + "\n]}\n";
}

TEST(JsonEventSplitterLimits, EventLimitStopsBeforeTheNextEvent) {
  std::string trace = Trace(10);
  for (size_t chunk : {size_t{1}, size_t{5}, trace.size()}) {
    Scan below = ScanWith(trace, {.max_events = 10}, chunk);
    EXPECT_EQ(below.events, 10);
    EXPECT_FALSE(below.stopped);
    EXPECT_FALSE(below.truncated);
    Scan at = ScanWith(trace, {.max_events = 9}, chunk);
    EXPECT_EQ(at.events, 9);
    EXPECT_TRUE(at.stopped);
    EXPECT_FALSE(at.truncated);  // a limit, not damage
    EXPECT_EQ(at.bytes_seen, trace.find("{\"ph\": \"X\", \"name\": \"op9\""));
  }
}

TEST(JsonEventSplitterLimits, OverlongStringDropsItsEventOnly) {
  std::string name(1000, 'n');
  name[500] = '\\';  // an escape counts as written: two bytes
  name[501] = '"';
  std::string event = "{\"ph\": \"X\", \"name\": \"" + name + "\", \"ts\": 1}";
  std::string trace = Trace(20, event, 7);
  for (size_t chunk : {size_t{3}, size_t{64}, trace.size()}) {
    Scan below = ScanWith(trace, {.max_string_bytes = 1000}, chunk);
    EXPECT_EQ(below.events, 20);
    EXPECT_EQ(below.over_string, 0);
    Scan at = ScanWith(trace, {.max_string_bytes = 999}, chunk);
    EXPECT_EQ(at.events, 19) << chunk;
    EXPECT_EQ(at.over_string, 1);
    EXPECT_EQ(at.first_over, trace.find(event));
    EXPECT_FALSE(at.truncated);
  }
}

TEST(JsonEventSplitterLimits, DeepNestingDropsItsEventOnly) {
  // The event's braces are level 1, "args" 2, then 8 arrays: depth 10.
  std::string event = "{\"ph\": \"X\", \"args\": {\"a\": [[[[[[[[1]]]]]]]]}, \"ts\": 2}";
  // And a block of 64 bytes or more, so the block-wise path counts too.
  std::string wide = "{\"ph\": \"X\", \"args\": {\"a\": [[[[[[[[\"" + std::string(80, 'x') +
                     "\"]]]]]]]]}, \"ts\": 3}";
  for (const std::string& e : {event, wide}) {
    std::string trace = Trace(12, e, 4);
    for (size_t chunk : {size_t{2}, size_t{64}, trace.size()}) {
      Scan below = ScanWith(trace, {.max_nesting_depth = 10}, chunk);
      EXPECT_EQ(below.events, 12);
      EXPECT_EQ(below.over_depth, 0);
      Scan at = ScanWith(trace, {.max_nesting_depth = 9}, chunk);
      EXPECT_EQ(at.events, 11) << chunk;
      EXPECT_EQ(at.over_depth, 1);
      EXPECT_EQ(at.first_over, trace.find(e));
      EXPECT_FALSE(at.truncated);
    }
  }
}

// The rest of an event dropped for its depth is scanned for its end only: a
// quote out of place there (a string ending on a 64-byte block's last byte,
// then a letter) must not be taken for damage of an event already dropped,
// and the first event of the trace has no earlier one to fall back on.
TEST(JsonEventSplitterLimits, TextAfterTheLimitInADroppedEventIsNotDamage) {
  for (size_t pad = 0; pad < 70; ++pad) {
    // (The long name makes the next chunk long enough for whole blocks.)
    std::string event = "{\"ph\": \"X\", \"name\": \"" + std::string(150, 'n') +
                        "\", \"args\": {\"a\": [[[[[[[[1], \"" +
                        std::string(pad, 'a') + "\"x]]]]]]]}, \"ts\": 2}";
    std::string trace = Trace(12, event, 0);
    // Cut right after the depth is passed, the limit applies there; the
    // next piece is scanned 64 bytes at a time and ends soon after the
    // string, where the byte after it is looked at.
    const size_t deep = trace.find("1], ");
    const size_t after = trace.find("\"x]") + 20;
    for (size_t chunk : {size_t{2}, size_t{64}, trace.size()}) {
      Scan at = ScanWith(trace, {.max_nesting_depth = 9}, chunk);
      EXPECT_EQ(at.events, 11) << "pad " << pad << " chunk " << chunk;
      EXPECT_FALSE(at.truncated);
    }
    Scan cut = ScanWith(trace, {.max_nesting_depth = 9}, 0, {deep, after});
    EXPECT_EQ(cut.events, 11) << "pad " << pad;
    EXPECT_EQ(cut.over_depth, 1) << "pad " << pad;
    EXPECT_FALSE(cut.truncated);
  }
}

TEST(JsonEventSplitterLimits, UnclosedNestingBombEndsAsATruncationWithoutKeepingIt) {
  std::string trace = Trace(3);
  trace.resize(trace.rfind(']'));
  trace += ",{\"args\": " + std::string(1 << 20, '[');
  Scan s = ScanWith(trace, {.max_nesting_depth = 64}, 4096);
  EXPECT_EQ(s.events, 3);
  EXPECT_EQ(s.over_depth, 1);
  EXPECT_TRUE(s.truncated);
}

}  // namespace
}  // namespace tracelint
