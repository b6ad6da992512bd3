#include "analyzer/base/json_writer.h"

#include <limits>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(JsonWriter, NestedContainersKeepKeyOrder) {
  JsonWriter w;
  w.BeginObject();
  w.Key("z").Int(-3);
  w.Key("a").BeginArray();
  w.Double(0.5);
  w.Bool(true);
  w.Null();
  w.BeginObject();
  w.EndObject();
  w.EndArray();
  w.Key("empty").BeginArray();
  w.EndArray();
  w.EndObject();
  EXPECT_EQ(w.Finish(),
            "{\n"
            "  \"z\": -3,\n"
            "  \"a\": [\n"
            "    0.5,\n"
            "    true,\n"
            "    null,\n"
            "    {}\n"
            "  ],\n"
            "  \"empty\": []\n"
            "}\n");
}

TEST(JsonWriter, EscapesAndNonFiniteDoubles) {
  JsonWriter w;
  w.BeginArray();
  w.String("a\"b\\c\n\x01");
  w.Double(std::numeric_limits<double>::quiet_NaN());
  w.Double(std::numeric_limits<double>::infinity());
  w.OptionalDouble(std::nullopt);
  w.OptionalDouble(0.25);
  w.Int(std::numeric_limits<int64_t>::max());
  w.EndArray();
  EXPECT_EQ(w.Finish(),
            "[\n  \"a\\\"b\\\\c\\n\\u0001\",\n  null,\n  null,\n  null,\n  0.25,\n"
            "  9223372036854775807\n]\n");
}

TEST(JsonWriter, DoublesRoundTrip) {
  JsonWriter w;
  w.BeginArray();
  w.Double(0.1);
  w.Double(1.0 / 3);
  w.EndArray();
  std::string s = w.Finish();
  EXPECT_NE(s.find("0.1,"), std::string::npos);
  EXPECT_NE(s.find("0.3333333333333333"), std::string::npos);
}

}  // namespace
}  // namespace tracelint
