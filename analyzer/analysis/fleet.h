#ifndef TRACELINT_ANALYZER_ANALYSIS_FLEET_H_
#define TRACELINT_ANALYZER_ANALYSIS_FLEET_H_

// The rows of `tracelint batch` and the fleet questions asked of them (docs/batch.md): sort by any
// column, groups (device type, directory level, regex), samples per second
// and per dollar from a price table, and the trend over trace time. All of
// it is computed from the rows alone, so a merge of shard outputs gives
// exactly what one process gives.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/base/time.h"

namespace tracelint {

// kMissing: the run was assigned to a shard whose output is absent from a
// merge (the shard died or its file was not given).
// kNotJudgeable: read, but nothing could be judged (analyze's verdict "not
// judgeable", exit 5: a fragment, no device activity, no steady step); its
// numbers are shown, but it never counts as a clean run or in a group's
// medians.
enum class BatchStatus { kOk, kDamaged, kError, kMissing, kNotJudgeable };
// "ok", "damaged", "error", "missing", "not judgeable"
std::string_view BatchStatusName(BatchStatus status);

// A finding as the batch keeps it: enough for groups and trends, not the
// evidence (memory stays bounded however many runs).
struct BatchFinding {
  std::string rule_id;
  std::string cause;
  std::string fingerprint;
  std::string severity;
  TimeNs recoverable_ns_per_step = 0;
  double recoverable_share = 0;
  TimeNs one_time_ns = 0;
  std::string title;
  // The whole finding as `analyze --format json` writes it (one line), for
  // batch's JSON and JSONL; empty in records from before it was kept.
  std::string json;
};

struct BatchRow {
  std::string run;  // the path analysed
  // The batch path the run was found under (`--group-by dir:N` counts
  // directory levels below it).
  std::string root;
  BatchStatus status = BatchStatus::kOk;
  std::string error;  // why the run is damaged, could not be read, is missing or not judgeable
  int ranks = 0;
  // The slowest rank (largest mean step) sets the pace of a synchronous
  // run, so its steps stand for the run.
  int64_t steps = 0;
  TimeNs mean_step_ns = 0;
  // Mean over ranks and their devices with GPU activity of the TensorBoard
  // plugin's GPU utilization (report.schema.json gpu_utilization); none
  // when no rank has device activity.
  std::optional<double> gpu_utilization;
  int findings = 0;
  TimeNs recoverable_ns_per_step = 0;  // sum over findings (SummarizeFindings)
  double recoverable_share = 0;        // of the mean step, capped at 1
  std::string top_finding;             // "rule-id/cause" of the top-ranked finding
  TimeNs top_ns_per_step = 0;
  double top_share = 0;
  // The device type: the name of the first device with activity (first
  // rank first), else the first device the metadata names; "" unknown.
  std::string device;
  // What the run's devices are called ("GPU", "TPU", "MTIA"; the first
  // rank's), for the utilization column's header.
  std::string accelerator = "GPU";
  // Devices the run used: per rank, its devices with activity (at least
  // one), summed over ranks. A run's price is this times the device price.
  int devices = 0;
  // The trace's own start (first event, base time added); 0 unknown.
  TimeNs start_ns = 0;
  std::vector<BatchFinding> finding_list;  // ranked, as the run's report
  // Set by ApplyBatchView (batch_fleet.h) from --batch-size and --prices.
  std::optional<double> samples_per_s;
  std::optional<double> price_per_hour;  // of the run: device price x devices
  std::optional<double> samples_per_dollar;
};

// One rule's record within a group: in how many runs it fired and its
// median cost over those runs (per step, or one-time when it has no
// per-step cost).
struct BatchGroupRule {
  std::string rule_id;
  int runs_fired = 0;
  TimeNs median_ns_per_step = 0;
  TimeNs median_one_time_ns = 0;
};

struct BatchGroup {
  std::string key;
  int runs = 0;      // all rows of the group
  int analysed = 0;  // rows with numbers (ok or damaged)
  std::optional<TimeNs> median_step_ns;
  std::optional<double> median_gpu_utilization;
  std::optional<double> median_samples_per_s;
  std::optional<double> median_samples_per_dollar;
  std::vector<BatchGroupRule> rules;  // most runs fired first, then id
};

// One change in the trend view, between a run and the previous analysed
// run (by trace start time).
struct BatchTrendChange {
  std::string what;  // "step time", or "rule-id/cause" of a finding
  // Before and after, per step (one-time cost for one-time findings); 0
  // when the finding was absent.
  TimeNs before_ns = 0;
  TimeNs after_ns = 0;
};

struct BatchTrendEntry {
  std::string run;
  std::string group;  // with --group-by: compared with the previous run of this group
  TimeNs start_ns = 0;
  TimeNs mean_step_ns = 0;
  std::vector<BatchTrendChange> changes;
};

// Everything one batch table shows.
struct BatchTable {
  std::vector<BatchRow> rows;  // in display order
  // The options the batch ran with, as a JSON object (the JSON output's
  // "options"); empty: not recorded.
  std::string options_json;
  // Text: the terminal's width (0: no limit). Run names are shown relative
  // to the folder searched, and the run and last columns elided to fit.
  int width_columns = 0;
  bool throughput = false;     // samples/s columns (--batch-size or --batch-size-from)
  bool prices = false;         // price and samples/$ columns (--prices)
  std::string group_by;        // empty: no groups section
  std::vector<BatchGroup> groups;
  bool trend = false;
  double trend_threshold = 0;  // fraction: changes smaller than this are not shown
  std::vector<BatchTrendEntry> trend_entries;
};

// docs/design/contract.md, "Prices and samples per dollar": the price of one device
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

#endif  // TRACELINT_ANALYZER_ANALYSIS_FLEET_H_
