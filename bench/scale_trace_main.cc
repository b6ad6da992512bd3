// scale_trace: grows a real Kineto trace to a target size (trace_scaler.h).
//
//   scale_trace --in TRACE.json.gz --out /tmp/big.json --bytes 1G

#include <cstdio>
#include <string>

#include "CLI/CLI.hpp"
#include "bench/trace_scaler.h"
#include "tools/gen_kineto/kineto_generator.h"

int main(int argc, char** argv) {
  CLI::App app{"grow a real Kineto trace by repeating its body (bench/trace_scaler.h)"};
  std::string in, out, bytes = "100M";
  int64_t copies = 0;
  app.add_option("--in", in, "trace to scale (.json or gzip)")->required();
  app.add_option("--out", out, "scaled trace (.json)")->required();
  app.add_option("--bytes", bytes, "target size (binary K/M/G)")->capture_default_str();
  app.add_option("--copies", copies, "copies of the body instead of --bytes");
  CLI11_PARSE(app, argc, argv);
  absl::StatusOr<int64_t> target = tracelint::gen::ParseByteSize(bytes);
  if (!target.ok()) {
    std::fprintf(stderr, "scale_trace: %s\n", target.status().ToString().c_str());
    return 2;
  }
  tracelint::bench::ScaleOptions options;
  options.target_bytes = *target;
  options.copies = copies;
  absl::StatusOr<tracelint::bench::ScaleStats> stats =
      tracelint::bench::ScaleTraceFile(in, out, options);
  if (!stats.ok()) {
    std::fprintf(stderr, "scale_trace: %s\n", stats.status().ToString().c_str());
    return 1;
  }
  std::printf("%s: %lld copies, %lld bytes, %lld body + %lld metadata events, period %lld us, "
              "id stride %lld, step stride %lld\n",
              out.c_str(), static_cast<long long>(stats->copies),
              static_cast<long long>(stats->output_bytes),
              static_cast<long long>(stats->body_events),
              static_cast<long long>(stats->once_events),
              static_cast<long long>(stats->period_us),
              static_cast<long long>(stats->id_stride),
              static_cast<long long>(stats->step_stride));
  return 0;
}
