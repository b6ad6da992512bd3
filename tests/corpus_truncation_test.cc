// Every trace of the reference corpus (../shared/corpus; skipped visibly when
// absent) cut at 50 points (issue 12, docs/robustness.md "Truncated
// traces"): inside the gzip stream (header, deflate data, the 8-byte
// trailer) and in the decompressed JSON, fed plain or re-gzipped, cut
// inside a string, inside a number, right after a backslash, between events
// and in the metadata after traceEvents; XSpace files across the file.
// Each cut must give a Status error naming the problem or a timeline marked
// damaged (exit 4), with its invariants intact and finite findings that
// never sum past the step; the steps it analyses must be complete steps of
// the full trace, and a finding the full trace lacks must be shown by them.

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/model/event_kinds.h"
#include "analyzer/model/timeline_invariants.h"
#include "tests/support/test_files.h"
#include "gtest/gtest.h"
#include "parsers/common/gzip_bytes.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"
#include "tests/fuzz/mem_file.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;
using testing::ReadFile;

constexpr int kCutsPerTrace = 50;
constexpr int kCompressedCuts = 10;  // of a .gz trace's 50: in the gzip stream itself

std::string Gunzip(const std::string& gz) {
  std::string out;
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  }
  inflateEnd(&zs);
  return out;
}

// Level 1: the cut JSON is re-gzipped only to exercise the gzip reader on a
// stream that ends cleanly around damaged JSON; speed matters, size not.
std::string Gzip(std::string_view raw) { return ::tracelint::testing::GzipBytes(raw, 1); }

struct Cut {
  std::string what;  // "json string @123 (gzip)": names the cut in failures
  std::string bytes;
};

// Where in the JSON a cut lands, each kind placed from a fraction of the
// text onwards (first match after it), so the cuts spread over the file.
enum class Target { kString, kNumber, kEscape, kBetweenEvents, kMetadata };

size_t TargetPos(const std::string& json, Target target, double frac, size_t events_end) {
  size_t from = static_cast<size_t>(frac * static_cast<double>(json.size()));
  auto after = [&](std::string_view needle, size_t skip) -> size_t {
    size_t p = json.find(needle, from);
    if (p == std::string::npos) p = json.find(needle);
    return p == std::string::npos ? std::string::npos : p + needle.size() + skip;
  };
  size_t pos = std::string::npos;
  switch (target) {
    case Target::kString:
      pos = after("\"name\": \"", 2);
      break;
    case Target::kNumber:
      pos = after("\"ts\": ", 3);
      break;
    case Target::kEscape:
      pos = after("\\", 0);  // the byte after a backslash
      break;
    case Target::kBetweenEvents:
      pos = after("},", 0);
      break;
    case Target::kMetadata:
      // Between the end of the event array and the end of the document.
      pos = events_end + static_cast<size_t>(frac * static_cast<double>(json.size() - events_end));
      break;
  }
  if (pos == std::string::npos || pos >= json.size()) {
    pos = std::max<size_t>(1, from);  // no such place in this trace: a plain cut
  }
  // Cutting only trailing whitespace leaves a complete document: every cut
  // takes at least the final closing bracket.
  return std::min(pos, json.find_last_not_of(" \t\r\n"));
}

constexpr const char* kTargetNames[] = {"string", "number", "escape", "between-events",
                                        "metadata"};

void AddJsonCuts(const std::string& json, int count, std::vector<Cut>& cuts) {
  // The event array's closing bracket, or one after it: the last "]" that
  // closes an array of objects (traceEvents, or deviceProperties after it),
  // pretty-printed or on one line.
  size_t events_end = std::string::npos;
  for (size_t p = json.rfind(']'); p != std::string::npos && p > 0; p = json.rfind(']', p - 1)) {
    size_t q = json.find_last_not_of(" \t\r\n", p - 1);
    if (q != std::string::npos && json[q] == '}') {
      events_end = p;
      break;
    }
  }
  if (events_end == std::string::npos) events_end = json.size() / 2;
  for (int i = 0; i < count; ++i) {
    auto target = static_cast<Target>(i % 5);
    double frac = (i + 0.5) / count;
    size_t pos = TargetPos(json, target, frac, events_end);
    bool gzip = i % 2 == 1;
    std::string_view kept(json.data(), pos);
    cuts.push_back({fmt::format("json {} cut @{} of {}{}", kTargetNames[i % 5], pos, json.size(),
                                gzip ? " (re-gzipped)" : ""),
                    gzip ? Gzip(kept) : std::string(kept)});
  }
}

