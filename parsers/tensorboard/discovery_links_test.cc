// Symlinks in directory scans (contract: links that stay inside the scanned
// tree are followed, each directory once; links leading out of it are
// skipped with a warning naming them unless --follow-links). Real links in
// a temporary directory.

#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/tensorboard/discovery.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using ::tracelint::testing::TempDir;

constexpr std::string_view kTiny =
    R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a",
        "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";

std::vector<std::string> Names(const Discovery& d) {
  std::vector<std::string> out;
  for (const TraceFileRef& f : d.files) out.push_back(fs::path(f.path).filename().string());
  return out;
}

std::vector<std::string> Relative(const std::vector<std::string>& paths, const fs::path& root) {
  std::vector<std::string> out;
  for (const std::string& p : paths) out.push_back(fs::path(p).lexically_relative(root).string());
  return out;
}

bool Mentions(const std::vector<std::string>& notes, const std::string& what) {
  for (const std::string& n : notes) {
    if (n.find(what) != std::string::npos && n.find("--follow-links") != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(DiscoveryLinks, InTreeFileLinkIsOneRankOutOfTreeLinkIsSkippedWithANote) {
  TempDir dir;
  dir.Write("run/rank0.pt.trace.json", kTiny);
  dir.Write("elsewhere/rank1.pt.trace.json", kTiny);
  fs::path run = dir.path() / "run";
  fs::create_symlink("rank0.pt.trace.json", run / "alias.pt.trace.json");
  fs::create_symlink(dir.path() / "elsewhere" / "rank1.pt.trace.json",
                     run / "rank1.pt.trace.json");

  absl::StatusOr<Discovery> d = DiscoverTraces(run.string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  // The in-tree link is the same file: read once (the first name wins).
  EXPECT_EQ(Names(*d), std::vector<std::string>{"alias.pt.trace.json"});
  EXPECT_TRUE(Mentions(d->notes, (run / "rank1.pt.trace.json").string()))
      << ::testing::PrintToString(d->notes);

  DiscoveryOptions follow;
  follow.follow_links = true;
  d = DiscoverTraces(run.string(), follow);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(Names(*d), (std::vector<std::string>{"alias.pt.trace.json", "rank1.pt.trace.json"}));
  EXPECT_FALSE(Mentions(d->notes, "rank1"));
}

TEST(DiscoveryLinks, RunFolderLinkedFromOutsideNeedsFollowLinks) {
  TempDir dir;
  dir.Write("logs/plugins/profile/2024_01_01_00_00_00/h.xplane.pb", "x");
  dir.Write("other/2024_02_02_00_00_00/h.xplane.pb", "x");
  fs::path profile = dir.path() / "logs" / "plugins" / "profile";
  fs::create_directory_symlink(dir.path() / "other" / "2024_02_02_00_00_00",
                               profile / "2024_02_02_00_00_00");
  absl::StatusOr<Discovery> d = DiscoverTraces((dir.path() / "logs").string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->runs, std::vector<std::string>{"2024_01_01_00_00_00"});
  EXPECT_TRUE(Mentions(d->notes, "2024_02_02_00_00_00")) << ::testing::PrintToString(d->notes);
  DiscoveryOptions follow;
  follow.follow_links = true;
  d = DiscoverTraces((dir.path() / "logs").string(), follow);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->runs, (std::vector<std::string>{"2024_01_01_00_00_00", "2024_02_02_00_00_00"}));
}

TEST(FindRunPathsLinks, InTreeLinksOnceOutOfTreeSkippedUnlessFollowed) {
  TempDir dir;
  dir.Write("archive/r1/rank0.pt.trace.json", kTiny);
  dir.Write("outside/r2/rank0.pt.trace.json", kTiny);
  fs::path root = dir.path() / "archive";
  fs::create_directory_symlink("r1", root / "same_run");                  // in the tree
  fs::create_directory_symlink(dir.path() / "outside" / "r2", root / "r2");  // out of it
  fs::create_directory_symlink("..", root / "r1" / "up");                 // a loop
  fs::create_directory_symlink(dir.path(), root / "to_parent");           // out, and a loop

  std::vector<std::string> notes;
  absl::StatusOr<std::vector<std::string>> runs = FindRunPaths(root.string(), 6, {}, &notes);
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_EQ(Relative(*runs, root), std::vector<std::string>{"r1"});
  EXPECT_TRUE(Mentions(notes, (root / "r2").string())) << ::testing::PrintToString(notes);
  EXPECT_TRUE(Mentions(notes, (root / "to_parent").string()));

  DiscoveryOptions follow;
  follow.follow_links = true;
  notes.clear();
  runs = FindRunPaths(root.string(), 6, follow, &notes);
  ASSERT_TRUE(runs.ok()) << runs.status();
  // Each directory once, however many links lead to it (the loop through
  // the parent reaches archive/ again and stops there).
  EXPECT_EQ(Relative(*runs, root), (std::vector<std::string>{"r1", "r2"}));
  EXPECT_TRUE(notes.empty()) << ::testing::PrintToString(notes);
}

}  // namespace
}  // namespace tracelint
