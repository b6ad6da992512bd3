// Hostile-input regression that runs everywhere (no fuzzer needed): every
// trace in testdata/ (and, when present, the small XSpace files of the
// corpus) is truncated, bit-flipped, cut and gzip-damaged in a fixed,
// seeded way, and each variant goes through the whole pipeline. Every one
// must be parsed or rejected with a Status: never a crash, a hang, broken
// invariants, or a NaN.


#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_files.h"
#include "gtest/gtest.h"
#include "parsers/common/gzip_bytes.h"
#include "tests/fuzz/fuzz_pipeline.h"

namespace tracelint::fuzz {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::SourceDir;

std::string Gzip(const std::string& raw) { return ::tracelint::testing::GzipBytes(raw); }

std::vector<std::string> Mutations(const std::string& seed_bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  auto pos = [&](size_t n) { return n == 0 ? size_t{0} : std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const std::string& s = seed_bytes;
  for (int i = 0; i < 12; ++i) out.push_back(s.substr(0, pos(s.size())));
  for (int i = 0; i < 12; ++i) {
    std::string m = s;
    for (int k = 0; k < 1 + i % 4; ++k) {
      if (!m.empty()) m[pos(m.size())] = static_cast<char>(rng() & 0xff);
    }
    out.push_back(std::move(m));
  }
  // Structural damage where it hurts JSON most: quotes, brackets, digits.
  const std::string specials = "\"{}[],:-.0e";
  for (int i = 0; i < 8; ++i) {
    std::string m = s;
    if (!m.empty()) m[pos(m.size())] = specials[rng() % specials.size()];
    out.push_back(std::move(m));
  }
  for (int i = 0; i < 4; ++i) {
    std::string m = s;
    size_t a = pos(m.size());
    size_t len = std::min(m.size() - a, pos(4096) + 1);
    m.erase(a, len);
    out.push_back(std::move(m));
  }
  std::string gz = Gzip(s);
  out.push_back(gz);
  for (int i = 0; i < 4; ++i) out.push_back(gz.substr(0, pos(gz.size())));
  for (int i = 0; i < 4; ++i) {
    std::string m = gz;
    if (m.size() > 20) m[10 + pos(m.size() - 10)] ^= static_cast<char>(1 + rng() % 255);
    out.push_back(std::move(m));
  }
  out.push_back("");
  out.push_back(std::string(1, s.empty() ? '{' : s[0]));
  return out;
}

std::vector<fs::path> SeedFiles() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(SourceDir() + "/testdata")) {
    if (e.is_regular_file() && e.path().extension() == ".json" &&
        e.file_size() < 512 * 1024 && e.path().filename() != "expected.json") {
      files.push_back(e.path());
    }
  }
  fs::path corpus = fs::path(SourceDir()) / ".." / "shared" / "corpus" / "AMD-AGI__TraceLens" /
                    "tests" / "traces" / "mi300" / "jax08_gemm" / "tw003.xplane.pb";
  if (fs::exists(corpus)) files.push_back(corpus);
  std::sort(files.begin(), files.end());
  return files;
}

TEST(MutationReplay, EveryDamagedVariantIsHandled) {
  std::vector<fs::path> seeds = SeedFiles();
  ASSERT_GT(seeds.size(), 10u) << "testdata/ traces not found under " << SourceDir();
  int runs = 0;
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::string bytes = ReadFile(seeds[i]);
    std::vector<std::string> variants = Mutations(bytes, static_cast<uint32_t>(i + 1));
    for (size_t v = 0; v < variants.size(); ++v) {
      const std::string& m = variants[v];
      std::string problem =
          RunPipelineOnBytes(reinterpret_cast<const uint8_t*>(m.data()), m.size());
      EXPECT_EQ(problem, "") << seeds[i] << " variant " << v;
      ++runs;
    }
  }
  std::printf("mutation replay: %d variants of %zu traces\n", runs, seeds.size());
}

}  // namespace
}  // namespace tracelint::fuzz
