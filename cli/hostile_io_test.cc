// Issue 31, points 2, 3, 5 and 6 at the command line: outputs written
// whole or not at all (temporary names within NAME_MAX, nothing left by a
// signal), outputs that would collide, write errors of every command (a full
// device: exit 6 with the reason; a closed pipe: exit 6, quietly, never
// SIGPIPE), stdin and pipes within limits, option values that cannot be,
// and files in a run directory that are not files.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>

#include "cli/analyze_command.h"
#include "cli/batch_command.h"
#include "cli/exit_codes.h"
#include "cli/output_file.h"
#include "cli/stdin_spool.h"
#include "cli/temp_files.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::tracelint::testing::ReadFile;
using ::tracelint::testing::SourceDir;
using ::tracelint::testing::TempDir;

std::string Healthy() { return SourceDir() + "/testdata/rules/healthy.json"; }

std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

Result Analyze(AnalyzeArgs args) {
  std::ostringstream out, err;
  Result r;
  r.code = RunAnalyze(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The binary through bash (pipes, redirections, limits); nullopt without
// TRACELINT_BINARY_DIR.
std::optional<std::string> Binary() {
  const char* dir = std::getenv("TRACELINT_BINARY_DIR");
  if (dir == nullptr) return std::nullopt;
  return fmt::format("'{}/tracelint'", dir);
}

struct Shell {
  int code = -1;  // 128 + N: killed by signal N (bash's convention)
  std::string out;
  std::string err;
};

Shell RunShell(const std::string& script, const fs::path& scratch) {
  fs::path file = scratch / "script.sh", out = scratch / "sh_out", err = scratch / "sh_err";
  testing::WriteFile(file, script + "\n");
  int status = std::system(
      fmt::format("cd '{}' && bash '{}' >'{}' 2>'{}'", scratch.string(), file.string(), out.string(),
                  err.string())
          .c_str());
  Shell s;
  s.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  s.out = ReadFile(out);
  s.err = ReadFile(err);
  return s;
}

// --- Outputs written whole or not at all (point 2) ---

TEST(OutputFile, TemporaryNamesStayWithinNameMax) {
  std::string name250(250, 'n');
  std::string tmp = TempNameFor(name250, 255);
  EXPECT_LE(tmp.size(), 255u);
  EXPECT_TRUE(tmp.starts_with("."));
  EXPECT_TRUE(tmp.ends_with(".tmp-XXXXXX"));
  // Cut at a character boundary: no half of a 2-byte character.
  std::string wide;
  for (int i = 0; i < 125; ++i) wide += "\xC3\xA9";
  std::string cut = TempNameFor(wide, 255);
  EXPECT_LE(cut.size(), 255u);
  std::string body = cut.substr(1, cut.size() - 1 - 11);
  EXPECT_EQ(body.size() % 2, 0u) << body.size();
  EXPECT_EQ(TempNameFor("r.json", 255), ".r.json.tmp-XXXXXX");
}

TEST(OutputFile, A250ByteOutputNameWorksForTheReportAndTheAnnotatedTrace) {
  TempDir dir;
  AnalyzeArgs args;
  args.path = Healthy();
  args.output = (dir.path() / (std::string(245, 'r') + ".json")).string();
  args.annotate = (dir.path() / (std::string(240, 'a') + ".json.gz")).string();
  args.format = "json";
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(fs::exists(args.output));
  EXPECT_TRUE(fs::exists(args.annotate));
  EXPECT_EQ(Entries(dir.path()).size(), 2u) << ::testing::PrintToString(Entries(dir.path()));
}

TEST(OutputFile, AnErrorOrADestructionLeavesNoTemporaryFile) {
  TempDir dir;
  {
    absl::StatusOr<std::unique_ptr<OutputFile>> f =
        OutputFile::Open((dir.path() / "x.json").string(), "the report", false);
    ASSERT_TRUE(f.ok());
    (*f)->stream() << "half a report";
    EXPECT_EQ(RegisteredTempFiles(), 1);
  }  // dropped without Commit
  EXPECT_THAT(Entries(dir.path()), IsEmpty());
  EXPECT_EQ(RegisteredTempFiles(), 0);
  if (fs::exists("/dev/full")) {
    absl::StatusOr<std::unique_ptr<OutputFile>> f =
        OutputFile::Open("/dev/full", "the annotated trace", true);
    ASSERT_TRUE(f.ok());
    (*f)->stream() << std::string(1 << 20, 'x');
    absl::Status s = (*f)->Commit();
    EXPECT_THAT(s.message(), HasSubstr("cannot write the annotated trace to /dev/full: No space"));
  }
}

TEST(OutputFile, ASignalDuringTheWriteLeavesNeitherTargetNorTemporaryFile) {
  TempDir dir;
  fs::path target = dir.path() / "annotated.json";
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    pid_t pid = fork();
    if (pid == 0) {
      absl::StatusOr<std::unique_ptr<OutputFile>> f =
          OutputFile::Open(target.string(), "the annotated trace", false);
      if (!f.ok()) _exit(2);
      (*f)->stream() << std::string(4 << 20, 'x');
      (*f)->stream().flush();
      raise(sig);  // killed mid-write
      _exit(3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << sig;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_THAT(Entries(dir.path()), IsEmpty()) << "after signal " << sig;
  }
}

TEST(OutputFile, GzipByTheName) {
  TempDir dir;
  fs::path path = dir.path() / "t.json.gz";
  absl::StatusOr<std::unique_ptr<OutputFile>> f = OutputFile::Open(path.string(), "x", true);
  ASSERT_TRUE(f.ok());
  std::string text(100000, 'a');
  (*f)->stream() << text;
  ASSERT_TRUE((*f)->Commit().ok());
  std::string gz = ReadFile(path);
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_LT(gz.size(), text.size() / 10);
  std::string back(text.size(), '\0');
  z_stream z{};
  inflateInit2(&z, 16 + MAX_WBITS);
  z.next_in = reinterpret_cast<Bytef*>(gz.data());
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(back.data());
  z.avail_out = static_cast<uInt>(back.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  inflateEnd(&z);
  EXPECT_EQ(back, text);
}

TEST(Outputs, TwoOutputsNamingOneFileOrAnInputAreUsageErrors) {
  TempDir dir;
  fs::path trace = dir.path() / "in" / "t.json";
  fs::create_directories(trace.parent_path());
  fs::copy_file(Healthy(), trace);
  AnalyzeArgs args;
  args.path = trace.string();
  args.output = (dir.path() / "same.json").string();
  args.annotate = (dir.path() / "." / "same.json").string();
  Result both = Analyze(args);
  EXPECT_EQ(both.code, kExitUsage);
  EXPECT_THAT(both.err, HasSubstr("-o and --annotate name the same file"));
  EXPECT_FALSE(fs::exists(args.output));

  args.output.clear();
  args.annotate = trace.string();
  EXPECT_EQ(Analyze(args).code, kExitUsage);

  args.annotate.clear();
  fs::path baseline = dir.path() / "baseline.json";
  testing::WriteFile(baseline, "{}");
  args.baseline = baseline.string();
  args.output = baseline.string();
  Result over_baseline = Analyze(args);
  EXPECT_EQ(over_baseline.code, kExitUsage);
  EXPECT_THAT(over_baseline.err, HasSubstr("-o names the input"));
  EXPECT_EQ(ReadFile(baseline), "{}");
}

TEST(WriteErrors, EveryCommandToAFullDeviceExitsSixWithTheReason) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  for (std::string args : {std::string("rules"), std::string("--help"),
                           std::string("analyze --help"), std::string("completions bash"),
                           std::string("help --json"),
                           fmt::format("analyze --list '{}'", Healthy()),
                           fmt::format("analyze '{}'", Healthy())}) {
    Shell s = RunShell(fmt::format("{} {} >/dev/full", *bin, args), dir.path());
    EXPECT_EQ(s.code, kExitWriteFailed) << args << ": " << s.err;
    EXPECT_THAT(s.err, HasSubstr("No space left on device")) << args;
  }
}

TEST(WriteErrors, AClosedPipeEndsQuietlyWithSixNeverSigpipe) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  for (std::string args : {std::string("rules"), std::string("completions bash"),
                           std::string("help --json"), fmt::format("analyze -v '{}'", Healthy())}) {
    // The reader closes its end before tracelint writes (as `head -c1` does
    // once it has its byte): every write meets a closed pipe.
    Shell s = RunShell(fmt::format("(sleep 0.3; {} {}) | (exec <&-; sleep 1)\n"
                                   "echo ${{PIPESTATUS[0]}}",
                                   *bin, args),
                       dir.path());
    EXPECT_EQ(s.out, "6\n") << args << ": " << s.err;  // not 141 (SIGPIPE)
    EXPECT_THAT(s.err, IsEmpty()) << args;
  }
  // And `| head -c1` itself on an output larger than the pipe's buffer.
  Shell head = RunShell(fmt::format("{1} analyze --format json -v '{0}' | head -c1 >/dev/null\n"
                                    "echo ${{PIPESTATUS[0]}}",
                                    Healthy(), *bin),
                        dir.path());
  EXPECT_THAT(head.out, ::testing::AnyOf("0\n", "6\n")) << head.err;
  EXPECT_THAT(head.err, IsEmpty());
}

// --- stdin and pipes within limits (point 3) ---

TEST(Stdin, InputOfNoKnownFormatEndsAtOnceWithoutFillingTmpdir) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  auto start = std::chrono::steady_clock::now();
  Shell s = RunShell(fmt::format("TMPDIR='{}' timeout 20 {} analyze - </dev/zero", tmp.string(),
                                 *bin),
                     dir.path());
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(s.code, kExitUnreadable) << s.err;
  EXPECT_THAT(s.err, HasSubstr("-: not a trace"));
  EXPECT_LT(seconds, 10);
  EXPECT_THAT(Entries(tmp), IsEmpty());
  // urandom is no trace either (its first byte could open a JSON value only
  // rarely; then the copy stops at the limits below).
  Shell random = RunShell(
      fmt::format("TMPDIR='{}' timeout 20 {} analyze --max-decompressed-bytes 1M - "
                  "</dev/urandom",
                  tmp.string(), *bin),
      dir.path());
  EXPECT_EQ(random.code, kExitUnreadable) << random.err;
  EXPECT_THAT(Entries(tmp), IsEmpty());
}

TEST(Stdin, TheCopyStopsAtTheDecompressedLimitAndTheTraceIsAnalysedFromIt) {
  std::string trace = ReadFile(Healthy());
  std::istringstream in(trace);
  AnalyzeArgs args;
  args.path = "-";
  args.in = &in;
  args.format = "json";
  args.limits.max_decompressed_bytes = trace.size() / 2;
  Result r = Analyze(args);
  EXPECT_TRUE(r.code == kExitDamaged || r.code == kExitNotJudgeable) << r.code << r.err;
  EXPECT_THAT(r.err, HasSubstr("-: stopped copying the input at the decompressed-size limit"));
  EXPECT_THAT(r.err + r.out, Not(HasSubstr("tracelint-stdin-")));
  EXPECT_EQ(RegisteredTempFiles(), 0);
}

TEST(Stdin, TheCopyKeepsTmpdirsReserveFree) {
  std::string trace = ReadFile(Healthy());
  std::istringstream in(trace);
  SpoolLimits limits;
  struct statvfs vfs {};
  ASSERT_EQ(statvfs(fs::temp_directory_path().c_str(), &vfs), 0);
  uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  // A reserve that leaves room for 100 KB: the copy stops there.
  limits.reserve_free_bytes = free_bytes - 100'000;
  absl::StatusOr<std::unique_ptr<SpooledTrace>> copy =
      SpooledTrace::FromStream(in, "-", limits);
  if (trace.size() <= 100'000) GTEST_SKIP() << "healthy.json is smaller than the room left";
  ASSERT_TRUE(copy.ok()) << copy.status();
  ASSERT_TRUE((*copy)->cut_warning().has_value());
  EXPECT_THAT(*(*copy)->cut_warning(), HasSubstr("the free space of"));
  EXPECT_LE((*copy)->bytes(), 100'000u + 65'536u);
  std::string path = (*copy)->path();
  copy->reset();
  EXPECT_FALSE(fs::exists(path));
}

TEST(Stdin, ATmpdirWithNoRoomIsNamedAndNotTheTemporaryFile) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  // /proc/self has no free space: the copy is refused before a file is made,
  // naming the directory and its free space.
  Shell s = RunShell(fmt::format("TMPDIR=/proc/self {} analyze - <'{}'", *bin, Healthy()),
                     dir.path());
  EXPECT_EQ(s.code, kExitUnreadable) << s.err;
  EXPECT_THAT(s.err, HasSubstr("-: cannot copy the trace into a temporary file: the free space "
                               "of /proc/self"));
  EXPECT_THAT(s.err, Not(HasSubstr("XXXXXX")));
}

// A write of the copy that fails (here: past `ulimit -f`, with SIGXFSZ
// ignored, so write() fails with EFBIG) names the errno, exits 3 and leaves
// no temporary file.
TEST(Stdin, AFailedWriteOfTheCopyNamesTheErrno) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  ASSERT_GT(fs::file_size(Healthy()), 8u * 1024u);
  Shell s = RunShell(fmt::format("trap '' XFSZ; ulimit -f 8\n"
                                 "TMPDIR='{}' {} analyze - <'{}' >/dev/null",
                                 tmp.string(), *bin, Healthy()),
                     dir.path());
  EXPECT_EQ(s.code, kExitUnreadable) << s.err;
  EXPECT_THAT(s.err, HasSubstr(fmt::format(
                         "-: cannot copy the trace into a temporary file in {}: File too large",
                         tmp.string())));
  EXPECT_THAT(Entries(tmp), IsEmpty());
}

