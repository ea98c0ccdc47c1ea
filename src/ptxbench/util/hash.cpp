#include "ptxbench/util/hash.hpp"

#include <fmt/format.h>

namespace ptxbench::util {
std::string Fnv1a64::hex() const {
  return fmt::format("{:016x}", state_);
}
}  // namespace ptxbench::util
