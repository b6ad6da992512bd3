#include "analyzer/base/memory_budget.h"

#include <unistd.h>

namespace tracelint {

size_t MemoryBudget::DefaultBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 2;
}

}  // namespace tracelint
