#include "ptxbench/eval/gpu_absence.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace ptxbench::eval {
namespace {

constexpr std::string_view kDriverLibrary = "libcuda.so.1";

std::vector<std::filesystem::path> loader_directories() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("LD_LIBRARY_PATH"); env != nullptr) {
    std::string_view rest = env;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      if (auto dir = rest.substr(0, colon); !dir.empty()) dirs.emplace_back(dir);
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  }
  // Where Debian's and NVIDIA's driver packages and container runtimes put the library.
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                          "/usr/lib", "/lib/x86_64-linux-gnu", "/usr/local/nvidia/lib64"})
    dirs.emplace_back(dir);
  return dirs;
}

}  // namespace

bool nvidia_driver_present() {
  std::error_code error;
  if (std::filesystem::exists("/proc/driver/nvidia/version", error)) return true;
  for (const auto& dir : loader_directories()) {
    if (std::filesystem::exists(dir / kDriverLibrary, error)) return true;
  }
  return false;
}

std::string explain_gpu_absence(std::string why) {
  const bool loader_error = why.find(kDriverLibrary) != std::string::npos &&
                            why.find("cannot open shared object file") != std::string::npos;
  return loader_error ? std::string(kNoDriverReason) : why;
}

std::string missing_worker_reason() {
  if (!nvidia_driver_present()) return std::string(kNoDriverReason);
  return "this build has no GPU worker (build the ptxbench-worker target)";
}

}  // namespace ptxbench::eval
