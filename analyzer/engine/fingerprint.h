#ifndef TRACELINT_ANALYZER_ENGINE_FINGERPRINT_H_
#define TRACELINT_ANALYZER_ENGINE_FINGERPRINT_H_

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/finding.h"

namespace tracelint {

// The innermost frame of a Python stack (innermost last, "path(line): fn")
// that belongs to the user's code: not the standard library, not an
// installed package, not PyTorch's own modules, not a generated Inductor
// file, not a built-in. Empty when there is none.
std::string InnermostUserFrame(const std::vector<std::string>& python_stack);

// "path(line): fn" -> {"path", line, "fn"}; line is -1 when absent.
struct PythonFrame {
  std::string path;
  int line = -1;
  std::string function;
};
PythonFrame ParsePythonFrame(std::string_view frame);

// The part of a finding's location that survives a re-run of the same code
// (docs/design/contract.md): the innermost user frame's file and function (not its line,
// which moves with unrelated edits), else the top op or kernel name.
std::string StableLocation(const Finding& f);

// 16 hex digits of FNV-1a 64 over rule id, cause and the stable location.
// Never times, ids, ranks or trace paths, and no per-process seed.
std::string FindingFingerprint(const Finding& f);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_FINGERPRINT_H_
