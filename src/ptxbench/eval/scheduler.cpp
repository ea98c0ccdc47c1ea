// The Scheduler: a pool of compile threads runs stages 1-4 of each submitted candidate and hands
// it to a queue that the GPU slots drain while later candidates still compile; every verdict
// goes to its submitter when it is final. Each slot has `gpu_concurrency` lanes (threads), each
// judging one candidate; a reader/writer gate per slot lets the lanes' shared phases run together
// (bounded by the GPU's free memory) and gives an exclusive phase the GPU alone.
#include "ptxbench/eval/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "ptxbench/eval/gpu_absence.hpp"
#include "ptxbench/eval/static/pipeline_static.hpp"
#include "ptxbench/eval/static/static_verdict.hpp"
#include "ptxbench/sandbox/sandboxed_runner.hpp"
#include "ptxbench/util/check.hpp"
#include "ptxbench/util/child_processes.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::eval {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kMemoryUnasked = std::numeric_limits<std::uint64_t>::max();

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

int compile_threads(const SchedulerOptions& options) {
  if (options.jobs > 0) return options.jobs;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// A caller's sink as a submission's on_verdict: once a call threw (the exception goes to that
// candidate's future), later verdicts are not handed to it.
std::function<void(const Evaluation&)> guarded_sink(const VerdictSink& sink,
                                                    std::atomic<bool>& failed, std::size_t id) {
  return [&sink, &failed, id](const Evaluation& e) {
    if (!sink || failed) return;
    try {
      sink(id, e);
    } catch (...) {
      failed = true;
      throw;
    }
  };
}

// A candidate between its submission and its verdict.
struct Job {
  Submission submission;
  // The submitted task under the settings' correctness rule, when that differs from the task's
  // own (submission.task then points here).
  std::optional<task::Task> judged_task;
  std::promise<Evaluation> promise;
  std::string created_at;     // when a compile thread took it
  std::filesystem::path dir;  // its artefacts
  StaticOutcome outcome;
  bool compiled_told = false;
  Clock::time_point compiled_at;  // when it joined the queue for a GPU
};

// Who holds one GPU (a reader/writer gate): shared phases run together, an exclusive one alone.
// A waiting exclusive phase lets no new shared phase start, so timing is never starved.
struct SlotGate {
  int shared = 0;              // shared phases running
  std::uint64_t reserved = 0;  // their estimated device memory
  int exclusive_waiting = 0;
  bool exclusive = false;  // an exclusive phase runs
};

}  // namespace

struct Scheduler::Impl {
  SchedulerOptions options;
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

  // The queues: submitted -> (a compile thread) -> compiled -> (a GPU slot) -> verdict.
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::unique_ptr<Job>> submitted;
  std::deque<std::unique_ptr<Job>> compiled;
  std::vector<std::set<arch::Arch>> probes;  // per GPU slot: archs to ask about ahead
  std::vector<SlotGate> gates;               // per GPU slot
  // Per GPU slot: the free device memory its worker reported when first asked; 0: it reports
  // none (no bound); kMemoryUnasked: not asked yet (one candidate at a time until it is).
  std::unique_ptr<std::atomic<std::uint64_t>[]> free_memory;
  int compiling = 0;              // jobs a compile thread holds
  bool closing = false;           // the destructor runs: no more submissions
  std::set<arch::Arch> prepared;  // archs whose probe was asked for
  std::mutex deliver_mutex;       // one on_verdict at a time
  std::vector<std::jthread> threads;

  // Has each GPU slot ask about `arch` ahead, once; `mutex` is held.
  void prepare_locked(arch::Arch arch) {
    if (!options.run_gpu_stages || gpu_slots.empty() || !prepared.insert(arch).second) return;
    for (auto& slot_probes : probes) slot_probes.insert(arch);
  }

