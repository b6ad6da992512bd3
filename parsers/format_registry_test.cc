#include "parsers/format_registry.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/tensorboard/discovery.h"

namespace tracelint {
namespace {

using ::tracelint::testing::Gzip;
using ::tracelint::testing::TempDir;

// Metadata of any size may come before the keys the sniffer knows: a valid
// trace with 100 KiB of it (more than the 64 KiB head) is still a trace.
TEST(FormatRegistry, LongMetadataBeforeTheFirstKnownKeyIsATrace) {
  TempDir dir;
  std::string notes(100 * 1024, 'n');
  std::string trace = "{\"notes\": \"" + notes + "\", \"more\": [1, 2, {\"x\": \"" + notes +
                      "\"}],\n \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                      "\"op\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}";
  for (bool gz : {false, true}) {
    std::string path = dir.Write(gz ? "long.json.gz" : "long.json", gz ? Gzip(trace) : trace);
    absl::StatusOr<InputFormat> format = SniffTraceFile(path);
    ASSERT_TRUE(format.ok()) << format.status();
    EXPECT_EQ(*format, InputFormat::kKinetoJson);
    absl::StatusOr<Timeline> tl = ParseTraceFile(path, ParseOptions());
    ASSERT_TRUE(tl.ok()) << tl.status();
    EXPECT_EQ(tl->metadata().events_read, 1);
  }
  // A long JSON object without an event array is still not a trace.
  std::string config = "{\"notes\": \"" + notes + "\", \"lr\": 0.1}";
  absl::StatusOr<InputFormat> format = SniffTraceFile(dir.Write("config.json", config));
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, InputFormat::kUnknown);
}

// TensorFlow/JAX's trace-viewer JSON beside an xplane.pb is a Chrome trace
// tracelint does not read; the error says which file to read instead.
TEST(FormatRegistry, XprofTraceViewerJsonPointsAtTheXplane) {
  TempDir dir;
  std::string trace =
      R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)"
      R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},)"
      R"({"ph":"X","pid":1,"tid":2,"ts":10.5,"dur":100,"name":"volta_sgemm_128x64_nn"}]})";
  std::string path = dir.Write("localhost.trace.json.gz", Gzip(trace));
  absl::StatusOr<InputFormat> format = SniffTraceFile(path);
  ASSERT_TRUE(format.ok()) << format.status();
  EXPECT_EQ(*format, InputFormat::kUnknown);
  absl::StatusOr<Timeline> tl = ParseTraceFile(path, ParseOptions());
  ASSERT_FALSE(tl.ok());
  EXPECT_NE(tl.status().message().find(path + ": a TensorFlow/JAX trace-viewer JSON"),
            std::string::npos)
      << tl.status();
  EXPECT_NE(tl.status().message().find(".xplane.pb"), std::string::npos) << tl.status();
  // `analyze FILE` discovers before it parses: the same words.
  absl::StatusOr<Discovery> found = DiscoverTraces(path, DiscoveryOptions());
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(), tl.status().message());
}

// Files found beside traces (an execution trace, a memory timeline, an
// Nsight Systems export, a memory snapshot) are named with what to analyze
// instead; a JSON file that is none of them is "not a trace".
TEST(FormatRegistry, NeighbouringFilesAreNamed) {
  TempDir dir;
  struct Case {
    std::string name;
    std::string bytes;
    std::string says;
  };
  const std::string pickle = std::string("\x80\x04\x95", 3) + "snapshot";
  const std::vector<Case> cases = {
      {"benchmark_et.json.gz",
       Gzip(R"({"schema": "1.0.3-chakra.0.0.4", "pid": 7, "time": "2024-01-01", )"
            R"("start_ts": 10, "nodes": [{"id": 1, "name": "aten::add"}]})"),
       "a PyTorch execution trace"},
      {"memory_timeline.raw.gz", Gzip("[[1000, 0, [1, 0], 4096, 2], [1001, 1, [1, 0], 0, 2]]"),
       "export_memory_timeline"},
      {"report.sqlite", std::string("SQLite format 3\0", 16) + "tables", "Nsight Systems"},
      {"snapshot.pickle", pickle, "a Python pickle"},
      {"config.json", R"({"lr": 0.1, "nodes": 4})", "not a trace: expected"},
  };
  for (const Case& c : cases) {
    std::string path = dir.Write(c.name, c.bytes);
    absl::StatusOr<InputFormat> format = SniffTraceFile(path);
    ASSERT_TRUE(format.ok()) << c.name << ": " << format.status();
    EXPECT_EQ(*format, InputFormat::kUnknown) << c.name;
    absl::StatusOr<Timeline> tl = ParseTraceFile(path, ParseOptions());
    ASSERT_FALSE(tl.ok()) << c.name;
    EXPECT_EQ(tl.status().message().find(path + ": "), 0u) << tl.status();
    EXPECT_NE(tl.status().message().find(c.says), std::string::npos) << tl.status();
  }
}

// A gzip file cut inside its header inflates to nothing; it is named as
// what it is, not as an empty file (issue 31, point 4).
TEST(FormatRegistry, GzipCutInsideItsHeaderIsNamed) {
  TempDir dir;
  std::string gz = Gzip("{\"traceEvents\": []}");
  for (size_t cut : {size_t{1}, size_t{2}, size_t{5}, size_t{9}, size_t{10}}) {
    const std::string expected =
        cut < 10 ? "truncated gzip header: the input ends after " + std::to_string(cut) +
                       " byte(s)"
                 : "truncated gzip stream: the input ends right after its 10-byte gzip header";
    absl::Status s = UnknownFormatError(dir.Write("cut.json.gz", gz.substr(0, cut)));
    EXPECT_NE(s.message().find(expected), std::string::npos) << cut << ": " << s;
    std::string why;
    EXPECT_EQ(SniffTraceHead(gz.substr(0, cut), &why), InputFormat::kUnknown);
    EXPECT_NE(why.find(expected), std::string::npos) << cut << ": " << why;
  }
  // A name announced in the header (FNAME) and cut before its end.
  std::string named = gz.substr(0, 10) + "trace.json";
  named[3] = static_cast<char>(named[3] | 0x08);
  EXPECT_NE(UnknownFormatError(dir.Write("named.json.gz", named)).message().find(
                "truncated gzip header"),
            std::string::npos);
  // Still an empty file when it is one.
  EXPECT_NE(UnknownFormatError(dir.Write("empty.json.gz", "")).message().find("empty file"),
            std::string::npos);
}

// A JSON object whose trace keys lie past the metadata scan says which limit.
TEST(FormatRegistry, NoTraceKeyWithinTheMetadataScanNamesTheLimit) {
  TempDir dir;
  std::string big = "{\"meta\": \"" + std::string(kSniffBytes + 10, 'a') + "\"}";
  absl::Status s = UnknownFormatError(dir.Write("meta.json", big));
  EXPECT_NE(s.message().find("the metadata scan limit"), std::string::npos) << s;
  EXPECT_NE(s.message().find("256 MiB"), std::string::npos) << s;
}

}  // namespace
}  // namespace tracelint
