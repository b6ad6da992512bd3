#include "cli/progress.h"

#include <sstream>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

using std::chrono::milliseconds;

TEST(ProgressLine, DisabledDrawsNothing) {
  std::ostringstream err;
  {
    ProgressLine line(err, /*enabled=*/false);
    line.Update("1/2 runs");
    line.ShowAfterDelay("reading");
  }
  EXPECT_EQ(err.str(), "");
  EXPECT_FALSE(IsTerminal(err));  // only std::cerr on a terminal
}

TEST(ProgressLine, ReplacesTheLineAndErasesItAtTheEnd) {
  std::ostringstream err;
  {
    ProgressLine line(err, /*enabled=*/true);
    line.Update("1/2 runs");
    line.Update("2/2 runs");
  }
  EXPECT_EQ(err.str(), "\r1/2 runs\033[K\r2/2 runs\033[K\r\033[K");
}

TEST(ProgressLine, QuickJobsFinishBeforeTheDelayAndStaySilent) {
  std::ostringstream err;
  {
    ProgressLine line(err, /*enabled=*/true, milliseconds(60000));
    line.ShowAfterDelay("reading 1 file");
    line.Update("never shown");
  }
  EXPECT_EQ(err.str(), "");
}

TEST(ProgressLine, SlowJobsShowTheLineAfterTheDelay) {
  std::ostringstream err;
  {
    ProgressLine line(err, /*enabled=*/true, milliseconds(1));
    line.ShowAfterDelay("reading 1 file");
    for (int i = 0; i < 1000 && !line.drawn(); ++i) std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(err.str(), "\rreading 1 file\033[K\r\033[K");
}

}  // namespace
}  // namespace tracelint