  bool gpu_available(std::size_t slot, arch::Arch arch, std::string& why) {
    std::lock_guard lock(gpu_mutex);
    auto it = gpu_availability.find({slot, arch});
    if (it == gpu_availability.end()) {
      std::string reason;
      const bool available = gpu_slots[slot]->available(arch, reason);
      const auto memory = available ? gpu_slots[slot]->device_memory() : std::nullopt;
      free_memory[slot] = memory ? memory->free_bytes : 0;
      if (!available && reason.empty())
        reason = fmt::format("no GPU that runs {} code", arch::info(arch).sm);
      reason = explain_gpu_absence(std::move(reason));
      it = gpu_availability.emplace(std::pair{slot, arch}, std::pair{available, reason}).first;
      // The GPU's memory is known now: waiting lanes may start (taking `mutex` orders this
      // after any lane's check that found it unknown).
      { std::lock_guard queues(mutex); }
      changed.notify_all();
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
      compile_options.cache = options.compile_cache;
      compile_options.toolchain = compile::nvcc_version(*runner, *nvcc);
      context.emplace(StaticContext{.runner = *runner,
                                    .compile = compile_options,
                                    .toolchain = {{"nvcc", compile_options.toolchain}}});
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
      outcome.evaluation.wall_seconds = util::seconds_since(start);
      return outcome;
    } catch (const std::exception& e) {
      // A worker thread must not end the process; the failure is ours and recorded as such.
      return StaticOutcome{.evaluation = internal_error(task, arch, input, e.what())};
    }
  }

  int concurrency() const { return std::max(1, options.gpu_concurrency); }

  // Whether the GPU stages run for this candidate on `slot`; if not, the record says why.
  bool gpu_ready(std::size_t slot, arch::Arch arch, StaticOutcome& outcome) {
    Evaluation& e = outcome.evaluation;
    if (!outcome.compiled) return false;
    if (!options.run_gpu_stages) {
      mark_gpu_stages_not_run(e, "GPU stages disabled");
      return false;
    }
    if (gpu_slots.empty()) {
      mark_gpu_stages_not_run(e, missing_worker_reason());
      return false;
    }
    std::string why_not;
    if (!gpu_available(slot, arch, why_not)) {
      mark_gpu_stages_not_run(e, why_not);
      return false;
    }
    return true;
  }

  // One phase of the GPU stages; what ptxbench throws becomes the candidate's INTERNAL_ERROR.
  template <typename Phase>
  static bool guarded(Evaluation& e, Phase&& phase) {
    const auto start = Clock::now();
    bool more = false;
    try {
      more = phase();
    } catch (const std::exception& ex) {
      e.verdict = Verdict::kInternalError;
      e.message = std::string("GPU stages failed inside ptxbench: ") + ex.what();
    }
    e.wall_seconds += util::seconds_since(start);
    return more;
  }

  // The estimated device memory of a candidate's shared phase on `slot` (0: none or unknown).
  std::uint64_t memory_need(std::size_t slot, const Job& job) const {
    if (!job.outcome.compiled || slot >= gpu_slots.size()) return 0;
    return gpu_slots[slot]->shared_memory_need(*job.submission.task);
  }

  // Whether a shared phase needing `need` bytes may start on `slot` now; `mutex` is held. A
  // candidate alone on its GPU always may (as one at a time always did).
  bool admits(std::size_t slot, std::uint64_t need) const {
    const SlotGate& gate = gates[slot];
    if (gate.exclusive || gate.exclusive_waiting > 0 || gate.shared >= concurrency()) return false;
    if (gate.shared == 0 || !options.run_gpu_stages) return true;
    const std::uint64_t free = free_memory[slot];
    if (free == kMemoryUnasked) return false;
    return free == 0 || gate.reserved + need <= free;
  }

