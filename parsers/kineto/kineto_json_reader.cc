// The only translation unit that calls simdjson. CMake compiles it once per
// simdjson kernel (-march=haswell, -march=icelake-server, and portable), each
// copy in its own namespace TL_JSON_KERNEL, because On-Demand's front end is
// fixed at compile time; kineto_json_dispatch.cc picks one at run time.

#include <simdjson.h>

#include <string_view>

#include "fmt/format.h"
#include "parsers/kineto/kineto_raw.h"

#ifndef TL_JSON_KERNEL
#error "TL_JSON_KERNEL must name the simdjson kernel this copy is built for"
#endif

namespace tracelint::kineto::TL_JSON_KERNEL {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

std::string_view Strip(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' ||
                        s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// Reads a scalar without converting numbers: their text is parsed exactly
// later (timestamps as decimal, ids as uint64).
error_code ReadScalar(od::value v, JsonScalar* out, bool want_array) {
  od::json_type type;
  if (error_code e = v.type().get(type)) return e;
  switch (type) {
    case od::json_type::number: {
      std::string_view raw = v.raw_json_token();
      out->type = JsonScalar::Type::kNumber;
      out->text = Strip(raw);
      return simdjson::SUCCESS;
    }
    case od::json_type::string: {
      out->type = JsonScalar::Type::kString;
      return v.get_string().get(out->text);
    }
    case od::json_type::boolean: {
      bool b;
      if (error_code e = v.get_bool().get(b)) return e;
      out->type = JsonScalar::Type::kBool;
      out->text = b ? "true" : "false";
      return simdjson::SUCCESS;
    }
    case od::json_type::null:
      out->type = JsonScalar::Type::kNull;
      return simdjson::SUCCESS;
    case od::json_type::array:
      if (want_array) {
        od::array a;
        if (error_code e = v.get_array().get(a)) return e;
        out->type = JsonScalar::Type::kArray;
        return a.raw_json().get(out->text);
      }
      out->type = JsonScalar::Type::kOther;
      return simdjson::SUCCESS;
    default:
      out->type = JsonScalar::Type::kOther;
      return simdjson::SUCCESS;
  }
}

error_code ReadString(od::value v, std::string_view* out) {
  JsonScalar s;
  if (error_code e = ReadScalar(v, &s, false)) return e;
  // Names written as numbers (seen in hand-made traces) keep their text.
  if (s.type == JsonScalar::Type::kString || s.type == JsonScalar::Type::kNumber) {
    *out = s.text;
  }
  return simdjson::SUCCESS;
}

error_code ReadArgs(od::object args, RawEvent* ev) {
  // Counter and metadata events keep every scalar arg (their keys are data);
  // other events only the known keys. "ph" normally comes first; when it
  // does not, keep everything rather than guess.
  bool keep_all = ev->ph.empty() || ev->ph == "C" || ev->ph == "M";
  for (auto field : args) {
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key)) return e;
    ArgKey id = ClassifyArgKey(key);
    if (id == ArgKey::kIgnore && !keep_all) continue;
    // Filled in place: a local copied in by push_back was written field by
    // field and read back as wide loads, which stalled store forwarding.
    RawArg& arg = ev->args.emplace_back();
    arg.key = key;
    arg.id = id;
    if (error_code e = ReadScalar(field.value(), &arg.value, WantsArrayText(id))) return e;
    if (id == ArgKey::kIgnore && arg.value.type != JsonScalar::Type::kNumber &&
        arg.value.type != JsonScalar::Type::kString) {
      ev->args.pop_back();
    }
  }
  return simdjson::SUCCESS;
}

