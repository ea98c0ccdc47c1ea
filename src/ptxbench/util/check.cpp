#include "ptxbench/util/check.hpp"

#include <fmt/format.h>

namespace ptxbench::util {
void throw_check_failure(const char* file, int line, const std::string& what) {
  throw std::runtime_error(fmt::format("{}:{}: {}", file, line, what));
}
}  // namespace ptxbench::util
