#include "ptxbench/fixit/all.hpp"

namespace ptxbench::fixit {

FixitConfig lay_over(FixitConfig config, const ConfigOverrides& overrides) {
  if (!overrides.folder.empty()) config.folder = overrides.folder;
  if (!overrides.runs.empty()) config.plan.runs = overrides.runs;
  if (overrides.no_gpu) config.settings.gpu = false;
  if (overrides.include_unverified) config.plan.include_unverified = true;
  if (overrides.kernelgen) config.kernelgen = true;
  if (config.kernelgen) config.plan.kernelgen_runs = config.plan.runs;
  return config;
}

std::optional<StageFailure> run_all(const FixitConfig& config,
                                    const std::filesystem::path& config_path,
                                    const Environment& env, const ChainObserver& observer) {
  if (auto engine = engine_of(env, "all"); !engine)
    return StageFailure{.stage = "all", .message = engine.error().message};
  auto folder = FixitFolder::open(config.folder);
  if (!folder)
    return StageFailure{.stage = "all",
                        .message = config_path.string() + ": " + folder.error().message};
  return run_chain(*folder, env, config.plan, observer);
}

}  // namespace ptxbench::fixit
