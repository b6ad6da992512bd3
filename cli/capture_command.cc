#include "cli/capture_command.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <utility>

#include "analyzer/base/escape.h"
#include "cli/capture_process.h"
#include "cli/exit_codes.h"
#include "capture/capture_config.h"
#include "capture/convert/capture_dir.h"
#include "cli/cli_docs.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRawDirName = ".tracelint-raw";

int64_t EpochNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string DefaultOutDir() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  return fmt::format("tracelint-capture-{}", stamp);
}

// The output directory must be new or empty: an older capture in it would
// be a second run beside this one.
int CheckOutDir(const std::string& dir, std::ostream& err) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return kExitOk;
  if (!fs::is_directory(dir, ec)) {
    err << "tracelint: capture --out " << EscapeTerminal(dir) << ": not a directory\n";
    return kExitUsage;
  }
  if (!fs::is_empty(dir, ec)) {
    err << "tracelint: capture --out " << EscapeTerminal(dir)
        << ": not empty; name a new or empty directory (an older capture there would be "
           "read as a second run)\n";
    return kExitUsage;
  }
  return kExitOk;
}

// Whether `path` is `dir` or below it (either may not exist yet).
bool IsInside(const std::string& path, const std::string& dir) {
  std::error_code ec;
  fs::path d = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  auto [d_end, p_end] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  return d_end == d.end() || (std::next(d_end) == d.end() && d_end->empty());
}

std::string Summary(const capture::ConvertedCapture& c, const std::string& dir) {
  const capture::ConvertSummary& t = c.totals;
  std::string line = fmt::format(
      "tracelint: captured {} process(es) into {}: {} kernels, {} copies, {} memsets, {} API "
      "calls, {} NVTX ranges",
      c.trace_files.size(), dir, t.kernels, t.copies, t.memsets, t.api_calls, t.ranges);
  if (t.steps > 0) line += fmt::format(", {} steps", t.steps);
  if (t.dropped_records > 0) line += fmt::format(", {} records dropped", t.dropped_records);
  return line + "\n";
}

}  // namespace