error_code ReadEvent(od::object obj, RawEvent* ev) {
  for (auto field : obj) {
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key)) return e;
    od::value v;
    if (error_code e = field.value().get(v)) return e;
    error_code e = simdjson::SUCCESS;
    switch (key.size()) {
      case 1:
        if (key == "s") e = ReadString(v, &ev->scope);
        break;
      case 2:
        if (key == "ph") {
          e = ReadString(v, &ev->ph);
        } else if (key == "ts") {
          e = ReadScalar(v, &ev->ts, false);
        } else if (key == "id") {
          e = ReadScalar(v, &ev->id, false);
        } else if (key == "bp") {
          e = ReadString(v, &ev->bp);
        }
        break;
      case 3:
        if (key == "cat") {
          ev->has_cat = true;
          e = ReadString(v, &ev->cat);
        } else if (key == "pid") {
          e = ReadScalar(v, &ev->pid, false);
        } else if (key == "tid") {
          e = ReadScalar(v, &ev->tid, false);
        } else if (key == "dur") {
          e = ReadScalar(v, &ev->dur, false);
        }
        break;
      case 4:
        if (key == "name") {
          e = ReadString(v, &ev->name);
        } else if (key == "args") {
          od::json_type type;
          if ((e = v.type().get(type))) break;
          if (type == od::json_type::object) {
            od::object args;
            if (!(e = v.get_object().get(args))) e = ReadArgs(args, ev);
          }
        }
        break;
      default:
        break;
    }
    if (e) return e;
  }
  return simdjson::SUCCESS;
}

thread_local od::parser tls_parser;

int64_t Offset(od::document& doc, std::string_view json) {
  const char* at = nullptr;
  if (doc.current_location().get(at) || at == nullptr) return -1;
  return at - json.data();
}

ReadResult ReadEvents(std::string_view json, RawEventSink& sink) {
  ReadResult result;
  od::document doc;
  if (error_code e = tls_parser.iterate(json.data(), json.size(),
                                        json.size() + simdjson::SIMDJSON_PADDING)
                         .get(doc)) {
    result.status = absl::InvalidArgumentError(simdjson::error_message(e));
    return result;
  }
  od::array events;
  if (error_code e = doc.get_array().get(events)) {
    result.status = absl::InvalidArgumentError(simdjson::error_message(e));
    result.error_offset = 0;
    return result;
  }
  RawEvent ev;
  for (auto element : events) {
    od::object obj;
    error_code e = element.get_object().get(obj);
    if (!e) {
      ev.Clear();
      e = ReadEvent(obj, &ev);
    }
    if (e) {
      result.status = absl::InvalidArgumentError(simdjson::error_message(e));
      result.error_offset = Offset(doc, json);
      return result;
    }
    sink.OnEvent(ev);
    ++result.events_emitted;
  }
  return result;
}

error_code ReadDevice(od::object obj, RawDevice* d) {
  for (auto field : obj) {
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key)) return e;
    od::value v;
    if (error_code e = field.value().get(v)) return e;
    auto read_int = [&](int64_t* out) {
      int64_t x;
      if (!v.get_int64().get(x)) *out = x;
    };
    if (key == "id") {
      read_int(&d->id);
    } else if (key == "name") {
      std::string_view s;
      if (!v.get_string().get(s)) d->name = std::string(s);
    } else if (key == "totalGlobalMem") {
      read_int(&d->total_global_mem);
    } else if (key == "computeMajor") {
      read_int(&d->compute_major);
    } else if (key == "computeMinor") {
      read_int(&d->compute_minor);
    } else if (key == "numSms") {
      read_int(&d->num_sms);
    } else if (key == "maxThreadsPerMultiprocessor") {
      read_int(&d->max_threads_per_sm);
    } else if (key == "maxSharedMemoryPerMultiProcessor") {
      d->rocm_fields = true;
    }
  }
  return simdjson::SUCCESS;
}

// A number or a string holding one, as text.
std::optional<std::string> ScalarText(od::value v) {
  JsonScalar s;
  if (ReadScalar(v, &s, false)) return std::nullopt;
  if (s.type == JsonScalar::Type::kNumber || s.type == JsonScalar::Type::kString) {
    return std::string(s.text);
  }
  return std::nullopt;
}

