// The clock readings written into records: UTC wall time as text, and elapsed seconds.
#pragma once
#include <chrono>
#include <string>
#include <string_view>

namespace ptxbench::util {

// Now in UTC, formatted by strftime's `format`; the default is ISO-8601 with seconds, e.g.
// "2026-11-29T15:00:00Z"; "%Y%m%d-%H%M%S" gives a folder name's stamp.
std::string utc_timestamp(std::string_view format = "%Y-%m-%dT%H:%M:%SZ");

// Seconds elapsed since `start` on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ptxbench::util