int RunCapture(const CaptureArgs& args, std::ostream& out, std::ostream& err) {
  if (args.command.empty()) {
    err << "tracelint: capture needs the program to run: tracelint capture [options] -- "
           "PROGRAM [ARGS...]\n";
    return kExitUsage;
  }
  constexpr double kMaxSeconds = 1e7;  // 115 days: far beyond any capture, far from overflow
  if (!(args.delay_s >= 0 && args.delay_s <= kMaxSeconds) ||
      !(args.duration_s >= 0 && args.duration_s <= kMaxSeconds)) {
    err << "tracelint: capture --delay and --duration must be seconds from 0 to 1e7\n";
    return kExitUsage;
  }
  std::string dir = args.out_dir.empty() ? DefaultOutDir() : args.out_dir;
  if (int code = CheckOutDir(dir, err); code != kExitOk) return code;
  // A report inside the capture directory would be read as a trace later.
  for (const std::string* output : {&args.analyze.output, &args.analyze.annotate}) {
    if (!output->empty() && *output != "-" && IsInside(*output, dir)) {
      err << "tracelint: capture: " << EscapeTerminal(*output)
          << " is inside the capture directory " << EscapeTerminal(dir)
          << " (write the report elsewhere)\n";
      return kExitUsage;
    }
  }
  if (!TRACELINT_HAVE_CAPTURE) {
    err << "tracelint: capture: this tracelint was built without CUDA (CUPTI was not found "
           "when it was built), so it cannot record; rebuild where the CUDA Toolkit is "
           "installed, or record with torch.profiler and run `tracelint analyze`\n";
    return kExitUnreadable;
  }
  std::vector<std::string> looked;
  std::string library = FindInjectionLibrary(&looked);
  if (library.empty()) {
    err << "tracelint: capture: libtracelint_inject.so not found (looked in "
        << fmt::format("{}", fmt::join(looked, ", "))
        << "); set TRACELINT_INJECT_LIBRARY to its path\n";
    return kExitUnreadable;
  }
  CudaCheck cuda = CheckCudaDevice(args.driver_timeout);
  if (!cuda.ok) {
    err << "tracelint: capture: " << cuda.message
        << "; nothing can be recorded here, so the program was not run\n";
    return kExitUnreadable;
  }

  std::string raw_dir = (fs::path(dir) / kRawDirName).string();
  std::error_code ec;
  fs::create_directories(raw_dir, ec);
  if (ec) {
    err << "tracelint: capture --out " << EscapeTerminal(dir) << ": " << ec.message() << "\n";
    return kExitWriteFailed;
  }
  auto ns = [](double s) { return fmt::format("{}", static_cast<int64_t>(s * 1e9)); };
  std::vector<std::pair<std::string, std::string>> env = {
      {"CUDA_INJECTION64_PATH", library},
      {"NVTX_INJECTION64_PATH", library},
      {"TRACELINT_CAPTURE_DIR", fs::absolute(raw_dir).string()},
      {"TRACELINT_CAPTURE_START_NS", fmt::format("{}", EpochNs())},
      {"TRACELINT_CAPTURE_DELAY_NS", ns(args.delay_s)},
      {"TRACELINT_CAPTURE_DURATION_NS", ns(args.duration_s)},
  };
  err << "tracelint: capturing " << EscapeTerminal(args.command[0]) << " on " << cuda.devices
      << " CUDA device(s); traces go to " << EscapeTerminal(dir) << "\n";
  ChildResult child = RunChild(args.command, env);
  if (!child.started) {
    err << "tracelint: capture: the program could not start: " << EscapeTerminal(child.start_error)
        << "\n";
    return kExitCaptureFailed;
  }

  capture::ConvertOptions options;
  options.steps_range = args.steps;
  absl::StatusOr<capture::ConvertedCapture> converted =
      capture::ConvertCaptureDirectory(raw_dir, dir, options);
  if (!converted.ok()) {
    err << "tracelint: capture: " << EscapeTerminal(std::string(converted.status().message()))
        << "\n";
    return child.failed() ? kExitCaptureFailed : kExitWriteFailed;
  }
  for (const std::string& w : converted->warnings) {
    err << "tracelint: warning: " << EscapeTerminal(w) << "\n";
  }
  if (!args.keep_raw) fs::remove_all(raw_dir, ec);
  std::string program = fmt::format("the captured program {}", child.Describe());
  if (converted->trace_files.empty()) {
    if (child.failed()) {
      err << "tracelint: " << program << " and recorded nothing\n";
      return kExitCaptureFailed;
    }
    err << "tracelint: capture: the program made no CUDA call, so nothing was recorded "
           "(capture records CUDA work; for CPU-only programs use a CPU profiler)\n";
    return kExitUnreadable;
  }
  err << Summary(*converted, dir);
  if (child.failed()) err << "tracelint: " << program << "\n";

  AnalyzeArgs analyze = args.analyze;
  analyze.path = converted->trace_files[0];
  analyze.more_paths.assign(converted->trace_files.begin() + 1, converted->trace_files.end());
  if (child.failed()) analyze.notes.push_back(program);
  int code = RunAnalyze(analyze, out, err);
  // The program's failure outranks what the analysis found; a usage error
  // or a report that could not be written still says so.
  if (child.failed() && code != kExitUsage && code != kExitWriteFailed) return kExitCaptureFailed;
  return code;
}

}  // namespace tracelint

namespace tracelint {

CLI::App* DeclareCaptureCommand(CLI::App& app, OptionTable& table, CaptureArgs& c) {
  static constexpr char kHelp[] =
      "run a CUDA program under CUPTI, write its traces, and analyze them";
  CLI::App* capture = app.add_subcommand("capture", kHelp);
  CommandFlags f(*capture, table.AddCommand("capture", kHelp));
  f.Value("--out", c.out_dir,
          "new or empty directory for the traces (default ./tracelint-capture-<time>)");
  f.Value("--steps", c.steps, "NVTX range name that marks one step (becomes ProfilerStep#N)");
  f.Value("--delay", c.delay_s, "start recording S seconds after the program starts",
          Checked(CLI::NonNegativeNumber));
  f.Value("--duration", c.duration_s, "record for S seconds (default: until the program exits)",
          Checked(CLI::NonNegativeNumber));
  f.Flag("--keep-raw", c.keep_raw, "keep the raw CUPTI record dumps (<out>/.tracelint-raw/)");
  DeclareReportFlags(f, c.analyze, /*step_rows_option=*/false);
  f.Positional("command", c.command, "the program and its arguments, after --",
               /*required=*/true);
  return capture;
}

}  // namespace tracelint
