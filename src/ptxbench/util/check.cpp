#include "ptxbench/util/check.hpp"

#include <fmt/format.h>

namespace ptxbench::util {
void throw_check_failure(const char* file, int line, const std::string& what) {
  throw std::runtime_error(fmt::format("{}:{}: {}", file, line, what));
}

void throw_check_failure(const char* file, int line, const char* condition,
                         std::string_view message) {
  throw std::runtime_error(fmt::format("{}:{}: {}: {}", file, line, condition, message));
}
}  // namespace ptxbench::util
