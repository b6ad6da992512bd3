#include "analyzer/report/source_map.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

class SourceMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("tracelint_source_map_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    std::ofstream(root_ / "src" / "train.py") << "x = 1\n";
    std::ofstream(root_ / "train.py") << "x = 2\n";
    std::ofstream(root_ / "top.py") << "x = 3\n";
  }
  fs::path root_;
};

TEST_F(SourceMapTest, HostPrefixIsRemovedAndTheMostSpecificSuffixWins) {
  // Both src/train.py and train.py exist: the longer suffix is the file.
  EXPECT_EQ(MapToSourceRoot("/home/ci/work/repo/src/train.py", root_.string()), "src/train.py");
  EXPECT_EQ(MapToSourceRoot("/home/ci/work/repo/top.py", root_.string()), "top.py");
  EXPECT_EQ(MapToSourceRoot("src/train.py", root_.string()), "src/train.py");
}

TEST_F(SourceMapTest, NoMatchIsEmpty) {
  EXPECT_EQ(MapToSourceRoot("/usr/lib/python3/missing.py", root_.string()), "");
  EXPECT_EQ(MapToSourceRoot("", root_.string()), "");
  // A directory is not a source file.
  EXPECT_EQ(MapToSourceRoot("/x/src", root_.string()), "");
}

TEST_F(SourceMapTest, DotDotNeverEscapesTheRoot) {
  std::string outside = root_.filename().string() + "/top.py";
  EXPECT_EQ(MapToSourceRoot("src/../../" + outside, (root_ / "src").string()), "");
  EXPECT_EQ(MapToSourceRoot("/a/../top.py", root_.string()), "top.py");
}

TEST(SourceMapUri, PercentEncodesAndMarksDirectories) {
  EXPECT_EQ(PercentEncodePath("a b/c#d.py"), "a%20b/c%23d.py");
  EXPECT_EQ(FileUri("/work/repo", true), "file:///work/repo/");
  EXPECT_EQ(FileUri("/tmp/t 1.json", false), "file:///tmp/t%201.json");
}

}  // namespace
}  // namespace tracelint