std::vector<Cut> CutsOf(const fs::path& path, const std::string& bytes) {
  std::vector<Cut> cuts;
  std::string name = path.filename().string();
  auto cut_at = [&](size_t pos, std::string what) {
    pos = std::min(pos, bytes.size() - 1);
    cuts.push_back({fmt::format("{} @{} of {}", what, pos, bytes.size()), bytes.substr(0, pos)});
  };
  if (name.ends_with(".gz")) {
    // The gzip stream: inside the 10-byte header, across the deflate data,
    // inside the 8-byte trailer (CRC-32, length).
    size_t n = bytes.size();
    cut_at(3, "gzip header");
    cut_at(10, "gzip header end");
    for (int k = 1; k <= 4; ++k) cut_at(10 + (n - 18) * k / 5, "deflate data");
    for (size_t back : {8, 7, 4, 1}) cut_at(n - back, "gzip trailer");
    AddJsonCuts(Gunzip(bytes), kCutsPerTrace - kCompressedCuts, cuts);
  } else if (name.ends_with(".json")) {
    AddJsonCuts(bytes, kCutsPerTrace, cuts);
  } else {
    for (int i = 0; i < kCutsPerTrace; ++i) {
      cut_at(std::max<size_t>(1, bytes.size() * i / kCutsPerTrace + i), "xspace");
    }
  }
  return cuts;
}

struct Analysis {
  std::unique_ptr<Timeline> timeline;
  std::unique_ptr<AnalysisContext> context;
  EngineResult result;
};

absl::StatusOr<Analysis> Analyse(const std::string& path) {
  absl::StatusOr<Timeline> tl = ParseTraceFile(path, ParseOptions());
  if (!tl.ok()) return tl.status();
  Analysis a;
  a.timeline = std::make_unique<Timeline>(std::move(*tl));
  if (absl::Status s = CheckTimelineInvariants(*a.timeline); !s.ok()) return s;
  a.context = std::make_unique<AnalysisContext>(*a.timeline);
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<AnalysisContext*> ranks = {a.context.get()};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions(), ranks);
  if (!result.ok()) return result.status();
  a.result = std::move(*result);
  return a;
}

std::set<std::string> Keys(const EngineResult& r) {
  std::set<std::string> keys;
  for (const Finding& f : r.findings) keys.insert(f.rule_id + "/" + f.cause);
  return keys;
}

bool MarkedDamaged(const Timeline& tl) {
  if (tl.metadata().truncated) return true;
  if (tl.diagnostics().HasAtLeast(Severity::kError)) return true;
  // A gzip stream cut inside its trailer holds all the data, unverified.
  for (const Diagnostic& d : tl.diagnostics().List()) {
    if (d.name == "truncated_input") return true;
  }
  return false;
}

// Device activities on device tracks starting in [start, end).
int64_t DeviceWorkIn(const Timeline& tl, TimeNs start_ns, TimeNs end_ns) {
  const SliceColumns& c = tl.slices();
  int64_t n = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (tl.tracks()[c.track[s]].kind != TrackKind::kDeviceStream || !IsDeviceActivity(c.kind[s])) {
      continue;
    }
    if (c.ts_ns[s] >= start_ns && c.ts_ns[s] < end_ns) ++n;
  }
  return n;
}

struct Tally {
  int cuts = 0, errors = 0, partial = 0;
  int with_steps = 0, steps = 0;  // salvage: partial reports that kept steps, and how many
};

