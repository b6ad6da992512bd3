#include "parsers/annotate/annotate_writer.h"

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/report_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace tracelint {
namespace {

using report_fixture::Analyse;
using report_fixture::LoaderBound;

// The minified events of a Chrome trace, split into the tracelint ones (in
// the tracelint processes, or of category "tracelint": the flow ends sit on
// the host threads) and the rest.
struct Events {
  std::vector<std::string> original;
  std::vector<std::string> tracelint;
};

Events ReadEvents(const std::string& json, int64_t tracelint_pid_from) {
  Events e;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json.substr(0, 200);
  simdjson::dom::array events;
  if (doc.is_array()) {
    events = doc.get_array();
  } else {
    EXPECT_EQ(doc["traceEvents"].get(events), simdjson::SUCCESS);
  }
  for (simdjson::dom::element ev : events) {
    int64_t pid = 0;
    std::string_view cat;
    bool ours = (ev["pid"].get(pid) == simdjson::SUCCESS && pid >= tracelint_pid_from) ||
                (ev["cat"].get(cat) == simdjson::SUCCESS && cat == "tracelint");
    (ours ? e.tracelint : e.original).push_back(simdjson::minify(ev));
  }
  return e;
}

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AnnotateWriter, CopiesEveryEventAndAddsTheTracelintTracks) {
  auto a = Analyse({LoaderBound(5, -1, "ampere_sgemm_128x64_nn", "aten::mm")}, "annotate");
  ASSERT_FALSE(a->input.findings.empty());
  std::ostringstream out;
  ASSERT_TRUE(WriteAnnotatedTrace(a->input, out).ok());
  std::string annotated = out.str();

  std::string source = Slurp(a->trace_path / "rank0.pt.trace.json");
  Events before = ReadEvents(source, kAnnotatePidBase);
  Events after = ReadEvents(annotated, kAnnotatePidBase);
  EXPECT_EQ(after.original, before.original);
  ASSERT_FALSE(after.tracelint.empty());

  // Chrome trace structure Perfetto loads: names for the process and its
  // threads, complete slices with ts/dur in us, flow pairs.
  simdjson::dom::parser parser;
  std::set<std::string> thread_names;
  std::string process_name;
  std::map<int64_t, std::string> flow_phases;
  std::set<std::string> slice_names;
  int slices = 0;
  for (const std::string& text : after.tracelint) {
    simdjson::dom::element ev = parser.parse(text);
    std::string_view ph = ev["ph"].get_string();
    if (ph == "M") {
      std::string_view what = ev["name"].get_string();
      std::string_view name;
      if (ev["args"]["name"].get(name) != simdjson::SUCCESS) continue;
      if (what == "thread_name") thread_names.insert(std::string(name));
      if (what == "process_name") process_name = std::string(name);
    } else if (ph == "X") {
      ++slices;
      EXPECT_GE(ev["dur"].get_double().value(), 0);
      EXPECT_GT(ev["ts"].get_double().value(), 0);
      slice_names.insert(std::string(ev["name"].get_string().value()));
    } else if (ph == "s" || ph == "f") {
      flow_phases[ev["id"].get_int64()] += std::string(ph);
    }
  }
  EXPECT_EQ(process_name, "tracelint (rank 0)");
  EXPECT_TRUE(thread_names.count("gpu-idle-gaps: findings")) << ::testing::PrintToString(thread_names);
  EXPECT_TRUE(thread_names.count("gpu-idle-gaps: GPU 0 idle gaps"));
  EXPECT_TRUE(slice_names.count("data_loader"));
  EXPECT_TRUE(slice_names.count("#1 data_loader")) << ::testing::PrintToString(slice_names);
  ASSERT_FALSE(flow_phases.empty());
  for (const auto& [id, phases] : flow_phases) EXPECT_EQ(phases, "sf") << id;

  // The tool's own parser reads it back: the same events plus ours.
  std::filesystem::path copy = a->trace_path.parent_path() / "annotated_readback.json";
  std::ofstream(copy, std::ios::binary) << annotated;
  absl::StatusOr<Timeline> back = ParseTraceFile(copy.string(), ParseOptions());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->slice_count(), a->timelines[0]->slice_count() + slices);
  int tracelint_tracks = 0;
  for (const Track& t : back->tracks()) tracelint_tracks += t.pid >= kAnnotatePidBase;
  EXPECT_EQ(tracelint_tracks, static_cast<int>(thread_names.size()));
}

TEST(AnnotateWriter, FlowsEndOnTheHostOpThatCausedTheGap) {
  auto a = Analyse({LoaderBound(4, -1, "k", "aten::mm")}, "annotate_flows");
  std::string notes = AnnotationEvents(a->input, 0, a->timelines[0]->metadata().base_time_ns,
                                       /*converted=*/false);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse("[" + notes + "]");
  int ends = 0;
  for (simdjson::dom::element ev : doc.get_array()) {
    if (std::string_view(ev["ph"].get_string()) != "f") continue;
    ++ends;
    EXPECT_EQ(std::string_view(ev["bp"].get_string()), "e");
    EXPECT_EQ(ev["pid"].get_int64().value(), testing::kHostPid);
    EXPECT_EQ(ev["tid"].get_int64().value(), testing::kMainTid);
  }
  EXPECT_GT(ends, 0);
}

TEST(AnnotateWriter, SeveralRanksGetOneProcessEach) {
  testing::Scenario r0 = LoaderBound(3, -1, "k", "aten::mm");
  r0.Distributed(0, 2);
  testing::Scenario r1 = LoaderBound(3, -1, "k", "aten::mm");
  r1.Distributed(1, 2);
  auto a = Analyse({r0, r1}, "annotate_ranks");
  std::ostringstream out;
  ASSERT_TRUE(WriteAnnotatedTrace(a->input, out).ok());
  EXPECT_THAT(out.str(), ::testing::HasSubstr("\"tracelint (rank 0)\""));
  EXPECT_THAT(out.str(), ::testing::HasSubstr("\"tracelint (rank 1)\""));
  Events after = ReadEvents(out.str(), kAnnotatePidBase);
  Events r0_events = ReadEvents(Slurp(a->trace_path / "rank0.pt.trace.json"), kAnnotatePidBase);
  Events r1_events = ReadEvents(Slurp(a->trace_path / "rank1.pt.trace.json"), kAnnotatePidBase);
  EXPECT_EQ(after.original.size(), r0_events.original.size() + r1_events.original.size());
}

}  // namespace
}  // namespace tracelint
