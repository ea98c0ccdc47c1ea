// The Evaluator: stages 1-4 of many candidates (of one task or several) on a pool of compile
// threads; each compiled candidate goes to a queue that the GPU slots (one thread per GpuStages)
// drain while later candidates still compile; every verdict goes to the sink when it is final.
#include "ptxbench/eval/evaluator.hpp"
#include "ptxbench/sandbox/sandboxed_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "ptxbench/eval/gpu_absence.hpp"
#include "ptxbench/eval/static/pipeline_static.hpp"
#include "ptxbench/eval/static/static_verdict.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/child_processes.hpp"
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
  if (decide_without_gpu(e, why)) return;  // the machine code alone says it cannot pass
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
  std::vector<std::shared_ptr<GpuStages>> gpu_slots;
  std::optional<util::TempDir> temp_dir;  // owns the work dir when the caller gave none
  std::filesystem::path root;
  std::atomic<int> next_candidate{0};
  std::once_flag toolchain_once;
  std::optional<StaticContext> context;
  // Whether each slot's GPU runs each arch's code, asked once: the answer does not change.
  std::mutex gpu_mutex;
  std::map<std::pair<std::size_t, arch::Arch>, std::pair<bool, std::string>> gpu_availability;

  bool gpu_available(std::size_t slot, arch::Arch arch, std::string& why) {
    std::lock_guard lock(gpu_mutex);
    auto it = gpu_availability.find({slot, arch});
    if (it == gpu_availability.end()) {
      std::string reason;
      const bool available = gpu_slots[slot]->available(arch, reason);
      if (!available && reason.empty())
        reason = fmt::format("no GPU that runs {} code", arch::info(arch).sm);
      reason = explain_gpu_absence(std::move(reason));
      it = gpu_availability.emplace(std::pair{slot, arch}, std::pair{available, reason}).first;
    }
    why = it->second.second;
    return it->second.first;
  }

  const StaticContext& static_context() {
    std::call_once(toolchain_once, [this] {
      auto nvcc = compile::find_nvcc();
      PTXBENCH_CHECK(nvcc.has_value(), nvcc.has_value() ? "" : nvcc.error().message);
      compile::CompileOptions compile_options{.nvcc = *nvcc, .timeout = options.compile_timeout};
      if (options.compile_memory_limit_bytes > 0)
        compile_options.memory_limit_bytes = options.compile_memory_limit_bytes;
      compile_options.sandbox = options.compile_runner;
      context.emplace(
          StaticContext{.runner = *runner,
                        .compile = std::move(compile_options),
                        .toolchain = {{"nvcc", compile::nvcc_version(*runner, *nvcc)}}});
    });
    return *context;
  }

  std::filesystem::path candidate_dir(const CandidateInput& input) {
    const int index = next_candidate++;
    return root / fmt::format("{:03}-{}", index, safe_name(input.source_name));
  }

  StaticOutcome static_stages(const task::Task& task, arch::Arch arch, const CandidateInput& input,
                              const std::filesystem::path& dir) {
    const auto start = Clock::now();
    try {
      auto outcome = run_static_stages(task, arch, input, static_context(), dir);
      outcome.evaluation.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      return outcome;
    } catch (const std::exception& e) {
      // A worker thread must not end the process; the failure is ours and recorded as such.
      return StaticOutcome{.evaluation = internal_error(task, arch, input, e.what())};
    }
  }

  // Stages 5-8 of one statically checked candidate on GPU slot `slot`.
  void gpu_stages(std::size_t slot, arch::Arch arch, const task::Task& task,
                  StaticOutcome& outcome) {
    Evaluation& e = outcome.evaluation;
    if (!outcome.compiled) return;
    if (!options.run_gpu_stages) return mark_gpu_stages_not_run(e, "GPU stages disabled");
    if (gpu_slots.empty()) return mark_gpu_stages_not_run(e, missing_worker_reason());
    std::string why_not;
    if (!gpu_available(slot, arch, why_not)) return mark_gpu_stages_not_run(e, why_not);
    const auto start = Clock::now();
    try {
      gpu_slots[slot]->run(task, *outcome.compiled, e);
    } catch (const std::exception& ex) {
      e.verdict = Verdict::kInternalError;
      e.message = std::string("GPU stages failed inside ptxbench: ") + ex.what();
    }
    e.wall_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }

  // Called with each final verdict, one call at a time; may take the evaluation.
  using Delivery = std::function<void(std::size_t id, Evaluation& evaluation)>;
  // Compile threads take candidates from `next` and run stages 1-4; the GPU slots run stages
  // 5-8 of what has compiled; `deliver` gets each final verdict. With `arch` known in advance,
  // each slot asks whether its GPU runs that arch while the first compiles run (the worker's
  // `info` call, ~0.5 s, is then off a single verdict's path). Returns how many were delivered
  // once every thread is joined; rethrows what `next` or `deliver` threw.
  std::size_t run_pipeline(int jobs, const CandidateSource& next, const Delivery& deliver,
                           std::optional<arch::Arch> arch = std::nullopt);
};

