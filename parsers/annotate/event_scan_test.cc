#include "parsers/annotate/event_scan.h"

#include <string>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

bool Valid(std::string_view text, int64_t depth = 64) { return ScanEvent(text, depth).valid; }

TEST(EventScan, AcceptsJsonObjects) {
  EXPECT_TRUE(Valid(R"({"ph":"X","name":"k","pid":1,"tid":2,"ts":1.5,"dur":2e3})"));
  EXPECT_TRUE(Valid("  {}  "));
  EXPECT_TRUE(Valid(R"({"a":[],"b":{},"c":[1,-0.5,true,false,null,"x",{"d":[[]]}]})"));
  EXPECT_TRUE(Valid(R"({"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"})"));
  EXPECT_TRUE(Valid("{\"s\":\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"}"));
}

TEST(EventScan, RejectsWhatIsNotOneValidObject) {
  for (std::string_view bad : {
           "", "[]", "1", "{", "{}}", "{} {}", R"({"a":1,})", R"({"a" 1})", R"({a:1})",
           R"({"a":01})", R"({"a":1.})", R"({"a":.5})", R"({"a":1e})", R"({"a":-})",
           R"({"a":tru})", R"({"a":[1,]})", R"({"a":[1 2]})", R"({"a":"x})", R"({"a":"\q"})",
           R"({"a":"\u12"})", R"({"a":"\ud83d"})", R"({"a":"\ude00"})", R"({"a":"\ud83dx"})",
           "{\"a\":\"x\ny\"}", "{\"a\":\"\x01\"}"}) {
    EXPECT_FALSE(Valid(bad)) << bad;
  }
}

// What a strict reader (simdjson, the fuzzer's judge) can hold: the
// annotated trace must stay readable by it, so an event holding a number
// that overflows is not copied.
TEST(EventScan, NumbersMustFitAnInt64AUint64OrADouble) {
  for (std::string_view ok :
       {"18446744073709551615", "-9223372036854775808", "9223372036854775808", "1e308",
        "1.7976931348623157e308", "1e-400", "2.5e-324", "0e999999", "0.0000e999999",
        "12345678901234567890.5", "-0", "0.00012e-400", "-1.5E+300"}) {
    EXPECT_TRUE(Valid(R"({"tid":)" + std::string(ok) + "}")) << ok;
  }
  for (std::string_view bad :
       {"18446744073709551616", "-9223372036854775809", "123456789012345678901234567890",
        "1e309", "1.7976931348623159e308", "-1e309", "1e3080", "0.001e312",
        "1e99999999999999999999999", "-12345678901234567890123e300"}) {
    EXPECT_FALSE(Valid(R"({"tid":)" + std::string(bad) + "}")) << bad;
  }
}

TEST(EventScan, RejectsInvalidUtf8) {
  for (std::string bad : {
           std::string("{\"a\":\"\xC3\"}"),          // cut short
           std::string("{\"a\":\"\xC0\xAF\"}"),      // overlong
           std::string("{\"a\":\"\xE0\x80\xAF\"}"),  // overlong
           std::string("{\"a\":\"\xED\xA0\x80\"}"),  // a surrogate
           std::string("{\"a\":\"\xF4\x90\x80\x80\"}"),  // past U+10FFFF
           std::string("{\"a\":\"\xFF\"}"),
           std::string("{\"\x80\":1}"),  // in a key
       }) {
    EXPECT_FALSE(Valid(bad)) << bad;
  }
}

TEST(EventScan, DepthLimitCountsTheEventAsLevelOne) {
  EXPECT_TRUE(Valid(R"({"a":[[1]]})", 3));
  EXPECT_FALSE(Valid(R"({"a":[[1]]})", 2));
  EXPECT_TRUE(Valid(R"({"a":[[1]]})", 0));  // no limit
  std::string deep = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_TRUE(Valid(deep, 0));  // no recursion to overflow
  EXPECT_FALSE(Valid(deep, 64));
}

TEST(EventScan, FindsTheMembersTheWriterRewrites) {
  std::string ev = R"({"ph": "f", "id" : 77, "pid": 1234, "args": {"name": "python3", "x": {"name": 1}}, "name": "process_name"})";
  EventScan scan = ScanEvent(ev, 64);
  ASSERT_TRUE(scan.valid);
  EXPECT_EQ(scan.ph.Of(ev), "\"f\"");
  EXPECT_EQ(scan.id.Of(ev), "77");
  EXPECT_EQ(scan.pid.Of(ev), "1234");
  EXPECT_EQ(scan.name.Of(ev), "\"process_name\"");
  EXPECT_EQ(scan.args_name.Of(ev), "\"python3\"");
  EXPECT_EQ(PlainString(scan.ph.Of(ev)), "f");
  EXPECT_EQ(PlainString("\"a\\\"b\""), "");

  EventScan none = ScanEvent(R"({"args":{"name":[1]},"pids":1})", 64);
  ASSERT_TRUE(none.valid);
  EXPECT_FALSE(none.pid.found);
  EXPECT_EQ(none.args_name.Of(R"({"args":{"name":[1]},"pids":1})"), "[1]");
}

}  // namespace
}  // namespace tracelint
