#ifndef TRACELINT_CLI_CAPTURE_COMMAND_H_
#define TRACELINT_CLI_CAPTURE_COMMAND_H_

#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/analyze_command.h"
#include "cli/option_table.h"

namespace tracelint {

struct CaptureArgs {
  std::vector<std::string> command;  // the program and its arguments (after --)
  std::string out_dir;               // new or empty; default ./tracelint-capture-<UTC time>
  std::string steps;                 // NVTX range name -> ProfilerStep#N; empty: none
  double delay_s = 0;                // start recording this long after the program starts
  double duration_s = 0;             // record this long; 0: until the program exits
  bool keep_raw = false;             // keep the raw dumps (<out>/.tracelint-raw/)
  // The report options of `analyze` (format, -o, gates, rules, ...); its
  // paths are what the capture wrote.
  AnalyzeArgs analyze;
  // How long the driver check may take before "no".
  std::chrono::milliseconds driver_timeout{30000};
};

// The whole `tracelint capture` job: checks for a CUDA driver and device,
// runs the program with libtracelint_inject.so injected, converts what
// each process recorded to Kineto JSON in `out_dir`, then analyses it as
// `analyze` does. Exit codes (exit_codes.h): 2 usage; 3 nothing recorded
// (built without CUDA, no library, no driver or device, or the program made
// no CUDA call); 7 the program failed or could not start (its code is on
// stderr and in the report; what it recorded is still analysed); otherwise
// analyze's code.
int RunCapture(const CaptureArgs& args, std::ostream& out, std::ostream& err);

// The `capture` command and its flags, on `app` and in `table`.
CLI::App* DeclareCaptureCommand(CLI::App& app, OptionTable& table, CaptureArgs& args);

}  // namespace tracelint

#endif  // TRACELINT_CLI_CAPTURE_COMMAND_H_
