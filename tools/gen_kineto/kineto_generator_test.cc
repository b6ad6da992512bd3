#include "tools/gen_kineto/kineto_generator.h"

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace tracelint::gen {
namespace {

std::string Generate(const GeneratorOptions& options,
                     GeneratorStats* stats = nullptr) {
  StringSink sink;
  absl::StatusOr<GeneratorStats> s = GenerateKinetoTrace(options, sink);
  EXPECT_TRUE(s.ok()) << s.status();
  if (stats != nullptr && s.ok()) *stats = *s;
  return sink.data();
}

GeneratorOptions OneMegabyte() {
  GeneratorOptions o;
  o.target_bytes = int64_t{1} << 20;
  o.seed = 7;
  return o;
}

// What a DOM parse of the output finds; checked against the generator's own
// counts and against the links a Kineto trace must have.
struct Census {
  std::map<std::string, int64_t> by_label;  // RecKindLabel spelling
  int64_t events = 0;
  int64_t steps = 0;
  std::set<int64_t> runtime_correlations;
  std::set<int64_t> device_correlations;   // kernels, memcpy, memset
  std::set<int64_t> device_missing_launch;
  std::multiset<std::pair<std::string, int64_t>> flow_starts;  // cat, id
  std::multiset<std::pair<std::string, int64_t>> flow_ends;
  std::set<std::string> kernel_names;
  int64_t nccl_kernels_with_collective = 0;
};

std::string Label(std::string_view ph, std::string_view cat) {
  if (ph == "s" || ph == "f") return std::string(ph) + "/flow";
  if (ph == "M") return "M/metadata";
  if (ph == "i" && cat == "cpu_instant_event") return "i/cpu_instant_event";
  if (ph == "X" && cat != "Trace") return "X/" + std::string(cat);
  return "other";
}

Census Parse(const std::string& json, simdjson::dom::element* root_out) {
  Census c;
  static simdjson::dom::parser parser;  // keeps the document alive
  simdjson::dom::element root;
  auto error = parser.parse(json).get(root);
  EXPECT_EQ(error, simdjson::SUCCESS) << simdjson::error_message(error);
  if (error) return c;
  *root_out = root;
  for (simdjson::dom::element e : root["traceEvents"].get_array()) {
    ++c.events;
    std::string_view ph = e["ph"].get_string().value();
    std::string_view cat;
    if (e["cat"].get_string().get(cat)) cat = "";
    c.by_label[Label(ph, cat)]++;
    std::string_view name;
    if (e["name"].get_string().get(name)) name = "";
    if (ph == "s" || ph == "f") {
      auto& flows = ph == "s" ? c.flow_starts : c.flow_ends;
      flows.insert({std::string(cat), e["id"].get_int64().value()});
      continue;
    }
    if (cat == "user_annotation" && name.rfind("ProfilerStep#", 0) == 0) {
      ++c.steps;
    }
    if (cat == "cuda_runtime") {
      c.runtime_correlations.insert(e["args"]["correlation"].get_int64().value());
    }
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      c.device_correlations.insert(e["args"]["correlation"].get_int64().value());
    }
    if (cat == "kernel") {
      c.kernel_names.insert(std::string(name));
      if (name.find("nccl") != std::string_view::npos &&
          !e["args"]["Collective name"].error()) {
        ++c.nccl_kernels_with_collective;
      }
    }
  }
  for (int64_t corr : c.device_correlations) {
    if (!c.runtime_correlations.count(corr)) c.device_missing_launch.insert(corr);
  }
  return c;
}

TEST(KinetoGeneratorTest, OutputIsValidKinetoJsonWithExpectedCounts) {
  GeneratorStats stats;
  std::string json = Generate(OneMegabyte(), &stats);
  EXPECT_EQ(stats.bytes, static_cast<int64_t>(json.size()));
  EXPECT_GE(stats.bytes, int64_t{1} << 20);
  EXPECT_LT(stats.bytes, (int64_t{1} << 20) + (int64_t{1} << 20));

  simdjson::dom::element root;
  Census c = Parse(json, &root);
  EXPECT_EQ(root["schemaVersion"].get_int64().value(), 1);
  EXPECT_EQ(root["deviceProperties"].get_array().size(), 8u);
  EXPECT_EQ(root["distributedInfo"]["world_size"].get_int64().value(), 1);
  EXPECT_FALSE(root["traceName"].error());

  EXPECT_EQ(c.events, stats.events);
  EXPECT_EQ(c.steps, stats.steps);
  EXPECT_GE(c.steps, 2);
  for (int k = 0; k < kRecKindCount; ++k) {
    std::string label(RecKindLabel(static_cast<RecKind>(k)));
    EXPECT_EQ(c.by_label[label], stats.by_kind[k]) << label;
  }
  // Every category the assignment names is present.
  for (const char* label :
       {"X/cpu_op", "X/user_annotation", "X/gpu_user_annotation",
        "X/python_function", "X/cuda_runtime", "X/kernel", "X/gpu_memcpy",
        "X/gpu_memset", "i/cpu_instant_event", "s/flow", "f/flow"}) {
    EXPECT_GT(c.by_label[label], 0) << label;
  }
  // cpu_op -> launch -> device activity: every device event has its launch,
  // and every flow start has exactly one end with the same id.
  EXPECT_THAT(c.device_missing_launch, testing::IsEmpty());
  for (const auto& start : c.flow_starts) {
    EXPECT_EQ(c.flow_ends.count(start), 1u) << start.first << " " << start.second;
  }
  EXPECT_GT(stats.nccl_kernels, 0);
  EXPECT_EQ(c.nccl_kernels_with_collective, stats.nccl_kernels);
  // Name variety close to the reference trace's 70 kernel names.
  EXPECT_GE(c.kernel_names.size(), 40u);
}

TEST(KinetoGeneratorTest, DeterministicForASeed) {
  GeneratorOptions o = OneMegabyte();
  o.target_bytes = 300000;
  std::string a = Generate(o);
  std::string b = Generate(o);
  EXPECT_EQ(a, b);
  o.seed = 8;
  EXPECT_NE(Generate(o), a);
}

TEST(KinetoGeneratorTest, RanksDifferInRankAndProcess) {
  GeneratorOptions o = OneMegabyte();
  o.target_bytes = 200000;
  o.world_size = 4;
  o.rank = 3;
  simdjson::dom::element root;
  std::string json = Generate(o);
  Parse(json, &root);
  EXPECT_EQ(root["distributedInfo"]["rank"].get_int64().value(), 3);
  EXPECT_EQ(root["distributedInfo"]["world_size"].get_int64().value(), 4);
  EXPECT_NE(json.find("\"Process Group Ranks\": \"[0, 1, 2, 3]\""),
            std::string::npos);
  o.rank = 4;
  StringSink sink;
  EXPECT_FALSE(GenerateKinetoTrace(o, sink).ok());
}

TEST(KinetoGeneratorTest, GzipSinkRoundTrips) {
  GeneratorOptions o = OneMegabyte();
  o.target_bytes = 400000;
  std::string plain = Generate(o);
  std::string path = (std::filesystem::temp_directory_path() /
                      ("gen_kineto_test_" + std::to_string(::getpid()) + ".json.gz"))
                         .string();
  absl::StatusOr<std::unique_ptr<ByteSink>> sink = OpenGzipFileSink(path);
  ASSERT_TRUE(sink.ok()) << sink.status();
  ASSERT_TRUE(GenerateKinetoTrace(o, **sink).ok());
  gzFile gz = gzopen(path.c_str(), "rb");
  ASSERT_NE(gz, nullptr);
  std::string unzipped;
  char buf[65536];
  int n;
  while ((n = gzread(gz, buf, sizeof(buf))) > 0) unzipped.append(buf, n);
  gzclose(gz);
  std::filesystem::remove(path);
  EXPECT_EQ(unzipped, plain);
}

TEST(ParseByteSizeTest, Suffixes) {
  EXPECT_EQ(*ParseByteSize("123"), 123);
  EXPECT_EQ(*ParseByteSize("4K"), 4096);
  EXPECT_EQ(*ParseByteSize("100M"), int64_t{100} << 20);
  EXPECT_EQ(*ParseByteSize("5G"), int64_t{5} << 30);
  EXPECT_FALSE(ParseByteSize("").ok());
  EXPECT_FALSE(ParseByteSize("1T").ok());
  EXPECT_FALSE(ParseByteSize("M").ok());
  EXPECT_FALSE(ParseByteSize("-1").ok());
}

}  // namespace
}  // namespace tracelint::gen
