#include "ptxbench/sandbox/policy.hpp"

#include <cstdlib>

#include "ptxbench/config.hpp"

namespace ptxbench::sandbox {

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::kStrict:
      return "strict";
    case Mode::kBestEffort:
      return "best-effort";
    case Mode::kOff:
      return "off";
  }
  return "strict";
}

util::Expected<Mode> parse_mode(std::string_view text) {
  if (text == "strict") return Mode::kStrict;
  if (text == "best-effort") return Mode::kBestEffort;
  if (text == "off") return Mode::kOff;
  return util::make_error("sandbox: '" + std::string(text) +
                          "' is not a mode (strict, best-effort, off)");
}

namespace {

// The CUDA toolkit and ptxbench's PyPI parts, wherever this build found them.
std::vector<std::filesystem::path> toolkit_paths() {
  // Relocated: a built tree copied elsewhere compiles against its own copy (config.hpp).
  std::vector<std::filesystem::path> paths = {"/usr/local/cuda",
                                              config::relocated(config::kTvmFfiIncludeDir),
                                              config::relocated(config::kTvmFfiLibraryDir)};
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0')
    paths.emplace_back(home);
  return paths;
}

std::vector<std::string> cuda_environment() {
  return {"CUDA_*", "NVIDIA_*", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "TERM"};
}

}  // namespace

Policy worker_policy(Mode mode) {
  Policy policy{.mode = mode,
                .read_only_paths = toolkit_paths(),
                .environment_allow = cuda_environment(),
                .gpu_devices = true};
  // Each output goes whole into the exchange folder: the largest of the suite is 1.5 GiB (O of
  // mha_fwd_lse_d256 at S=16384), so files up to 4 GiB; the scratch /tmp stays capped.
  policy.limits.file_size_bytes = 4ull << 30;
  return policy;
}

Policy compiler_policy(Mode mode, std::uint64_t memory_bytes) {
  Policy policy{.mode = mode,
                .read_only_paths = toolkit_paths(),
                .environment_allow = cuda_environment(),
                .gpu_devices = false};
  if (memory_bytes > 0) {
    policy.limits.address_space_bytes = memory_bytes;
    policy.limits.data_bytes = memory_bytes;
  }
  return policy;
}

bool environment_allowed(const Policy& policy, std::string_view name) {
  for (const auto& pattern : policy.environment_allow) {
    if (!pattern.empty() && pattern.back() == '*') {
      if (name.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1))) return true;
    } else if (name == pattern) {
      return true;
    }
  }
  return false;
}

}  // namespace ptxbench::sandbox
