// What a sandboxed process may see and use. One Policy describes a kind of process (the GPU
// worker and the tools that load candidate code, or the compiler); the runner adds the paths a
// single call declares (ProcessSpec::read_paths / write_paths). docs/sandbox.md explains the
// layers and the defaults.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::sandbox {

// strict: every layer or nothing runs (the call fails with a reason); best-effort: run with the
// layers this machine has and say which are missing; off: run as a plain child process.
enum class Mode { kStrict, kBestEffort, kOff };

std::string_view to_string(Mode mode);
util::Expected<Mode> parse_mode(std::string_view text);  // "strict" | "best-effort" | "off"

struct Limits {
  std::optional<std::uint64_t> address_space_bytes;  // RLIMIT_AS (breaks CUDA: compiler only)
  std::optional<std::uint64_t> data_bytes;           // RLIMIT_DATA
  std::uint64_t file_size_bytes = 1ull << 30;        // RLIMIT_FSIZE: largest file written
  std::uint64_t scratch_bytes = 512ull << 20;        // size of the private /tmp (tmpfs)
  std::uint64_t processes = 512;                     // RLIMIT_NPROC (threads count too)
  std::uint64_t open_files = 1024;                   // RLIMIT_NOFILE
};

struct Policy {
  Mode mode = Mode::kStrict;
  // Visible read-only besides the system directories (/usr, the loader's folders): toolkit,
  // carried libraries, the worker's folder.
  std::vector<std::filesystem::path> read_only_paths;
  // Environment variables passed through from the judge (exact names, or prefixes ending in
  // '*'); everything else is dropped. PATH, HOME and TMPDIR are always set by the sandbox.
  std::vector<std::string> environment_allow;
  bool gpu_devices = false;  // /dev/nvidia* visible
  Limits limits;
  // The host user the code runs as when ptxbench runs as root (per-user kernel limits such as
  // RLIMIT_NPROC do not hold for root).
  std::uint32_t unprivileged_uid = 65534;
  std::uint32_t unprivileged_gid = 65534;
};

// The policy of every process that loads candidate code (worker, probe, sanitizer, ncu).
Policy worker_policy(Mode mode);
// The policy of nvcc/ptxas: no devices, address-space and data limits that stop compile bombs
// (`memory_bytes`, the evaluation's --compile-memory; 0: no memory limit).
Policy compiler_policy(Mode mode, std::uint64_t memory_bytes = 8ull << 30);

// Whether `name` passes the allow-list.
bool environment_allowed(const Policy& policy, std::string_view name);

}  // namespace ptxbench::sandbox
