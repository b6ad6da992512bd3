#include "parsers/tensorboard/discovery.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::tracelint::testing::Gzip;
using ::tracelint::testing::TempDir;

constexpr std::string_view kTiny =
    R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a",
        "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";

std::vector<std::string> Names(const Discovery& d) {
  std::vector<std::string> out;
  for (const TraceFileRef& f : d.files) {
    out.push_back(std::filesystem::path(f.path).filename().string());
  }
  return out;
}

TEST(Discovery, SplitPtTraceName) {
  std::string worker, span;
  ASSERT_TRUE(SplitPtTraceName("graph_capture_rank_0.1773709742341309550.pt.trace.json.gz",
                               &worker, &span));
  EXPECT_EQ(worker, "graph_capture_rank_0");
  EXPECT_EQ(span, "1773709742341309550");
  ASSERT_TRUE(SplitPtTraceName("rank-0.Apr_03_18_51_38.1102.pt.trace.json", &worker, &span));
  EXPECT_EQ(worker, "rank-0.Apr_03_18_51_38");
  EXPECT_EQ(span, "1102");
  ASSERT_TRUE(SplitPtTraceName("worker0.pt.trace.json", &worker, &span));
  EXPECT_EQ(worker, "worker0");
  EXPECT_EQ(span, "");
  EXPECT_FALSE(SplitPtTraceName("rank0.json.gz", &worker, &span));
}

