#ifndef TRACELINT_BENCH_MULTI_RUN_H_
#define TRACELINT_BENCH_MULTI_RUN_H_

#include <cstdint>
#include <string>

namespace tracelint::bench {

// Issue #4's multi-rank and batch target (>= 1.8x on 2 cores): generates
// (once, under `work_dir`) a run directory of `ranks` rank files of
// `rank_bytes` each (tools/gen_kineto, each with its own rank and pid) and
// an archive of `ranks` one-rank runs holding the same files (hard links),
// then times, interleaved and `repeat` times, each in its own process:
//  * one rank on one core: `tracelint analyze RANK0 --threads 1`;
//  * the N-rank run on all cores: `tracelint analyze RUN_DIR`;
//  * the archive on one core: `tracelint batch ARCHIVE --jobs 1 --threads 1`;
//  * the archive on all cores: `tracelint batch ARCHIVE`.
// Speed-up = (N x one rank on one core) / (all cores), and for the batch the
// one-core batch / the all-core batch. Prints a table; returns false when a
// command failed.
bool MeasureMultiRun(const std::string& tracelint, int64_t rank_bytes, uint64_t seed, int ranks,
                     int repeat, const std::string& work_dir);

}  // namespace tracelint::bench

#endif  // TRACELINT_BENCH_MULTI_RUN_H_
