// The front of every GPU slot: chooses each verdict's input seed (a fixed --seed, one of the
// task's pool seeds, or a fresh one: correctness/seed_pool.hpp) before the GPU stages run, and,
// when a verdict cache is set (verdict_cache.hpp), answers from it or fills it. The engine wraps
// each slot in one (with_seeds_and_cache); the slot's own GpuStages use the seed it chose.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ptxbench/eval/correctness/seed_pool.hpp"
#include "ptxbench/eval/gpu_stages.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/eval/verdict_cache.hpp"

namespace ptxbench::eval {

class SeededGpuStages final : public GpuStages {
 public:
  // `cache` may be null (no verdict cache); `settings_text` is verdict_settings_text() and
  // `judge` ptxbench_build_identity().
  SeededGpuStages(std::shared_ptr<GpuStages> inner,
                  std::shared_ptr<const correctness::SeedSource> seeds,
                  std::shared_ptr<VerdictCache> cache, std::string settings_text,
                  std::string judge);

  bool available(arch::Arch arch, std::string& why) override;
  void run(const task::Task& task, const CompiledCandidate& candidate,
           Evaluation& evaluation) override;
  std::string identity() override { return inner_->identity(); }

 private:
  std::shared_ptr<GpuStages> inner_;
  std::shared_ptr<const correctness::SeedSource> seeds_;
  std::shared_ptr<VerdictCache> cache_;
  std::string settings_text_;
  std::string judge_;
};

// The seed source of the settings: --seed, else --seed-pool with this installation's salt
// (a per-process salt where the salt file cannot be kept), else fresh seeds.
std::shared_ptr<const correctness::SeedSource> seed_source(const EvaluationSettings& settings);

// Every slot behind a SeededGpuStages of the settings (their seed source and verdict cache).
std::vector<std::shared_ptr<GpuStages>> with_seeds_and_cache(
    std::vector<std::shared_ptr<GpuStages>> slots, const EvaluationSettings& settings);

}  // namespace ptxbench::eval
