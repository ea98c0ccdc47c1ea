#include "ptxbench/util/relocation.hpp"

#include <unistd.h>

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <system_error>

namespace ptxbench::util {
namespace {

bool path_exists(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::exists(path, error);
}

// `path` relative to `root` when it lies under it (no ".." step); empty otherwise.
std::filesystem::path inside(const std::filesystem::path& path, const std::filesystem::path& root) {
  const auto relative = path.lexically_normal().lexically_relative(root.lexically_normal());
  if (relative.empty() || *relative.begin() == "..") return {};
  return relative;
}

}  // namespace

std::filesystem::path running_executable_dir() {
  std::array<char, 4096> buffer{};
  const ssize_t length = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (length <= 0) return {};
  return std::filesystem::path(std::string(buffer.data(), static_cast<std::size_t>(length)))
      .parent_path();
}

std::filesystem::path relocated(const std::filesystem::path& configured,
                                const std::vector<std::filesystem::path>& roots,
                                const std::filesystem::path& start) {
  if (configured.empty() || path_exists(configured)) return configured;
  const std::filesystem::path from = start.empty() ? running_executable_dir() : start;
  for (const auto& root : roots) {
    const auto relative = inside(configured, root);
    if (relative.empty()) continue;
    for (auto dir = from; !dir.empty(); dir = dir.parent_path()) {
      if (path_exists(dir / relative)) return dir / relative;
      if (dir == dir.parent_path()) break;
    }
  }
  return configured;
}

const char* relocated_c_str(const char* configured, const char* source_root,
                            const char* binary_root) {
  static std::mutex mutex;
  static std::map<std::string, std::string> resolved;  // never shrinks: pointers stay valid
  std::lock_guard lock(mutex);
  auto [it, inserted] = resolved.try_emplace(configured);
  if (inserted) it->second = relocated(configured, {binary_root, source_root}).string();
  return it->second.c_str();
}

}  // namespace ptxbench::util
