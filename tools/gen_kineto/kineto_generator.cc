#include "tools/gen_kineto/kineto_generator.h"

#include <charconv>

#include "analyzer/base/byte_size.h"
#include "fmt/format.h"
#include "tools/gen_kineto/step_simulator.h"

namespace tracelint::gen {
namespace {

// The reference trace starts at ProfilerStep#4 (wait/warmup steps before).
constexpr int64_t kFirstStep = 4;

}  // namespace

absl::StatusOr<GeneratorStats> GenerateKinetoTrace(
    const GeneratorOptions& options, ByteSink& sink) {
  if (options.target_bytes < 0 || options.layers < 1 ||
      options.world_size < 1 || options.rank < 0 ||
      options.rank >= options.world_size) {
    return absl::InvalidArgumentError(fmt::format(
        "bad generator options: bytes={} layers={} rank={} world_size={}",
        options.target_bytes, options.layers, options.rank,
        options.world_size));
  }
  TraceWriter writer(&sink);
  DocumentInfo info;
  info.rank = options.rank;
  info.world_size = options.world_size;
  info.trace_name = options.trace_name;
  info.group_ranks = "[";
  for (int r = 0; r < options.world_size; ++r) {
    info.group_ranks += fmt::format("{}{}", r == 0 ? "" : ", ", r);
  }
  info.group_ranks += "]";
  writer.BeginDocument(info);

  StepSimulator sim(options, &writer);
  GeneratorStats stats;
  // Leave room for the trailer (metadata events, span, closing keys).
  constexpr int64_t kTrailerBytes = 2048;
  do {
    if (absl::Status s = sim.RunStep(kFirstStep + stats.steps); !s.ok()) {
      return s;
    }
    ++stats.steps;
  } while (writer.bytes_written() + kTrailerBytes < options.target_bytes);

  sim.WriteMetadata();
  writer.EndDocument(info, sim.start_ns(), sim.end_ns());
  if (absl::Status s = writer.Flush(); !s.ok()) return s;
  if (absl::Status s = sink.Close(); !s.ok()) return s;
  stats.bytes = writer.bytes_written();
  stats.events = writer.events_written();
  stats.nccl_kernels = sim.nccl_kernels();
  stats.by_kind = writer.counts();
  return stats;
}

absl::StatusOr<int64_t> ParseByteSize(std::string_view text) {
  return tracelint::ParseByteSize(text);
}

}  // namespace tracelint::gen
