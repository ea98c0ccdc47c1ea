#include "ptxbench/fixit/chain.hpp"

namespace ptxbench::fixit {
namespace {

// Runs one stage between the observer's calls; a failure names the stage.
template <class Run>
std::optional<StageFailure> step(std::string_view stage, const ChainObserver& observer, Run run) {
  if (observer.on_begin) observer.on_begin(stage);
  auto outcome = run();
  if (!outcome)
    return StageFailure{.stage = std::string(stage), .message = outcome.error().message};
  if (observer.on_outcome) observer.on_outcome(StageOutcome(*outcome));
  if constexpr (std::is_same_v<std::decay_t<decltype(*outcome)>, RepairOutcome>)
    if (!outcome->errors.empty())
      return StageFailure{.stage = std::string(stage), .internal = true};
  return std::nullopt;
}

}  // namespace

std::optional<StageFailure> run_chain(const FixitFolder& folder, const Environment& env,
                                      const ChainPlan& plan, const ChainObserver& observer) {
  if (auto failure =
          step("mine", observer, [&] { return fixit_mine(folder, env, plan.runs, plan.filters); }))
    return failure;
  if (auto failure = step("balance", observer, [&] { return fixit_balance(folder, plan.recipes); }))
    return failure;
  for (const auto& recipe : plan.recipes) {
    // Explain and export take the repairs of this chain's teacher, whoever else repaired rows.
    std::string teacher;
    if (auto failure = step("repair", observer, [&] {
          auto outcome = fixit_repair(folder, env, recipe.name, plan.teacher, plan.repair);
          if (outcome) teacher = outcome->teacher;
          return outcome;
        }))
      return failure;
    if (auto failure =
            step("verify", observer, [&] { return fixit_verify(folder, env, false, false); }))
      return failure;
    if (auto failure = step("explain", observer, [&] {
          return fixit_explain(folder, env, recipe.name, teacher, plan.explainer, plan.explain);
        }))
      return failure;
    if (auto failure = step("export", observer, [&] {
          return fixit_export(folder, env, recipe.name, teacher, plan.include_unverified,
                              plan.kernelgen_runs, {.length_bin = plan.explain.limits.bin.name});
        }))
      return failure;
  }
  return std::nullopt;
}

}  // namespace ptxbench::fixit
