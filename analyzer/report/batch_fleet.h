#ifndef TRACELINT_ANALYZER_REPORT_BATCH_FLEET_H_
#define TRACELINT_ANALYZER_REPORT_BATCH_FLEET_H_

// The fleet questions of `tracelint batch` (docs/batch.md): sort by any
// column, groups (device type, directory level, regex), samples per second
// and per dollar from a price table, and the trend over trace time. All of
// it is computed from the rows alone, so a merge of shard outputs gives
// exactly what one process gives.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/report/batch_table.h"

namespace tracelint {

// contract.md, "Prices and samples per dollar": the price of one device
// per hour. A key holding '*' or '?' is a glob on the run's path, any other
// key a case-insensitive substring of the device name; the longest matching
// key wins.
struct PriceEntry {
  std::string key;
  double price_per_hour = 0;
  bool glob = false;
};
struct PriceTable {
  std::vector<PriceEntry> entries;  // as the file lists them
};

// Reads a TOML file of `"<key>" = <price per hour>` lines (top-level keys;
// integer or float values, > 0).
absl::StatusOr<PriceTable> LoadPriceTable(const std::string& path);
absl::StatusOr<PriceTable> ParsePriceTable(std::string_view toml, const std::string& source);

// The device price per hour for the run, or nullopt when no key matches.
std::optional<double> DevicePricePerHour(const PriceTable& prices, const BatchRow& row);

struct BatchView {
  // A column (BatchSortColumns()), optionally ":asc" or ":desc". "path"
  // keeps the order found. Text columns and "start" sort ascending, numbers
  // descending (largest first) unless told; runs without the value go last; ties keep
  // the order found.
  std::string sort = "path";
  // "", "device", "dir:N" (the first N directory levels below the batch
  // path the run was found under) or "regex:PATTERN" (the first capture
  // group, else the whole match, of PATTERN searched in the run's path).
  std::string group_by;
  int64_t batch_size = 0;       // samples per step per rank
  std::string batch_size_from;  // regex on the run's path; capture group 1 is the batch size
  std::optional<PriceTable> prices;
  bool trend = false;
  double trend_threshold = 0.10;  // a change smaller than this fraction is not shown
};

// The names --sort accepts, for help and errors.
const std::vector<std::string>& BatchSortColumns();

// InvalidArgument for a bad sort column, group-by or regex, or prices
// without a batch size.
absl::Status ValidateBatchView(const BatchView& view);

// Sorts the rows (given in the order found), fills their throughput and
// prices, and computes groups and trend.
absl::StatusOr<BatchTable> ApplyBatchView(std::vector<BatchRow> rows, const BatchView& view);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_BATCH_FLEET_H_
