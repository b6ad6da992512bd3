#include "parsers/kineto/kineto_event_emitter.h"

#include <charconv>
#include <cstring>

#include "analyzer/base/strings.h"
#include "analyzer/base/time_limits.h"
#include "analyzer/model/classify.h"
#include "fmt/format.h"
#include "parsers/kineto/kineto_categories.h"

namespace tracelint::kineto {
namespace {

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  // Fast path for what traces hold almost always: a short decimal (pids,
  // tids, correlation ids). Up to 18 digits cannot overflow int64.
  {
    size_t i = s[0] == '-' ? 1 : 0;
    size_t digits = s.size() - i;
    if (digits > 0 && digits <= 18) {
      int64_t v = 0;
      for (; i < s.size(); ++i) {
        unsigned d = static_cast<unsigned char>(s[i]) - '0';
        if (d > 9) break;
        v = v * 10 + d;
      }
      if (i == s.size()) {
        *out = s[0] == '-' ? -v : v;
        return true;
      }
    }
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc() && p == s.data() + s.size()) return true;
  // Ids beyond int64 (uint64 counters) keep their bit pattern.
  uint64_t u;
  auto [q, ec2] = std::from_chars(s.data(), s.data() + s.size(), u);
  if (ec2 == std::errc() && q == s.data() + s.size()) {
    *out = static_cast<int64_t>(u);
    return true;
  }
  return false;
}

// Stable across parts and runs (unlike string ids): names string pids/tids.
int64_t HashId(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  // Negative and far from the -1 of profiler overhead events.
  return -static_cast<int64_t>((h >> 2) | (uint64_t{1} << 60));
}

// "7", 7, "stream 7", "stream 7 " -> 7.
bool ParseStreamLike(std::string_view s, int64_t* out) {
  s = StripAsciiWhitespace(s);
  if (StartsWithIgnoreCase(s, "stream")) s = StripAsciiWhitespace(s.substr(6));
  return ParseInt64(s, out);
}

// Microsecond text to ns. The common shapes ("123", "123.456") are parsed
// here without allocation; anything else goes to the general parser. Returns
// false when the text is not a time. (A bool and an out-parameter rather
// than std::optional: the optional's two fields, stored separately and read
// back as one 16-byte value, stalled store forwarding on this hot path.)
bool MicrosToNs(std::string_view s, bool* fractional, TimeNs* out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && s[i] == '-') {
    negative = true;
    ++i;
  }
  int64_t us = 0;
  size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 18; ++i, ++digits) {
    us = us * 10 + (s[i] - '0');
  }
  int64_t frac_ns = 0;
  bool simple = digits > 0 && (i == s.size() || s[i] == '.');
  if (simple && i < s.size()) {
    ++i;
    int scale = 100;
    size_t frac_digits = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && frac_digits < 3; ++i, ++frac_digits) {
      frac_ns += (s[i] - '0') * scale;
      scale /= 10;
    }
    simple = i == s.size();
    *fractional = true;
  }
  if (simple) {
    TimeNs ns;
    if (__builtin_mul_overflow(us, kNsPerUs, &ns) || __builtin_add_overflow(ns, frac_ns, &ns)) {
      return false;
    }
    *out = negative ? -ns : ns;
    return true;
  }
  if (Contains(s, ".")) *fractional = true;
  std::optional<TimeNs> ns = ParseMicrosTextToNs(s);
  if (!ns) return false;
  *out = *ns;
  return true;
}

// "[1, 2, 3]" -> up to three ints.
void ParseDim3(std::string_view text, int32_t out[3]) {
  int k = 0;
  size_t i = 0;
  while (i < text.size() && k < 3) {
    while (i < text.size() && !(text[i] == '-' || (text[i] >= '0' && text[i] <= '9'))) ++i;
    size_t j = i;
    while (j < text.size() && (text[j] == '-' || (text[j] >= '0' && text[j] <= '9'))) ++j;
    if (j == i) break;
    int64_t v = 0;
    if (ParseInt64(text.substr(i, j - i), &v)) {
      out[k++] = static_cast<int32_t>(std::clamp<int64_t>(v, -1, INT32_MAX));
    }
    i = j;
  }
}

