#include "analyzer/engine/fingerprint.h"

#include <cstdint>

#include "fmt/format.h"

namespace tracelint {
namespace {

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool IsLibraryPath(std::string_view path) {
  if (path.empty() || path.front() == '<') return true;  // <built-in ...>, <string>
  static constexpr std::string_view kLibraryParts[] = {
      "site-packages/", "dist-packages/", "/lib/python", "torchinductor_", "/_inductor/",
      "/_dynamo/",      "/_functorch/",   "/torch/",     "/contextlib.py", "/threading.py",
  };
  for (std::string_view part : kLibraryParts) {
    if (Contains(path, part)) return true;
  }
  // Kineto records frames of installed packages relative to site-packages
  // ("torch/nn/modules/module.py"): a relative path under a framework's own
  // package is library code.
  static constexpr std::string_view kPackagePrefixes[] = {
      "torch/", "torchvision/", "transformers/", "vllm/", "accelerate/", "deepspeed/",
      "triton/", "jax/", "flax/", "tensorflow/", "keras/", "numpy/", "lightning/",
      "pytorch_lightning/", "apex/", "megatron/", "xformers/", "diffusers/", "xfuser/",
  };
  for (std::string_view prefix : kPackagePrefixes) {
    if (path.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

}  // namespace

PythonFrame ParsePythonFrame(std::string_view frame) {
  PythonFrame out;
  size_t colon = frame.find("): ");
  std::string_view head = frame;
  if (colon != std::string_view::npos) {
    out.function = std::string(frame.substr(colon + 3));
    head = frame.substr(0, colon + 1);
  }
  size_t open = head.rfind('(');
  if (open != std::string_view::npos && head.back() == ')') {
    std::string_view num = head.substr(open + 1, head.size() - open - 2);
    int line = 0;
    bool ok = !num.empty() && num.size() < 10;
    for (char c : num) {
      if (c < '0' || c > '9') ok = false;
      line = line * 10 + (c - '0');
    }
    if (ok) {
      out.line = line;
      head = head.substr(0, open);
    }
  }
  out.path = std::string(head);
  return out;
}

std::string InnermostUserFrame(const std::vector<std::string>& python_stack) {
  for (auto it = python_stack.rbegin(); it != python_stack.rend(); ++it) {
    PythonFrame frame = ParsePythonFrame(*it);
    if (frame.line >= 0 && !IsLibraryPath(frame.path)) return *it;
  }
  return {};
}

std::string StableLocation(const Finding& f) {
  std::string user = InnermostUserFrame(f.location.python_stack);
  if (!user.empty()) {
    PythonFrame frame = ParsePythonFrame(user);
    return "py:" + frame.path + ":" + frame.function;
  }
  if (!f.location.top_items.empty()) return "op:" + f.location.top_items.front().name;
  return {};
}

std::string FindingFingerprint(const Finding& f) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // field separator: ("ab","c") != ("a","bc")
    h *= 1099511628211ull;
  };
  mix(f.rule_id);
  mix(f.cause);
  mix(StableLocation(f));
  return fmt::format("{:016x}", h);
}

}  // namespace tracelint
