#ifndef TRACELINT_TESTS_FUZZ_MEM_FILE_H_
#define TRACELINT_TESTS_FUZZ_MEM_FILE_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fmt/format.h"

namespace tracelint::fuzz {

// Parsers take paths (they stream and mmap files); an anonymous in-memory
// file gives them one without touching the disk.
class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) {
    fd_ = memfd_create("tracelint_fuzz", 0);
    if (fd_ < 0) return;
    size_t done = 0;
    while (done < size) {
      ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  ~MemFile() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  std::string path() const { return fmt::format("/proc/self/fd/{}", fd_); }

 private:
  int fd_ = -1;
};

}  // namespace tracelint::fuzz

#endif  // TRACELINT_TESTS_FUZZ_MEM_FILE_H_
