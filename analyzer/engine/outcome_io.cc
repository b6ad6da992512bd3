#include "analyzer/engine/outcome_io.h"

#include <string>

#include "analyzer/analysis/record_io.h"

// Every field of a rule outcome, once; the merge round-trip test
// (cli/analyze_shard_test.cc) compares whole reports.
namespace tracelint::record_io {

template <> struct EnumMax<FindingSeverity> { static constexpr int value = 2; };
template <> struct EnumMax<Confidence> { static constexpr int value = 2; };

template <typename A> void Io(A& a, Evidence& e) {
  a("text", e.text);
  a("value", e.value);
  a("threshold", e.threshold);
  a("unit", e.unit);
}
template <typename A> void Io(A& a, TopItem& t) {
  a("name", t.name);
  a("total_ns", t.total_ns);
  a("count", t.count);
  a("detail", t.detail);
}
template <typename A> void Io(A& a, FindingLocation& l) {
  a("rank", l.rank);
  a("first_step", l.first_step);
  a("last_step", l.last_step);
  a("track", l.track);
  a("start_ns", l.start_ns);
  a("end_ns", l.end_ns);
  a("top_items", l.top_items);
  a("python_stack", l.python_stack);
}
template <typename A> void Io(A& a, RankValue& v) {
  a("rank", v.rank);
  a("fired", v.fired);
  a("recoverable_ns_per_step", v.recoverable_ns_per_step);
  a("recoverable_share", v.recoverable_share);
}
template <typename A> void Io(A& a, Finding& f) {
  a("rule_id", f.rule_id);
  a("cause", f.cause);
  a("severity", f.severity);
  a("recoverable_ns_per_step", f.recoverable_ns_per_step);
  a("recoverable_ns_steps", f.recoverable_ns_steps);
  a("recoverable_share", f.recoverable_share);
  a("confidence", f.confidence);
  a("title", f.title);
  a("message", f.message);
  a("evidence", f.evidence);
  a("location", f.location);
  a("fix", f.fix);
  a("per_rank", f.per_rank);
  a("rank_values", f.rank_values);
  a("one_time_ns", f.one_time_ns);
  a("outlier_step_ns", f.outlier_step_ns);
  a("outlier_steps", f.outlier_steps);
  a("fingerprint", f.fingerprint);
}
template <typename A> void Io(A& a, RuleOutcome& o) {
  a("rule_id", o.rule_id);
  a("applicable", o.applicable);
  a("not_judged_reason", o.not_judged_reason);
  a("findings", o.findings);
}

}  // namespace tracelint::record_io

namespace tracelint {

void WriteRuleOutcomes(JsonWriter& w, const std::vector<RuleOutcome>& outcomes) {
  record_io::Writer(w).Value(outcomes);
}

absl::StatusOr<std::vector<RuleOutcome>> ReadRuleOutcomes(simdjson::dom::element array) {
  simdjson::dom::array a;
  if (array.get_array().get(a) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("rule outcomes: not an array");
  }
  std::vector<RuleOutcome> out;
  out.reserve(a.size());
  for (simdjson::dom::element e : a) {
    simdjson::dom::object o;
    if (e.get_object().get(o) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError("rule outcomes: an entry is not an object");
    }
    std::string error;
    record_io::Reader reader(o, &error, "outcomes[" + std::to_string(out.size()) + "]");
    record_io::Io(reader, out.emplace_back());
    if (!error.empty()) return absl::InvalidArgumentError(error);
  }
  return out;
}

std::string RuleOutcomesToJson(const std::vector<RuleOutcome>& outcomes) {
  return record_io::ToJsonLine(outcomes);
}

absl::StatusOr<std::vector<RuleOutcome>> RuleOutcomesFromJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(json)).get(doc) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("rule outcomes: not valid JSON");
  }
  return ReadRuleOutcomes(doc);
}

}  // namespace tracelint
