#ifndef TRACELINT_ANALYZER_CLI_EXIT_CODES_H_
#define TRACELINT_ANALYZER_CLI_EXIT_CODES_H_

namespace tracelint {

// Documented in README.md ("Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitFindingsGate = 1,  // reserved for the regression gate
  kExitUsage = 2,
  kExitUnreadable = 3,    // unreadable file or not a trace
  kExitDamaged = 4,       // analysed from a truncated or damaged input
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_CLI_EXIT_CODES_H_
