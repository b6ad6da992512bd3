#include "capture/convert/capture_dir.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "capture/convert/raw_format.h"
#include "capture/convert/raw_reader.h"
#include "fmt/format.h"

namespace tracelint::capture {

namespace fs = std::filesystem;

absl::StatusOr<ConvertedCapture> ConvertCaptureDirectory(const std::string& raw_dir,
                                                         const std::string& out_dir,
                                                         const ConvertOptions& options) {
  ConvertedCapture out;
  std::error_code ec;
  if (!fs::is_directory(raw_dir, ec)) return out;  // nothing was injected
  std::vector<fs::path> dumps;
  for (const fs::directory_entry& e : fs::directory_iterator(raw_dir, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == kRawSuffix) dumps.push_back(e.path());
  }
  if (ec) return absl::UnavailableError(fmt::format("{}: cannot list: {}", raw_dir, ec.message()));
  std::sort(dumps.begin(), dumps.end());
  for (const fs::path& dump : dumps) {
    absl::StatusOr<CaptureRecords> records = ReadRawCaptureFile(dump.string());
    if (!records.ok()) {
      out.warnings.push_back(std::string(records.status().message()));
      continue;
    }
    ConvertSummary summary;
    std::string json = CaptureToKinetoJson(*records, options, &summary);
    fs::path target = fs::path(out_dir) / CaptureTraceFileName(records->process);
    fs::path tmp = target;
    tmp += ".tmp";
    {
      std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
      file.write(json.data(), static_cast<std::streamsize>(json.size()));
      if (!file.flush()) {
        return absl::UnavailableError(fmt::format("cannot write {}", tmp.string()));
      }
    }
    fs::rename(tmp, target, ec);
    if (ec) {
      return absl::UnavailableError(
          fmt::format("cannot rename {} to {}: {}", tmp.string(), target.string(), ec.message()));
    }
    out.trace_files.push_back(target.string());
    for (std::string& w : summary.warnings) out.warnings.push_back(std::move(w));
    ConvertSummary& t = out.totals;
    t.kernels += summary.kernels;
    t.copies += summary.copies;
    t.memsets += summary.memsets;
    t.api_calls += summary.api_calls;
    t.syncs += summary.syncs;
    t.ranges += summary.ranges;
    t.instants += summary.instants;
    t.graphs += summary.graphs;
    t.steps += summary.steps;
    t.unmatched_ranges += summary.unmatched_ranges;
    t.dropped_records += summary.dropped_records;
  }
  std::sort(out.trace_files.begin(), out.trace_files.end());
  return out;
}

}  // namespace tracelint::capture