std::optional<double> NumberValue(const JsonScalar& v) {
  if (v.type != JsonScalar::Type::kNumber && v.type != JsonScalar::Type::kString) {
    return std::nullopt;
  }
  std::string_view s = StripAsciiWhitespace(v.text);
  double d;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return d;
}

// The value as an integer (a double is truncated), or `fallback`. Returns a
// plain int64 for the reason given at MicrosToNs.
int64_t IntValueOr(const JsonScalar& v, int64_t fallback) {
  if (v.type != JsonScalar::Type::kNumber && v.type != JsonScalar::Type::kString) {
    return fallback;
  }
  int64_t x;
  if (ParseInt64(StripAsciiWhitespace(v.text), &x)) return x;
  // Beyond int64 (or NaN) the cast would be undefined.
  if (std::optional<double> d = NumberValue(v); d && *d > -9.2e18 && *d < 9.2e18) {
    return static_cast<int64_t>(*d);
  }
  return fallback;
}

}  // namespace

EventEmitter::EventEmitter(TimelineBuilder& builder, TimeNs base_time_ns)
    : b_(builder), base_time_ns_(base_time_ns) {}

void EventEmitter::Diag(std::string_view name, Severity severity,
                        std::string_view description) {
  b_.diagnostics().Add(name, severity, description);
}

void EventEmitter::ParseIds(const RawEvent& ev, bool device, Id* pid, Id* tid) {
  pid->text = ev.pid.text;
  tid->text = ev.tid.text;
  if (!device && (!ev.pid.present() || !ev.tid.present())) {
    // Host events with no pid or tid (some converters write only one) get
    // kMissingPid / kMissingTid instead of an 'other' track nobody reads.
    // Device events keep looking for their device and stream in the args.
    pid->numeric = true;
    tid->numeric = true;
    pid->value = kMissingPid;
    tid->value = kMissingTid;
    if (ev.pid.present() && !ParseInt64(StripAsciiWhitespace(ev.pid.text), &pid->value)) {
      pid->numeric = false;
      pid->value = HashId(ev.pid.text);
    }
    if (ev.tid.present() && !ParseInt64(StripAsciiWhitespace(ev.tid.text), &tid->value)) {
      tid->numeric = false;
      tid->value = HashId(ev.tid.text);
    }
    return;
  }
  pid->numeric =
      ev.pid.present() && ParseInt64(StripAsciiWhitespace(ev.pid.text), &pid->value);
  if (!pid->numeric) pid->value = HashId(ev.pid.text);
  // Old traces write host tids as strings ("25738") and streams as
  // "stream 7"; both name the same thread as the plain number.
  tid->numeric = ev.tid.present() && (device ? ParseStreamLike(ev.tid.text, &tid->value)
                                             : ParseInt64(StripAsciiWhitespace(ev.tid.text),
                                                          &tid->value));
  if (!tid->numeric) tid->value = HashId(ev.tid.text);
}

TrackId EventEmitter::Track(TrackKind kind, const Id& pid, const Id& tid) {
  TrackKey key{kind, pid.value, tid.value};
  TrackId id = b_.GetTrack(kind, pid.value, tid.value);
  if (tracks_.insert(key).second && (!pid.numeric || !tid.numeric)) {
    // Tracks of string pids ("Spans", "Traces", "") are named after them,
    // a host thread named by a string ("ThreadId(1)") after that.
    std::string name = pid.numeric ? fmt::format("{}", pid.value) : std::string(pid.text);
    if (!tid.numeric) {
      name = kind == TrackKind::kHostThread ? std::string(tid.text)
                                            : fmt::format("{}/{}", name, tid.text);
    }
    b_.SetTrackName(id, b_.Intern(name));
  }
  return id;
}

