// A cache of compiles: what one nvcc run made of one candidate (the shared object, the
// dependency rule, the log and ptxas' resources). RL and rejection-sampling streams resubmit
// identical candidates, and nvcc is most of a verdict's CPU time. An entry is keyed by
// everything that decides the output — the code, the exact nvcc argv and the toolchain's version
// line — and holds that text itself, so a hit is byte equality, never a hash match alone. Entries
// are published by atomic rename (several processes may share the folder) and evicted
// least-recently-used first once the folder holds more than its byte budget. Only the trusted
// process reads and writes the cache; the sandboxed compiler never sees it.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/compile/compiler.hpp"

namespace ptxbench::compile {

struct CompileCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t stores = 0;
  std::uint64_t evictions = 0;
};

// What decides a compile's output.
struct CompileKey {
  std::string code;
  std::vector<std::string> command;
  std::string toolchain;  // nvcc's version line
};

// The compile cache's byte budget; the least recently used compiles go beyond it.
inline constexpr std::uint64_t kCompileCacheBytes = std::uint64_t{4} << 30;

class CompileCache {
 public:
  // `max_bytes`: the folder's budget; 0 = no limit.
  CompileCache(std::filesystem::path dir, std::uint64_t max_bytes);

  // On a hit, the object and dependency rule are copied into work_dir and the output is the one
  // first compiled, with `cached` set and `seconds` the time the lookup took.
  std::optional<CompileOutput> find(const CompileKey& key, const std::filesystem::path& work_dir);
  // Keeps a finished compile whose outcome the code decided (compile_candidate never stores a
  // timeout or a stop). A cache that cannot be written costs only the work it would save.
  void store(const CompileKey& key, const CompileOutput& output,
             const std::filesystem::path& work_dir);

  CompileCacheStats stats() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path entry_dir(const CompileKey& key) const;
  void evict_over_budget();

  std::filesystem::path dir_;
  std::uint64_t max_bytes_;
  mutable std::mutex mutex_;
  CompileCacheStats stats_;
};

}  // namespace ptxbench::compile
