// The chained Fixit stages: `fixit all` from a config file (docs/fixit.md), and `fixit demo`,
// which first replays the project's solutions (as `ptxbench demo` does) and then turns the
// broken controls' failures into rows with the replay teacher.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ptxbench/cli/fixit_stages.hpp"
#include "ptxbench/fixit/balance.hpp"

namespace ptxbench::cli {

// A YAML/JSON file holding a list of recipes, or {"recipes": [...]}.
util::Expected<std::vector<fixit::Recipe>> load_recipes(const std::filesystem::path& path);

int run_fixit_all(const std::filesystem::path& config);

struct FixitDemoOptions {
  std::filesystem::path out;
  std::filesystem::path solutions_dir;
  std::string length = "medium";
};

int run_fixit_demo(const FixitDemoOptions& options, const FixitEnvironment& env);

}  // namespace ptxbench::cli
