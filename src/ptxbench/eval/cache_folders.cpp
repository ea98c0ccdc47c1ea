#include "ptxbench/eval/cache_folders.hpp"

#include <cstdlib>

namespace ptxbench::eval {

std::filesystem::path cache_root() {
  if (const char* dir = std::getenv("PTXBENCH_CACHE_DIR"); dir != nullptr && *dir != '\0')
    return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::filesystem::path(xdg) / "ptxbench";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/tmp") / ".cache" / "ptxbench";
}

std::filesystem::path default_baseline_cache_dir() {
  return cache_root() / "baselines";
}

std::filesystem::path default_reference_cache_dir() {
  return cache_root() / "references";
}

std::filesystem::path default_compile_cache_dir() {
  return cache_root() / "compiles";
}

std::filesystem::path default_verdict_cache_dir() {
  return cache_root() / "verdicts";
}

}  // namespace ptxbench::eval
