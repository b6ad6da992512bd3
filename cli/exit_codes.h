#ifndef TRACELINT_CLI_EXIT_CODES_H_
#define TRACELINT_CLI_EXIT_CODES_H_

namespace tracelint {

// Documented in README.md ("Exit codes"). When several apply, the first in
// this order wins: 2 > 6 > 3 > 1 > 5 > 4 > 0 (ExitPrecedence below).
enum ExitCode : int {
  kExitOk = 0,
  kExitFindingsGate = 1,   // a gate tripped: --fail-on*, --baseline, regression
  kExitUsage = 2,          // bad option or value, output that would touch an input
  kExitUnreadable = 3,     // nothing could be read: unreadable, not a trace, none found;
                           // capture: nothing recorded (no driver/device/CUDA call)
  kExitDamaged = 4,        // analysed from damaged input (truncated, corrupt, file lost)
  kExitNotJudgeable = 5,   // read, but nothing could be judged (no steady step, fragment)
  kExitWriteFailed = 6,    // the report could not be written (I/O error, closed stdout)
  kExitCaptureFailed = 7,  // capture: the program failed or could not start
};

// Rank of a code in the precedence above (higher wins).
constexpr int ExitPrecedence(int code) {
  switch (code) {
    case kExitUsage: return 7;
    case kExitWriteFailed: return 6;
    case kExitUnreadable: return 5;
    case kExitFindingsGate: return 4;
    case kExitNotJudgeable: return 3;
    case kExitDamaged: return 2;
    case kExitCaptureFailed: return 1;  // capture applies it itself (capture_command.cc)
    default: return 0;
  }
}

// The code that wins when both a and b apply.
constexpr int CombineExitCodes(int a, int b) {
  return ExitPrecedence(b) > ExitPrecedence(a) ? b : a;
}

}  // namespace tracelint

#endif  // TRACELINT_CLI_EXIT_CODES_H_
