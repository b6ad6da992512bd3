#include "parsers/annotate/annotate_writer.h"

#include <map>
#include <regex>
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

// The source's process metadata (process_name, process_sort_index) is the
// writer's own in the output, and pids are remapped: events compare without
// their pid, and without those.
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
    std::string_view cat, name;
    bool ours = (ev["pid"].get(pid) == simdjson::SUCCESS && pid >= tracelint_pid_from) ||
                (ev["cat"].get(cat) == simdjson::SUCCESS && cat == "tracelint");
    if (ours) {
      e.tracelint.push_back(simdjson::minify(ev));
      continue;
    }
    if (ev["name"].get(name) == simdjson::SUCCESS &&
        (name == "process_name" || name == "process_sort_index")) {
      continue;
    }
    std::string text = simdjson::minify(ev);
    text = std::regex_replace(text, std::regex("\"pid\":-?[0-9]+,?"), "");
    e.original.push_back(text);
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
                                       [](const Track& t) { return std::make_pair(t.pid, t.tid); });
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

// Ranks profiled on the same local GPU never merge: one process per rank
// and device, named for both, and every event keeps its ts.
TEST(AnnotateWriter, PidsAreRemappedToOneProcessPerRankAndDevice) {
  testing::Scenario r0 = LoaderBound(3, -1, "k", "aten::mm");
  r0.Distributed(0, 2);
  testing::Scenario r1 = LoaderBound(3, -1, "k", "aten::mm");
  r1.Distributed(1, 2);
  auto a = Analyse({r0, r1}, "annotate_pids");
  std::ostringstream out;
  ASSERT_TRUE(WriteAnnotatedTrace(a->input, out).ok());
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(out.str());
  std::map<int64_t, std::string> process_names;
  std::map<std::string, std::set<int64_t>> kernel_pids;  // by the rank's file
  std::multiset<double> kernel_ts_out;
  for (simdjson::dom::element ev : doc["traceEvents"].get_array()) {
    std::string_view ph = ev["ph"].get_string().value_unsafe();
    std::string_view name;
    if (ev["name"].get(name) != simdjson::SUCCESS) continue;
    int64_t pid = ev["pid"].get_int64().value_unsafe();
    if (ph == "M" && name == "process_name") {
      process_names[pid] = std::string(ev["args"]["name"].get_string().value_unsafe());
    }
    std::string_view cat;
    if (ev["cat"].get(cat) == simdjson::SUCCESS && cat == "kernel") {
      kernel_ts_out.insert(ev["ts"].get_double().value_unsafe());
      kernel_pids[pid < 2'000'000 ? "rank0" : "rank1"].insert(pid);
    }
  }
  ASSERT_EQ(kernel_pids["rank0"].size(), 1u);
  ASSERT_EQ(kernel_pids["rank1"].size(), 1u);
  const int64_t gpu0_of_rank0 = *kernel_pids["rank0"].begin();
  const int64_t gpu0_of_rank1 = *kernel_pids["rank1"].begin();
  EXPECT_NE(gpu0_of_rank0, gpu0_of_rank1);
  EXPECT_EQ(process_names[gpu0_of_rank0], "rank 0 GPU 0");
  EXPECT_EQ(process_names[gpu0_of_rank1], "rank 1 GPU 0");
  // ts untouched: the kernels' times are those of the two input files.
  std::multiset<double> kernel_ts_in;
  for (const char* file : {"rank0.pt.trace.json", "rank1.pt.trace.json"}) {
    simdjson::dom::parser p;
    simdjson::dom::element in = p.parse(Slurp(a->trace_path / file));
    for (simdjson::dom::element ev : in["traceEvents"].get_array()) {
      std::string_view cat;
      if (ev["cat"].get(cat) == simdjson::SUCCESS && cat == "kernel") {
        kernel_ts_in.insert(ev["ts"].get_double().value_unsafe());
      }
    }
  }
  EXPECT_EQ(kernel_ts_out, kernel_ts_in);
  // Every process the events use is named.
  for (const auto& [rank, pids] : kernel_pids) {
    for (int64_t pid : pids) EXPECT_TRUE(process_names.contains(pid)) << pid;
  }
}

// Events the parser rejected are not copied: the output is valid JSON and
// valid UTF-8 whatever the input held, and says how many it left out.
TEST(AnnotateWriter, EventsTheParserRejectedAreDroppedAndCounted) {
  const std::string hostile =
      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad\xff\xfe\",\"pid\":1,\"tid\":1,"
      "\"ts\":1,\"dur\":1},\n"
      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"esc\\q\",\"pid\":1,\"tid\":1,"
      "\"ts\":2,\"dur\":1},\n"
      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"sur\\ud800\",\"pid\":1,\"tid\":1,"
      "\"ts\":3,\"dur\":1},\n"
      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"tab\tin\",\"pid\":1,\"tid\":1,"
      "\"ts\":4,\"dur\":1},\n";
  auto a = Analyse({LoaderBound(3, -1, "k", "aten::mm")}, "annotate_hostile",
                   [&](std::string json) {
                     size_t at = json.find("\"traceEvents\": [");
                     if (at == std::string::npos) at = json.find("\"traceEvents\":[");
                     EXPECT_NE(at, std::string::npos);
                     at = json.find('[', at) + 1;
                     return json.insert(at, "\n" + hostile);
                   });
  ASSERT_FALSE(a->timelines.empty());
  std::ostringstream out;
  absl::StatusOr<AnnotateStats> stats = WriteAnnotatedTrace(a->input, out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->events_dropped, 4);
  std::string annotated = out.str();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(annotated).get(doc), simdjson::SUCCESS);  // validates UTF-8 too
  EXPECT_EQ(annotated.find("bad\xff"), std::string::npos);
  EXPECT_EQ(annotated.find("esc\\q"), std::string::npos);
  int64_t counted = -1;
  for (simdjson::dom::element ev : doc["traceEvents"].get_array()) {
    std::string_view name;
    if (ev["name"].get(name) == simdjson::SUCCESS && name == "tracelint_dropped_events") {
      counted = ev["args"]["count"].get_int64().value_unsafe();
    }
  }
  EXPECT_EQ(counted, 4);
  // Everything the parser kept is there: it reads back as the same slices.
  std::filesystem::path copy = a->trace_path / "annotated_hostile.json";
  std::ofstream(copy, std::ios::binary) << annotated;
  absl::StatusOr<Timeline> back = ParseTraceFile(copy.string(), ParseOptions());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->diagnostics().Count("malformed_event"), 0);
}

}  // namespace
}  // namespace tracelint
