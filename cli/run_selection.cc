#include "cli/run_selection.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <istream>

#include "fmt/format.h"

namespace tracelint {
std::string ListRunsText(const AnalyzedRun& analyzed) {
  const Discovery& d = analyzed.discovery;
  std::string out;
  if (!d.runs.empty()) out += fmt::format("TensorBoard runs: {}\n", fmt::join(d.runs, ", "));
  // The same names, in the same order, as the --span error lists.
  if (!d.spans.empty()) {
    out += fmt::format("profiling spans, oldest first: {}\n", fmt::join(d.spans, ", "));
  }
  if (!d.span_choice.empty()) out += fmt::format("note: {}\n", d.span_choice);
  for (const std::string& note : d.notes) out += fmt::format("note: {}\n", note);
  for (const std::string& w : analyzed.run.warnings) out += fmt::format("warning: {}\n", w);
  out += DescribeRuns(analyzed.file_facts, analyzed.grouping);
  return out;
}

std::string SeveralRunsMessage(const std::string& input, const AnalyzedRun& analyzed) {
  std::string out = fmt::format("{} holds {} runs, not one:\n", input,
                                analyzed.grouping.runs.size());
  for (const std::string& why : analyzed.grouping.reasons) out += fmt::format("  ({})\n", why);
  out += DescribeRuns(analyzed.file_facts, analyzed.grouping);
  if (analyzed.discovery.runs_to_pick) {
    out += fmt::format(
        "pick one: --run NAME for one of the TensorBoard runs above ({}), or `tracelint batch "
        "{}` to analyse each\n",
        fmt::join(analyzed.discovery.runs, ", "), input);
  } else {
    out +=
        "pick one: `tracelint analyze FILE...` with the files of one run, --span/--run for a "
        "profiling span or TensorBoard run, or `tracelint batch` to analyse each\n";
  }
  return out;
}

}  // namespace tracelint