namespace {

// A candidate between its compile and its verdict.
struct TakenCandidate {
  StreamCandidate candidate;
  std::string created_at;     // when a compile thread took it
  std::filesystem::path dir;  // its artefacts
  StaticOutcome outcome;
};

// The hand-over between the compile threads and the GPU slots of one pipeline.
class CandidateQueue {
 public:
  explicit CandidateQueue(int producers) : producers_left_(producers) {}

  void push(std::unique_ptr<TakenCandidate> taken) {
    {
      std::lock_guard lock(mutex_);
      ready_.push_back(std::move(taken));
    }
    changed_.notify_one();
  }
  void producer_done() {
    {
      std::lock_guard lock(mutex_);
      --producers_left_;
    }
    changed_.notify_all();
  }
  // The next compiled candidate; null once every producer is done and the queue is empty, or
  // when `stop` says so (checked a few times a second).
  template <class Stop>
  std::unique_ptr<TakenCandidate> pop(const Stop& stop) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (stop()) return nullptr;
      if (!ready_.empty()) {
        auto taken = std::move(ready_.front());
        ready_.pop_front();
        return taken;
      }
      if (producers_left_ == 0) return nullptr;
      changed_.wait_for(lock, std::chrono::milliseconds(200));
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<TakenCandidate>> ready_;
  int producers_left_;
};

}  // namespace

Evaluator::Evaluator(EvaluatorOptions options, std::shared_ptr<util::ProcessRunner> runner,
                     std::shared_ptr<GpuStages> gpu)
    : Evaluator(std::move(options), std::move(runner),
                std::vector<std::shared_ptr<GpuStages>>{std::move(gpu)}) {}

Evaluator::Evaluator(EvaluatorOptions options, std::shared_ptr<util::ProcessRunner> runner,
                     std::vector<std::shared_ptr<GpuStages>> gpu_slots)
    : impl_(std::make_unique<Impl>()) {
  PTXBENCH_CHECK(runner != nullptr, "Evaluator needs a process runner");
  impl_->options = std::move(options);
  impl_->runner = std::move(runner);
  for (auto& slot : gpu_slots) {
    if (slot != nullptr) impl_->gpu_slots.push_back(std::move(slot));
  }
  if (impl_->options.work_dir.empty()) {
    impl_->temp_dir.emplace("ptxbench-eval-");
    impl_->root = impl_->temp_dir->path();
  } else {
    impl_->root = impl_->options.work_dir;
    std::filesystem::create_directories(impl_->root);
  }
  // The worker reads the candidates' shared objects from here.
  if (auto* box = dynamic_cast<sandbox::SandboxedProcessRunner*>(impl_->runner.get()))
    box->show_read_only(impl_->root);
}

Evaluator::~Evaluator() = default;

Evaluation Evaluator::evaluate(const task::Task& task, arch::Arch arch,
                               const CandidateInput& input) {
  return std::move(evaluate_many(task, arch, {input}).front());
}

std::vector<Evaluation> Evaluator::evaluate_many(const task::Task& task, arch::Arch arch,
                                                 const std::vector<CandidateInput>& inputs,
                                                 const VerdictSink& sink) {
  std::vector<TaskCandidate> pairs;
  pairs.reserve(inputs.size());
  for (const auto& input : inputs) pairs.push_back({.task = &task, .input = input});
  return evaluate_pairs(arch, pairs, sink);
}