error_code ReadDistributed(od::object obj, RawMeta* meta) {
  meta->has_distributed_info = true;
  for (auto field : obj) {
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key)) return e;
    od::value v;
    if (error_code e = field.value().get(v)) return e;
    if (key == "rank") {
      meta->rank_text = ScalarText(v);
    } else if (key == "world_size") {
      meta->world_size_text = ScalarText(v);
    } else if (key == "backend") {
      std::string_view s;
      if (!v.get_string().get(s)) meta->backend = std::string(s);
    }
    // pg_config (with "ranks" as a list or a quoted list) is not needed.
  }
  return simdjson::SUCCESS;
}

error_code ReadMetaFields(od::object top, RawMeta* meta) {
  for (auto field : top) {
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key)) return e;
    od::value v;
    if (error_code e = field.value().get(v)) return e;
    od::json_type type;
    if (error_code e = v.type().get(type)) return e;
    if (key == "schemaVersion") {
      int64_t x;
      if (!v.get_int64().get(x)) meta->schema_version = x;
    } else if (key == "deviceProperties" && type == od::json_type::array) {
      meta->has_device_properties = true;
      od::array devices;
      if (error_code e = v.get_array().get(devices)) return e;
      for (auto element : devices) {
        od::object obj;
        if (element.get_object().get(obj)) continue;
        RawDevice d;
        if (error_code e = ReadDevice(obj, &d)) return e;
        meta->devices.push_back(std::move(d));
      }
    } else if (key == "distributedInfo" && type == od::json_type::object) {
      od::object obj;
      if (error_code e = v.get_object().get(obj)) return e;
      if (error_code e = ReadDistributed(obj, meta)) return e;
    } else if (key == "baseTimeNanoseconds") {
      meta->base_time_text = ScalarText(v);
    } else if (key == "tracelint_capture") {
      meta->tracelint_capture = true;
    } else if (key == "displayTimeUnit") {
      meta->has_display_time_unit = true;
    } else if ((key == "traceName" || key == "host_name" || key == "hostname") &&
               type == od::json_type::string) {
      std::string_view s;
      if (error_code e = v.get_string().get(s)) return e;
      (key == "traceName" ? meta->trace_name : meta->host_name) = std::string(s);
    } else if (key.starts_with("roctracer") || key.starts_with("hip_")) {
      meta->rocm_hints = true;
    } else if (key.starts_with("cupti") || key.starts_with("cuda_")) {
      meta->nvidia_hints = true;
    }
  }
  return simdjson::SUCCESS;
}

absl::Status ReadMeta(std::string_view json, RawMeta& meta) {
  od::document doc;
  error_code e = tls_parser.iterate(json.data(), json.size(),
                                    json.size() + simdjson::SIMDJSON_PADDING)
                     .get(doc);
  if (e) {
    // No document to ask for a location.
    return absl::InvalidArgumentError(
        fmt::format("top-level keys: {}", simdjson::error_message(e)));
  }
  od::object top;
  e = doc.get_object().get(top);
  if (!e) e = ReadMetaFields(top, &meta);
  if (e) {
    return absl::InvalidArgumentError(fmt::format(
        "top-level keys: {} at offset {}", simdjson::error_message(e), Offset(doc, json)));
  }
  return absl::OkStatus();
}

constexpr JsonReader kReader = {SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION),
                                 &ReadEvents, &ReadMeta};

}  // namespace

const JsonReader& Reader() { return kReader; }

#if TL_JSON_KERNEL_PORTABLE
// Only the portable copy asks simdjson which kernel the CPU supports (the
// answer comes from the shared library's run-time detection).
std::string_view ActiveKernelName() {
  return simdjson::get_active_implementation()->name();
}
#endif

}  // namespace tracelint::kineto::TL_JSON_KERNEL
