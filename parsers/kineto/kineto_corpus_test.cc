// Parses every Kineto trace of ../shared/corpus (listed in MANIFEST.tsv),
// checks the timeline invariants on each and prints what was read. Skips,
// visibly, when the corpus is not next to the repository.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/model/timeline_invariants.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "parsers/kineto/kineto_parser.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;

struct ManifestRow {
  std::string path;
  std::string format;
  int64_t events = -1;
  int64_t kernels = -1;
};

std::vector<ManifestRow> ReadManifest(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::vector<std::string> header;
  std::vector<ManifestRow> rows;
  auto split = [](const std::string& l) {
    std::vector<std::string> cols;
    std::stringstream ss(l);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    return cols;
  };
  auto number = [](const std::string& s) -> int64_t {
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    return end != s.c_str() && *end == '\0' ? v : -1;
  };
  while (std::getline(in, line)) {
    std::vector<std::string> cols = split(line);
    if (header.empty()) {
      header = cols;
      continue;
    }
    ManifestRow row;
    for (size_t i = 0; i < cols.size() && i < header.size(); ++i) {
      if (header[i] == "local_path") row.path = cols[i];
      if (header[i] == "format") row.format = cols[i];
      if (header[i] == "events") row.events = number(cols[i]);
      if (header[i] == "gpu_kernels") row.kernels = number(cols[i]);
    }
    rows.push_back(row);
  }
  return rows;
}

TEST(KinetoCorpus, EveryKinetoTraceParsesWithInvariants) {
  fs::path corpus = CorpusDir();
  if (!fs::exists(corpus / "MANIFEST.tsv")) {
    GTEST_SKIP() << "corpus not found at " << corpus.string() << " (../shared/corpus)";
  }
  std::vector<ManifestRow> rows = ReadManifest(corpus / "MANIFEST.tsv");
  int parsed = 0;
  std::printf("%-70s %8s %8s %7s %7s %6s %9s\n", "trace", "events", "slices", "kernels",
              "linked", "steps", "parse_ms");
  for (const ManifestRow& row : rows) {
    if (!row.format.starts_with("kineto-json")) continue;
    SCOPED_TRACE(row.path);
    fs::path file = corpus / row.path;
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Timeline> tl = ParseKinetoJsonFile(file.string(), ParseOptions{});
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                          start).count();
    ASSERT_TRUE(tl.ok()) << tl.status();
    ++parsed;
    absl::Status invariants = CheckTimelineInvariants(*tl);
    EXPECT_TRUE(invariants.ok()) << invariants;
    EXPECT_FALSE(tl->metadata().truncated);
    EXPECT_FALSE(tl->diagnostics().HasAtLeast(Severity::kError));
    const SliceColumns& c = tl->slices();
    int64_t kernels = 0, linked = 0, steps = 0;
    for (SliceId s = 0; s < c.size(); ++s) {
      if (c.kind[s] == EventKind::kKernel) {
        ++kernels;
        if (c.launch[s] != kNoIndex) ++linked;
      }
      if (tl->HasFlag(s, kFlagStepMarker)) ++steps;
    }
    // The manifest characterises each file with its own counts.
    if (row.events >= 0) {
      EXPECT_EQ(tl->metadata().events_read, row.events);
    }
    // The manifest counts events of category "kernel"; MTIA compute events
    // (mtia_ccp_events) are device kernels to us, not to the manifest.
    bool mtia = false;
    for (const DeviceInfo& d : tl->metadata().devices) mtia = mtia || d.vendor == "Meta";
    if (row.kernels >= 0 && !mtia) {
      EXPECT_EQ(kernels, row.kernels);
    }
    std::string name = row.path.size() > 70 ? "..." + row.path.substr(row.path.size() - 67)
                                            : row.path;
    std::printf("%-70s %8lld %8zu %7lld %6.1f%% %6lld %9.1f\n", name.c_str(),
                static_cast<long long>(tl->metadata().events_read), c.size(),
                static_cast<long long>(kernels),
                kernels > 0 ? 100.0 * static_cast<double>(linked) / static_cast<double>(kernels)
                            : 0.0,
                static_cast<long long>(steps), ms);
  }
  EXPECT_GT(parsed, 0) << "no kineto-json rows in the manifest";
}

}  // namespace
}  // namespace tracelint
