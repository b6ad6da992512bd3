#include "parsers/format_registry.h"

#include <string>

#include "gtest/gtest.h"
#include "parsers/common/test_files.h"

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

}  // namespace
}  // namespace tracelint
