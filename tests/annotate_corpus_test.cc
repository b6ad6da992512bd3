// `analyze --annotate` on real traces (skipped visibly without ../shared):
// the annotated file is Chrome trace JSON that the tool's own parser reads
// back as the same events plus the tracelint tracks.

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <unistd.h>

#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "parsers/annotate/annotate_writer.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "simdjson.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;

struct Counts {
  int64_t tracelint_slices = 0;
  int64_t tracelint_threads = 0;
  int64_t flows = 0;
};

Counts CountTracelintEvents(const fs::path& annotated) {
  Counts c;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  // Indexing a document that failed to load is undefined behaviour (UBSan).
  simdjson::error_code loaded = parser.load(annotated.string()).get(doc);
  EXPECT_EQ(loaded, simdjson::SUCCESS);
  if (loaded != simdjson::SUCCESS) return c;
  simdjson::dom::array events;
  EXPECT_EQ(doc["traceEvents"].get(events), simdjson::SUCCESS);
  for (simdjson::dom::element ev : events) {
    // Every event has the fields Perfetto and chrome://tracing key on.
    std::string_view ph;
    EXPECT_EQ(ev["ph"].get(ph), simdjson::SUCCESS);
    std::string_view cat;
    int64_t pid = 0;
    bool ours = (ev["cat"].get(cat) == simdjson::SUCCESS && cat == "tracelint") ||
                (ev["pid"].get(pid) == simdjson::SUCCESS && pid >= kAnnotatePidBase);
    if (!ours) continue;
    EXPECT_EQ(ev["pid"].get(pid), simdjson::SUCCESS);
    int64_t tid = 0;
    EXPECT_EQ(ev["tid"].get(tid), simdjson::SUCCESS);
    if (ph == "X") {
      ++c.tracelint_slices;
      double ts = 0, dur = -1;
      EXPECT_EQ(ev["ts"].get(ts), simdjson::SUCCESS);
      EXPECT_EQ(ev["dur"].get(dur), simdjson::SUCCESS);
      EXPECT_GE(dur, 0);
    } else if (ph == "M") {
      std::string_view name;
      if (ev["name"].get(name) == simdjson::SUCCESS && name == "thread_name") {
        ++c.tracelint_threads;
      }
    } else if (ph == "s" || ph == "f") {
      ++c.flows;
    }
  }
  return c;
}

void CheckReadBack(const std::string& relative) {
  fs::path trace = CorpusDir() / relative;
  if (!fs::exists(trace)) GTEST_SKIP() << "corpus not found at " << CorpusDir();
  // One directory per process: two builds' suites may run at once.
  std::string tmpl = (fs::path(::testing::TempDir()) / "tl_annotate_corpus_XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  fs::path out_dir = tmpl;
  struct RemoveOnExit {
    fs::path dir;
    ~RemoveOnExit() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{out_dir};
  fs::path annotated = out_dir / (trace.filename().string() + ".annotated.json");
  AnalyzeArgs args;
  args.path = trace.string();
  args.annotate = annotated.string();
  std::ostringstream out, err;
  ASSERT_EQ(RunAnalyze(args, out, err), kExitOk) << err.str();

  absl::StatusOr<Timeline> original = ParseTraceFile(trace.string(), ParseOptions());
  ASSERT_TRUE(original.ok()) << original.status();
  absl::StatusOr<Timeline> back = ParseTraceFile(annotated.string(), ParseOptions());
  ASSERT_TRUE(back.ok()) << back.status();
  Counts c = CountTracelintEvents(annotated);
  EXPECT_GT(c.tracelint_slices, 0);
  EXPECT_EQ(back->slice_count(), original->slice_count() + c.tracelint_slices);
  int64_t tracks = 0;
  // No tracelint thread needed the parser's nesting repair.
  for (const Track& t : back->tracks()) tracks += t.pid >= kAnnotatePidBase;
  EXPECT_EQ(tracks, c.tracelint_threads);
  // The original events analyse as before: same steps, same device time.
  int64_t kernels_before = 0, kernels_after = 0;
  for (size_t s = 0; s < original->slice_count(); ++s) {
    kernels_before += original->slices().kind[s] == EventKind::kKernel;
  }
  for (size_t s = 0; s < back->slice_count(); ++s) {
    kernels_after += back->slices().kind[s] == EventKind::kKernel;
  }
  EXPECT_EQ(kernels_after, kernels_before);
}

TEST(AnnotateCorpus, LegacyObjectTrace) {
  CheckReadBack(
      "pytorch__kineto/tb_plugin/samples/resnet50_profiler_api_num_workers_0/"
      "worker0.pt.trace.json.gz");
}

TEST(AnnotateCorpus, BareArrayTrace) {
  CheckReadBack("pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz");
}

TEST(AnnotateCorpus, NanosecondTraceWithBaseTime) {
  CheckReadBack(
      "facebookresearch__HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz");
}

TEST(AnnotateCorpus, XSpaceIsWrittenAsItsConvertedTimeline) {
  CheckReadBack("AMD-AGI__TraceLens/tests/traces/mi300/jax08_gemm/tw003.xplane.pb");
}

}  // namespace
}  // namespace tracelint
