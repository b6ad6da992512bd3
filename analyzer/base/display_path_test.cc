#include "analyzer/base/display_path.h"

#include <filesystem>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

TEST(PathShortener, NoAbsolutePathOfThisMachine) {
  const std::string cwd = fs::current_path().string();
  PathShortener paths({"/data/runs/exp1", cwd + "/traces/t.json"});
  // Under the working directory: relative to it.
  EXPECT_EQ(paths.Path(cwd + "/traces/t.json"), "traces/t.json");
  // Outside it: relative to the input's folder.
  EXPECT_EQ(paths.Path("/data/runs/exp1/worker0.pt.trace.json"), "exp1/worker0.pt.trace.json");
  EXPECT_EQ(paths.Path("relative/kept.json"), "relative/kept.json");
  EXPECT_EQ(paths.Path("/elsewhere/x.json"), "x.json");
  EXPECT_EQ(paths.Text("/data/runs/exp1: 2 profiling spans; " + cwd + "/traces/t.json is damaged"),
            "exp1: 2 profiling spans; traces/t.json is damaged");
  // A prefix inside a longer path is not one; a path outside every root
  // keeps only its name.
  EXPECT_EQ(paths.Text("/mnt/data/runs/exp1/a.json: damaged."), "a.json: damaged.");
  EXPECT_EQ(paths.Text("read I/O error on 2/3 files"), "read I/O error on 2/3 files");
}

}  // namespace
}  // namespace tracelint
