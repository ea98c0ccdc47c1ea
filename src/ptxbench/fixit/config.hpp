// fixit.yaml, the config of `fixit all` (docs/fixit.md): the Fixit folder, the runs, the task
// suite, the engine's settings and the plan of the stage chain. Paths are relative to the file.
#pragma once
#include <filesystem>
#include <vector>

#include "ptxbench/eval/settings.hpp"
#include "ptxbench/fixit/balance.hpp"
#include "ptxbench/fixit/chain.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

struct FixitConfig {
  std::filesystem::path folder;
  std::filesystem::path tasks_dir;  // empty: the built-in suite
  eval::EvaluationSettings settings = kFixitDefaults;
  ChainPlan plan;
  bool kernelgen = false;  // export.kernelgen: the runs' passing turns become KernelGen rows
};

// Errors name the file and the field ("fixit.yaml: repair.turns: expected an integer from 1 to 64
// ...").
util::Expected<FixitConfig> read_fixit_config(const std::filesystem::path& path);

// A YAML/JSON file holding a list of recipes, or {"recipes": [...]}.
util::Expected<std::vector<Recipe>> load_recipes(const std::filesystem::path& path);

}  // namespace ptxbench::fixit
