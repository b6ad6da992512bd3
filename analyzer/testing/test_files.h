#ifndef TRACELINT_ANALYZER_TESTING_TEST_FILES_H_
#define TRACELINT_ANALYZER_TESTING_TEST_FILES_H_

// File helpers the tests share: where the source tree is, whole-file reads
// and writes, and a fresh scratch directory per test.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace tracelint::testing {

// The checkout the tests read testdata from (ctest sets it); "." otherwise.
inline std::string SourceDir() {
  const char* dir = std::getenv("TRACELINT_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
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

}  // namespace tracelint::testing

#endif  // TRACELINT_ANALYZER_TESTING_TEST_FILES_H_
