// Times ParseKinetoJsonFile on real files:
//   kineto_parse_bench [--threads=N] [--split_mb=M] [--kernel=K] [--repeat=R] FILE...
// Prints, per file, the best of R runs and the decompressed MB/s.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/kineto/kineto_parser.h"

int main(int argc, char** argv) {
  using tracelint::kineto::JsonReader;
  tracelint::ParseOptions options;
  int repeat = 3;
  const JsonReader* reader = &tracelint::kineto::ActiveJsonReader();
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&](std::string_view flag) { return std::string(a.substr(flag.size())); };
    if (a.starts_with("--threads=")) {
      options.threads = std::atoi(value("--threads=").c_str());
    } else if (a.starts_with("--split_mb=")) {
      options.split_bytes = static_cast<size_t>(std::atof(value("--split_mb=").c_str()) * (1 << 20));
    } else if (a.starts_with("--repeat=")) {
      repeat = std::max(1, std::atoi(value("--repeat=").c_str()));
    } else if (a.starts_with("--kernel=")) {
      std::string k = value("--kernel=");
      reader = nullptr;
      for (const JsonReader* r : tracelint::kineto::AllJsonReaders()) {
        if (r->kernel == k) reader = r;
      }
      if (reader == nullptr) {
        std::fprintf(stderr, "no reader for kernel %s\n", k.c_str());
        return 2;
      }
    } else {
      files.emplace_back(a);
    }
  }
  std::printf("kernel %.*s, threads %d, split %zu bytes\n", static_cast<int>(reader->kernel.size()),
              reader->kernel.data(), options.threads, options.split_bytes);
  int failures = 0;
  for (const std::string& f : files) {
    double best_ms = 1e300;
    int64_t events = 0;
    int64_t bytes = 0;
    for (int r = 0; r < repeat; ++r) {
      auto start = std::chrono::steady_clock::now();
      absl::StatusOr<tracelint::Timeline> tl =
          tracelint::kineto::ParseKinetoJsonFileWith(f, options, *reader);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            start).count();
      if (!tl.ok()) {
        std::fprintf(stderr, "%s\n", std::string(tl.status().message()).c_str());
        ++failures;
        break;
      }
      best_ms = std::min(best_ms, ms);
      events = tl->metadata().events_read;
      bytes = static_cast<int64_t>(tl->MemoryBytes());
    }
    std::printf("%10.1f ms %8lld events %9.1f MB model  %s\n", best_ms,
                static_cast<long long>(events), static_cast<double>(bytes) / (1 << 20), f.c_str());
  }
  return failures == 0 ? 0 : 1;
}
