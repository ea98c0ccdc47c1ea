// The Evaluator: stages 1-4 of many candidates (of one task or several) in parallel on a thread
// pool, then the GPU stages one candidate after another (they share one GPU), then the one-line
// verdict messages.
#include "ptxbench/eval/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "ptxbench/eval/static/pipeline_static.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval {
namespace {

using Clock = std::chrono::steady_clock;

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// "replies/turn 3.md" -> "turn_3.md": a directory name that is safe and still recognisable.
std::string safe_name(std::string_view source_name) {
  const auto slash = source_name.find_last_of('/');
  if (slash != std::string_view::npos) source_name.remove_prefix(slash + 1);
  std::string out;
  for (char c : source_name.substr(0, 48)) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    out.push_back(keep ? c : '_');
  }
  return out.empty() || out.front() == '.' ? "candidate" + out : out;
}

std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

void mark_gpu_stages_not_run(Evaluation& e, const std::string& why) {
  for (auto stage : {Stage::kSanitize, Stage::kCorrectness, Stage::kDynamicSass, Stage::kTiming}) {
    auto& record = e.stage(stage);
    record.status = StageStatus::kNotRun;
    record.message = why;
  }
  std::vector<std::string> present, absent;
  for (const auto& f : e.families) {
    if (f.static_count > 0) present.push_back(fmt::format("{} x{}", f.family, f.static_count));
    if (f.requested && f.static_count == 0) absent.push_back(f.family);
  }
  e.verdict = Verdict::kNotRun;
  e.message = fmt::format(
      "compiled for {} and statically checked (SASS families: {}{}); GPU stages not run: {}",
      arch::info(e.arch).sm, present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", ")),
      absent.empty() ? "" : fmt::format("; requested but absent: {}", fmt::join(absent, ", ")),
      why);
}

// A verdict from the GPU stages without its own message gets one from its failing stage.
void fill_message(Evaluation& e) {
  if (!e.message.empty()) return;
  if (e.verdict == Verdict::kPassed) {
    e.message = "correct, and every requested instruction family executed substantially";
    return;
  }
  for (const auto& s : e.stages) {
    if (s.status == StageStatus::kFailed && !s.message.empty()) {
      e.message = s.message;
      return;
    }
  }
  e.message = std::string(to_string(e.verdict));
}

Evaluation internal_error(const task::Task& task, arch::Arch arch, const CandidateInput& input,
                          const std::string& what) {
  Evaluation e;
  e.task = task.name;
  e.arch = arch;
  e.source_name = input.source_name;
  e.verdict = Verdict::kInternalError;
  e.message = "ptxbench failed, not the candidate: " + what;
  return e;
}

}  // namespace

struct Evaluator::Impl {
  EvaluatorOptions options;
  std::shared_ptr<util::ProcessRunner> runner;
  std::shared_ptr<GpuStages> gpu;
  std::optional<util::TempDir> temp_dir;  // owns the work dir when the caller gave none
  std::filesystem::path root;
  std::atomic<int> next_candidate{0};
  std::once_flag toolchain_once;
  std::optional<StaticContext> context;
  // Whether a GPU runs each arch's code, asked once: the answer does not change while we run.
  std::mutex gpu_mutex;
  std::map<arch::Arch, std::pair<bool, std::string>> gpu_availability;

  bool gpu_available(arch::Arch arch, std::string& why) {
    std::lock_guard lock(gpu_mutex);
    auto it = gpu_availability.find(arch);
    if (it == gpu_availability.end()) {
      std::string reason;
      const bool available = gpu->available(arch, reason);
      it = gpu_availability.emplace(arch, std::pair{available, reason}).first;
    }
    why = it->second.second;
    return it->second.first;
  }

  const StaticContext& static_context() {
    std::call_once(toolchain_once, [this] {
      auto nvcc = compile::find_nvcc();
      PTXBENCH_CHECK(nvcc.has_value(), nvcc.has_value() ? "" : nvcc.error().message);
      context.emplace(StaticContext{
          .runner = *runner,
          .compile = compile::CompileOptions{.nvcc = *nvcc, .timeout = options.compile_timeout},
          .toolchain = {{"nvcc", compile::nvcc_version(*runner, *nvcc)}}});
    });
    return *context;
  }

  std::filesystem::path candidate_dir(const CandidateInput& input) {
    const int index = next_candidate++;
    return root / fmt::format("{:03}-{}", index, safe_name(input.source_name));
  }

