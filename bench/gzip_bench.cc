#include "bench/gzip_bench.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>

#include "fmt/format.h"

namespace tracelint::bench {
namespace {

constexpr size_t kWindowBytes = size_t{4} << 20;

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(fmt::format("cannot open {}", path));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

absl::StatusOr<DecompressRun> RunIgzip(const std::string& gz) {
  auto state = std::make_unique<inflate_state>();
  std::unique_ptr<uint8_t[]> out(new uint8_t[kWindowBytes]);
  DecompressRun run{"igzip (isa-l)", true};
  auto start = Clock::now();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_GZIP;
  state->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(gz.data()));
  state->avail_in = static_cast<uint32_t>(gz.size());  // caller checks < 4 GiB
  while (state->block_state != ISAL_BLOCK_FINISH) {
    state->next_out = out.get();
    state->avail_out = kWindowBytes;
    int rc = isal_inflate(state.get());
    if (rc != ISAL_DECOMP_OK) {
      return absl::DataLossError(fmt::format("isal_inflate failed: {}", rc));
    }
    size_t produced = kWindowBytes - state->avail_out;
    run.output_bytes += static_cast<int64_t>(produced);
    if (produced == 0 && state->avail_in == 0) break;
  }
  run.seconds = Since(start);
  return run;
}

absl::StatusOr<DecompressRun> RunZlib(const std::string& gz) {
  z_stream zs{};
  std::unique_ptr<Bytef[]> out(new Bytef[kWindowBytes]);
  DecompressRun run{"zlib", true};
  auto start = Clock::now();
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    return absl::InternalError("inflateInit2 failed");
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = out.get();
    zs.avail_out = kWindowBytes;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return absl::DataLossError(fmt::format("inflate failed: {}", rc));
    }
    run.output_bytes += static_cast<int64_t>(kWindowBytes - zs.avail_out);
  }
  inflateEnd(&zs);
  run.seconds = Since(start);
  return run;
}

absl::StatusOr<DecompressRun> RunLibdeflate(const std::string& gz,
                                            int64_t expected_bytes) {
  DecompressRun run{"libdeflate", false};
  std::unique_ptr<char[]> out(new char[expected_bytes]);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (d == nullptr) return absl::ResourceExhaustedError("libdeflate alloc");
  size_t actual = 0;
  auto start = Clock::now();
  libdeflate_result rc = libdeflate_gzip_decompress(
      d, gz.data(), gz.size(), out.get(), static_cast<size_t>(expected_bytes),
      &actual);
  run.seconds = Since(start);
  libdeflate_free_decompressor(d);
  if (rc != LIBDEFLATE_SUCCESS) {
    return absl::DataLossError(
        fmt::format("libdeflate_gzip_decompress failed: {}", static_cast<int>(rc)));
  }
  run.output_bytes = static_cast<int64_t>(actual);
  return run;
}

}  // namespace

absl::Status CompressGzipFile(const std::string& in, const std::string& out,
                              int level) {
  std::FILE* src = std::fopen(in.c_str(), "rb");
  if (src == nullptr) return absl::NotFoundError(fmt::format("cannot open {}", in));
  gzFile dst = gzopen(out.c_str(), fmt::format("wb{}", level).c_str());
  if (dst == nullptr) {
    std::fclose(src);
    return absl::UnavailableError(fmt::format("cannot create {}", out));
  }
  gzbuffer(dst, 1 << 20);
  std::unique_ptr<char[]> buf(new char[kWindowBytes]);
  size_t n;
  bool ok = true;
  while (ok && (n = std::fread(buf.get(), 1, kWindowBytes, src)) > 0) {
    ok = gzwrite(dst, buf.get(), static_cast<unsigned>(n)) == static_cast<int>(n);
  }
  std::fclose(src);
  ok = (gzclose(dst) == Z_OK) && ok;
  if (!ok) return absl::UnavailableError(fmt::format("cannot write {}", out));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DecompressRun>> MeasureGzipDecompression(
    const std::string& gz_path, int64_t expected_bytes) {
  absl::StatusOr<std::string> gz = ReadFile(gz_path);
  if (!gz.ok()) return gz.status();
  if (gz->size() >= (uint64_t{1} << 32)) {
    return absl::UnimplementedError("compressed input over 4 GiB");
  }
  std::vector<DecompressRun> runs;
  for (int lib = 0; lib < 3; ++lib) {
    absl::StatusOr<DecompressRun> run =
        lib == 0 ? RunIgzip(*gz)
                 : lib == 1 ? RunLibdeflate(*gz, expected_bytes) : RunZlib(*gz);
    if (!run.ok()) return run.status();
    if (run->output_bytes != expected_bytes) {
      return absl::DataLossError(fmt::format(
          "{} produced {} bytes, expected {}", run->library,
          run->output_bytes, expected_bytes));
    }
    runs.push_back(*run);
  }
  return runs;
}

}  // namespace tracelint::bench
