// PTXBENCH_CHECK: for failures of ptxbench's own code or environment (never for untrusted
// input, which is returned as a value). Throws std::runtime_error carrying file:line.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace ptxbench::util {
[[noreturn]] void throw_check_failure(const char* file, int line, const std::string& what);
// "<condition>: <message>", put together out of line (no string building at every check).
[[noreturn]] void throw_check_failure(const char* file, int line, const char* condition,
                                      std::string_view message);
}  // namespace ptxbench::util

#define PTXBENCH_CHECK(cond, message)                                              \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      ::ptxbench::util::throw_check_failure(__FILE__, __LINE__, #cond, (message)); \
    }                                                                              \
  } while (false)