void CheckCut(const fs::path& trace, const Cut& cut, const Analysis* full, Tally& tally) {
  SCOPED_TRACE(fmt::format("{}: {}", trace.string(), cut.what));
  ++tally.cuts;
  fuzz::MemFile file(reinterpret_cast<const uint8_t*>(cut.bytes.data()), cut.bytes.size());
  ASSERT_TRUE(file.ok());
  absl::StatusOr<Analysis> a = Analyse(file.path());
  if (!a.ok()) {
    EXPECT_FALSE(a.status().message().empty()) << "an error without a message";
    EXPECT_NE(a.status().code(), absl::StatusCode::kInternal) << a.status();
    ++tally.errors;
    return;
  }
  ++tally.partial;
  EXPECT_TRUE(MarkedDamaged(*a->timeline)) << "a cut trace read as healthy";
  double share_sum = 0;
  for (const Finding& f : a->result.findings) {
    EXPECT_TRUE(std::isfinite(f.recoverable_share) && f.recoverable_share >= 0 &&
                f.recoverable_share <= 1)
        << f.rule_id << ": " << f.recoverable_share;
    share_sum += f.recoverable_share;
  }
  EXPECT_LE(share_sum, 1.0 + 1e-9);
  if (full == nullptr) return;

  // The steps analysed are complete steps of the full trace: the cut step
  // (host or device work missing) is never analysed as complete, and a
  // finding the full trace lacks is a failure (the analysed steps being
  // complete, their findings are the full trace's on those steps).
  const StepSet& cut_steps = a->context->steps();
  const StepSet& full_steps = full->context->all_steps();
  auto problem = [&](const std::string& what) { ADD_FAILURE() << what; };
  if (!cut_steps.steps.empty()) ++tally.with_steps;
  tally.steps += static_cast<int>(cut_steps.steps.size());
  if (cut_steps.from_markers && full_steps.from_markers) {
    for (const Step& s : cut_steps.steps) {
      auto it = std::find_if(full_steps.steps.begin(), full_steps.steps.end(),
                             [&](const Step& f) { return f.number == s.number; });
      ASSERT_NE(it, full_steps.steps.end()) << "step " << s.number << " is not in the full trace";
      // Device work is counted on the device tracks over the step's time,
      // not by launch links: a cut can lose the flow events that link
      // kernels read before it (Kineto writes many at the end).
      int64_t cut_work = DeviceWorkIn(*a->timeline, s.start_ns, s.end_ns);
      int64_t full_work = DeviceWorkIn(*full->timeline, s.start_ns, s.end_ns);
      if (cut_work != full_work || s.host_end_ns != it->host_end_ns) {
        problem(fmt::format("step {} analysed with work missing: {} of {} device activities, "
                            "host end {} vs {}",
                            s.number, cut_work, full_work, s.host_end_ns, it->host_end_ns));
      }
    }
  }
  std::set<std::string> full_keys = Keys(full->result);
  for (const Finding& f : a->result.findings) {
    std::string key = f.rule_id + "/" + f.cause;
    if (!full_keys.count(key)) problem("finding " + key + " (" + f.title + ") not in the full trace");
  }
}

TEST(CorpusTruncation, EveryCutIsAnErrorOrAPartialReport) {
  if (!fs::exists(CorpusDir() / "MANIFEST.tsv")) {
    GTEST_SKIP() << "corpus not found at " << CorpusDir() << " (../shared absent)";
  }
  std::vector<fs::path> traces;
  for (const auto& e : fs::recursive_directory_iterator(CorpusDir())) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file() &&
        (name.ends_with(".json.gz") || name.ends_with(".json") || name.ends_with(".xplane.pb"))) {
      traces.push_back(e.path());
    }
  }
  std::sort(traces.begin(), traces.end());
  ASSERT_GE(traces.size(), 30u);
  const char* only = std::getenv("TRACELINT_TRUNCATION_ONLY");  // a substring, to debug one
  Tally tally;
  auto start = std::chrono::steady_clock::now();
  for (const fs::path& trace : traces) {
    if (only && trace.string().find(only) == std::string::npos) continue;
    auto t0 = std::chrono::steady_clock::now();
    std::string bytes = ReadFile(trace);
    absl::StatusOr<Analysis> full = Analyse(trace.string());
    std::vector<Cut> cuts = CutsOf(trace, bytes);
    EXPECT_EQ(cuts.size(), static_cast<size_t>(kCutsPerTrace)) << trace;
    for (const Cut& cut : cuts) CheckCut(trace, cut, full.ok() ? &*full : nullptr, tally);
    std::printf("  %5.1f s  %s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                trace.lexically_relative(CorpusDir()).c_str());
  }
  std::printf("corpus truncation: %d cuts of %zu traces in %.0f s: %d errors, %d partial; "
              "%d kept steps (%d in all)\n",
              tally.cuts, traces.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              tally.errors, tally.partial, tally.with_steps, tally.steps);
  // Dropping every step of every cut would pass the checks above; a cut
  // trace must still be analysed where its order proves steps whole (299
  // of the 1,569 partial reports kept steps when this was written).
  if (only == nullptr) {
    EXPECT_GE(tally.with_steps * 10, tally.partial) << "salvage collapsed";
  }
}

}  // namespace
}  // namespace tracelint
