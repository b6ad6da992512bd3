#ifndef TRACELINT_ANALYZER_MODEL_STRING_POOL_H_
#define TRACELINT_ANALYZER_MODEL_STRING_POOL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tracelint {

// 32-bit handle of an interned string. Id 0 is always the empty string.
using StringId = uint32_t;
inline constexpr StringId kEmptyStringId = 0;

// Interns strings once; views stay valid for the pool's lifetime (chunked
// arena, never reallocated). Not thread-safe: each parser part owns a pool
// and parts are merged by remapping ids.
class StringPool {
 public:
  StringPool();
  // A moved-from pool is empty (it must not keep filling the chunk it gave
  // away).
  StringPool(StringPool&& other) noexcept { *this = std::move(other); }
  StringPool& operator=(StringPool&& other) noexcept {
    chunks_ = std::move(other.chunks_);
    chunk_ = std::exchange(other.chunk_, nullptr);
    chunk_used_ = std::exchange(other.chunk_used_, 0);
    chunk_size_ = std::exchange(other.chunk_size_, 0);
    arena_bytes_ = std::exchange(other.arena_bytes_, 0);
    views_ = std::move(other.views_);
    index_ = std::move(other.index_);
    other.chunks_.clear();
    other.views_.clear();
    other.index_.clear();
    return *this;
  }
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  StringId Intern(std::string_view s);
  // Empties the pool (only the empty string is left), keeping one chunk of
  // the arena for reuse: parsers recycle the pools of the parts of a large
  // input instead of allocating (and faulting in) fresh ones.
  void Clear();
  std::optional<StringId> Find(std::string_view s) const;
  std::string_view Get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  // Bytes held by the arena (for the memory report).
  size_t arena_bytes() const { return arena_bytes_; }
  // Everything the pool holds: the arena, the views and the index.
  size_t MemoryBytes() const {
    return arena_bytes_ + chunks_.capacity() * sizeof(chunks_[0]) +
           views_.capacity() * sizeof(std::string_view) +
           index_.capacity() * (sizeof(std::pair<std::string_view, StringId>) + 1);
  }

 private:
  std::string_view Store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> chunks_;
  char* chunk_ = nullptr;  // the shared chunk being filled (large strings have their own)
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  size_t arena_bytes_ = 0;
  std::vector<std::string_view> views_;
  absl::flat_hash_map<std::string_view, StringId> index_;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_STRING_POOL_H_
