#ifndef TRACELINT_ANALYZER_DIFF_DIFF_FORMATS_H_
#define TRACELINT_ANALYZER_DIFF_DIFF_FORMATS_H_

// The `tracelint diff` output formats, registered here once: --format's
// choices and help are built from this table.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/run_diff.h"

namespace tracelint {

struct DiffFormat {
  std::string_view name;
  std::string_view help;
  // `width_columns`: the text layout's width (0: no limit); others ignore it.
  std::string (*render)(const RunDiff& diff, int width_columns);
};
const std::vector<DiffFormat>& DiffFormats();
const DiffFormat* FindDiffFormat(std::string_view name);
std::vector<std::string> DiffFormatNames();

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_DIFF_DIFF_FORMATS_H_
