#include "analyzer/analysis/fleet.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <regex>
#include <sstream>

#include "fmt/format.h"

namespace tracelint {
namespace {

bool Analysed(const BatchRow& r) {
  return r.status == BatchStatus::kOk || r.status == BatchStatus::kDamaged;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename T>
std::optional<T> Median(std::vector<T> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  if constexpr (std::is_integral_v<T>) {
    return values[n / 2 - 1] + (values[n / 2] - values[n / 2 - 1]) / 2;
  } else {
    return (values[n / 2 - 1] + values[n / 2]) / 2;
  }
}

// A sort column: its value for a row (nullopt: goes last), numeric or text.
struct SortKey {
  bool numeric = true;
  std::function<std::optional<double>(const BatchRow&)> number;
  std::function<std::string(const BatchRow&)> text;
};

std::optional<double> IfAnalysed(const BatchRow& r, double v) {
  if (!Analysed(r)) return std::nullopt;
  return v;
}

const std::map<std::string, SortKey>& SortKeys() {
  static const auto* keys = new std::map<std::string, SortKey>{
      {"run", {false, nullptr, [](const BatchRow& r) { return r.run; }}},
      {"status",
       {false, nullptr, [](const BatchRow& r) { return std::string(BatchStatusName(r.status)); }}},
      {"device", {false, nullptr, [](const BatchRow& r) { return r.device; }}},
      {"top-finding", {false, nullptr, [](const BatchRow& r) { return r.top_finding; }}},
      {"start",
       {true,
        [](const BatchRow& r) -> std::optional<double> {
          if (r.start_ns == 0) return std::nullopt;
          return static_cast<double>(r.start_ns);
        },
        nullptr}},
      {"ranks", {true, [](const BatchRow& r) { return IfAnalysed(r, r.ranks); }, nullptr}},
      {"devices", {true, [](const BatchRow& r) { return IfAnalysed(r, r.devices); }, nullptr}},
      {"steps",
       {true, [](const BatchRow& r) { return IfAnalysed(r, static_cast<double>(r.steps)); },
        nullptr}},
      {"step-time",
       {true, [](const BatchRow& r) { return IfAnalysed(r, static_cast<double>(r.mean_step_ns)); },
        nullptr}},
      {"gpu-util",
       {true,
        [](const BatchRow& r) -> std::optional<double> {
          if (!Analysed(r)) return std::nullopt;
          return r.gpu_utilization;
        },
        nullptr}},
      {"findings", {true, [](const BatchRow& r) { return IfAnalysed(r, r.findings); }, nullptr}},
      {"recoverable",
       {true, [](const BatchRow& r) { return IfAnalysed(r, r.recoverable_share); }, nullptr}},
      {"top-cost",
       {true,
        [](const BatchRow& r) { return IfAnalysed(r, static_cast<double>(r.top_ns_per_step)); },
        nullptr}},
      {"samples-per-s", {true, [](const BatchRow& r) { return r.samples_per_s; }, nullptr}},
      {"price", {true, [](const BatchRow& r) { return r.price_per_hour; }, nullptr}},
      {"samples-per-dollar",
       {true, [](const BatchRow& r) { return r.samples_per_dollar; }, nullptr}},
  };
  return *keys;
}

struct SortSpec {
  std::string column;  // "path": as found
  bool descending = false;
};

absl::StatusOr<SortSpec> ParseSort(const std::string& sort) {
  SortSpec spec;
  std::string column = sort;
  std::optional<bool> descending;
  if (size_t colon = sort.rfind(':'); colon != std::string::npos) {
    std::string dir = sort.substr(colon + 1);
    if (dir != "asc" && dir != "desc") {
      return absl::InvalidArgumentError(
          fmt::format("--sort '{}': the direction must be asc or desc", sort));
    }
    descending = dir == "desc";
    column = sort.substr(0, colon);
  }
  spec.column = column;
  if (column == "path") {
    spec.descending = descending.value_or(false);
    return spec;
  }
  auto it = SortKeys().find(column);
  if (it == SortKeys().end()) {
    return absl::InvalidArgumentError(fmt::format("--sort must be one of {}, not '{}'",
                                                  fmt::join(BatchSortColumns(), ", "), sort));
  }
  // Numbers largest first, except time (oldest first) and text (A to Z).
  spec.descending = descending.value_or(it->second.numeric && column != "start");
  return spec;
}

void SortRows(std::vector<BatchRow>& rows, const SortSpec& spec) {
  if (spec.column == "path") {
    if (spec.descending) std::reverse(rows.begin(), rows.end());
    return;
  }
  const SortKey& key = SortKeys().at(spec.column);
  std::stable_sort(rows.begin(), rows.end(), [&](const BatchRow& a, const BatchRow& b) {
    if (!key.numeric) {
      std::string ta = key.text(a), tb = key.text(b);
      return spec.descending ? ta > tb : ta < tb;
    }
    std::optional<double> va = key.number(a), vb = key.number(b);
    if (va.has_value() != vb.has_value()) return va.has_value();
    if (!va) return false;
    return spec.descending ? *va > *vb : *va < *vb;
  });
}

struct GroupSpec {
  enum Kind { kNone, kDevice, kDir, kRegex } kind = kNone;
  int levels = 0;
  std::optional<std::regex> pattern;
};

absl::StatusOr<GroupSpec> ParseGroupBy(const std::string& group_by) {
  GroupSpec spec;
  if (group_by.empty()) return spec;
  if (group_by == "device") {
    spec.kind = GroupSpec::kDevice;
    return spec;
  }
  if (group_by.rfind("dir:", 0) == 0) {
    std::string n = group_by.substr(4);
    int levels = 0;
    bool digits = !n.empty() && n.size() < 4 &&
                  std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) levels = std::stoi(n);
    if (!digits || levels < 1) {
      return absl::InvalidArgumentError(
          fmt::format("--group-by '{}': dir:N needs a level N >= 1", group_by));
    }
    spec.kind = GroupSpec::kDir;
    spec.levels = levels;
    return spec;
  }
  if (group_by.rfind("regex:", 0) == 0) {
    try {
      spec.pattern.emplace(group_by.substr(6), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(
          fmt::format("--group-by '{}': not a valid regex ({})", group_by, e.what()));
    }
    spec.kind = GroupSpec::kRegex;
    return spec;
  }
  return absl::InvalidArgumentError(
      fmt::format("--group-by must be device, dir:N or regex:PATTERN, not '{}'", group_by));
}

std::string GroupKey(const GroupSpec& spec, const BatchRow& row) {
  switch (spec.kind) {
    case GroupSpec::kNone:
      return "";
    case GroupSpec::kDevice:
      return row.device.empty() ? "(unknown device)" : row.device;
    case GroupSpec::kDir: {
      std::filesystem::path rel =
          std::filesystem::path(row.run).lexically_relative(std::filesystem::path(row.root));
      if (rel.empty() || *rel.begin() == "..") rel = std::filesystem::path(row.run);
      std::vector<std::string> parts;
      for (const auto& part : rel) {
        if (!part.empty() && part != ".") parts.push_back(part.string());
      }
      // The levels are directories: a run that is a file below them keeps
      // its directories only.
      if (!parts.empty() && std::filesystem::path(row.run).has_extension() &&
          parts.size() <= static_cast<size_t>(spec.levels)) {
        parts.pop_back();
      }
      if (parts.empty()) return ".";
      if (parts.size() > static_cast<size_t>(spec.levels)) parts.resize(spec.levels);
      return fmt::format("{}", fmt::join(parts, "/"));
    }
    case GroupSpec::kRegex: {
      std::smatch m;
      if (!std::regex_search(row.run, m, *spec.pattern)) return "(no match)";
      return m.size() > 1 && m[1].matched ? m[1].str() : m[0].str();
    }
  }
  return "";
}

std::vector<BatchGroup> ComputeGroups(const std::vector<BatchRow>& rows, const GroupSpec& spec) {
  std::map<std::string, std::vector<const BatchRow*>> members;
  for (const BatchRow& r : rows) members[GroupKey(spec, r)].push_back(&r);
  std::vector<BatchGroup> groups;
  for (const auto& [key, list] : members) {
    BatchGroup& g = groups.emplace_back();
    g.key = key;
    g.runs = static_cast<int>(list.size());
    std::vector<TimeNs> steps;
    std::vector<double> utils, sps, spd;
    // Per rule: each run's summed cost per step and one-time cost.
    std::map<std::string, std::pair<std::vector<TimeNs>, std::vector<TimeNs>>> rule_costs;
    for (const BatchRow* r : list) {
      if (!Analysed(*r)) continue;
      ++g.analysed;
      if (r->mean_step_ns > 0) steps.push_back(r->mean_step_ns);
      if (r->gpu_utilization) utils.push_back(*r->gpu_utilization);
      if (r->samples_per_s) sps.push_back(*r->samples_per_s);
      if (r->samples_per_dollar) spd.push_back(*r->samples_per_dollar);
      std::map<std::string, std::pair<TimeNs, TimeNs>> per_rule;
      for (const BatchFinding& f : r->finding_list) {
        auto& [per_step, one_time] = per_rule[f.rule_id];
        per_step += f.recoverable_ns_per_step;
        one_time += f.one_time_ns;
      }
      for (const auto& [rule, cost] : per_rule) {
        auto& [per_step_list, one_time_list] = rule_costs[rule];
        per_step_list.push_back(cost.first);
        if (cost.second > 0) one_time_list.push_back(cost.second);
      }
    }
    g.median_step_ns = Median(steps);
    g.median_gpu_utilization = Median(utils);
    g.median_samples_per_s = Median(sps);
    g.median_samples_per_dollar = Median(spd);
    for (auto& [rule, costs] : rule_costs) {
      BatchGroupRule& gr = g.rules.emplace_back();
      gr.rule_id = rule;
      gr.runs_fired = static_cast<int>(costs.first.size());
      gr.median_ns_per_step = Median(costs.first).value_or(0);
      gr.median_one_time_ns = Median(costs.second).value_or(0);
    }
    std::stable_sort(g.rules.begin(), g.rules.end(),
                     [](const BatchGroupRule& a, const BatchGroupRule& b) {
                       return a.runs_fired > b.runs_fired;
                     });
  }
  return groups;
}

// docs/design/contract.md, "Run order": by the trace's own start time, then by name;
// traces without wall-clock times after those with.
std::vector<BatchTrendEntry> ComputeTrend(const std::vector<BatchRow>& rows, double threshold,
                                          const GroupSpec& group) {
  constexpr TimeNs kWallClockFromNs = 1'000'000'000LL * kNsPerS;
  std::vector<const BatchRow*> order;
  for (const BatchRow& r : rows) {
    if (Analysed(r) && r.mean_step_ns > 0) order.push_back(&r);
  }
  auto time_key = [&](const BatchRow* r) {
    return r->start_ns >= kWallClockFromNs ? r->start_ns : std::numeric_limits<TimeNs>::max();
  };
  std::stable_sort(order.begin(), order.end(), [&](const BatchRow* a, const BatchRow* b) {
    if (time_key(a) != time_key(b)) return time_key(a) < time_key(b);
    return a->run < b->run;
  });
  auto beyond = [&](TimeNs before, TimeNs after) {
    if (before == 0 || after == 0) return before != after;
    return std::abs(static_cast<double>(after - before)) > threshold * static_cast<double>(before);
  };
  // A finding's cost: per step, else one-time; keyed by fingerprint.
  using Costs = std::map<std::string, std::pair<std::string, TimeNs>>;
  auto costs_of = [](const BatchRow& r) {
    Costs out;
    for (const BatchFinding& f : r.finding_list) {
      std::string key = f.fingerprint.empty() ? f.rule_id + "/" + f.cause : f.fingerprint;
      auto& [name, cost] = out[key];
      name = f.rule_id + "/" + f.cause;
      cost += f.recoverable_ns_per_step > 0 ? f.recoverable_ns_per_step : f.one_time_ns;
    }
    return out;
  };
  // With groups, each run is compared with the previous run of its group
  // (an H100 run after an A100 run is no regression).
  std::vector<BatchTrendEntry> entries;
  std::map<std::string, std::pair<const BatchRow*, Costs>> last_of_group;
  for (const BatchRow* r : order) {
    BatchTrendEntry& e = entries.emplace_back();
    e.run = r->run;
    e.group = GroupKey(group, *r);
    e.start_ns = r->start_ns;
    e.mean_step_ns = r->mean_step_ns;
    Costs costs = costs_of(*r);
    auto& [previous, previous_costs] = last_of_group[e.group];
    if (previous != nullptr) {
      if (beyond(previous->mean_step_ns, r->mean_step_ns)) {
        e.changes.push_back({"step time", previous->mean_step_ns, r->mean_step_ns});
      }
      std::map<std::string, std::pair<std::string, std::pair<TimeNs, TimeNs>>> both;
      for (const auto& [key, v] : previous_costs) both[key] = {v.first, {v.second, 0}};
      for (const auto& [key, v] : costs) {
        auto& slot = both[key];
        slot.first = v.first;
        slot.second.second = v.second;
      }
      for (const auto& [key, v] : both) {
        if (beyond(v.second.first, v.second.second)) {
          e.changes.push_back({v.first, v.second.first, v.second.second});
        }
      }
    }
    previous = r;
    previous_costs = std::move(costs);
  }
  return entries;
}

std::optional<int64_t> BatchSizeOf(const BatchView& view, const std::optional<std::regex>& from,
                                   const BatchRow& row) {
  if (from) {
    std::smatch m;
    if (!std::regex_search(row.run, m, *from)) return std::nullopt;
    std::string digits = m.size() > 1 && m[1].matched ? m[1].str() : m[0].str();
    if (digits.empty() || digits.size() > 12 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    int64_t n = std::stoll(digits);
    return n > 0 ? std::optional<int64_t>(n) : std::nullopt;
  }
  if (view.batch_size > 0) return view.batch_size;
  return std::nullopt;
}

}  // namespace

std::string_view BatchStatusName(BatchStatus status) {
  switch (status) {
    case BatchStatus::kOk:
      return "ok";
    case BatchStatus::kDamaged:
      return "damaged";
    case BatchStatus::kError:
      return "error";
    case BatchStatus::kMissing:
      return "missing";
    case BatchStatus::kNotJudgeable:
      return "not judgeable";
  }
  return "error";
}

std::optional<double> DevicePricePerHour(const PriceTable& prices, const BatchRow& row) {
  const PriceEntry* best = nullptr;
  std::string device = Lower(row.device);
  for (const PriceEntry& e : prices.entries) {
    bool match = e.glob ? fnmatch(e.key.c_str(), row.run.c_str(), 0) == 0
                        : !device.empty() && device.find(Lower(e.key)) != std::string::npos;
    if (match && (best == nullptr || e.key.size() > best->key.size())) best = &e;
  }
  if (best == nullptr) return std::nullopt;
  return best->price_per_hour;
}

const std::vector<std::string>& BatchSortColumns() {
  static const auto* columns = [] {
    auto* out = new std::vector<std::string>{"path"};
    for (const auto& [name, key] : SortKeys()) out->push_back(name);
    return out;
  }();
  return *columns;
}

absl::Status ValidateBatchView(const BatchView& view) {
  if (absl::StatusOr<SortSpec> s = ParseSort(view.sort); !s.ok()) return s.status();
  if (absl::StatusOr<GroupSpec> g = ParseGroupBy(view.group_by); !g.ok()) return g.status();
  if (!view.batch_size_from.empty()) {
    try {
      std::regex check(view.batch_size_from);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(fmt::format(
          "--batch-size-from '{}': not a valid regex ({})", view.batch_size_from, e.what()));
    }
  }
  if (view.prices && view.batch_size <= 0 && view.batch_size_from.empty()) {
    return absl::InvalidArgumentError(
        "--prices needs the runs' batch size: --batch-size N or --batch-size-from REGEX");
  }
  if (!(view.trend_threshold >= 0)) {
    return absl::InvalidArgumentError("--trend-threshold must be >= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<BatchTable> ApplyBatchView(std::vector<BatchRow> rows, const BatchView& view) {
  if (absl::Status s = ValidateBatchView(view); !s.ok()) return s;
  SortSpec sort = *ParseSort(view.sort);
  GroupSpec group = *ParseGroupBy(view.group_by);
  std::optional<std::regex> from;
  if (!view.batch_size_from.empty()) from.emplace(view.batch_size_from);
  BatchTable table;
  table.throughput = view.batch_size > 0 || from.has_value();
  table.prices = view.prices.has_value();
  for (BatchRow& r : rows) {
    r.samples_per_s.reset();
    r.price_per_hour.reset();
    r.samples_per_dollar.reset();
    if (!Analysed(r) || r.mean_step_ns <= 0) continue;
    if (std::optional<int64_t> bs = BatchSizeOf(view, from, r)) {
      r.samples_per_s =
          static_cast<double>(*bs) * r.ranks * 1e9 / static_cast<double>(r.mean_step_ns);
    }
    if (view.prices) {
      if (std::optional<double> device_price = DevicePricePerHour(*view.prices, r)) {
        r.price_per_hour = *device_price * std::max(1, r.devices);
        if (r.samples_per_s) r.samples_per_dollar = *r.samples_per_s * 3600 / *r.price_per_hour;
      }
    }
  }
  if (group.kind != GroupSpec::kNone) {
    table.group_by = view.group_by;
    table.groups = ComputeGroups(rows, group);
  }
  if (view.trend) {
    table.trend = true;
    table.trend_threshold = view.trend_threshold;
    table.trend_entries = ComputeTrend(rows, view.trend_threshold, group);
  }
  SortRows(rows, sort);
  table.rows = std::move(rows);
  return table;
}

}  // namespace tracelint
