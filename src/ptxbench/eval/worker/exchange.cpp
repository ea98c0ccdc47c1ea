#include "ptxbench/eval/worker/exchange.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "ptxbench/util/check.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::worker {

std::filesystem::path exchange_file(const std::filesystem::path& dir, std::size_t job, int trial,
                                    const std::string& output_name) {
  std::string safe;
  for (char c : output_name) {
    safe += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
  }
  return dir /
         ("job" + std::to_string(job) + ".trial" + std::to_string(trial) + "." + safe + ".bin");
}

ExchangeDir::ExchangeDir(const std::filesystem::path& root) {
  // Named like a util::TempDir (<prefix><pid>-XXXXXX), so that what a killed process left here
  // is found by its dead owner's pid: swept once per root and process.
  static std::mutex mutex;
  static std::set<std::filesystem::path> swept;
  {
    std::lock_guard lock(mutex);
    if (swept.insert(root).second) util::remove_stale_temp_dirs(root, kExchangePrefix);
  }
  std::string pattern =
      (root / (std::string(kExchangePrefix) + std::to_string(::getpid()) + "-XXXXXX")).string();
  PTXBENCH_CHECK(::mkdtemp(pattern.data()) != nullptr, pattern + ": " + std::strerror(errno));
  path_ = pattern;
}

ExchangeDir::~ExchangeDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path default_exchange_root() {
  std::filesystem::path shm("/dev/shm");
  if (std::filesystem::is_directory(shm) && ::access(shm.c_str(), W_OK) == 0) return shm;
  return std::filesystem::temp_directory_path();
}

}  // namespace ptxbench::eval::worker
