#ifndef TRACELINT_ANALYZER_MODEL_BUILDER_HELPERS_H_
#define TRACELINT_ANALYZER_MODEL_BUILDER_HELPERS_H_

// Small generic helpers of TimelineBuilder::Finalize, kept out of
// timeline_builder.cc to keep it short.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "analyzer/base/huge_pages.h"
#include "analyzer/base/time.h"
#include "analyzer/base/worker_pool.h"
#include "analyzer/model/timeline.h"

namespace tracelint::builder_internal {

// Runs fn(i, scratch) for i in [0, n) on up to `threads` threads (the
// calling one included), each with its own Scratch. Items are taken in
// order from a shared counter, so put the large ones first.
template <typename Scratch, typename Fn>
void ParallelFor(int threads, size_t n, Fn fn) {
  const size_t workers = std::min<size_t>(std::max(threads, 1), n);
  std::atomic<size_t> next{0};
  // A helper's exception (std::bad_alloc) is rethrown here once all have
  // stopped, not left to end the process from its thread.
  std::exception_ptr error;
  std::mutex error_mu;
  auto run = [&] {
    try {
      Scratch scratch;
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i, scratch);
    } catch (...) {
      next.store(n, std::memory_order_relaxed);  // the others stop too
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < workers; ++t) {
    std::thread helper;
    if (!TryStartThread(helper, run)) break;  // fewer helpers: same result
    helpers.push_back(std::move(helper));
  }
  run();
  for (std::thread& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

struct NoScratch {};

// fn(a.column, b.column) for each column a TimelineBuilder fills in input
// order (depth, parent and launch are computed at Finalize), widest first.
template <typename Fn>
void ForEachInputColumn(SliceColumns& a, SliceColumns& b, Fn fn) {
  fn(a.ts_ns, b.ts_ns);
  fn(a.dur_ns, b.dur_ns);
  fn(a.correlation, b.correlation);
  fn(a.external_id, b.external_id);
  fn(a.track, b.track);
  fn(a.name, b.name);
  fn(a.args_begin, b.args_begin);
  fn(a.args_count, b.args_count);
  fn(a.details, b.details);
  fn(a.flags, b.flags);
  fn(a.kind, b.kind);
}

// col[i] = old col[order[i]], through `scratch`, which is swapped in: the
// old array becomes the scratch of the next column of the same type. So
// reordering many columns touches fresh memory for one column per element
// type, not for each column. (A gather: its loads are independent, unlike
// following a permutation's cycles in place, which waits on one cache miss
// at a time.)
template <typename T>
void GatherThrough(std::vector<T>& col, const std::vector<uint32_t>& order,
                   std::vector<T>& scratch) {
  const size_t n = order.size();
  if (scratch.size() != n) {
    ReserveHuge(scratch, n);
    scratch.resize(n);
  }
  for (size_t i = 0; i < n; ++i) scratch[i] = col[order[i]];
  col.swap(scratch);
}

// Grows geometrically (an exact reserve per appended part would copy
// everything merged so far once per part), on huge pages once large.
template <typename T>
void GrowFor(std::vector<T>& v, size_t needed) {
  if (needed <= v.capacity()) return;
  v.reserve(std::max(needed, 2 * v.capacity()));
  AdviseHugePages(v);
}

// std::partition_point over a[lo, hi) (`pred` holds on a prefix), galloping
// outward from `hint`: O(log distance to the answer).
template <typename Pred>
size_t PartitionPointNear(const TimeNs* a, size_t lo, size_t hi, size_t hint, Pred pred) {
  hint = std::clamp(hint, lo, hi);
  size_t left;
  size_t right;  // the answer lies in [left, right]
  size_t step = 1;
  if (hint < hi && pred(a[hint])) {
    left = hint + 1;
    for (;;) {
      size_t probe = hi - left > step ? left + step : hi;
      if (probe == hi || !pred(a[probe])) {
        right = probe;
        break;
      }
      left = probe + 1;
      step *= 2;
    }
  } else {
    right = hint;
    for (;;) {
      size_t probe = right - lo > step ? right - step : lo;
      if (probe == lo) {
        left = lo;
        break;
      }
      if (pred(a[probe])) {
        left = probe + 1;
        break;
      }
      right = probe;
      step *= 2;
    }
  }
  return static_cast<size_t>(std::partition_point(a + left, a + right, pred) - a);
}

}  // namespace tracelint::builder_internal

#endif  // TRACELINT_ANALYZER_MODEL_BUILDER_HELPERS_H_
