// The scaler keeps a trace's links and steps valid: a trace scaled to k
// copies parses to k times the original's steps, launches, flows and
// kernels, with distinct step numbers, and the same rules fire on it.

#include "bench/trace_scaler.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"
#include "tools/gen_kineto/kineto_generator.h"

namespace tracelint::bench {
namespace {

namespace fs = std::filesystem;

struct Census {
  int64_t slices = 0;
  int64_t kernels = 0;
  int64_t launched = 0;  // device activities linked to their launch
  int64_t flows = 0;
  int64_t metadata = 0;  // on the profiler's own tracks (pid "Spans", "Traces", "")
  int64_t steps = 0;
  bool from_markers = false;  // steps from ProfilerStep#N markers
  std::set<int64_t> step_numbers;
  std::set<std::string> rules;  // rule ids with findings
};

Census Take(const std::string& path) {
  Census c;
  absl::StatusOr<Timeline> tl = ParseTraceFile(path, ParseOptions());
  EXPECT_TRUE(tl.ok()) << tl.status();
  if (!tl.ok()) return c;
  const SliceColumns& s = tl->slices();
  c.slices = static_cast<int64_t>(s.size());
  for (SliceId i = 0; i < s.size(); ++i) {
    c.kernels += s.kind[i] == EventKind::kKernel;
    c.launched += s.launch[i] != kNoIndex;
    c.metadata += tl->tracks()[s.track[i]].kind == TrackKind::kOther;
  }
  c.flows = static_cast<int64_t>(tl->flows().size());
  StepSet steps = ComputeSteps(*tl);
  c.steps = static_cast<int64_t>(steps.steps.size());
  c.from_markers = steps.from_markers;
  for (const Step& step : steps.steps) c.step_numbers.insert(step.number);
  AnalysisContext context(*tl);
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<AnalysisContext*> ranks = {&context};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions(), ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  if (result.ok()) {
    for (const Finding& f : result->findings) c.rules.insert(f.rule_id);
  }
  return c;
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / fmt::format("trace_scaler_test_{}_{}", getpid(), name))
      .string();
}

void ExpectScaled(const std::string& original, int64_t copies) {
  std::string scaled = TempPath("scaled.json");
  ScaleOptions options;
  options.copies = copies;
  absl::StatusOr<ScaleStats> stats = ScaleTraceFile(original, scaled, options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->copies, copies);
  EXPECT_EQ(stats->output_bytes, static_cast<int64_t>(fs::file_size(scaled)));
  Census a = Take(original);
  Census b = Take(scaled);
  fs::remove(scaled);
  ASSERT_GT(a.slices, 0);
  EXPECT_GT(a.launched, 0);
  EXPECT_TRUE(a.from_markers);  // every trace used here has ProfilerStep#N markers
  // The profiler's own spans and markers are metadata: written once.
  EXPECT_EQ(b.metadata, a.metadata);
  EXPECT_EQ(b.slices - b.metadata, copies * (a.slices - a.metadata));
  EXPECT_EQ(b.kernels, copies * a.kernels);
  EXPECT_EQ(b.launched, copies * a.launched);
  EXPECT_EQ(b.flows, copies * a.flows);
  if (a.from_markers) {
    EXPECT_EQ(b.steps, copies * a.steps);
    EXPECT_EQ(static_cast<int64_t>(b.step_numbers.size()), b.steps) << "step numbers repeat";
    EXPECT_TRUE(b.from_markers);
  }
  EXPECT_EQ(b.rules, a.rules);
}

TEST(TraceScaler, GeneratedTraceScalesItsLinksAndSteps) {
  std::string original = TempPath("generated.json");
  {
    absl::StatusOr<std::unique_ptr<gen::ByteSink>> sink = gen::OpenFileSink(original);
    ASSERT_TRUE(sink.ok());
    gen::GeneratorOptions options;
    options.target_bytes = 1 << 20;
    options.layers = 2;
    ASSERT_TRUE(gen::GenerateKinetoTrace(options, **sink).ok());
  }
  ExpectScaled(original, 3);
  fs::remove(original);
}

TEST(TraceScaler, ShiftsTimesIdsAndStepsAndKeepsMetadataOnce) {
  // One step: a launch, its kernel and their flow, between metadata.
  const std::string trace = R"j({"schemaVersion": 1, "traceEvents": [)j"
      R"j({"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "python"}}, )j"
      R"j({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 7, "tid": 7, "ts": 100.5, "dur": 20, "args": {"External id": 1}}, )j"
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 101, "dur": 2, "args": {"External id": 2, "correlation": 9, "Python parent id": null}}, )j"
      R"j({"ph": "s", "id": 9, "pid": 7, "tid": 7, "ts": 101, "cat": "ac2g", "name": "ac2g"}, )j"
      R"j({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 99, "dur": 30}, )j"
      R"j({"ph": "i", "name": "Record Window End", "pid": "", "tid": "", "ts": 125, "s": "g"}], )j"
      R"j("baseTimeNanoseconds": 5})j";
  gen::StringSink out;
  ScaleOptions options;
  options.copies = 2;
  absl::StatusOr<ScaleStats> stats = ScaleTrace(trace, options, out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->body_events, 3);
  EXPECT_EQ(stats->once_events, 3);
  // Body from 100.5 to 120.5 us: 20 us, + 1.
  EXPECT_EQ(stats->period_us, 21);
  EXPECT_EQ(stats->id_stride, 10);
  EXPECT_EQ(stats->step_stride, 1);
  const std::string expected = R"j({"schemaVersion": 1, "traceEvents": [)j"
      R"j({"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "python"}}, )j"
      R"j({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 7, "tid": 7, "ts": 100.5, "dur": 20, "args": {"External id": 1}}, )j"
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 101, "dur": 2, "args": {"External id": 2, "correlation": 9, "Python parent id": null}}, )j"
      R"j({"ph": "s", "id": 9, "pid": 7, "tid": 7, "ts": 101, "cat": "ac2g", "name": "ac2g"}, )j"
      R"j({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 99, "dur": 51}, )j"
      R"j({"ph": "i", "name": "Record Window End", "pid": "", "tid": "", "ts": 146, "s": "g"}, )j"
      R"j({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 7, "tid": 7, "ts": 121.5, "dur": 20, "args": {"External id": 11}}, )j"
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 122, "dur": 2, "args": {"External id": 12, "correlation": 19, "Python parent id": null}}, )j"
      R"j({"ph": "s", "id": 19, "pid": 7, "tid": 7, "ts": 122, "cat": "ac2g", "name": "ac2g"}], )j"
      R"j("baseTimeNanoseconds": 5})j";
  EXPECT_EQ(out.data(), expected);
  EXPECT_EQ(stats->output_bytes, static_cast<int64_t>(expected.size()));
}

