#ifndef TRACELINT_ANALYZER_BASE_STATUS_MACROS_H_
#define TRACELINT_ANALYZER_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TL_CONCAT_INNER_(a, b) a##b
#define TL_CONCAT_(a, b) TL_CONCAT_INNER_(a, b)

// Propagates a non-OK absl::Status out of the current function.
#define TL_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::absl::Status tl_status_ = (expr);       \
    if (!tl_status_.ok()) return tl_status_;  \
  } while (0)

#define TL_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                              \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(*tmp)

// `TL_ASSIGN_OR_RETURN(auto x, Foo());` unwraps a StatusOr or returns its error.
#define TL_ASSIGN_OR_RETURN(lhs, rexpr) \
  TL_ASSIGN_OR_RETURN_IMPL_(TL_CONCAT_(tl_statusor_, __LINE__), lhs, rexpr)

#endif  // TRACELINT_ANALYZER_BASE_STATUS_MACROS_H_