  StaticOutcome static_stages(const task::Task& task, arch::Arch arch,
                              const CandidateInput& input) {
    const auto start = Clock::now();
    try {
      auto outcome = run_static_stages(task, arch, input, static_context(), candidate_dir(input));
      outcome.evaluation.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      return outcome;
    } catch (const std::exception& e) {
      // A worker thread must not end the process; the failure is ours and recorded as such.
      return StaticOutcome{.evaluation = internal_error(task, arch, input, e.what())};
    }
  }

  void gpu_stages(const task::Task& task, StaticOutcome& outcome, bool available,
                  const std::string& why_not) {
    Evaluation& e = outcome.evaluation;
    if (!outcome.compiled) return;
    if (!available) return mark_gpu_stages_not_run(e, why_not);
    const auto start = Clock::now();
    try {
      gpu->run(task, *outcome.compiled, e);
    } catch (const std::exception& ex) {
      e.verdict = Verdict::kInternalError;
      e.message = std::string("GPU stages failed inside ptxbench: ") + ex.what();
    }
    e.wall_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
};

Evaluator::Evaluator(EvaluatorOptions options, std::shared_ptr<util::ProcessRunner> runner,
                     std::shared_ptr<GpuStages> gpu)
    : impl_(std::make_unique<Impl>()) {
  PTXBENCH_CHECK(runner != nullptr, "Evaluator needs a process runner");
  impl_->options = std::move(options);
  impl_->runner = std::move(runner);
  impl_->gpu = std::move(gpu);
  if (impl_->options.work_dir.empty()) {
    impl_->temp_dir.emplace("ptxbench-eval-");
    impl_->root = impl_->temp_dir->path();
  } else {
    impl_->root = impl_->options.work_dir;
    std::filesystem::create_directories(impl_->root);
  }
}

Evaluator::~Evaluator() = default;

Evaluation Evaluator::evaluate(const task::Task& task, arch::Arch arch,
                               const CandidateInput& input) {
  return std::move(evaluate_many(task, arch, {input}).front());
}

std::vector<Evaluation> Evaluator::evaluate_many(const task::Task& task, arch::Arch arch,
                                                 const std::vector<CandidateInput>& inputs) {
  std::vector<TaskCandidate> pairs;
  pairs.reserve(inputs.size());
  for (const auto& input : inputs) pairs.push_back({.task = &task, .input = input});
  return evaluate_pairs(arch, pairs);
}

std::vector<Evaluation> Evaluator::evaluate_pairs(arch::Arch arch,
                                                  const std::vector<TaskCandidate>& pairs) {
  for (const auto& pair : pairs) PTXBENCH_CHECK(pair.task != nullptr, "a candidate without a task");
  const std::string created_at = utc_now_iso8601();
  std::vector<StaticOutcome> outcomes(pairs.size());
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = std::clamp(impl_->options.jobs > 0 ? impl_->options.jobs : cores, 1,
                              static_cast<int>(std::max<std::size_t>(1, pairs.size())));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < pairs.size(); i = next++) {
      outcomes[i] = impl_->static_stages(*pairs[i].task, arch, pairs[i].input);
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int j = 1; j < jobs; ++j) pool.emplace_back(work);
    work();
  }  // joins the pool

  std::string why_not;
  bool available = false;
  if (!impl_->options.run_gpu_stages) {
    why_not = "GPU stages disabled";
  } else if (impl_->gpu == nullptr) {
    why_not = "this build has no GPU worker";
  } else {
    const bool any_compiled =
        std::any_of(outcomes.begin(), outcomes.end(),
                    [](const StaticOutcome& o) { return o.compiled.has_value(); });
    available = any_compiled && impl_->gpu_available(arch, why_not);
    if (!available && why_not.empty())
      why_not = fmt::format("no GPU that runs {} code", arch::info(arch).sm);
  }

  std::vector<Evaluation> evaluations;
  evaluations.reserve(outcomes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    impl_->gpu_stages(*pairs[i].task, outcomes[i], available, why_not);
    Evaluation& e = outcomes[i].evaluation;
    e.created_at = created_at;
    fill_message(e);
    e.message = first_line(e.message);
    evaluations.push_back(std::move(e));
  }
  return evaluations;
}

}  // namespace ptxbench::eval
