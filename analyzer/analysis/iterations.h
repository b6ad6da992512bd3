#ifndef TRACELINT_ANALYZER_ANALYSIS_ITERATIONS_H_
#define TRACELINT_ANALYZER_ANALYSIS_ITERATIONS_H_

// Iterations of a window without step markers, inferred from what repeats
// (docs/steady-state.md, "Iterations without step markers"). The anchors
// are tried in this order, and the first that repeats at least
// kMinIterations times at regular spacing (coefficient of variation of the
// spacing below kMaxSpacingCv) decides:
//   1. `Optimizer.step#...` annotations (they end an iteration);
//   2. a top-level module forward (`nn.Module: ...` Python frame) on the
//      main thread (it starts one);
//   3. `PjitFunction(...)` (JAX) or `session.run` / `SessionRun` (TF);
//   4. a compiled region (`Torch-Compiled Region`, `## Call CompiledFxGraph`).

#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis/interval_set.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

inline constexpr size_t kMinIterations = 3;
inline constexpr double kMaxSpacingCv = 0.5;

struct IterationAnchors {
  std::string name;        // the anchor's name ("Optimizer.step#SGD.step")
  std::string what;        // "optimizer steps", "top-level module forwards", ...
  bool ends_iteration = false;  // Optimizer.step ends an iteration; the others start one
  std::vector<SliceId> slices;  // the anchors, in time order, disjoint
  double spacing_cv = 0;        // of the anchors' spacing
};

std::optional<IterationAnchors> FindIterationAnchors(const Timeline& tl);

// Coefficient of variation (stddev / mean) of the spacing between
// consecutive instants, leaving the first spacing out when at least three
// remain (a first iteration pays first-call costs); -1 with fewer than two
// instants.
double SpacingCv(const std::vector<TimeNs>& instants_ns);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_ITERATIONS_H_
