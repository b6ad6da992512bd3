#include "parsers/common/read_ahead.h"

#include <algorithm>

#include "analyzer/base/worker_pool.h"

namespace tracelint {

ReadAhead::ReadAhead(InputStream& in, size_t chunk_bytes, int depth)
    : in_(in), chunk_bytes_(std::max<size_t>(chunk_bytes, 1)) {
  // depth chunks queued plus the one the caller holds.
  size_t count = static_cast<size_t>(std::max(depth, 0)) + 1;
  buffers_.resize(count);
  for (size_t i = 0; i < count; ++i) {
    buffers_[i].bytes.reset(new char[chunk_bytes_]);
    free_.push_back(i);
  }
  // Without a thread (the system refused one), chunks are read when asked.
  if (depth > 0) TryStartThread(producer_, [this] { Produce(); });
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (producer_.joinable()) producer_.join();
}

void ReadAhead::Produce() {
  for (;;) {
    size_t slot;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !free_.empty(); });
      if (stop_) return;
      slot = free_.front();
      free_.pop_front();
    }
    Chunk& c = buffers_[slot];
    absl::StatusOr<size_t> n = in_.Read(c.bytes.get(), chunk_bytes_);
    c.status = n.status();
    c.size = n.ok() ? *n : 0;
    bool last = !n.ok() || *n == 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      filled_.push_back(slot);
      producer_done_ = last;
    }
    cv_.notify_all();
    if (last) return;
  }
}

absl::StatusOr<std::string_view> ReadAhead::Next() {
  if (!producer_.joinable()) {
    // Synchronous: one buffer, refilled in place.
    Chunk& c = buffers_[0];
    absl::StatusOr<size_t> n = in_.Read(c.bytes.get(), chunk_bytes_);
    if (!n.ok()) return n.status();
    return std::string_view(c.bytes.get(), *n);
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (in_use_ != static_cast<size_t>(-1)) {
    free_.push_back(in_use_);
    in_use_ = static_cast<size_t>(-1);
    cv_.notify_all();
  }
  cv_.wait(lock, [this] { return !filled_.empty() || producer_done_; });
  if (filled_.empty()) return std::string_view();
  size_t slot = filled_.front();
  filled_.pop_front();
  in_use_ = slot;
  const Chunk& c = buffers_[slot];
  if (!c.status.ok()) return c.status;
  return std::string_view(c.bytes.get(), c.size);
}

}  // namespace tracelint
