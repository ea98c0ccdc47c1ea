// The front of every GPU slot: chooses each verdict's input seed (a fixed --seed, one of the
// task's pool seeds, or a fresh one: correctness/seed_pool.hpp) before the GPU stages run, and,
// when a verdict cache is set (verdict_cache.hpp), answers from it or fills it. The engine wraps
// each slot in one (with_seeds_and_cache); the slot's own GpuStages use the seed it chose.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
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
  // The same front for a scheduler that shares the GPU: the seed is chosen and the cache asked
  // before the shared phase (a hit decides the verdict there); a verdict is stored once final.
  bool run_shared(const task::Task& task, const CompiledCandidate& candidate,
                  Evaluation& evaluation) override;
  void run_exclusive(const task::Task& task, const CompiledCandidate& candidate,
                     Evaluation& evaluation) override;
  std::string identity() override { return inner_->identity(); }
  std::optional<DeviceMemory> device_memory() const override { return inner_->device_memory(); }
  std::uint64_t shared_memory_need(const task::Task& task) const override {
    return inner_->shared_memory_need(task);
  }

 private:
  // Chooses and records the verdict's seed; returns the cache key when the verdict cache applies.
  std::optional<VerdictKey> choose_seed(const task::Task& task, const CompiledCandidate& candidate,
                                        Evaluation& evaluation);
  // The key of a verdict whose seed was chosen already (nullopt: not cacheable).
  std::optional<VerdictKey> key_of(const task::Task& task, const CompiledCandidate& candidate,
                                   const Evaluation& evaluation, bool count_bypass);

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
