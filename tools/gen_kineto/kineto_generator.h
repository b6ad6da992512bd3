#ifndef TRACELINT_TOOLS_GEN_KINETO_KINETO_GENERATOR_H_
#define TRACELINT_TOOLS_GEN_KINETO_KINETO_GENERATOR_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tools/gen_kineto/byte_sink.h"
#include "tools/gen_kineto/trace_writer.h"

namespace tracelint::gen {

struct GeneratorOptions {
  // Whole training steps are written until the output reaches this size, so
  // the file ends up at most one step (about 0.5 MB) larger.
  int64_t target_bytes = int64_t{1} << 20;
  uint64_t seed = 1;
  int rank = 0;
  int world_size = 1;
  // Conv blocks per simulated ResNet step.
  int layers = 16;
  std::string trace_name = "/tmp/libkineto_activities_2910249.json";
};

struct GeneratorStats {
  int64_t bytes = 0;    // uncompressed JSON bytes
  int64_t events = 0;   // traceEvents entries
  int64_t steps = 0;    // ProfilerStep# annotations
  int64_t nccl_kernels = 0;
  std::array<int64_t, kRecKindCount> by_kind{};  // see RecKindLabel()
};

// Writes one rank's PyTorch-2.x-style Kineto trace (DDP ResNet training
// steps with NCCL all-reduce, shaped after HTA's nccl_data trace) to `sink`
// and closes it. The output depends only on `options`.
absl::StatusOr<GeneratorStats> GenerateKinetoTrace(
    const GeneratorOptions& options, ByteSink& sink);

// "1048576", "512K", "100M", "1G", "5G" (binary multiples) -> bytes
// (analyzer/base/byte_size.h; kept here for the generator's callers).
absl::StatusOr<int64_t> ParseByteSize(std::string_view text);

}  // namespace tracelint::gen

#endif  // TRACELINT_TOOLS_GEN_KINETO_KINETO_GENERATOR_H_
