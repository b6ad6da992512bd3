#ifndef TRACELINT_ANALYZER_BASE_HUGE_PAGES_H_
#define TRACELINT_ANALYZER_BASE_HUGE_PAGES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tracelint {

// Asks the kernel to back the not yet touched capacity of `v` with
// transparent huge pages (where THP is in "madvise" mode). A multi-GB trace
// fills a few large arrays once; with 4 KiB pages the page faults of their
// first touch cost as much as filling them. Only whole 2 MiB pages inside
// the buffer are advised; small vectors are left alone. Call after
// reserve() and before the elements are written.
template <typename T>
void AdviseHugePages(std::vector<T>& v) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;
  const size_t bytes = v.capacity() * sizeof(T);
  if (bytes < 4 * kHugePageBytes) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last <= first) return;
  // Advice only: failure (no THP support) leaves ordinary pages.
  madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)v;
#endif
}

// reserve() + AdviseHugePages(): for arrays whose final size is known.
template <typename T>
void ReserveHuge(std::vector<T>& v, size_t n) {
  v.reserve(n);
  AdviseHugePages(v);
}

// Gives the whole pages in [begin, end) back to the kernel; they read as
// zeros afterwards. For a large array that is consumed front to back into
// its successor (slices added one by one into the builder's columns): the
// consumed part is returned as the successor grows, so the two are never
// held in full at once. Returns where the next call should start: `end`
// rounded down to a page, or `begin` when no whole page lies in the range.
inline const void* ReleasePages(const void* begin, const void* end) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  static const uintptr_t kPageBytes = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first =
      (reinterpret_cast<uintptr_t>(begin) + kPageBytes - 1) & ~(kPageBytes - 1);
  const uintptr_t last = reinterpret_cast<uintptr_t>(end) & ~(kPageBytes - 1);
  if (last <= first) return begin;
  // Advice only: on failure the pages stay until the array is freed.
  madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  return reinterpret_cast<const void*>(last);
#else
  (void)end;
  return begin;
#endif
}

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_HUGE_PAGES_H_
