// gen_kineto: writes synthetic PyTorch Kineto traces of a requested size for
// benchmarks and tests. See tools/gen_kineto/README.md.
//
//   gen_kineto --bytes 1G --out /tmp/t.json [--gzip] [--ranks R] [--seed S]

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "fmt/format.h"
#include "tools/gen_kineto/byte_sink.h"
#include "tools/gen_kineto/kineto_generator.h"

namespace tracelint::gen {
namespace {

int Run(int argc, char** argv) {
  CLI::App app{"Generate a synthetic PyTorch Kineto trace (DDP ResNet steps)"};
  std::string bytes_text = "1M";
  std::string out;
  bool gzip = false;
  int ranks = 1;
  uint64_t seed = 1;
  int layers = 16;
  app.add_option("--bytes", bytes_text,
                 "uncompressed size per rank: N, NK, NM or NG (binary); the "
                 "file ends after the step that reaches it")
      ->capture_default_str();
  app.add_option("--out", out,
                 "output file; with --ranks > 1 a directory that receives "
                 "rank-<r>.pt.trace.json[.gz]")
      ->required();
  app.add_flag("--gzip", gzip, "compress with isa-l igzip (level 1)");
  app.add_option("--ranks", ranks, "ranks (one file each)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--seed", seed, "random seed (output is a function of it)")
      ->capture_default_str();
  app.add_option("--layers", layers, "conv blocks per step")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<int64_t> target = ParseByteSize(bytes_text);
  if (!target.ok()) {
    std::fprintf(stderr, "gen_kineto: %s\n", target.status().ToString().c_str());
    return 2;
  }
  if (ranks > 1) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) {
      std::fprintf(stderr, "gen_kineto: cannot create %s: %s\n", out.c_str(),
                   ec.message().c_str());
      return 3;
    }
  }
  for (int rank = 0; rank < ranks; ++rank) {
    std::string path = out;
    if (ranks > 1) {
      path = fmt::format("{}/rank-{}.pt.trace.json{}", out, rank,
                         gzip ? ".gz" : "");
    }
    absl::StatusOr<std::unique_ptr<ByteSink>> sink =
        gzip ? OpenGzipFileSink(path) : OpenFileSink(path);
    if (!sink.ok()) {
      std::fprintf(stderr, "gen_kineto: %s\n", sink.status().ToString().c_str());
      return 3;
    }
    GeneratorOptions options;
    options.target_bytes = *target;
    options.seed = seed;
    options.rank = rank;
    options.world_size = ranks;
    options.layers = layers;
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<GeneratorStats> stats = GenerateKinetoTrace(options, **sink);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (!stats.ok()) {
      std::fprintf(stderr, "gen_kineto: %s\n", stats.status().ToString().c_str());
      return 3;
    }
    std::printf("%s: %lld bytes, %lld events, %lld steps, %.2f s (%.0f MB/s)\n",
                path.c_str(), static_cast<long long>(stats->bytes),
                static_cast<long long>(stats->events),
                static_cast<long long>(stats->steps), seconds,
                stats->bytes / 1e6 / seconds);
    for (int k = 0; k < kRecKindCount; ++k) {
      std::printf("  %-22s %10lld  %5.1f%%\n",
                  std::string(RecKindLabel(static_cast<RecKind>(k))).c_str(),
                  static_cast<long long>(stats->by_kind[k]),
                  100.0 * stats->by_kind[k] / stats->events);
    }
  }
  return 0;
}

}  // namespace
}  // namespace tracelint::gen

int main(int argc, char** argv) { return tracelint::gen::Run(argc, argv); }
