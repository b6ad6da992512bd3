#include "bench/bare_walk.h"

#include <string>

#include "bench/bare_walk_variant.h"
#include "gtest/gtest.h"
#include "tools/gen_kineto/kineto_generator.h"

namespace tracelint::bench {
namespace {

std::string Padded(std::string json) {
  json.append(kBareWalkPaddingBytes, '\0');
  return json;
}

TEST(BareWalkTest, CountsEveryEventKeyAndValue) {
  std::string json = Padded(
      R"({"schemaVersion": 1, "traceEvents": [)"
      R"({"ph": "X", "name": "a\"b", "ts": 1.5, "args": {"grid": [1, 2, 3], "x": null}},)"
      R"({"ph": "i", "s": "t", "big": 18446744073709551615, "ok": true}], "traceName": "t"})");
  absl::StatusOr<BareWalkResult> r =
      BareWalkBuffer(json.data(), json.size() - kBareWalkPaddingBytes);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->events, 2);
  // schemaVersion traceEvents traceName + ph name ts args grid x + ph s big ok
  EXPECT_EQ(r->keys, 13);
  EXPECT_EQ(r->numbers, 6);  // 1, 1.5, 1, 2, 3, 2^64-1
  EXPECT_EQ(r->strings, 5);  // X, a"b, i, t, t
  EXPECT_FALSE(r->kernel.empty());
}

TEST(BareWalkTest, BareArrayDocument) {
  std::string json = Padded(R"([{"ph": "X"}, {"ph": "M"}])");
  absl::StatusOr<BareWalkResult> r =
      BareWalkBuffer(json.data(), json.size() - kBareWalkPaddingBytes);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->events, 2);
}

TEST(BareWalkTest, DamagedInputIsAnErrorWithOffset) {
  std::string json = Padded(R"({"traceEvents": [{"ph": "X", "ts": 1x}]})");
  absl::StatusOr<BareWalkResult> r =
      BareWalkBuffer(json.data(), json.size() - kBareWalkPaddingBytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bare walk failed"), std::string::npos);
}

// Every kernel this CPU runs walks a generated trace to the same counts and
// checksum as the generator wrote.
TEST(BareWalkTest, KernelsAgreeOnGeneratedTrace) {
  gen::StringSink sink;
  gen::GeneratorOptions options;
  options.target_bytes = 500000;
  absl::StatusOr<gen::GeneratorStats> stats = gen::GenerateKinetoTrace(options, sink);
  ASSERT_TRUE(stats.ok());
  std::string json = Padded(sink.data());
  size_t size = sink.data().size();

  std::string active = ActiveSimdjsonKernel();
  std::vector<WalkStatus (*)(const char*, size_t, WalkCounters&)> walks = {
      &fallback_walk::Walk};
  if (active == "haswell" || active == "icelake") walks.push_back(&haswell_walk::Walk);
  if (active == "icelake") walks.push_back(&icelake_walk::Walk);
  std::vector<WalkCounters> results;
  for (auto walk : walks) {
    WalkCounters c;
    WalkStatus s = walk(json.data(), size, c);
    ASSERT_EQ(s.error, 0);
    EXPECT_EQ(c.events, stats->events);
    results.push_back(c);
  }
  for (const WalkCounters& c : results) {
    EXPECT_EQ(c.keys, results[0].keys);
    EXPECT_EQ(c.numbers, results[0].numbers);
    EXPECT_EQ(c.strings, results[0].strings);
    EXPECT_EQ(c.checksum, results[0].checksum);
  }
  absl::StatusOr<BareWalkResult> best = BareWalkBuffer(json.data(), size);
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(best->kernel, active == "icelake" || active == "haswell" ? active : "fallback");
}

}  // namespace
}  // namespace tracelint::bench
