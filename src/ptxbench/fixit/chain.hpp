// The one chain of Fixit stages: mine the runs, balance by every recipe, then for each recipe
// repair, verify, explain and export. `fixit all` runs it from a config file (fixit/config.hpp),
// `fixit demo` over its own replayed run; each stage is resumable, so a rerun after a kill
// continues where it stopped.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ptxbench/fixit/stages.hpp"

namespace ptxbench::fixit {

struct ChainPlan {
  std::vector<std::filesystem::path> runs;
  MineFilters filters;
  std::vector<Recipe> recipes{Recipe{.name = "volume", .mode = RecipeMode::kVolume}};
  TeacherChoice teacher;
  TeacherChoice explainer;
  RepairOptions repair;
  ExplainOptions explain;
  bool include_unverified = false;
  std::vector<std::filesystem::path> kernelgen_runs;  // their passing turns become KernelGen rows
};

using StageOutcome = std::variant<MineOutcome, std::vector<BalanceOutcome>, RepairOutcome,
                                  VerifyOutcome, ExplainOutcome, ExportOutcome>;

// What the chain reports as it goes (either may be empty).
struct ChainObserver {
  // Before a stage: "mine", "balance", "repair", "verify", "explain", "export".
  std::function<void(std::string_view stage)> on_begin;
  std::function<void(const StageOutcome& outcome)> on_outcome;
};

// Why the chain stopped: a stage's usage or input problem (exit 2), or internal errors of rows
// that the stage's outcome lists (`internal`, exit 3).
struct StageFailure {
  std::string stage;
  std::string message;
  bool internal = false;
};

// nullopt: every stage ran.
std::optional<StageFailure> run_chain(const FixitFolder& folder, const Environment& env,
                                      const ChainPlan& plan, const ChainObserver& observer = {});

}  // namespace ptxbench::fixit
