#include "bench/trace_scaler.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "fmt/format.h"
#include "parsers/common/input_stream.h"

namespace tracelint::bench {
namespace {

// What a copy rewrites inside an event's text.
enum class SubKind : uint8_t {
  kTs,        // body event: + k x period
  kId,        // body event: + k x stride
  kStep,      // the N of ProfilerStep#N: + k x steps
  kStretch,   // metadata complete event's dur: + (copies - 1) x period
  kLateTs,    // metadata instant after the body's midpoint: + (copies - 1) x period
};

struct Sub {
  uint32_t begin;  // in the event's text
  uint32_t end;
  SubKind kind;
};

struct Event {
  size_t begin = 0;
  size_t end = 0;
  bool once = false;
  std::vector<Sub> subs;
};

bool IsIdArg(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "External id", "external id",        "correlation", "Python id",       "Python parent id",
      "Ev Idx",      "Record function id", "Seq",         "Sequence number",
  };
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// A minimal scanner for valid JSON that reports where tokens are; the
// scaler rewrites numbers in place and copies everything else verbatim.
class Scanner {
 public:
  explicit Scanner(std::string_view json) : json_(json) {}

  size_t pos() const { return pos_; }
  bool done() const { return pos_ >= json_.size(); }
  char peek() {
    SkipSpace();
    return pos_ < json_.size() ? json_[pos_] : '\0';
  }
  bool Eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  absl::Status Expect(char c) {
    if (Eat(c)) return absl::OkStatus();
    return absl::InvalidArgumentError(fmt::format("expected '{}' at byte {}", c, pos_));
  }
  void SkipSpace() {
    while (pos_ < json_.size() && (json_[pos_] == ' ' || json_[pos_] == '\n' ||
                                   json_[pos_] == '\r' || json_[pos_] == '\t')) {
      ++pos_;
    }
  }
  // A string's raw content (escapes left as written); pos_ after it.
  absl::Status String(std::string_view* content) {
    if (!(Eat('"'))) return Fail("a string");
    size_t start = pos_;
    while (pos_ < json_.size() && json_[pos_] != '"') pos_ += json_[pos_] == '\\' ? 2 : 1;
    if (!(pos_ < json_.size())) return Fail("the end of a string");
    *content = json_.substr(start, pos_ - start);
    ++pos_;
    return absl::OkStatus();
  }
  // Skips one value; [*begin, pos_) is its text.
  absl::Status Value(size_t* begin) {
    SkipSpace();
    *begin = pos_;
    if (!(pos_ < json_.size())) return Fail("a value");
    char c = json_[pos_];
    if (c == '"') {
      std::string_view ignored;
      return String(&ignored);
    }
    if (c == '{' || c == '[') {
      int64_t depth = 0;
      while (pos_ < json_.size()) {
        char d = json_[pos_];
        if (d == '"') {
          std::string_view ignored;
          if (absl::Status s = String(&ignored); !s.ok()) return s;
          continue;
        }
        ++pos_;
        if (d == '{' || d == '[') ++depth;
        if ((d == '}' || d == ']') && --depth == 0) return absl::OkStatus();
      }
      return absl::InvalidArgumentError("unterminated container");
    }
    while (pos_ < json_.size() && json_[pos_] != ',' && json_[pos_] != '}' &&
           json_[pos_] != ']' && json_[pos_] != ' ' && json_[pos_] != '\n' &&
           json_[pos_] != '\r' && json_[pos_] != '\t') {
      ++pos_;
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Fail(std::string_view what) const {
    return absl::InvalidArgumentError(fmt::format("expected {} at byte {}", what, pos_));
  }
  std::string_view json_;
  size_t pos_ = 0;
};

bool IsInteger(std::string_view t) {
  if (t.empty()) return false;
  size_t i = t[0] == '-' ? 1 : 0;
  if (i == t.size()) return false;
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return true;
}

std::string_view Unquote(std::string_view t) {
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') return t.substr(1, t.size() - 2);
  return t;
}

std::optional<double> ToDouble(std::string_view t) {
  t = Unquote(t);
  double d;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return d;
}

struct Parsed {
  size_t events_begin = 0;  // first event's first byte
  size_t events_end = 0;    // last event's end
  std::vector<Event> events;
  std::string separator;
  double body_first_us = INFINITY;
  double body_last_us = -INFINITY;
  int64_t max_id = -1;
  int64_t min_step = INT64_MAX;
  int64_t max_step = INT64_MIN;
  // Timestamps of metadata events (NaN for others), by event index.
  std::vector<double> once_ts;
};

class EventParser {
 public:
  EventParser(std::string_view json, Parsed& out) : json_(json), s_(json), out_(out) {}

  absl::Status Run() {
    if (s_.peek() == '[') return Events();
    if (absl::Status st = s_.Expect('{'); !st.ok()) return st;
    bool found = false;
    while (s_.peek() != '}') {
      std::string_view key;
      if (absl::Status st = s_.String(&key); !st.ok()) return st;
      if (absl::Status st = s_.Expect(':'); !st.ok()) return st;
      if (key == "traceEvents") {
        if (absl::Status st = Events(); !st.ok()) return st;
        found = true;
      } else {
        size_t ignored;
        if (absl::Status st = s_.Value(&ignored); !st.ok()) return st;
      }
      s_.Eat(',');
    }
    if (!found) return absl::InvalidArgumentError("no traceEvents array");
    return absl::OkStatus();
  }

 private:
  absl::Status Events() {
    if (absl::Status st = s_.Expect('['); !st.ok()) return st;
    std::map<std::string, int64_t> separators;
    while (s_.peek() != ']') {
      Event ev;
      ev.begin = s_.pos();
      if (s_.peek() == '{') {
        if (absl::Status st = ParseEvent(ev); !st.ok()) return st;
      } else {
        size_t ignored;
        if (absl::Status st = s_.Value(&ignored); !st.ok()) return st;
        ev.once = true;
        out_.once_ts.push_back(NAN);
      }
      ev.end = s_.pos();
      if (out_.events.empty()) out_.events_begin = ev.begin;
      out_.events_end = ev.end;
      out_.events.push_back(std::move(ev));
      if (s_.Eat(',')) {
        s_.SkipSpace();
        if (separators.size() < 64 && out_.events.size() < 4096) {
          ++separators[std::string(json_.substr(out_.events.back().end,
                                                s_.pos() - out_.events.back().end))];
        }
      }
    }
    s_.Eat(']');
    int64_t best = 0;
    out_.separator = ",";
    for (const auto& [text, n] : separators) {
      if (n > best) {
        best = n;
        out_.separator = text;
      }
    }
    return absl::OkStatus();
  }

  void AddSub(Event& ev, size_t begin, SubKind kind) {
    ev.subs.push_back(
        {static_cast<uint32_t>(begin - ev.begin), static_cast<uint32_t>(s_.pos() - ev.begin), kind});
  }

  void NoteId(std::string_view text) {
    int64_t v;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && v > out_.max_id) out_.max_id = v;
  }

  absl::Status ParseEvent(Event& ev) {
    s_.Expect('{').IgnoreError();
    std::string_view ph, cat, pid;
    bool pid_is_string = false;
    std::optional<double> ts, dur;
    size_t ts_sub = SIZE_MAX, dur_sub = SIZE_MAX;
    while (s_.peek() != '}') {
      std::string_view key;
      if (absl::Status st = s_.String(&key); !st.ok()) return st;
      if (absl::Status st = s_.Expect(':'); !st.ok()) return st;
      if (key == "args" && s_.peek() == '{') {
        if (absl::Status st = ParseArgs(ev); !st.ok()) return st;
        s_.Eat(',');
        continue;
      }
      size_t begin;
      if (absl::Status st = s_.Value(&begin); !st.ok()) return st;
      std::string_view text = json_.substr(begin, s_.pos() - begin);
      if (key == "ph") {
        ph = Unquote(text);
      } else if (key == "cat") {
        cat = Unquote(text);
      } else if (key == "pid") {
        pid = Unquote(text);
        pid_is_string = !text.empty() && text[0] == '"' && !IsInteger(pid);
      } else if (key == "ts") {
        ts = ToDouble(text);
        ts_sub = ev.subs.size();
        AddSub(ev, begin, SubKind::kTs);
      } else if (key == "dur") {
        dur = ToDouble(text);
        dur_sub = ev.subs.size();
        AddSub(ev, begin, SubKind::kStretch);
      } else if (key == "id" && IsInteger(text)) {
        NoteId(text);
        AddSub(ev, begin, SubKind::kId);
      } else if (key == "name" && text.starts_with("\"ProfilerStep#") &&
                 IsInteger(text.substr(14, text.size() - 15))) {
        int64_t n = 0;
        std::from_chars(text.data() + 14, text.data() + text.size() - 1, n);
        out_.min_step = std::min(out_.min_step, n);
        out_.max_step = std::max(out_.max_step, n);
        ev.subs.push_back({static_cast<uint32_t>(begin + 14 - ev.begin),
                           static_cast<uint32_t>(s_.pos() - 1 - ev.begin), SubKind::kStep});
      }
      s_.Eat(',');
    }
    s_.Eat('}');
    ev.once = ph == "M" || cat == "Trace" ||
              (pid_is_string && (pid == "Spans" || pid == "Traces" || pid.empty()));
    // Metadata keeps only its stretch (complete events) or late shift
    // (instants); body events keep everything but the stretch.
    std::vector<Sub> kept;
    for (size_t i = 0; i < ev.subs.size(); ++i) {
      Sub sub = ev.subs[i];
      if (ev.once) {
        if (i == dur_sub && ph == "X") kept.push_back(sub);
        if (i == ts_sub && ph != "X" && ph != "M") {
          sub.kind = SubKind::kLateTs;
          kept.push_back(sub);
        }
      } else if (i != dur_sub) {
        kept.push_back(sub);
      }
    }
    ev.subs = std::move(kept);
    if (!ev.once && ts) {
      out_.body_first_us = std::min(out_.body_first_us, *ts);
      out_.body_last_us = std::max(out_.body_last_us, *ts + dur.value_or(0));
    }
    out_.once_ts.push_back(ev.once && ts ? *ts : NAN);
    return absl::OkStatus();
  }

  absl::Status ParseArgs(Event& ev) {
    s_.Expect('{').IgnoreError();
    while (s_.peek() != '}') {
      std::string_view key;
      if (absl::Status st = s_.String(&key); !st.ok()) return st;
      if (absl::Status st = s_.Expect(':'); !st.ok()) return st;
      size_t begin;
      if (absl::Status st = s_.Value(&begin); !st.ok()) return st;
      std::string_view text = json_.substr(begin, s_.pos() - begin);
      if (IsIdArg(key) && IsInteger(text)) {
        NoteId(text);
        AddSub(ev, begin, SubKind::kId);
      }
      s_.Eat(',');
    }
    s_.Eat('}');
    return absl::OkStatus();
  }

  std::string_view json_;
  Scanner s_;
  Parsed& out_;
};

// Adds `delta` to the integer part of the decimal number `token` (possibly
// quoted), keeping its fraction digits.
void AppendShifted(std::string_view token, int64_t delta, std::string& out) {
  if (delta == 0) {
    out.append(token);
    return;
  }
  bool quoted = token.size() >= 2 && token.front() == '"';
  std::string_view t = Unquote(token);
  size_t cut = t.find_first_of(".eE");
  std::string_view int_part = t.substr(0, cut);
  int64_t v;
  auto [p, ec] = std::from_chars(int_part.data(), int_part.data() + int_part.size(), v);
  if (quoted) out.push_back('"');
  if (ec != std::errc() || p != int_part.data() + int_part.size() || t[0] == '-' ||
      (cut != std::string_view::npos && t[cut] != '.')) {
    // Exponents and negatives: through a double, to the nanosecond.
    double d = ToDouble(t).value_or(0) + static_cast<double>(delta);
    out += fmt::format("{:.3f}", d);
  } else {
    out += fmt::format_int(v + delta).str();
    if (cut != std::string_view::npos) out.append(t.substr(cut));
  }
  if (quoted) out.push_back('"');
}

}  // namespace

absl::StatusOr<ScaleStats> ScaleTrace(std::string_view json, const ScaleOptions& options,
                                      gen::ByteSink& out) {
  Parsed parsed;
  EventParser parser(json, parsed);
  if (absl::Status s = parser.Run(); !s.ok()) return s;
  if (parsed.events.empty()) return absl::InvalidArgumentError("the trace has no events");
  ScaleStats stats;
  int64_t body_bytes = 0;
  int64_t fixed_bytes = static_cast<int64_t>(json.size());
  for (const Event& ev : parsed.events) {
    if (ev.once) {
      ++stats.once_events;
    } else {
      ++stats.body_events;
      body_bytes += static_cast<int64_t>(ev.end - ev.begin + parsed.separator.size());
    }
  }
  if (stats.body_events == 0 || !std::isfinite(parsed.body_first_us)) {
    return absl::InvalidArgumentError("the trace has no timed events to repeat");
  }
  fixed_bytes -= body_bytes;
  stats.copies = options.copies > 0
                     ? options.copies
                     : std::max<int64_t>(1, std::llround(static_cast<double>(options.target_bytes -
                                                                             fixed_bytes) /
                                                         static_cast<double>(body_bytes)));
  stats.period_us =
      static_cast<int64_t>(std::ceil(parsed.body_last_us - parsed.body_first_us)) + 1;
  stats.id_stride = parsed.max_id + 1;
  stats.step_stride =
      parsed.max_step >= parsed.min_step ? parsed.max_step - parsed.min_step + 1 : 0;
  const double midpoint_us = (parsed.body_first_us + parsed.body_last_us) / 2;
  const int64_t last_shift = (stats.copies - 1) * stats.period_us;

  std::string buf;
  constexpr size_t kFlushBytes = size_t{1} << 20;
  buf.reserve(kFlushBytes + (size_t{64} << 10));
  auto flush = [&](bool force) -> absl::Status {
    if (buf.size() < kFlushBytes && !force) return absl::OkStatus();
    stats.output_bytes += static_cast<int64_t>(buf.size());
    absl::Status s = out.Write(buf);
    buf.clear();
    return s;
  };
  buf.append(json.substr(0, parsed.events_begin));
  bool first = true;
  for (int64_t k = 0; k < stats.copies; ++k) {
    for (size_t i = 0; i < parsed.events.size(); ++i) {
      const Event& ev = parsed.events[i];
      if (ev.once && k > 0) continue;
      if (!first) buf.append(parsed.separator);
      first = false;
      std::string_view text = json.substr(ev.begin, ev.end - ev.begin);
      size_t pos = 0;
      for (const Sub& sub : ev.subs) {
        buf.append(text.substr(pos, sub.begin - pos));
        std::string_view token = text.substr(sub.begin, sub.end - sub.begin);
        switch (sub.kind) {
          case SubKind::kTs: AppendShifted(token, k * stats.period_us, buf); break;
          case SubKind::kId: AppendShifted(token, k * stats.id_stride, buf); break;
          case SubKind::kStep: AppendShifted(token, k * stats.step_stride, buf); break;
          case SubKind::kStretch: AppendShifted(token, last_shift, buf); break;
          case SubKind::kLateTs:
            AppendShifted(token, parsed.once_ts[i] > midpoint_us ? last_shift : 0, buf);
            break;
        }
        pos = sub.end;
      }
      buf.append(text.substr(pos));
      if (absl::Status s = flush(false); !s.ok()) return s;
    }
  }
  buf.append(json.substr(parsed.events_end));
  if (absl::Status s = flush(true); !s.ok()) return s;
  if (absl::Status s = out.Close(); !s.ok()) return s;
  return stats;
}

absl::StatusOr<ScaleStats> ScaleTraceFile(const std::string& in_path, const std::string& out_path,
                                          const ScaleOptions& options) {
  absl::StatusOr<std::unique_ptr<InputStream>> in = InputStream::Open(in_path);
  if (!in.ok()) return in.status();
  std::string json;
  std::string chunk(size_t{4} << 20, '\0');
  for (;;) {
    absl::StatusOr<size_t> n = (*in)->Read(chunk.data(), chunk.size());
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    json.append(chunk.data(), *n);
  }
  if ((*in)->damage() != nullptr) {
    return absl::DataLossError(fmt::format("{}: {}", in_path, (*in)->damage()->what));
  }
  std::string tmp = out_path + ".tmp";
  absl::StatusOr<std::unique_ptr<gen::ByteSink>> sink = gen::OpenFileSink(tmp);
  if (!sink.ok()) return sink.status();
  absl::StatusOr<ScaleStats> stats = ScaleTrace(json, options, **sink);
  if (!stats.ok()) {
    std::remove(tmp.c_str());
    return absl::Status(stats.status().code(),
                        fmt::format("{}: {}", in_path, std::string(stats.status().message())));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, out_path, ec);
  if (ec) return absl::InternalError(fmt::format("rename {}: {}", tmp, ec.message()));
  return stats;
}

}  // namespace tracelint::bench
