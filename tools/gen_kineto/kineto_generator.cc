#include "tools/gen_kineto/kineto_generator.h"

#include <charconv>

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
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view suffix(end, text.data() + text.size() - end);
  int shift = -1;
  if (suffix.empty()) shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  if (ec != std::errc() || end == text.data() || shift < 0 || value < 0 ||
      value > (INT64_MAX >> shift)) {
    return absl::InvalidArgumentError(fmt::format(
        "bad size '{}': want a count of bytes with an optional K, M or G",
        text));
  }
  return value << shift;
}

}  // namespace tracelint::gen