  // Stages 5-8 of one candidate on `slot`, whose shared place (`need` bytes) the lane holds.
  // With one lane per GPU the stages run as one call, exactly as a GPU judging one candidate
  // at a time; with more, the exclusive phase waits until no other phase holds the GPU.
  void gpu_stages(std::size_t slot, Job& job, std::uint64_t need) {
    const auto& s = job.submission;
    Evaluation& e = job.outcome.evaluation;
    bool exclusive_next = false;
    if (gpu_ready(slot, s.arch, job.outcome)) {
      // Waiting for a GPU lane: the correctness stage's part (it starts the shared phase).
      add_part(e.stage(Stage::kCorrectness).parts, part::kGpuWait,
               util::seconds_since(job.compiled_at));
      GpuStages& gpu = *gpu_slots[slot];
      if (concurrency() == 1) {
        guarded(e, [&] {
          gpu.run(*s.task, *job.outcome.compiled, e);
          return false;
        });
      } else {
        exclusive_next =
            guarded(e, [&] { return gpu.run_shared(*s.task, *job.outcome.compiled, e); });
      }
    }
    {
      std::unique_lock lock(mutex);
      SlotGate& gate = gates[slot];
      --gate.shared;
      gate.reserved -= need;
      if (exclusive_next) {
        const auto waiting = Clock::now();
        ++gate.exclusive_waiting;
        changed.notify_all();
        changed.wait(lock, [&] { return !gate.exclusive && gate.shared == 0; });
        --gate.exclusive_waiting;
        gate.exclusive = true;
        // The exclusive phase starts with the proof: the wait for the GPU alone is its part.
        add_part(e.stage(Stage::kDynamicSass).parts, part::kGpuWait, util::seconds_since(waiting));
      }
    }
    changed.notify_all();
    if (!exclusive_next) return;
    guarded(e, [&] {
      gpu_slots[slot]->run_exclusive(*s.task, *job.outcome.compiled, e);
      return false;
    });
    {
      std::lock_guard lock(mutex);
      gates[slot].exclusive = false;
    }
    changed.notify_all();
  }

  static void tell_compiled(Job& job) {
    if (job.compiled_told) return;
    job.compiled_told = true;
    if (job.submission.on_compiled) job.submission.on_compiled();
  }

  // Once ptxbench is stopping, a verdict may stem from a child we killed: none is given.
  static void abandon(Job& job) {
    tell_compiled(job);
    job.promise.set_exception(
        std::make_exception_ptr(util::Stopped("stopped before the verdict was final")));
  }

  // The verdict is final: message, timestamp, the caller's callback, the future.
  void finish(Job& job) {
    if (util::children_stopped()) return abandon(job);
    Evaluation& e = job.outcome.evaluation;
    e.created_at = job.created_at;
    e.sandbox = options.sandbox;
    e.profile = options.profile;
    fill_message(e);
    e.message = first_line(e.message);
    if (job.submission.on_verdict) {
      std::lock_guard lock(deliver_mutex);
      try {
        job.submission.on_verdict(e);
      } catch (...) {
        job.promise.set_exception(std::current_exception());
        return;
      }
    }
    job.promise.set_value(std::move(e));
  }

  void compile_work() {
    for (;;) {
      std::unique_ptr<Job> job;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [this] { return closing || !submitted.empty(); });
        if (submitted.empty()) return;
        job = std::move(submitted.front());
        submitted.pop_front();
        ++compiling;
      }
      if (!util::children_stopped()) {
        const auto& s = job->submission;
        job->created_at = util::utc_timestamp();
        job->dir = candidate_dir(s.input);
        job->outcome = static_stages(*s.task, s.arch, s.input, job->dir);
      }
      tell_compiled(*job);
      {
        std::lock_guard lock(mutex);
        job->compiled_at = Clock::now();
        compiled.push_back(std::move(job));
        --compiling;
      }
      changed.notify_all();
    }
  }

  void release_shared(std::size_t slot, std::uint64_t need) {
    {
      std::lock_guard lock(mutex);
      --gates[slot].shared;
      gates[slot].reserved -= need;
    }
    changed.notify_all();
  }

  void gpu_work(std::size_t slot) {
    for (;;) {
      std::unique_ptr<Job> job;
      std::optional<arch::Arch> probe;
      std::uint64_t need = 0;
      {
        std::unique_lock lock(mutex);
        for (;;) {
          if (closing) probes[slot].clear();  // a warm-up nobody waits for any more
          if (!probes[slot].empty()) {
            probe = *probes[slot].begin();
            probes[slot].erase(probes[slot].begin());
            break;
          }
          if (!compiled.empty()) {
            // A candidate's shared place is taken with it: no lane holds one it cannot start.
            need = memory_need(slot, *compiled.front());
            if (admits(slot, need)) {
              job = std::move(compiled.front());
              compiled.pop_front();
              ++gates[slot].shared;
              gates[slot].reserved += need;
              break;
            }
          }
          if (closing && submitted.empty() && compiling == 0 && compiled.empty()) return;
          changed.wait(lock);
        }
      }
      if (probe) {
        std::string ignored;  // asked again, from the cache, for each candidate
        if (options.run_gpu_stages && slot < gpu_slots.size()) gpu_available(slot, *probe, ignored);
        continue;
      }
      if (util::children_stopped()) {
        release_shared(slot, need);
        abandon(*job);
      } else {
        gpu_stages(slot, *job, need);
        finish(*job);
      }
      // Artefacts nobody asked to keep go with the verdict: a service's stream never ends.
      if (temp_dir && !job->dir.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(job->dir, ignored);
      }
    }
  }
};

