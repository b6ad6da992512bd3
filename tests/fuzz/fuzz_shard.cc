// Fuzz target of `analyze --merge`: the bytes as a part of a sharded
// analyze, merged and rendered in every format. A part is data from a file
// (a node of an array job that died mid-write, a disk that flipped a bit,
// somebody's hand edit): whatever it holds, the merge ends with an exit
// code of the table and never crashes on values the writer never writes
// (indices past their vectors, enums out of range, counts that disagree).
#include <sstream>
#include <string>

#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "fmt/format.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/mem_file.h"

namespace tracelint::fuzz {

std::string FuzzShardPart(const uint8_t* data, size_t size) {
  MemFile file(data, size);
  if (!file.ok()) return "memfd_create failed";
  for (const char* format : {"json", "text", "markdown", "sarif", "html"}) {
    AnalyzeArgs args;
    args.path = file.path();
    args.merge = true;
    args.format = format;
    args.verbose = std::string(format) == "text";
    args.steps = "all";
    args.width = 0;
    std::ostringstream out, err;
    int code = RunAnalyze(args, out, err);
    if (code != kExitOk && code != kExitFindingsGate && code != kExitUsage &&
        code != kExitUnreadable && code != kExitDamaged && code != kExitNotJudgeable) {
      return fmt::format("{}: exit {}: {}", format, code, err.str());
    }
    if (code == kExitUnreadable || code == kExitUsage) break;  // the same for every format
  }
  return "";
}

}  // namespace tracelint::fuzz
