// Every input a fuzzer ever crashed on stays fixed: the files under
// tests/fuzz/regressions/<target>/ are replayed through that target (the
// same function the libFuzzer binary drives) in every build, sanitizers or
// not. Add a crash with tests/fuzz/run_fuzzers.sh's instructions.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_files.h"
#include "gtest/gtest.h"
#include "tests/fuzz/fuzz_targets.h"

namespace tracelint::fuzz {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;

fs::path RegressionDir() {
  const char* dir = std::getenv("TRACELINT_SOURCE_DIR");
  return fs::path(dir ? dir : ".") / "tests" / "fuzz" / "regressions";
}

TEST(FuzzRegressions, EveryTargetKnown) {
  ASSERT_TRUE(fs::is_directory(RegressionDir())) << RegressionDir();
  for (const fs::directory_entry& e : fs::directory_iterator(RegressionDir())) {
    if (!e.is_directory()) continue;
    EXPECT_NE(FuzzTargetByName(e.path().filename().string()), nullptr)
        << "no fuzz target named " << e.path().filename();
  }
}

TEST(FuzzRegressions, EveryCrashInputIsHandled) {
  int replayed = 0;
  for (const fs::directory_entry& dir : fs::directory_iterator(RegressionDir())) {
    FuzzTarget target = FuzzTargetByName(dir.path().filename().string());
    if (!dir.is_directory() || target == nullptr) continue;
    std::vector<fs::path> files;
    for (const fs::directory_entry& f : fs::directory_iterator(dir.path())) {
      if (f.is_regular_file() && f.path().filename() != "README.md") files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::string bytes = ReadFile(f);
      EXPECT_EQ(target(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "")
          << f;
      ++replayed;
    }
  }
  std::printf("fuzz regressions: %d inputs replayed\n", replayed);
}

// The targets also hold on the seeds' plain cases (they run in every build,
// where the fuzzers themselves are not built).
TEST(FuzzTargets, HandleEmptyAndTinyInputs) {
  for (const char* name : {"kineto_json", "xspace", "gzip", "discovery", "report", "pipeline",
                           "mcp_json", "annotate", "stdin", "shard_part"}) {
    FuzzTarget target = FuzzTargetByName(name);
    ASSERT_NE(target, nullptr) << name;
    for (std::string input : {std::string(), std::string("{"), std::string("\x1f\x8b", 2),
                              std::string("[{\"ph\":\"X\"}]"), std::string("f a\nl b\t..")}) {
      EXPECT_EQ(target(reinterpret_cast<const uint8_t*>(input.data()), input.size()), "")
          << name << " on " << input;
    }
  }
}

}  // namespace
}  // namespace tracelint::fuzz
