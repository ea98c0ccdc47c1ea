// `ptxbench serve --tokens FILE [--journal DIR] [--host H] [--port P] [--workers N]
//  [--queue-capacity N] [--max-body-bytes B] [--reward FILE] [--no-gpu] [--port-file FILE]`:
// the evaluation service and RL environment of docs/serve.md (API: docs/openapi.yaml).
// SIGTERM or SIGINT drains it: no new work is accepted, the evaluations in flight are stopped
// (util/termination.hpp ends every child process) and stay queued with the others in the
// journal, so the next start runs them; then it exits 0.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <thread>

#include "ptxbench/agent/evaluation_service.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/gpus/gpu_list.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/serve/service.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/termination.hpp"

namespace ptxbench::cli {
namespace {

struct ServeFlags {
  std::string host = "127.0.0.1";
  int port = 8750;
  std::string tokens, journal = "ptxbench-serve", reward, tasks_dir, context_dir, port_file;
  int workers = 0;
  std::size_t queue_capacity = 256;
  std::size_t max_body_bytes = 1 << 20;
  int compile_timeout_seconds = 180;
  bool no_gpu = false;
  std::string gpus;  // --gpus all|LIST
};

int run_serve(const ServeFlags& flags) {
  auto tokens = serve::load_client_tokens(flags.tokens);
  if (!tokens) {
    fmt::print(stderr, "ptxbench serve: {}\n", tokens.error().message);
    return kExitUsage;
  }
  serve::RewardConfig reward;
  if (!flags.reward.empty()) {
    auto loaded = serve::load_reward_config(flags.reward);
    if (!loaded) {
      fmt::print(stderr, "ptxbench serve: {}\n", loaded.error().message);
      return kExitUsage;
    }
    reward = *loaded;
  }
  auto suite = task::load_suite(flags.tasks_dir.empty() ? task::default_tasks_dir()
                                                        : std::filesystem::path(flags.tasks_dir));
  if (!suite) {
    fmt::print(stderr, "ptxbench serve: {}\n", suite.error().message);
    return kExitUsage;
  }
  const int workers = flags.workers > 0
                          ? flags.workers
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto runner = std::make_shared<util::SystemProcessRunner>();
  std::vector<std::shared_ptr<eval::GpuStages>> gpu_workers;  // one per GPU
  if (!flags.no_gpu) {
    auto slots = gpus::gpu_slots(flags.gpus, runner);
    if (!slots) {
      fmt::print(stderr, "ptxbench serve: {}\n", slots.error().message);
      return kExitUsage;
    }
    gpu_workers = std::move(*slots);
  }
  const auto gpu_count = gpu_workers.size();
  auto evaluations = std::make_unique<agent::EvaluationService>(
      eval::EvaluatorOptions{.compile_timeout = std::chrono::seconds(flags.compile_timeout_seconds),
                             .run_gpu_stages = !flags.no_gpu},
      runner, std::move(gpu_workers), workers);

  serve::Service service(
      {.host = flags.host,
       .port = flags.port,
       .journal_dir = flags.journal,
       .context_dir = flags.context_dir.empty() ? prompt::default_context_dir()
                                                : std::filesystem::path(flags.context_dir),
       .limits = {.capacity = flags.queue_capacity, .workers = workers},
       .max_body_bytes = flags.max_body_bytes,
       .reward = reward},
      *suite, std::move(*tokens), evaluations->function());
  for (const auto& problem : service.queue().recovery_problems())
    fmt::print(stderr, "ptxbench serve: journal: {} (set aside)\n", problem);
  std::string why;
  if (!service.bind(why)) {
    fmt::print(stderr, "ptxbench serve: {}\n", why);
    return kExitUsage;
  }
  if (!flags.port_file.empty())
    util::write_file_atomic(flags.port_file, fmt::format("{}\n", service.port()));
  const auto counts = service.queue().counts();
  fmt::print(stderr,
             "ptxbench serve: listening on http://{}:{}/v1 ({} GPU workers, {} evaluations at "
             "once, {} queued from the journal)\n",
             flags.host, service.port(), gpu_count, workers, counts.queued);

  // The process's termination watch takes SIGTERM and SIGINT; this thread turns its word into a
  // drain, well within the watch's grace period.
  std::atomic<bool> listening{true};
  std::thread drainer([&] {
    while (listening && util::stop_signal() == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (util::stop_signal() != 0)
      fmt::print(stderr, "ptxbench serve: draining; evaluations in flight go back to the queue\n");
    service.drain();
  });
  service.listen();
  listening = false;
  drainer.join();
  const auto accepted = std::filesystem::path(flags.journal) / "accepted";
  const auto left = std::distance(std::filesystem::directory_iterator(accepted), {});
  fmt::print(stderr, "ptxbench serve: stopped; {} evaluations stay queued in {}\n", left,
             accepted.string());
  return kExitOk;
}

}  // namespace

void add_serve_command(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<ServeFlags>();
  auto* sub = app.add_subcommand("serve", "");
  sub->add_option("--tokens", flags->tokens,
                  "Clients file: one 'NAME TOKEN [MAX_IN_FLIGHT]' a line")
      ->required();
  sub->add_option("--journal", flags->journal,
                  "Directory of the persistent queue (accepted/, running/, done/)")
      ->capture_default_str();
  sub->add_option("--host", flags->host, "Address to listen on")->capture_default_str();
  sub->add_option("--port", flags->port, "Port to listen on (0: any free port)")
      ->capture_default_str();
  sub->add_option("--port-file", flags->port_file, "Write the port listened on to this file");
  sub->add_option("--workers", flags->workers,
                  "Evaluations at once (compiles in parallel; GPU stages one at a time per GPU); "
                  "default: all cores")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--queue-capacity", flags->queue_capacity,
                  "Evaluations that may wait; more get 429")
      ->capture_default_str();
  sub->add_option("--max-body-bytes", flags->max_body_bytes, "Larger requests get 413")
      ->capture_default_str();
  sub->add_option("--reward", flags->reward,
                  "JSON file of reward weights (compile, correct, executed, speedup, speedup_cap)");
  sub->add_option("--tasks-dir", flags->tasks_dir, "Task suite directory (default: built-in)");
  sub->add_option("--context-dir", flags->context_dir,
                  "Context documents directory (default: built-in)");
  sub->add_option("--compile-timeout", flags->compile_timeout_seconds,
                  "Seconds nvcc may take per candidate")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--no-gpu", flags->no_gpu, "Stop after the static stages (verdict NOT_RUN)");
  sub->add_option("--gpus", flags->gpus,
                  "all, or a list of GPUs (0,1,3): one worker and queue per GPU (default: one "
                  "worker)");
  sub->callback([flags, &context] { context.exit_code = run_serve(*flags); });
}

}  // namespace ptxbench::cli