Scheduler::Scheduler(SchedulerOptions options, std::shared_ptr<util::ProcessRunner> runner,
                     std::shared_ptr<GpuStages> gpu)
    : Scheduler(std::move(options), std::move(runner),
                std::vector<std::shared_ptr<GpuStages>>{std::move(gpu)}) {}

Scheduler::Scheduler(SchedulerOptions options, std::shared_ptr<util::ProcessRunner> runner,
                     std::vector<std::shared_ptr<GpuStages>> gpu_slots)
    : impl_(std::make_unique<Impl>()) {
  PTXBENCH_CHECK(runner != nullptr, "Scheduler needs a process runner");
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
  const int jobs = compile_threads(impl_->options);
  const std::size_t slots = std::max<std::size_t>(1, impl_->gpu_slots.size());
  impl_->probes.resize(slots);
  impl_->gates.resize(slots);
  impl_->free_memory = std::make_unique<std::atomic<std::uint64_t>[]>(slots);
  for (std::size_t slot = 0; slot < slots; ++slot) impl_->free_memory[slot] = kMemoryUnasked;
  for (int j = 0; j < jobs; ++j) impl_->threads.emplace_back([this] { impl_->compile_work(); });
  // GPU stages never run without a GpuStages: one lane then reports them not run.
  const int lanes = impl_->gpu_slots.empty() ? 1 : impl_->concurrency();
  for (std::size_t slot = 0; slot < slots; ++slot) {
    for (int lane = 0; lane < lanes; ++lane)
      impl_->threads.emplace_back([this, slot] { impl_->gpu_work(slot); });
  }
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->closing = true;
  }
  impl_->changed.notify_all();
  impl_->threads.clear();  // joins: every queued candidate is settled first
}

std::future<Evaluation> Scheduler::submit(Submission submission) {
  PTXBENCH_CHECK(submission.task != nullptr, "a candidate without a task");
  auto job = std::make_unique<Job>(Job{.submission = std::move(submission)});
  // The engine judges every task by the settings' rule, whatever the caller's suite says.
  if (const auto rule = impl_->options.correctness_rule;
      rule && job->submission.task->tolerance.rule != *rule) {
    job->judged_task = *job->submission.task;
    job->judged_task->tolerance.rule = *rule;
    job->submission.task = &*job->judged_task;
  }
  auto future = job->promise.get_future();
  {
    std::lock_guard lock(impl_->mutex);
    PTXBENCH_CHECK(!impl_->closing, "a candidate submitted to a closing scheduler");
    // The first candidate of an arch has the GPU slots ask about it while it compiles.
    impl_->prepare_locked(job->submission.arch);
    impl_->submitted.push_back(std::move(job));
  }
  impl_->changed.notify_all();
  return future;
}

void Scheduler::prepare(arch::Arch arch) {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->prepare_locked(arch);
  }
  impl_->changed.notify_all();
}

std::size_t Scheduler::gpu_slot_count() const {
  return impl_->gpu_slots.size();
}

