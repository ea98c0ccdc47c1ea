// Where the untrusted candidate worker leaves its outputs for the trusted judge: one raw file
// per (job, trial, output) in a directory the trusted side creates (on /dev/shm when it can)
// and removes. The judge checks each file's size against the shape it expects.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace ptxbench::eval::worker {

std::filesystem::path exchange_file(const std::filesystem::path& dir, std::size_t job, int trial,
                                    const std::string& output_name);

// Exchange directories are <root>/ptxbench-exchange-<pid>-XXXXXX.
inline constexpr std::string_view kExchangePrefix = "ptxbench-exchange-";

// A fresh exchange directory under `root`, removed with its files on destruction. The first
// one of a process under a root removes those whose owning process is gone (killed).
class ExchangeDir {
 public:
  explicit ExchangeDir(const std::filesystem::path& root);
  ExchangeDir(const ExchangeDir&) = delete;
  ExchangeDir& operator=(const ExchangeDir&) = delete;
  ~ExchangeDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// /dev/shm when it exists and is writable (memory-backed, no disk traffic), else the temp dir.
std::filesystem::path default_exchange_root();

}  // namespace ptxbench::eval::worker
