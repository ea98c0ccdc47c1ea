// PTXBENCH_CHECK: for failures of ptxbench's own code or environment (never for untrusted
// input, which is returned as a value). Throws std::runtime_error carrying file:line.
#pragma once
#include <stdexcept>
#include <string>

namespace ptxbench::util {
[[noreturn]] void throw_check_failure(const char* file, int line, const std::string& what);
}  // namespace ptxbench::util

#define PTXBENCH_CHECK(cond, message)                                             \
  do {                                                                            \
    if (!(cond)) {                                                                \
      ::ptxbench::util::throw_check_failure(__FILE__, __LINE__,                   \
                                            std::string(#cond ": ") + (message)); \
    }                                                                             \
  } while (false)
