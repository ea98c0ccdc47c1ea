#include "ptxbench/eval/seeded_gpu_stages.hpp"

#include <optional>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/gpu_slots.hpp"
#include "ptxbench/eval/task_fingerprint.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval {
namespace {

std::string toolchain_text(const Evaluation& e) {
  std::string text;
  for (const auto& [tool, version] : e.toolchain) text += tool + "=" + version + "\n";
  return text;
}

}  // namespace

SeededGpuStages::SeededGpuStages(std::shared_ptr<GpuStages> inner,
                                 std::shared_ptr<const correctness::SeedSource> seeds,
                                 std::shared_ptr<VerdictCache> cache, std::string settings_text,
                                 std::string judge)
    : inner_(std::move(inner)),
      seeds_(std::move(seeds)),
      cache_(std::move(cache)),
      settings_text_(std::move(settings_text)),
      judge_(std::move(judge)) {}

bool SeededGpuStages::available(arch::Arch arch, std::string& why) {
  return inner_->available(arch, why);
}

std::optional<VerdictKey> SeededGpuStages::key_of(const task::Task& task,
                                                  const CompiledCandidate& candidate,
                                                  const Evaluation& e, bool count_bypass) {
  if (!cache_) return std::nullopt;
  // The candidate's code, as the compile stage left it beside the object.
  std::optional<std::string> code;
  if (auto text = util::read_file(candidate.shared_object.parent_path() / compile::kSourceFileName,
                                  util::kMaxRecordFileBytes))
    code = std::move(*text);
  const std::string gpu = inner_->identity();
  // A fresh seed is a sample, not a key: such verdicts are neither looked up nor stored.
  const bool fresh = !seeds_->fixed() && seeds_->pool_size() == 0;
  if (fresh || !code || gpu.empty() || !e.input_seed) {
    if (count_bypass) cache_->count_bypass();
    return std::nullopt;
  }
  return VerdictKey{.code = std::move(*code),
                    .task = task_fingerprint(task),
                    .arch = e.arch,
                    .input_seed = *e.input_seed,
                    .settings = settings_text_,
                    .toolchain = toolchain_text(e),
                    .gpu = gpu,
                    .judge = judge_};
}

std::optional<VerdictKey> SeededGpuStages::choose_seed(const task::Task& task,
                                                       const CompiledCandidate& candidate,
                                                       Evaluation& e) {
  const auto choice = seeds_->choose(task);
  e.input_seed = choice.seed;
  if (choice.pool_size > 0)
    e.seed_pool = SeedPoolDraw{.size = choice.pool_size, .index = choice.pool_index};
  return key_of(task, candidate, e, true);
}

void SeededGpuStages::run(const task::Task& task, const CompiledCandidate& candidate,
                          Evaluation& e) {
  const auto key = choose_seed(task, candidate, e);
  if (key && cache_->apply(*key, e)) return;
  inner_->run(task, candidate, e);
  if (key) cache_->store(*key, e);
}

bool SeededGpuStages::run_shared(const task::Task& task, const CompiledCandidate& candidate,
                                 Evaluation& e) {
  const auto key = choose_seed(task, candidate, e);
  if (key && cache_->apply(*key, e)) return false;
  const bool more = inner_->run_shared(task, candidate, e);
  if (!more && key) cache_->store(*key, e);
  return more;
}

void SeededGpuStages::run_exclusive(const task::Task& task, const CompiledCandidate& candidate,
                                    Evaluation& e) {
  inner_->run_exclusive(task, candidate, e);
  if (auto key = key_of(task, candidate, e, false)) cache_->store(*key, e);
}

std::shared_ptr<const correctness::SeedSource> seed_source(const EvaluationSettings& settings) {
  std::array<std::uint64_t, 2> salt{};
  if (!settings.input_seed && settings.seed_pool > 0) {
    auto kept = correctness::installation_salt(correctness::default_salt_file());
    salt = kept ? *kept : correctness::random_salt();
  }
  return std::make_shared<correctness::SeedSource>(settings.input_seed, settings.seed_pool, salt);
}

std::vector<std::shared_ptr<GpuStages>> with_seeds_and_cache(
    std::vector<std::shared_ptr<GpuStages>> slots, const EvaluationSettings& settings) {
  auto seeds = seed_source(settings);
  auto cache = settings.verdict_cache.empty()
                   ? nullptr
                   : std::make_shared<VerdictCache>(settings.verdict_cache, kVerdictCacheBytes);
  const std::string judge = cache ? ptxbench_build_identity(find_worker().value_or("")) : "";
  for (auto& slot : slots) {
    if (slot == nullptr) continue;
    slot = std::make_shared<SeededGpuStages>(slot, seeds, cache, verdict_settings_text(settings),
                                             judge);
  }
  return slots;
}

}  // namespace ptxbench::eval
