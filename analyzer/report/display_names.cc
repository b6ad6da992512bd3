#include "analyzer/report/display_names.h"

#include <vector>

namespace tracelint {
namespace {

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':' || c == '~';
}

// Index of the bracket closing the one at `open` ('(' / '<' / '['), or npos.
size_t Matching(std::string_view s, size_t open) {
  const char o = s[open];
  const char c = o == '(' ? ')' : o == '<' ? '>' : ']';
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Splits a template argument list's inside at its top-level commas.
std::vector<std::string_view> TopLevelArgs(std::string_view inside) {
  std::vector<std::string_view> args;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inside.size(); ++i) {
    char c = inside[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      args.push_back(inside.substr(start, i - start));
      start = i + 1;
    }
  }
  args.push_back(inside.substr(start));
  return args;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// `name<args>` with a long argument list cut after its first arguments.
std::string ShortTemplate(std::string_view head) {
  size_t lt = head.find('<');
  if (lt == std::string_view::npos) return std::string(head);
  size_t gt = Matching(head, lt);
  if (gt == std::string_view::npos || gt - lt <= kMaxTemplateColumns) return std::string(head);
  std::vector<std::string_view> args = TopLevelArgs(head.substr(lt + 1, gt - lt - 1));
  std::string kept;
  for (std::string_view a : args) {
    std::string arg = Trim(a);
    if (!kept.empty() && kept.size() + arg.size() + 2 > kMaxTemplateColumns) break;
    kept += (kept.empty() ? "" : ", ") + arg;
  }
  return std::string(head.substr(0, lt + 1)) + kept + ", ...>" + std::string(head.substr(gt + 1));
}

// The signature starting at `begin` (a "void " or the identifier), whose
// parameter list opens at `paren`: its short form and where it ends.
bool SignatureAt(std::string_view s, size_t start, size_t& end, std::string& out) {
  size_t i = start;
  if (s.compare(i, 5, "void ") == 0) i += 5;
  size_t head_start = i;
  // identifier chars and template brackets, up to the parameter list
  while (i < s.size() && (IsIdentChar(s[i]) || s[i] == '<')) {
    if (s[i] == '<') {
      size_t close = Matching(s, i);
      if (close == std::string_view::npos) return false;
      i = close + 1;
    } else {
      ++i;
    }
  }
  if (i >= s.size() || s[i] != '(' || i == head_start) return false;
  std::string_view head = s.substr(head_start, i - head_start);
  // Only C++: a scope (::) or a template; "enumerate(DataLoader)" is not.
  if (head.find("::") == std::string_view::npos && head.find('<') == std::string_view::npos &&
      s.compare(start, 5, "void ") != 0) {
    return false;
  }
  if (head.ends_with("::")) return false;  // "ns::(anonymous namespace)::f"
  size_t close = Matching(s, i);
  if (close == std::string_view::npos) return false;
  if (close + 1 < s.size() && (IsIdentChar(s[close + 1]) || s[close + 1] == '<')) return false;
  end = close + 1;
  out = ShortTemplate(head);
  return true;
}

// "[[], [32, 1024, 14, 14], [], []]" -> "[32, 1024, 14, 14]".
std::string CompactShapes(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '[' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t close = Matching(s, i);
      if (close != std::string_view::npos) {
        std::vector<std::string> kept;
        for (std::string_view part : TopLevelArgs(s.substr(i + 1, close - i - 1))) {
          std::string shape = Trim(part);
          if (!shape.empty() && shape != "[]") kept.push_back(shape);
        }
        if (kept.empty()) {
          out += "[]";
        } else {
          for (size_t k = 0; k < kept.size(); ++k) out += (k ? ", " : "") + kept[k];
        }
        i = close + 1;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

}  // namespace

std::string ShortKernelName(std::string_view name) {
  size_t end = 0;
  std::string out;
  if (SignatureAt(name, 0, end, out)) return out + std::string(name.substr(end));
  return std::string(name);
}

std::string CompactDetail(std::string_view text) {
  std::string shapes = CompactShapes(text);
  std::string_view s = shapes;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const bool word_start = i == 0 || !IsIdentChar(s[i - 1]);
    size_t end = 0;
    std::string sig;
    if (word_start && (IsIdentChar(s[i]) || s.compare(i, 5, "void ") == 0) &&
        SignatureAt(s, i, end, sig)) {
      out += sig;
      i = end;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::string ShortTrackName(std::string_view track) {
  constexpr std::string_view kThread = "thread ";
  if (!track.starts_with(kThread) || !track.ends_with(")")) return std::string(track);
  size_t digits_end = kThread.size();
  while (digits_end < track.size() && track[digits_end] >= '0' && track[digits_end] <= '9') {
    ++digits_end;
  }
  std::string_view digits = track.substr(kThread.size(), digits_end - kThread.size());
  if (digits.empty() || track.substr(digits_end, 2) != " (") return std::string(track);
  // Ids of 8 digits and more are handles, not numbers anyone reads.
  if (digits.size() < 8) return std::string(track);
  std::string_view name = track.substr(digits_end + 2, track.size() - digits_end - 3);
  return name.empty() ? std::string(track) : std::string(name);
}

}  // namespace tracelint