TEST(Stdin, ASignalWhileCopyingRemovesTheCopy) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  // The trace, then a pipe that stays open: tracelint is still copying when
  // the signal comes.
  Shell s = RunShell(
      fmt::format("(cat '{0}'; sleep 5) | TMPDIR='{1}' {2} analyze - & pid=$!\n"
                  "for i in $(seq 100); do ls '{1}' | grep -q . && break; sleep 0.1; done\n"
                  "ls '{1}' | wc -l\n"
                  "kill -TERM $pid; wait $pid 2>/dev/null\n"
                  "ls '{1}' | wc -l",
                  Healthy(), tmp.string(), *bin),
      dir.path());
  EXPECT_EQ(s.out, "1\n0\n") << s.err;
}

TEST(Stdin, ProcessSubstitutionWorksLikeStdin) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  Shell file = RunShell(fmt::format("{} analyze --format json '{}'", *bin, Healthy()),
                        dir.path());
  ASSERT_EQ(file.code, kExitOk) << file.err;
  Shell piped = RunShell(
      fmt::format("{} analyze --format json <(gzip -c '{}' | gzip -dc)", *bin, Healthy()),
      dir.path());
  EXPECT_EQ(piped.code, kExitOk) << piped.err;
  EXPECT_THAT(piped.out, HasSubstr("\"input_path\": \"/dev/fd/"));
  EXPECT_THAT(piped.out + piped.err, Not(HasSubstr("tracelint-stdin-")));
  // The same findings as the file.
  simdjson::dom::parser a, b;
  simdjson::dom::element ja = a.parse(file.out), jb = b.parse(piped.out);
  EXPECT_EQ(simdjson::minify(ja["findings"]), simdjson::minify(jb["findings"]));
  // Damage named by the pipe's name, never the copy's.
  Shell cut = RunShell(fmt::format("{} analyze <(head -c 3000 '{}')", *bin, Healthy()),
                       dir.path());
  EXPECT_THAT(cut.err, HasSubstr("/dev/fd/"));
  EXPECT_THAT(cut.err + cut.out, Not(HasSubstr("tracelint-stdin-")));
}

