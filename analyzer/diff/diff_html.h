#ifndef TRACELINT_ANALYZER_DIFF_DIFF_HTML_H_
#define TRACELINT_ANALYZER_DIFF_DIFF_HTML_H_

#include <string>

#include "analyzer/analysis/run_diff.h"

namespace tracelint {

// `tracelint diff --format html`: one self-contained page (inline CSS and
// SVG, no script, no external resource) in the style of the analyze page:
// the step-time verdict (StepTimeVerdict, as text, Markdown and JSON say
// it), the per-metric table (medians, p10/p90, Hodges-Lehmann shift with its
// 95% interval, p, noise verdict) and its shifts drawn as intervals, the two
// runs' steady steps side by side as breakdown bars on one scale, their
// mean breakdowns, the findings added, removed, changed and unchanged, and
// the kernels and ops whose time per step moved most. Every string from a
// run (paths, names, titles) is escaped.
std::string RenderDiffHtml(const RunDiff& diff);

// The same comparison as one section of the analyze page (`analyze
// --baseline --format html`): headed "Against the baseline" (id
// "baseline"), its headings one level down, its ids prefixed "baseline-".
std::string RenderDiffHtmlSection(const RunDiff& diff);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_DIFF_DIFF_HTML_H_