bool Scheduler::gpu_stages_available(arch::Arch arch, std::string& why) {
  if (!impl_->options.run_gpu_stages) {
    why = "GPU stages disabled";
    return false;
  }
  if (impl_->gpu_slots.empty()) {
    why = missing_worker_reason();
    return false;
  }
  std::string first_reason;
  for (std::size_t slot = 0; slot < impl_->gpu_slots.size(); ++slot) {
    std::string reason;
    if (impl_->gpu_available(slot, arch, reason)) return true;
    if (first_reason.empty()) first_reason = reason;
  }
  why = first_reason;
  return false;
}

Evaluation Scheduler::evaluate(const task::Task& task, arch::Arch arch,
                               const CandidateInput& input) {
  return submit({.task = &task, .arch = arch, .input = input}).get();
}

std::vector<Evaluation> Scheduler::evaluate_many(const task::Task& task, arch::Arch arch,
                                                 const std::vector<CandidateInput>& inputs,
                                                 const VerdictSink& sink) {
  std::vector<TaskCandidate> pairs;
  pairs.reserve(inputs.size());
  for (const auto& input : inputs) pairs.push_back({.task = &task, .input = input});
  return evaluate_pairs(arch, pairs, sink);
}

std::vector<Evaluation> Scheduler::evaluate_pairs(arch::Arch arch,
                                                  const std::vector<TaskCandidate>& pairs,
                                                  const VerdictSink& sink) {
  for (const auto& pair : pairs) PTXBENCH_CHECK(pair.task != nullptr, "a candidate without a task");
  prepare(arch);
  std::atomic<bool> abandoned{false};  // the sink threw: later verdicts are not handed to it
  std::vector<std::future<Evaluation>> futures;
  futures.reserve(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    futures.push_back(submit({.task = pairs[i].task,
                              .arch = arch,
                              .input = pairs[i].input,
                              .on_verdict = guarded_sink(sink, abandoned, i)}));
  }
  std::vector<Evaluation> evaluations(pairs.size());
  std::size_t judged = 0;
  std::exception_ptr error;
  for (std::size_t i = 0; i < futures.size(); ++i) {
    try {
      evaluations[i] = futures[i].get();
      ++judged;
    } catch (const util::Stopped&) {
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  if (util::children_stopped())
    throw util::Stopped(
        fmt::format("stopped with {} of {} candidates judged", judged, pairs.size()));
  return evaluations;
}

void Scheduler::evaluate_stream(const CandidateSource& next, const VerdictSink& sink) {
  std::mutex source_mutex, futures_mutex;
  bool ended = false;               // `next` returned nullopt: it is not called again
  std::atomic<bool> failed{false};  // `next` or `sink` threw: the stream ends
  std::exception_ptr error;
  std::vector<std::future<Evaluation>> futures;
  auto take = [&]() -> std::optional<StreamCandidate> {
    std::lock_guard lock(source_mutex);
    if (ended || failed || util::children_stopped()) return std::nullopt;
    try {
      auto candidate = next();
      if (!candidate) ended = true;
      if (candidate) PTXBENCH_CHECK(candidate->task != nullptr, "a candidate without a task");
      return candidate;
    } catch (...) {
      ended = true;
      failed = true;
      if (!error) error = std::current_exception();
      return std::nullopt;
    }
  };
  // One puller per compile thread: a candidate is taken only when a compile thread is free for
  // it, so the source keeps what no thread could start yet.
  auto pull = [&] {
    while (auto candidate = take()) {
      auto compiled = std::make_shared<std::promise<void>>();
      auto compiled_done = compiled->get_future();
      auto future = submit({.task = candidate->task,
                            .arch = candidate->arch,
                            .input = std::move(candidate->input),
                            .on_verdict = guarded_sink(sink, failed, candidate->id),
                            .on_compiled = [compiled] { compiled->set_value(); }});
      {
        std::lock_guard lock(futures_mutex);
        futures.push_back(std::move(future));
      }
      compiled_done.wait();
    }
  };
  const int pullers = compile_threads(impl_->options);
  {
    std::vector<std::jthread> pool;
    for (int i = 0; i < pullers; ++i) pool.emplace_back(pull);
  }
  for (auto& future : futures) {
    try {
      future.get();
    } catch (const util::Stopped&) {
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  if (util::children_stopped()) throw util::Stopped("stopped while evaluating a stream");
}

}  // namespace ptxbench::eval