std::size_t Evaluator::Impl::run_pipeline(int jobs, const CandidateSource& next,
                                          const Delivery& deliver, std::optional<arch::Arch> arch) {
  std::mutex source_mutex, deliver_mutex;
  bool ended = false;  // `next` returned nullopt: it is not called again
  std::exception_ptr error;
  std::atomic<bool> abandon{false};  // `next` or `deliver` failed: stop starting new work
  std::size_t delivered = 0;
  auto stopping = [&] { return abandon.load() || util::children_stopped(); };
  auto fail = [&] {
    std::lock_guard lock(deliver_mutex);
    if (!error) error = std::current_exception();
    abandon = true;
  };
  auto take = [&]() -> std::optional<StreamCandidate> {
    std::lock_guard lock(source_mutex);
    if (ended || stopping()) return std::nullopt;
    try {
      auto candidate = next();
      if (!candidate) ended = true;
      if (candidate) PTXBENCH_CHECK(candidate->task != nullptr, "a candidate without a task");
      return candidate;
    } catch (...) {
      ended = true;
      fail();
      return std::nullopt;
    }
  };

  // The verdict is final: message, timestamp, and the delivery. Once ptxbench is stopping, a
  // verdict may stem from a child we killed, so nothing more is delivered.
  auto finish = [&](TakenCandidate& taken) {
    if (stopping()) return;
    Evaluation& e = taken.outcome.evaluation;
    e.created_at = taken.created_at;
    e.sandbox = options.sandbox;
    fill_message(e);
    e.message = first_line(e.message);
    std::lock_guard lock(deliver_mutex);
    if (abandon) return;
    try {
      deliver(taken.candidate.id, e);
      ++delivered;
    } catch (...) {
      if (!error) error = std::current_exception();
      abandon = true;
    }
  };

  CandidateQueue compiled(jobs);
  auto compile_work = [&] {
    while (auto candidate = take()) {
      auto taken = std::make_unique<TakenCandidate>(
          TakenCandidate{.candidate = std::move(*candidate), .created_at = utc_now_iso8601()});
      const auto& c = taken->candidate;
      taken->dir = candidate_dir(c.input);
      taken->outcome = static_stages(*c.task, c.arch, c.input, taken->dir);
      compiled.push(std::move(taken));
    }
    compiled.producer_done();
  };
  auto gpu_work = [&](std::size_t slot) {
    if (arch && options.run_gpu_stages && slot < gpu_slots.size()) {
      std::string ignored;  // asked again, from the cache, for each candidate
      gpu_available(slot, *arch, ignored);
    }
    while (auto taken = compiled.pop(stopping)) {
      gpu_stages(slot, taken->candidate.arch, *taken->candidate.task, taken->outcome);
      finish(*taken);
      // Artefacts nobody asked to keep go with the verdict: a service's stream never ends.
      if (temp_dir) {
        std::error_code ignored;
        std::filesystem::remove_all(taken->dir, ignored);
      }
    }
  };
  {
    const std::size_t slots = std::max<std::size_t>(1, gpu_slots.size());
    std::vector<std::jthread> threads;
    for (int j = 0; j < jobs; ++j) threads.emplace_back(compile_work);
    for (std::size_t slot = 0; slot < slots; ++slot) threads.emplace_back(gpu_work, slot);
  }  // joins every thread
  if (error) std::rethrow_exception(error);
  return delivered;
}

std::vector<Evaluation> Evaluator::evaluate_pairs(arch::Arch arch,
                                                  const std::vector<TaskCandidate>& pairs,
                                                  const VerdictSink& sink) {
  for (const auto& pair : pairs) PTXBENCH_CHECK(pair.task != nullptr, "a candidate without a task");
  const std::size_t count = pairs.size();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = std::clamp(impl_->options.jobs > 0 ? impl_->options.jobs : cores, 1,
                              static_cast<int>(std::max<std::size_t>(1, count)));
  std::vector<Evaluation> evaluations(count);
  std::size_t next = 0;
  const std::size_t judged = impl_->run_pipeline(
      jobs,
      [&]() -> std::optional<StreamCandidate> {
        if (next == count) return std::nullopt;
        const auto& pair = pairs[next];
        return StreamCandidate{.id = next++, .task = pair.task, .arch = arch, .input = pair.input};
      },
      [&](std::size_t index, Evaluation& e) {
        if (sink) sink(index, e);
        evaluations[index] = std::move(e);
      },
      arch);
  if (util::children_stopped())
    throw util::Stopped(fmt::format("stopped with {} of {} candidates judged", judged, count));
  return evaluations;
}

void Evaluator::evaluate_stream(const CandidateSource& next, const VerdictSink& sink) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = std::max(1, impl_->options.jobs > 0 ? impl_->options.jobs : cores);
  impl_->run_pipeline(jobs, next, [&](std::size_t id, Evaluation& e) {
    if (sink) sink(id, e);
  });
  if (util::children_stopped()) throw util::Stopped("stopped while evaluating a stream");
}

}  // namespace ptxbench::eval