TEST(Discovery, NewestSpanOfTraceHandlerOutput) {
  TempDir dir;
  // Old spans are millisecond stamps, the newest a longer ns stamp: compared
  // as numbers, not as text.
  dir.Write("w0.9623143089861.pt.trace.json", kTiny);
  dir.Write("w1.9623143089861.pt.trace.json", kTiny);
  dir.Write("w0.1773709742341309550.pt.trace.json.gz", Gzip(kTiny));
  dir.Write("w1.1773709742341309550.pt.trace.json.gz", Gzip(kTiny));
  dir.Write("config.json", R"({"lr": 0.1})");
  dir.Write("notes.txt", "hello");
  absl::StatusOr<Discovery> d = DiscoverTraces(dir.path().string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(Names(*d), (std::vector<std::string>{"w0.1773709742341309550.pt.trace.json.gz",
                                                 "w1.1773709742341309550.pt.trace.json.gz"}));
  EXPECT_EQ(d->files[0].worker, "w0");
  EXPECT_EQ(d->files[0].format, InputFormat::kKinetoJson);
  ASSERT_EQ(d->notes.size(), 1u);  // the skipped config.json
  // The span choice is said apart from the notes: in the header and on stderr.
  EXPECT_THAT(d->span_choice, HasSubstr("2 profiling spans; analysing the newest "
                                        "(1773709742341309550)"));

  DiscoveryOptions old;
  old.span = "9623143089861";
  absl::StatusOr<Discovery> o = DiscoverTraces(dir.path().string(), old);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(Names(*o), (std::vector<std::string>{"w0.9623143089861.pt.trace.json",
                                                 "w1.9623143089861.pt.trace.json"}));
  DiscoveryOptions missing;
  missing.span = "42";
  EXPECT_TRUE(absl::IsNotFound(DiscoverTraces(dir.path().string(), missing).status()));
}

TEST(Discovery, OtherJsonFilesAreSniffed) {
  TempDir dir;
  dir.Write("rank0.json.gz", Gzip(kTiny));
  dir.Write("rank1.json", kTiny);
  dir.Write("localhost.trace.json.gz",
            Gzip(R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[]})"));
  absl::StatusOr<Discovery> d = DiscoverTraces(dir.path().string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(Names(*d), (std::vector<std::string>{"rank0.json.gz", "rank1.json"}));
}

TEST(Discovery, JaxPerfettoTraceBesideItsXplaneIsNotASecondRank) {
  TempDir dir;
  dir.Write("plugins/profile/2025_01_01_10_00_00/host.xplane.pb", "x");
  dir.Write("plugins/profile/2025_01_01_10_00_00/perfetto_trace.json.gz", Gzip(kTiny));
  absl::StatusOr<Discovery> d = DiscoverTraces(dir.path().string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(Names(*d), (std::vector<std::string>{"host.xplane.pb"}));
  std::string notes;
  for (const std::string& n : d->notes) notes += n + "\n";
  EXPECT_THAT(notes, HasSubstr("perfetto_trace.json.gz: the Perfetto rendering"));
  // Alone, it is the run's trace.
  TempDir alone;
  alone.Write("perfetto_trace.json.gz", Gzip(kTiny));
  absl::StatusOr<Discovery> a = DiscoverTraces(alone.path().string(), {});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(Names(*a), (std::vector<std::string>{"perfetto_trace.json.gz"}));
}

TEST(Discovery, TensorBoardProfilePluginLayout) {
  TempDir dir;
  dir.Write("logs/events.out.tfevents.1.host.profile-empty", "");
  dir.Write("logs/plugins/profile/2024_01_01_10_00_00/host.xplane.pb", "x");
  dir.Write("logs/plugins/profile/2024_03_01_10_00_00/host_a.xplane.pb", "x");
  dir.Write("logs/plugins/profile/2024_03_01_10_00_00/host_b.xplane.pb", "x");
  dir.Write("logs/plugins/profile/2024_03_01_10_00_00/host_a.trace.json.gz",
            Gzip(R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[]})"));
  absl::StatusOr<Discovery> d = DiscoverTraces((dir.path() / "logs").string() + "/", {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(Names(*d), (std::vector<std::string>{"host_a.xplane.pb", "host_b.xplane.pb"}));
  // Sessions of one run: the newest, named for the header and stderr.
  EXPECT_FALSE(d->runs_to_pick);
  EXPECT_THAT(d->span_choice, HasSubstr("2 profiling sessions; analysing the newest "
                                        "(2024_03_01_10_00_00)"));
  absl::StatusOr<Discovery> from_profile =
      DiscoverTraces((dir.path() / "logs" / "plugins" / "profile").string(), {});
  ASSERT_TRUE(from_profile.ok()) << from_profile.status();
  EXPECT_EQ(Names(*from_profile), Names(*d));
  EXPECT_EQ(d->files[0].format, InputFormat::kXSpace);
  DiscoveryOptions run;
  run.run = "2024_01_01_10_00_00";
  absl::StatusOr<Discovery> r = DiscoverTraces((dir.path() / "logs").string(), run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Names(*r), (std::vector<std::string>{"host.xplane.pb"}));
  run.run = "nope";
  EXPECT_TRUE(absl::IsNotFound(DiscoverTraces((dir.path() / "logs").string(), run).status()));
}

TEST(Discovery, TbPluginRunFolders) {
  TempDir dir;
  dir.Write("runA/worker0.1.pt.trace.json", kTiny);
  dir.Write("runB/worker0.2.pt.trace.json", kTiny);
  absl::StatusOr<Discovery> d = DiscoverTraces(dir.path().string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  // Two experiments: nothing chosen; the files of both, each with its run
  // folder, for analyze to list and refuse (batch analyses each).
  EXPECT_TRUE(d->runs_to_pick);
  EXPECT_EQ(Names(*d),
            (std::vector<std::string>{"worker0.1.pt.trace.json", "worker0.2.pt.trace.json"}));
  EXPECT_EQ(d->files[0].run_folder, "runA");
  EXPECT_EQ(d->files[1].run_folder, "runB");
}

TEST(Discovery, SingleFilesAndErrors) {
  TempDir dir;
  std::string trace = dir.Write("one.json", kTiny);
  absl::StatusOr<Discovery> d = DiscoverTraces(trace, {});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->files.size(), 1u);
  EXPECT_EQ(d->files[0].worker, "one");

  absl::Status not_trace = DiscoverTraces(dir.Write("notes.txt", "hello"), {}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(not_trace));
  EXPECT_NE(not_trace.message().find("notes.txt: not a trace: expected Kineto/Chrome trace"),
            std::string::npos)
      << not_trace;
  absl::Status empty = DiscoverTraces(dir.Write("empty.json", ""), {}).status();
  EXPECT_NE(empty.message().find("empty file"), std::string::npos) << empty;
  EXPECT_TRUE(absl::IsNotFound(DiscoverTraces((dir.path() / "nope").string(), {}).status()));
  TempDir empty_dir_holder;
  std::filesystem::create_directories(empty_dir_holder.path() / "sub");
  EXPECT_TRUE(absl::IsNotFound(DiscoverTraces(empty_dir_holder.path().string(), {}).status()));
}

std::vector<std::string> Relative(const std::vector<std::string>& paths,
                                  const std::filesystem::path& root) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    out.push_back(std::filesystem::path(p).lexically_relative(root).string());
  }
  return out;
}

TEST(FindRunPaths, EveryRunOfAnArchiveInNameOrder) {
  TempDir dir;
  dir.Write("archive/b_run/rank0.pt.trace.json", kTiny);
  dir.Write("archive/b_run/rank1.pt.trace.json", kTiny);
  dir.Write("archive/a_run/worker0.pt.trace.json.gz", Gzip(std::string(kTiny)));
  dir.Write("archive/tf/logs/plugins/profile/2024_01_01_00_00_00/h.xplane.pb", "x");
  dir.Write("archive/tf/logs/plugins/profile/2024_01_02_00_00_00/h.xplane.pb", "x");
  dir.Write("archive/notes/readme.txt", "not a run");
  // Metadata JSON beside the runs neither makes the archive a run nor hides
  // the runs under it.
  dir.Write("archive/summary.json", "{\"runs\": 4}");
  dir.Write("archive/deep/1/2/3/4/r.json", kTiny);
  std::filesystem::path root = dir.path() / "archive";
  absl::StatusOr<std::vector<std::string>> runs = FindRunPaths(root.string(), 3);
  ASSERT_TRUE(runs.ok()) << runs.status();
  // The TensorBoard log directory is one run (analyze picks its newest
  // profile); the run four levels down is beyond the depth.
  EXPECT_EQ(Relative(*runs, root),
            (std::vector<std::string>{"a_run", "b_run", "tf/logs"}));
  runs = FindRunPaths(root.string(), 5);
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_EQ(Relative(*runs, root),
            (std::vector<std::string>{"a_run", "b_run", "deep/1/2/3/4", "tf/logs"}));
}

TEST(FindRunPaths, SymlinkLoopsAndSecondPathsToARunAreFollowedOnce) {
  TempDir dir;
  dir.Write("archive/r1/rank0.pt.trace.json", kTiny);
  std::filesystem::path root = dir.path() / "archive";
  std::filesystem::create_directory_symlink("..", root / "r1" / "up");
  std::filesystem::create_directory_symlink("r1", root / "same_run");
  absl::StatusOr<std::vector<std::string>> runs = FindRunPaths(root.string(), 6);
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_EQ(Relative(*runs, root), std::vector<std::string>{"r1"});
}

TEST(FindRunPaths, AFileOrARunDirectoryIsOneRun) {
  TempDir dir;
  std::string file = dir.Write("run/rank0.pt.trace.json", kTiny);
  EXPECT_EQ(*FindRunPaths(file, 3), std::vector<std::string>{file});
  absl::StatusOr<std::vector<std::string>> runs = FindRunPaths((dir.path() / "run").string(), 3);
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_EQ(Relative(*runs, dir.path()), std::vector<std::string>{"run"});
}

TEST(FindRunPaths, NothingFoundOrMissingIsAnError) {
  TempDir dir;
  dir.Write("empty/notes.txt", "x");
  absl::Status none = FindRunPaths((dir.path() / "empty").string(), 3).status();
  EXPECT_TRUE(absl::IsNotFound(none)) << none;
  EXPECT_NE(none.message().find("no trace files found"), std::string::npos) << none;
  EXPECT_FALSE(FindRunPaths((dir.path() / "missing").string(), 3).ok());
}

}  // namespace
}  // namespace tracelint
