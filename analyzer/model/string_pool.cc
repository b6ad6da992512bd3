#include "analyzer/model/string_pool.h"

#include <cstring>

namespace tracelint {
namespace {
constexpr size_t kChunkBytes = 64 * 1024;
}  // namespace

StringPool::StringPool() {
  views_.emplace_back();
  index_.emplace(std::string_view(), kEmptyStringId);
}

std::string_view StringPool::Store(std::string_view s) {
  if (s.size() > kChunkBytes / 4) {
    // Large strings get their own chunk so they do not waste a shared one.
    auto block = std::make_unique<char[]>(s.size());
    std::memcpy(block.get(), s.data(), s.size());
    std::string_view view(block.get(), s.size());
    // Appended, not inserted before the shared chunk: a trace of many long
    // names would otherwise move every chunk pointer per name.
    chunks_.push_back(std::move(block));
    arena_bytes_ += s.size();
    return view;
  }
  if (chunk_ == nullptr || chunk_used_ + s.size() > chunk_size_) {
    chunks_.push_back(std::make_unique<char[]>(kChunkBytes));
    chunk_ = chunks_.back().get();
    chunk_used_ = 0;
    chunk_size_ = kChunkBytes;
    arena_bytes_ += kChunkBytes;
  }
  char* dst = chunk_ + chunk_used_;
  std::memcpy(dst, s.data(), s.size());
  chunk_used_ += s.size();
  return std::string_view(dst, s.size());
}

void StringPool::Clear() {
  // The last chunk is the one being filled unless a large string came last.
  std::unique_ptr<char[]> keep;
  if (!chunks_.empty() && chunk_size_ == kChunkBytes) keep = std::move(chunks_.back());
  chunks_.clear();
  chunk_used_ = 0;
  chunk_size_ = 0;
  arena_bytes_ = 0;
  if (keep) {
    chunks_.push_back(std::move(keep));
    chunk_size_ = kChunkBytes;
    arena_bytes_ = kChunkBytes;
  }
  views_.resize(1);
  index_.clear();
  index_.emplace(std::string_view(), kEmptyStringId);
}

StringId StringPool::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  std::string_view stored = Store(s);
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

std::optional<StringId> StringPool::Find(std::string_view s) const {
  auto it = index_.find(s);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tracelint
