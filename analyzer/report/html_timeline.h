#ifndef TRACELINT_ANALYZER_REPORT_HTML_TIMELINE_H_
#define TRACELINT_ANALYZER_REPORT_HTML_TIMELINE_H_

// The HTML report's timeline of one step: device streams and host threads,
// the device idle gaps coloured by cause, and the time ranges the findings
// point at, as inline SVG with hover texts. Only one step is drawn and
// slices narrower than a pixel are merged, so the page stays small whatever
// the size of the trace.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/report/report.h"

namespace tracelint::html {

struct WorstStep {
  size_t rank_pos = 0;  // index into ReportInput::ranks
  int step_index = -1;  // index into that rank's steady steps (AnalysisContext::steps())
  // No rank has a steady step: step_index is into AnalysisContext::all_steps()
  // and the step drawn is not steady (the timeline stays; no idle lane).
  bool not_steady = false;
};

// The rank with the longest mean steady step and its longest steady step
// (docs/steady-state.md): warm-up, capture and compile steps are never
// drawn as the run's worst while a steady step exists. With none, the
// longest complete step is drawn, marked not steady (what ran is still
// described). nullopt when no rank has a step or the events were released.
std::optional<WorstStep> FindWorstStep(const ReportInput& in);

// The SVG timeline of that step (empty when there is nothing to draw).
std::string StepTimeline(const ReportInput& in, const WorstStep& worst);

// Colours of the idle causes (IdleCause order), shared with the legend;
// `accelerator` names the devices ("GPU", "TPU").
std::string IdleCauseLegend(std::string_view accelerator);

}  // namespace tracelint::html

#endif  // TRACELINT_ANALYZER_REPORT_HTML_TIMELINE_H_
