// Fuzz targets for the parsers: Kineto JSON, XSpace and gzip input.
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/timeline_invariants.h"
#include "fmt/format.h"
#include "parsers/common/input_stream.h"
#include "parsers/kineto/kineto_parser.h"
#include "parsers/xplane/xplane_parser.h"
#include "tests/fuzz/fuzz_pipeline.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/mem_file.h"

namespace tracelint::fuzz {
namespace {

std::string CheckParsed(const absl::StatusOr<Timeline>& tl) {
  if (!tl.ok()) return tl.status().message().empty() ? "error without a message" : "";
  if (absl::Status s = CheckTimelineInvariants(*tl); !s.ok()) {
    return fmt::format("invariants: {}", std::string(s.message()));
  }
  const RunMetadata& m = tl->metadata();
  if (m.truncated && m.truncated_at_byte < 0) return "truncated without a byte offset";
  return "";
}

// Decompressed bytes a gzip input may expand to here: bombs are point 2 of
// issue 12 (limits), not a fuzz finding, and must not exhaust the fuzzer.
constexpr size_t kMaxInflatedBytes = size_t{64} << 20;

}  // namespace

std::string FuzzKinetoJson(const uint8_t* data, size_t size) {
  MemFile file(data, size);
  if (!file.ok()) return "memfd_create failed";
  ParseOptions options;
  options.threads = 1;      // deterministic, and the fuzzer runs many at once
  options.split_bytes = 512;  // many parts: exercises the splitting and merge
  options.max_document_bytes = 1 << 16;
  return CheckParsed(ParseKinetoJsonFile(file.path(), options));
}

std::string FuzzXSpace(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  return CheckParsed(ParseXSpaceBytes(bytes, "/fuzz/host.xplane.pb"));
}

std::string FuzzGzip(const uint8_t* data, size_t size) {
  MemFile file(data, size);
  if (!file.ok()) return "memfd_create failed";
  absl::StatusOr<std::unique_ptr<InputStream>> in = InputStream::Open(file.path());
  if (!in.ok()) return in.status().message().empty() ? "open error without a message" : "";
  std::string out;
  std::vector<char> buf(4096);
  bool read_error = false;
  for (;;) {
    absl::StatusOr<size_t> n = (*in)->Read(buf.data(), buf.size());
    if (!n.ok()) {
      if (n.status().message().empty()) return "read error without a message";
      read_error = true;
      break;
    }
    if (*n == 0) break;
    if (*n > buf.size()) return fmt::format("Read returned {} > capacity", *n);
    out.append(buf.data(), *n);
    if (out.size() > kMaxInflatedBytes) return "";
  }
  if ((*in)->decompressed_offset() != out.size()) {
    return fmt::format("decompressed_offset {} but {} bytes read",
                       (*in)->decompressed_offset(), out.size());
  }
  if (const StreamDamage* d = (*in)->damage(); d != nullptr) {
    if (d->what.empty()) return "damage without a description";
    if (d->compressed_offset < 0 || static_cast<uint64_t>(d->compressed_offset) > size) {
      return fmt::format("damage at compressed byte {} of {}", d->compressed_offset, size);
    }
  }
  // The sniffing head is a prefix of what the parser reads, when the stream
  // is intact: on damage, how much a decoder emits before it notices depends
  // on its output buffer's size (isa-l), so the two may differ.
  absl::StatusOr<std::string> head = ReadHead(file.path(), 512);
  if (!read_error && (*in)->damage() == nullptr && head.ok() &&
      std::string_view(out).substr(0, head->size()) != *head) {
    return "ReadHead disagrees with InputStream";
  }
  return "";
}

FuzzTarget FuzzTargetByName(std::string_view name) {
  if (name == "kineto_json") return FuzzKinetoJson;
  if (name == "xspace") return FuzzXSpace;
  if (name == "gzip") return FuzzGzip;
  if (name == "discovery") return FuzzDiscovery;
  if (name == "report") return FuzzReports;
  if (name == "pipeline") return RunPipelineOnBytes;
  if (name == "mcp_json") return FuzzMcpJson;
  if (name == "annotate") return FuzzAnnotate;
  if (name == "stdin") return FuzzStdin;
  if (name == "shard_part") return FuzzShardPart;
  return nullptr;
}

}  // namespace tracelint::fuzz
