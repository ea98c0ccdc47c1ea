#include "ptxbench/eval/worker/exchange.hpp"

#include <unistd.h>

#include <cctype>

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

std::filesystem::path default_exchange_root() {
  std::filesystem::path shm("/dev/shm");
  if (std::filesystem::is_directory(shm) && ::access(shm.c_str(), W_OK) == 0) return shm;
  return std::filesystem::temp_directory_path();
}

}  // namespace ptxbench::eval::worker