TrackKey EventEmitter::ResolveTrackKey(bool device, const RawEvent& ev,
                                       const Id& pid, const Id& tid, bool flow_end) {
  if (device) {
    // pid is the device index and tid the stream; fall back to the args
    // when a producer wrote something else there.
    int64_t dev = pid.numeric && pid.value >= 0 && pid.value < 65536 ? pid.value : -1;
    int64_t stream = tid.numeric ? tid.value : -1;
    for (const RawArg& a : ev.args) {
      if (dev < 0 && a.id == ArgKey::kDevice) dev = IntValueOr(a.value, -1);
      if (stream < 0 && a.id == ArgKey::kStream) stream = IntValueOr(a.value, -1);
    }
    if (dev >= 0) return {TrackKind::kDeviceStream, dev, std::max<int64_t>(stream, 0)};
    // Kineto ends an ac2g flow on every runtime call it correlates, on the
    // host's pid; on a host whose pid is 65536 or more that is no device
    // index. The end stays where it was written and resolves to nothing
    // (flow_end_without_start), as on hosts with small pids.
    if (flow_end) return {TrackKind::kOther, pid.value, tid.value};
    Diag("device_event_without_device", Severity::kWarning,
         "device events whose pid is not a device index; kept on an 'other' track");
    return {TrackKind::kOther, pid.value, tid.value};
  }
  if (pid.numeric && pid.value >= 0) {
    // A string tid ("ThreadId(1)") names a thread as well as a number
    // does; HashId keeps it stable across parts.
    return {TrackKind::kHostThread, pid.value, tid.value};
  }
  if (!pid.numeric && !IsKinetoStringPid(pid.text)) {
    Diag("string_pid", Severity::kWarning,
         "events whose pid is a name, not a number: kept on an 'other' track, not analysed "
         "as host threads");
  }
  return {TrackKind::kOther, pid.value, tid.value};
}

bool EventEmitter::Micros(const JsonScalar& ts, bool add_base_time, TimeNs* out) {
  if (ts.type != JsonScalar::Type::kNumber && ts.type != JsonScalar::Type::kString) {
    return false;
  }
  bool fractional = false;
  TimeNs ns;
  bool ok = MicrosToNs(StripAsciiWhitespace(ts.text), &fractional, &ns);
  if (fractional) features_ |= kFeatFractionalTs;
  if (!ok) return false;
  if (add_base_time && base_time_ns_ != 0) {
    return !__builtin_add_overflow(ns, base_time_ns_, out);
  }
  *out = ns;
  return true;
}

StringId EventEmitter::ArgKeyId(const RawArg& arg) {
  size_t slot = static_cast<size_t>(arg.id);
  if (arg.id == ArgKey::kIgnore) return b_.Intern(arg.key);
  if (key_ids_.size() <= slot) key_ids_.resize(slot + 1, kNoIndex);
  if (key_ids_[slot] == kNoIndex) key_ids_[slot] = b_.Intern(KeptArgName(arg.id, arg.key));
  return key_ids_[slot];
}

