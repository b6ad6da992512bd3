#ifndef TRACELINT_TESTS_SUPPORT_ANALYSED_H_
#define TRACELINT_TESTS_SUPPORT_ANALYSED_H_

// A generated trace's timeline with its analysis context, for the tests of
// one analysis. The context points into the timeline, so both live on the
// heap and move together.

#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "analyzer/analysis/analysis_context.h"
#include "gtest/gtest.h"
#include "tests/support/scenario.h"

namespace tracelint::testing {

struct Analysed {
  Timeline tl;
  std::unique_ptr<AnalysisContext> ctx;
  const IdleAttribution& idle() { return ctx->idle_attribution(); }
  const TraceIntegrity& integrity() { return ctx->trace_integrity(); }
};

inline std::unique_ptr<Analysed> Analyse(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  auto out = std::make_unique<Analysed>();
  if (tl.ok()) out->tl = std::move(*tl);
  out->ctx = std::make_unique<AnalysisContext>(out->tl);
  return out;
}

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_ANALYSED_H_
