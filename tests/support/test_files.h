#ifndef TRACELINT_TESTS_SUPPORT_TEST_FILES_H_
#define TRACELINT_TESTS_SUPPORT_TEST_FILES_H_

// File helpers the tests share: where the source tree is, whole-file reads
// and writes, scratch directories, gzip encoding and gzip bombs.

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "parsers/common/gzip_bytes.h"

namespace tracelint::testing {

// The checkout the tests read testdata from (ctest sets it); "." otherwise.
inline std::string SourceDir() {
  const char* dir = std::getenv("TRACELINT_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

// The shared corpus of real traces, checked out beside the repository
// (CONTRIBUTING.md, "Real traces"); tests over it skip visibly without it.
inline std::filesystem::path CorpusDir() {
  return std::filesystem::path(SourceDir()) / ".." / "shared" / "corpus";
}

// The whole file, bytes as they are; empty when it cannot be read.
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces the file, creating its directory.
inline void WriteFile(const std::filesystem::path& path, std::string_view text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.good()) ADD_FAILURE() << "cannot write " << path;
}

// An empty directory under the test temp dir. The pid keeps concurrent runs
// (ctest -j, several checkouts) apart; a rerun of a name starts empty.
inline std::filesystem::path FreshDir(std::string_view name) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              ("tracelint_" + std::to_string(getpid()) + "_" + std::string(name));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A fresh directory under the test temp dir, removed by the caller's scope.
class TempDir {
 public:
  TempDir() {
    std::string base = ::testing::TempDir();
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // mkdtemp: a fresh name per process, so parallel runs (ctest -j, two
    // build trees) never share or delete each other's files.
    // Outside a test (a suite's SetUpTestSuite) there is no test name.
    const std::string who =
        info == nullptr ? "suite" : std::string(info->test_suite_name()) + "_" + info->name();
    std::string tmpl =
        (std::filesystem::path(base) / ("tracelint_" + who + "_XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << tmpl;
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string Write(const std::string& name, std::string_view bytes) const {
    std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// One gzip member holding `bytes`.
inline std::string Gzip(std::string_view bytes) { return GzipBytes(bytes); }

// A gzip bomb of valid Kineto events, made on the fly: one member holding
// the header and a first event, then `members` copies of one member holding
// ~1 MiB of events (each with a `pad_bytes` string arg), compressed at level
// 9 (about 1000x: repeated text, as a bomb is made); the array is never
// closed. Returns the bytes it would decompress to.
inline uint64_t WriteGzipBomb(const std::string& path, int members, size_t pad_bytes) {
  std::string block;
  std::string pad(pad_bytes, 'p');
  while (block.size() < (size_t{1} << 20)) {
    block += ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"bomb\", \"pid\": 1, "
             "\"tid\": 1, \"ts\": 100, \"dur\": 5, \"args\": "
             "{\"pad\": \"" + pad + "\"}}";
  }
  std::string head = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n  {\"ph\": \"X\", "
                     "\"cat\": \"cpu_op\", \"name\": \"first\", \"pid\": 1, \"tid\": 1, "
                     "\"ts\": 0, \"dur\": 1}";
  auto gzip9 = [](const std::string& bytes) { return GzipBytes(bytes, 9); };
  std::string member = gzip9(block);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << gzip9(head);
  for (int i = 0; i < members; ++i) out << member;
  return head.size() + uint64_t{block.size()} * static_cast<uint64_t>(members);
}

// Columns a line takes on a terminal: one per UTF-8 code point.
inline size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The same bomb grown to about `file_bytes` of gzip (the whole members that
// fit): issue 31's 73 MB bomb of tiny events is WriteGzipBombOfSize(path,
// 73'000'000, 0). Returns the bytes it would decompress to.
inline uint64_t WriteGzipBombOfSize(const std::string& path, uint64_t file_bytes,
                                    size_t pad_bytes) {
  uint64_t one = WriteGzipBomb(path, 1, pad_bytes);
  uint64_t member_file_bytes = std::filesystem::file_size(path);
  uint64_t two = WriteGzipBomb(path, 2, pad_bytes);
  uint64_t member_bytes = std::filesystem::file_size(path) - member_file_bytes;
  (void)two;
  int members = static_cast<int>(file_bytes / std::max<uint64_t>(member_bytes, 1));
  (void)one;
  return WriteGzipBomb(path, std::max(members, 1), pad_bytes);
}

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_TEST_FILES_H_