void EventEmitter::OnEvent(const RawEvent& ev) {
  ++events_;
  if (ev.ph.empty()) {
    Diag("missing_phase", Severity::kWarning, "events without a \"ph\" field, skipped");
    return;
  }
  char ph = ev.ph[0];
  if (ph == 'M') {
    if (ev.name == "process_name") {
      Id pid, tid;
      ParseIds(ev, /*device=*/true, &pid, &tid);
      for (const RawArg& a : ev.args) {
        if (a.key == "name" && a.value.type == JsonScalar::Type::kString && pid.numeric) {
          process_names_.push_back({pid.value, std::string(a.value.text)});
        }
      }
    } else if (ev.name == "thread_name") {
      Id pid, tid;
      ParseIds(ev, /*device=*/true, &pid, &tid);
      for (const RawArg& a : ev.args) {
        if (a.key == "name" && a.value.type == JsonScalar::Type::kString && pid.numeric &&
            tid.numeric) {
          track_names_.push_back({pid.value, tid.value, std::string(a.value.text)});
        }
      }
    }
    return;
  }
  TimeNs ts_ns;
  if (!Micros(ev.ts, /*add_base_time=*/true, &ts_ns)) {
    Diag("bad_timestamp", Severity::kWarning,
         "events with a missing or unreadable \"ts\", skipped");
    return;
  }
  if (ts_ns > kMaxTraceTimeNs || ts_ns < -kMaxTraceTimeNs) {
    // Checked here, before begin/end pairs and flows subtract times.
    Diag("time_out_of_range", Severity::kWarning,
         "events with a \"ts\" beyond +-146 years of the epoch, skipped");
    return;
  }
  switch (ph) {
    case 'X': {
      CategoryInfo cat = ClassifyCategory(ev.cat, ev.has_cat);
      TimeNs dur_ns = 0;
      if (ev.dur.present()) {
        if (!Micros(ev.dur, /*add_base_time=*/false, &dur_ns)) {
          dur_ns = 0;
          Diag("bad_duration", Severity::kWarning, "slices with an unreadable \"dur\", set to 0");
        }
      } else {
        Diag("missing_duration", Severity::kInfo, "complete events without \"dur\", set to 0");
      }
      EventKind kind = cat.kind;
      if (cat.device && cat.feature == kFeatMtia) kind = MtiaDeviceKind(ev.name);
      EmitSlice(ev, kind, cat.device, ts_ns, dur_ns);
      features_ |= cat.feature;
      if (kind != EventKind::kOther) {
        features_ |= kFeatKinetoCategory;
      } else if (ev.name.starts_with("aten::") || ev.name.starts_with("ProfilerStep#")) {
        features_ |= kFeatKinetoNames;
      }
      return;
    }
    case 'B':
    case 'E': {
      CategoryInfo cat = ClassifyCategory(ev.cat, ev.has_cat);
      Id pid, tid;
      ParseIds(ev, cat.device, &pid, &tid);
      BeginEndEvent be;
      be.is_begin = ph == 'B';
      be.track = ResolveTrackKey(cat.device, ev, pid, tid);
      be.ts_ns = ts_ns;
      be.kind = cat.kind;
      if (cat.kind != EventKind::kOther) features_ |= kFeatKinetoCategory;
      be.name = std::string(ev.name);
      begin_end_.push_back(std::move(be));
      return;
    }
    case 'i':
    case 'I':
      if (ev.cat == "cpu_instant_event") features_ |= kFeatKinetoCategory;
      if (ev.name == "[memory]") {
        features_ |= kFeatKinetoNames;
        EmitMemoryInstant(ev, ts_ns);
      } else {
        EmitSlice(ev, EventKind::kInstant, false, ts_ns, 0);
      }
      return;
    case 's':
    case 'f':
      EmitFlow(ev, ph, ts_ns);
      return;
    case 'C':
      EmitCounters(ev, ts_ns);
      return;
    default:
      // A letter the Trace Event Format defines (async, flow steps,
      // samples, objects, memory dumps, marks, clock syncs, contexts) is a
      // phase tracelint does not model; any other is damage or a writer's
      // error, and worth a warning.
      if (std::string_view("bentpPONDSTFRcVv()=").find(ph) != std::string_view::npos) {
        Diag("unsupported_phase", Severity::kInfo,
             "events of a phase tracelint does not model (async b/e/n, flow steps, samples), "
             "skipped");
      } else {
        Diag("unknown_phase", Severity::kWarning,
             "events whose \"ph\" is no Trace Event Format phase, skipped");
      }
      return;
  }
}

