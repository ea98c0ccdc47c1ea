#include "ptxbench/util/timestamps.hpp"

#include <ctime>

namespace ptxbench::util {

std::string utc_timestamp(std::string_view format) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[64];
  const std::string pattern(format);
  const std::size_t length = std::strftime(text, sizeof text, pattern.c_str(), &utc);
  return std::string(text, length);
}

}  // namespace ptxbench::util
