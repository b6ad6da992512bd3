// Fuzz target of `analyze --merge`: a part of a sharded analyze, merged and
// rendered in every format. A part is data from a file (a node of an array
// job that died mid-write, a disk that flipped a bit, somebody's hand edit):
// whatever it holds, the merge ends with an exit code of the table and
// never crashes on values the writer never writes (indices past their
// vectors, enums out of range, counts that disagree).
//
// Input is the part itself, unless it starts with 'E': then the rest is a
// script of edits to a real part (two ranks of one job, written in-process
// on first use): each 3 bytes pick a number of the part (2 bytes) and a
// hostile value for it (1 byte), and the edited lines are signed anew
// (ResignShardPart), so that the fuzzer explores well-formed parts with
// values no analysis makes rather than checksum and syntax errors, which
// the reader stops at once. Such a forged part may break the report's
// invariants (a share past 1): run_fuzzers.sh runs this target without
// TRACELINT_STRICT_INVARIANTS, as a release binary merges, and what it
// checks is that the merge never crashes.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/analyze_command.h"
#include "cli/analyze_shard.h"
#include "cli/exit_codes.h"
#include "fmt/format.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/mem_file.h"

namespace tracelint::fuzz {
namespace {

namespace fs = std::filesystem;

// Rank `rank` of two: six steps, a data loader stall, a GEMM and an
// all-reduce that rank 1 arrives late to.
std::string RankTrace(int rank) {
  std::string events;
  for (int i = 0; i < 6; ++i) {
    int64_t t = 1000 + i * 10000;
    if (!events.empty()) events += ",";
    events += fmt::format(
        R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,)"
        R"("ts":{},"dur":10000}},)"
        R"({{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":{},"dur":{},)"
        R"("name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"}},)"
        R"({{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":{},"dur":100,)"
        R"("args":{{"External id":{}}}}},)"
        R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},)"
        R"("dur":10,"args":{{"correlation":{}}}}},)"
        R"({{"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":{},)"
        R"("dur":2000,"args":{{"correlation":{},"device":0,"stream":7,"External id":{}}}}},)"
        R"({{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL",)"
        R"("pid":0,"tid":9,"ts":{},"dur":{},"args":{{"device":0,"stream":9}}}})",
        i, t, t + 10, 3000 + 1000 * rank, t + 3100, 100 + i, t + 3150, 500 + i, t + 3200,
        500 + i, 100 + i, t + 5300, rank == 1 ? 1000 : 3000);
  }
  return fmt::format(
      R"({{"schemaVersion":1,"distributedInfo":{{"backend":"nccl","rank":{},"world_size":2}},)"
      R"("deviceProperties":[{{"id":0,"name":"NVIDIA A100-SXM4-80GB","computeMajor":8,)"
      R"("computeMinor":0,"numSms":108,"totalGlobalMem":85899345920}}],)"
      R"("traceEvents":[{}]}})",
      rank, events);
}

// The part of the two-rank run, written once by this process's analyze.
const std::string& SeedPart() {
  static const std::string part = [] {
    char dir_template[] = "/tmp/tracelint_fuzz_shard.XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (dir == nullptr) return std::string();
    fs::path run = fs::path(dir) / "run";
    fs::create_directories(run);
    for (int rank = 0; rank < 2; ++rank) {
      std::ofstream(run / fmt::format("rank{}.json", rank)) << RankTrace(rank);
    }
    AnalyzeArgs args;
    args.path = run.string();
    args.shard = "0/1";
    args.output = (fs::path(dir) / "part.jsonl").string();
    std::ostringstream out, err;
    std::string text;
    if (RunAnalyze(args, out, err) == kExitOk) {
      std::ifstream in(args.output);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return text;
  }();
  return part;
}

// Where the numbers of `text` are (outside strings): offset and length.
std::vector<std::pair<size_t, size_t>> Numbers(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> out;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = i + 1;
      while (end < text.size() && std::string_view("0123456789.eE+-").find(text[end]) !=
                                      std::string_view::npos) {
        ++end;
      }
      out.emplace_back(i, end - i);
      i = end - 1;
    }
  }
  return out;
}

std::string Edited(const uint8_t* data, size_t size) {
  static constexpr const char* kValues[] = {
      "-1", "0", "1", "2", "3", "7", "255", "256", "65535", "2147483647", "2147483648",
      "-2147483649", "4294967295", "9223372036854775807", "-9223372036854775808", "1e308",
      "-1e308", "0.5", "-0.5", "1e-300", "100000000000", "-100000000000"};
  std::string text = SeedPart();
  std::vector<std::pair<size_t, size_t>> numbers = Numbers(text);
  if (numbers.empty()) return text;
  // The checksums' hex digits are not numbers to edit.
  // Edits from the last number to the first would keep offsets valid; the
  // script's order is the fuzzer's, so apply them by descending offset.
  std::vector<std::pair<size_t, const char*>> edits;
  for (size_t i = 0; i + 3 <= size && edits.size() < 64; i += 3) {
    size_t which = (static_cast<size_t>(data[i]) << 8 | data[i + 1]) % numbers.size();
    edits.emplace_back(which, kValues[data[i + 2] % std::size(kValues)]);
  }
  std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) {
    return a.first > b.first;
  });
  size_t last = numbers.size();
  for (const auto& [which, value] : edits) {
    if (which == last) continue;  // one edit per number
    last = which;
    text.replace(numbers[which].first, numbers[which].second, value);
  }
  return ResignShardPart(text);
}

}  // namespace

std::string FuzzShardPart(const uint8_t* data, size_t size) {
  std::string part = size > 0 && data[0] == 'E'
                         ? Edited(data + 1, size - 1)
                         : std::string(reinterpret_cast<const char*>(data), size);
  MemFile file(reinterpret_cast<const uint8_t*>(part.data()), part.size());
  if (!file.ok()) return "memfd_create failed";
  for (const char* format : {"json", "text", "markdown", "sarif", "html"}) {
    AnalyzeArgs args;
    args.path = file.path();
    args.merge = true;
    args.format = format;
    args.verbose = std::string(format) == "text";
    args.steps = "all";
    args.width = 0;
    std::ostringstream out, err;
    int code = RunAnalyze(args, out, err);
    if (code != kExitOk && code != kExitFindingsGate && code != kExitUsage &&
        code != kExitUnreadable && code != kExitDamaged && code != kExitNotJudgeable) {
      return fmt::format("{}: exit {}: {}", format, code, err.str());
    }
    if (code == kExitUnreadable || code == kExitUsage) break;  // the same for every format
  }
  return "";
}

}  // namespace tracelint::fuzz