void EventEmitter::EmitSlice(const RawEvent& ev, EventKind kind, bool device, TimeNs ts_ns,
                             TimeNs dur_ns) {
  Id pid, tid;
  ParseIds(ev, device, &pid, &tid);
  auto [track_kind, track_pid, track_tid] = ResolveTrackKey(device, ev, pid, tid);
  // Field by field: copying the whole Id read its separately stored fields
  // back as one wide load, which stalled store forwarding.
  const bool stream = track_kind == TrackKind::kDeviceStream;
  const Id tp{stream || pid.numeric, track_pid, pid.text};
  const Id tt{stream || tid.numeric, track_tid, tid.text};
  if (stream) slice_devices_.insert(track_pid);

  SliceSpec spec;
  spec.ts_ns = ts_ns;
  spec.dur_ns = dur_ns;
  spec.track = Track(track_kind, tp, tt);
  spec.name = b_.Intern(ev.name);
  spec.kind = kind;
  for (const RawArg& a : ev.args) {
    if (a.id == ArgKey::kCorrelation) {
      spec.correlation = IntValueOr(a.value, 0);
    } else if (a.id == ArgKey::kExternalId) {
      spec.external_id = IntValueOr(a.value, 0);
    }
  }
  if (kind == EventKind::kRuntime || kind == EventKind::kDriver) {
    if (StartsWithIgnoreCase(ev.name, "hip")) features_ |= kFeatHipNames;
  }
  if (track_kind == TrackKind::kOther && !pid.numeric && ev.pid.text == "Spans") {
    features_ |= kFeatSpansPid;
  }
  b_.AddSlice(spec);

  bool activity = IsDeviceActivity(kind);
  DeviceDetails* details = nullptr;
  if (activity) {
    details = &b_.AddDetails();
    if (kind == EventKind::kMemcpy) {
      CopyKind copy = ParseMemcpyName(ev.name);
      details->direction = copy.direction;
      details->src = copy.src;
      details->dst = copy.dst;
      if (copy.direction == CopyDirection::kUnknown) {
        for (const RawArg& a : ev.args) {
          if (a.id == ArgKey::kCopyDirection) details->direction = MtiaCopyDirection(a.value.text);
        }
      }
    }
  }
  for (const RawArg& a : ev.args) {
    if (a.id == ArgKey::kRecordFunctionId) features_ |= kFeatRecordFunctionId;
    if (a.id == ArgKey::kEvIdx) features_ |= kFeatEvIdx;
    if (details != nullptr) {
      switch (a.id) {
        case ArgKey::kGrid: ParseDim3(a.value.text, details->grid); continue;
        case ArgKey::kBlock: ParseDim3(a.value.text, details->block); continue;
        case ArgKey::kRegistersPerThread:
          details->registers_per_thread = static_cast<int32_t>(IntValueOr(a.value, -1));
          continue;
        case ArgKey::kSharedMemory:
          details->shared_memory_bytes = static_cast<int32_t>(IntValueOr(a.value, -1));
          continue;
        case ArgKey::kBlocksPerSm:
          details->blocks_per_sm = static_cast<float>(NumberValue(a.value).value_or(-1));
          continue;
        case ArgKey::kOccupancyPct:
          details->est_achieved_occupancy_pct =
              static_cast<float>(NumberValue(a.value).value_or(-1));
          continue;
        case ArgKey::kBytes: details->bytes = IntValueOr(a.value, -1); continue;
        default: break;
      }
    }
    if (!IsKeptAsArg(a.id) || !KeepsArgFor(a.id, ev.name, ev.cat)) continue;
    if (kind == EventKind::kKernel && a.id == ArgKey::kCollectiveName) {
      features_ |= kFeatKernelCollectiveArgs;
    }
    ArgValue value;
    switch (a.value.type) {
      case JsonScalar::Type::kNumber: {
        int64_t x;
        std::string_view text = StripAsciiWhitespace(a.value.text);
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
        if (ec == std::errc() && p == text.data() + text.size()) {
          value = ArgValue::Int(x);
        } else if (uint64_t u; std::from_chars(text.data(), text.data() + text.size(), u).ec ==
                               std::errc()) {
          value = ArgValue::UInt(u);
        } else {
          value = ArgValue::Double(NumberValue(a.value).value_or(0));
        }
        break;
      }
      case JsonScalar::Type::kString:
      case JsonScalar::Type::kArray:
        value = ArgValue::String(b_.Intern(a.value.text));
        break;
      case JsonScalar::Type::kBool:
        value = ArgValue::Bool(a.value.text == "true");
        break;
      default:
        continue;
    }
    b_.AddArg(ArgKeyId(a), value);
  }
}

