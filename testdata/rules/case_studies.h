#ifndef TRACELINT_TESTDATA_RULES_CASE_STUDIES_H_
#define TRACELINT_TESTDATA_RULES_CASE_STUDIES_H_

// Hand-built traces for gpu-idle-gaps and host-side-ops, each reproducing a
// situation a user would recognise, with what it was built to lose. The
// generator (generate_main.cc) writes them to testdata/rules/<name>.json;
// the rule tests and the golden test build them in memory.

#include <string>
#include <vector>

#include "analyzer/base/time.h"
#include "tests/support/scenario.h"

namespace tracelint::case_studies {

struct CaseStudy {
  std::string name;         // file stem
  std::string description;
  testing::Scenario scenario;
};

// Per step, by construction.
inline constexpr int kSteps = 6;
inline constexpr TimeNs kLoaderNs = 12 * kNsPerMs;          // single-process DataLoader
inline constexpr TimeNs kAfterItemHostNs = 1500 * kNsPerUs;  // host work after .item()
inline constexpr TimeNs kLogAfterItemNs = 3 * kNsPerMs;      // logging after loss.item()
inline constexpr TimeNs kNumpyIdleNs = 1 * kNsPerMs;         // GPU idle in a numpy op

// A single-process DataLoader starves the GPU (main), and loss.item()
// before the optimizer step drains the queue (smaller).
testing::Scenario DataLoaderStarvation();
// loss.item() + logging every step (main), and a host-side numpy
// post-processing op that outlasts the queued work (smaller).
testing::Scenario ItemInLoop();
// The GPU is kept busy: no finding is expected.
testing::Scenario Healthy();
// A CPU-only profile: rules say they could not judge.
testing::Scenario CpuOnly();
// The DataLoader case without ProfilerStep markers: one window.
testing::Scenario NoStepMarkers();
// The DataLoader case without correlation ids: idle cannot be attributed.
testing::Scenario NoCorrelation();
// CUDA graph replays launched after the DataLoader: the host launched them
// late, so the idle is the DataLoader's.
testing::Scenario GraphReplay();
// CUDA graph replays launched at once, with gaps between their nodes: the
// replay's own order, which the trace does not show, so not attributed.
testing::Scenario GraphReplayGaps();

std::vector<CaseStudy> AllCaseStudies();

}  // namespace tracelint::case_studies

#endif  // TRACELINT_TESTDATA_RULES_CASE_STUDIES_H_
