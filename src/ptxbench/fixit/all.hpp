// `fixit all`: the chain of a fixit.yaml (fixit/config.hpp) over its Fixit folder, with what the
// command line lays over the file (a loop that runs one user config over its own folders).
#pragma once
#include <filesystem>
#include <optional>
#include <vector>

#include "ptxbench/fixit/chain.hpp"
#include "ptxbench/fixit/config.hpp"

namespace ptxbench::fixit {

// Empty or false: the config's value stays.
struct ConfigOverrides {
  std::filesystem::path folder;
  std::vector<std::filesystem::path> runs;
  bool no_gpu = false;              // as gpu: false
  bool include_unverified = false;  // as export.include_unverified: true
  bool kernelgen = false;           // as export.kernelgen: true
};

// The config with the overrides laid over it; with export.kernelgen the runs in force (the
// overriding ones too) become the KernelGen runs.
FixitConfig lay_over(FixitConfig config, const ConfigOverrides& overrides);

// Opens the engine (or is refused) before any stage writes, since every recipe is repaired;
// then the folder; then runs the chain. Those two problems are failures of stage "all"
// (a folder's named with `config_path`); else the chain's.
std::optional<StageFailure> run_all(const FixitConfig& config,
                                    const std::filesystem::path& config_path,
                                    const Environment& env, const ChainObserver& observer = {});

}  // namespace ptxbench::fixit