TEST(TraceScaler, TargetBytesPicksTheNearestWholeCopies) {
  std::string trace = R"j([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1},)j"
                      "\n"
                      R"j({"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1}])j";
  gen::StringSink out;
  ScaleOptions options;
  options.target_bytes = 10 * static_cast<int64_t>(trace.size());
  absl::StatusOr<ScaleStats> stats = ScaleTrace(trace, options, out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->copies, 10);
  // Events stay one per line, as written.
  EXPECT_EQ(std::count(out.data().begin(), out.data().end(), '\n'), 19);
}

fs::path CorpusDir() {
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  return fs::path(root ? root : ".") / ".." / "shared" / "corpus";
}

TEST(TraceScaler, CorpusTraceOfEachShapeScales) {
  if (!fs::exists(CorpusDir() / "MANIFEST.tsv")) {
    GTEST_SKIP() << "corpus not found at " << CorpusDir() << " (../shared absent)";
  }
  // DDP with NCCL and fwdbwd flows; a legacy-category trace with string
  // tids; an inference step with shapes and Python stacks.
  for (const char* trace : {
           "AMD-AGI__TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
           "facebookresearch__HolisticTraceAnalysis/tests/data/nccl_parser_config/"
           "nccl_data.json.gz",
           "pytorch__kineto/tb_plugin/samples/resnet50_profiler_api_num_workers_4/"
           "worker0.pt.trace.json.gz",
       }) {
    SCOPED_TRACE(trace);
    ExpectScaled((CorpusDir() / trace).string(), 2);
  }
}

}  // namespace
}  // namespace tracelint::bench