void EventEmitter::EmitFlow(const RawEvent& ev, char ph, TimeNs ts_ns) {
  int64_t id = 0;
  if (!ev.id.present() || !ParseInt64(StripAsciiWhitespace(ev.id.text), &id)) {
    if (!ev.id.present()) {
      Diag("flow_without_id", Severity::kInfo, "flow events without an id, skipped");
      return;
    }
    id = HashId(ev.id.text);
  }
  if (ev.cat == "fwdbwd") features_ |= kFeatKinetoCategory;
  if (ev.cat == "ac2g") {
    features_ |= kFeatFlowAc2g;
  } else if (ev.cat == "async_cpu_to_gpu" || ev.cat == "async_gpu") {
    features_ |= kFeatFlowAsyncCpuToGpu;
  } else if (ev.cat == "async") {
    features_ |= kFeatFlowAsync;
  }
  // A launch flow starts on the host thread and ends on the device stream.
  bool device = ph == 'f' && IsGpuFlowCategory(ev.cat);
  Id pid, tid;
  ParseIds(ev, device, &pid, &tid);
  auto [kind, p, t] = ResolveTrackKey(device, ev, pid, tid, /*flow_end=*/device);
  const bool stream = kind == TrackKind::kDeviceStream;
  const Id tp{stream || pid.numeric, p, pid.text};
  const Id tt{stream || tid.numeric, t, tid.text};
  FlowPoint point;
  point.id = id;
  point.category = b_.Intern(ev.cat);
  point.is_start = ph == 's';
  point.bind_enclosing = ph == 's' || ev.bp == "e";
  point.track = Track(kind, tp, tt);
  point.ts_ns = ts_ns;
  b_.AddFlowPoint(point);
}

void EventEmitter::EmitCounters(const RawEvent& ev, TimeNs ts_ns) {
  int32_t device = -1;
  if (ev.pid.type == JsonScalar::Type::kString && ev.pid.text.starts_with("GPU ")) {
    int64_t d;
    std::string_view rest = ev.pid.text.substr(4);
    rest = rest.substr(0, rest.find(' '));
    if (ParseInt64(rest, &d)) device = static_cast<int32_t>(d);
  }
  for (const RawArg& a : ev.args) {
    std::optional<double> v = NumberValue(a.value);
    if (!v || a.value.type != JsonScalar::Type::kNumber) continue;
    CounterSample c;
    c.name = b_.Intern(a.key == ev.name ? std::string(ev.name)
                                        : fmt::format("{}.{}", ev.name, a.key));
    c.device = device;
    c.ts_ns = ts_ns;
    c.value = *v;
    b_.AddCounter(c);
  }
}

void EventEmitter::EmitMemoryInstant(const RawEvent& ev, TimeNs ts_ns) {
  int64_t device_type = -1;
  int64_t device_id = -1;
  for (const RawArg& a : ev.args) {
    if (a.id == ArgKey::kDeviceType) device_type = IntValueOr(a.value, -1);
    if (a.id == ArgKey::kDeviceId) device_id = IntValueOr(a.value, -1);
  }
  // c10 DeviceType 0 is the CPU; everything else with an id is a device.
  int32_t device = device_type > 0 && device_id >= 0 ? static_cast<int32_t>(device_id) : -1;
  for (const RawArg& a : ev.args) {
    if (a.id != ArgKey::kTotalAllocated && a.id != ArgKey::kTotalReserved) continue;
    std::optional<double> v = NumberValue(a.value);
    if (!v) continue;
    CounterSample c;
    c.name = b_.Intern(a.id == ArgKey::kTotalAllocated ? "Total Allocated" : "Total Reserved");
    c.device = device;
    c.ts_ns = ts_ns;
    c.value = *v;
    b_.AddCounter(c);
  }
}

}  // namespace tracelint::kineto