// --- Values that cannot be (point 5) ---

TEST(OptionValues, NonsenseValuesAreUsageErrors) {
  std::optional<std::string> bin = Binary();
  if (!bin) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  for (std::string flags : {"--threads 100000", "--threads -1", "--price-per-hour NaN",
                            "--price-per-hour=-inf", "--price-per-hour inf",
                            "--price-per-hour=-3", "--batch-size=-5"}) {
    Shell s = RunShell(fmt::format("{} analyze {} '{}'", *bin, flags, Healthy()), dir.path());
    EXPECT_EQ(s.code, kExitUsage) << flags << ": " << s.err;
  }
  Shell batch = RunShell(fmt::format("{} batch --jobs 100000 '{}'", *bin, Healthy()), dir.path());
  EXPECT_EQ(batch.code, kExitUsage) << batch.err;
  Shell ok = RunShell(fmt::format("{} analyze --threads 1024 --price-per-hour 2.5 "
                                  "--batch-size 8 '{}'",
                                  *bin, Healthy()),
                      dir.path());
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
}

// --- Inputs that are not files (point 6) ---

TEST(NotFiles, FifosSocketsAndDeviceLinksInARunAreSkippedAndNamed) {
  TempDir dir;
  fs::path run = dir.path() / "run";
  fs::create_directories(run);
  fs::copy_file(Healthy(), run / "worker0.1.pt.trace.json");
  ASSERT_EQ(mkfifo((run / "worker1.1.pt.trace.json").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", run / "worker2.1.pt.trace.json");
  fs::create_symlink("/dev/urandom", run / "worker3.1.pt.trace.json.gz");
  int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sock_path = (run / "worker4.1.pt.trace.json").string();
  if (sock_path.size() < sizeof(addr.sun_path)) {
    std::strcpy(addr.sun_path, sock_path.c_str());
    ASSERT_EQ(bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  }
  AnalyzeArgs args;
  args.path = run.string();
  args.format = "json";
  Result r = Analyze(args);  // returns: nothing was opened (a FIFO would block)
  close(sock);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  for (std::string_view what : {"worker1.1.pt.trace.json: skipped: named like a trace but a FIFO",
                                "worker2.1.pt.trace.json: skipped: named like a trace but a "
                                "character device (a link to /dev/zero)",
                                "worker3.1.pt.trace.json.gz: skipped"}) {
    EXPECT_THAT(r.out, HasSubstr(std::string(what))) << r.out.substr(0, 2000);
  }
  if (sock_path.size() < sizeof(addr.sun_path)) {
    EXPECT_THAT(r.out, HasSubstr("worker4.1.pt.trace.json: skipped: named like a trace but a "
                                 "socket"));
  }
  args.list = true;
  args.format = "text";
  Result listed = Analyze(args);
  EXPECT_EQ(listed.code, kExitOk) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("worker1.1.pt.trace.json: skipped"));
  EXPECT_THAT(listed.out, HasSubstr("a link to /dev/zero"));
}

TEST(NotFiles, BatchMergeReadsARepeatedRecordOnce) {
  TempDir dir;
  fs::path archive = dir.path() / "archive";
  fs::create_directories(archive / "a");
  fs::copy_file(Healthy(), archive / "a" / "rank0.json");
  BatchArgs shard;
  shard.paths = {archive.string()};
  shard.format = "jsonl";
  shard.output = (dir.path() / "s0.jsonl").string();
  std::ostringstream o1, e1;
  ASSERT_EQ(RunBatch(shard, o1, e1), kExitOk) << e1.str();
  // The run's record line twice (a shard output edited or concatenated).
  std::string text = ReadFile(shard.output);
  std::vector<std::string> lines;
  std::istringstream split(text);
  for (std::string line; std::getline(split, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << text;  // header, the run, the end mark
  testing::WriteFile(shard.output, lines[0] + "\n" + lines[1] + "\n" + lines[1] + "\n" +
                                       lines[2] + "\n");
  BatchArgs merge;
  merge.merge = true;
  merge.paths = {shard.output};
  merge.format = "csv";
  std::ostringstream out, err;
  int code = RunBatch(merge, out, err);
  EXPECT_EQ(code, kExitOk) << err.str();
  EXPECT_THAT(err.str(), HasSubstr("appears more than once; read once"));
  int rows = 0;
  std::istringstream csv(out.str());
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 2) << out.str();  // the header and the run once
}

}  // namespace
}  // namespace tracelint
