// `ptxbench serve --tokens FILE [--journal DIR] [--host H] [--port P] [--workers N]
//  [--queue-capacity N] [--max-body-bytes B] [--reward FILE] [--no-gpu] [--gpus all|LIST]
//  [--sandbox MODE] [--drain-timeout S] [--port-file FILE]`: the evaluation service and RL
// environment of docs/serve.md (API: docs/openapi.yaml), evaluating through the same Evaluator
// as `ptxbench eval` (compiles on the CPU cores, one GPU slot per GPU, the same sandbox), so a
// record from the service is the record `eval --json` writes.
// SIGTERM or SIGINT drains it: new submissions get 503, the evaluations under way finish and
// are recorded (for up to --drain-timeout; those still running then are stopped and stay
// queued), the queued ones stay in the journal for the next start; then it exits 0. A second
// signal stops the evaluations under way at once.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <memory>
#include <thread>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/eval/evaluator.hpp"
#include "ptxbench/gpus/gpu_list.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/sandbox/evaluation_sandbox.hpp"
#include "ptxbench/serve/service.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/child_processes.hpp"
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
  int drain_timeout_seconds = 60;
  bool no_gpu = false;
  std::string gpus;  // --gpus all|LIST
  std::string sandbox = "strict";
  serve::FrontLimits http;
  int header_timeout_seconds = 10, body_timeout_seconds = 60;
  serve::SessionLimits sessions;
  int session_idle_seconds = 3600;
  std::size_t keep_done = 10'000;
  int keep_done_seconds = 7 * 24 * 3600;
};

// The evaluations of the service: the sandbox of `mode`, one GPU slot per GPU of --gpus; null
// (after printing why, with the exit code in `code`) when they cannot be set up.
std::shared_ptr<eval::Evaluator> make_evaluator(const ServeFlags& flags, int workers,
                                                std::size_t& gpu_count, int& code) {
  auto mode = sandbox::parse_mode(flags.sandbox);
  if (!mode) {
    fmt::print(stderr, "ptxbench serve: --sandbox: {}\n", mode.error().message);
    code = kExitUsage;
    return nullptr;
  }
  // The evaluator shows its artefact folder to the worker's sandbox (read-only).
  auto box =
      sandbox::make_evaluation_sandbox(*mode, std::make_shared<util::SystemProcessRunner>(), {});
  if (!box.usable) {
    fmt::print(stderr,
               "ptxbench serve: --sandbox strict: the sandbox cannot be set up here ({}); see "
               "docs/sandbox.md, or choose --sandbox best-effort|off\n",
               box.description);
    code = kExitInternal;
    return nullptr;
  }
  if (box.description != "full" && box.description != "off")
    fmt::print(stderr, "ptxbench serve: WARNING: sandbox {}\n", box.description);
  std::shared_ptr<util::ProcessRunner> runner = box.worker;
  std::vector<std::shared_ptr<eval::GpuStages>> gpu_slots;  // one per GPU
  if (!flags.no_gpu) {
    auto slots = gpus::gpu_slots(flags.gpus, runner);
    if (!slots) {
      fmt::print(stderr, "ptxbench serve: {}\n", slots.error().message);
      code = kExitUsage;
      return nullptr;
    }
    gpu_slots = std::move(*slots);
  }
  gpu_count = gpu_slots.size();
  return std::make_shared<eval::Evaluator>(
      eval::EvaluatorOptions{.compile_timeout = std::chrono::seconds(flags.compile_timeout_seconds),
                             .jobs = workers,
                             .run_gpu_stages = !flags.no_gpu,
                             .compile_runner = box.compiler,
                             .sandbox = box.description},
      runner, std::move(gpu_slots));
}

// On SIGTERM/SIGINT: the evaluations under way get --drain-timeout to finish; those still
// running then are stopped (their child processes ended) and go back to the queue.
void drain_on_signal(serve::Service& service, const std::atomic<bool>& listening,
                     std::chrono::seconds drain_timeout) {
  while (listening && util::stop_signal() == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (util::stop_signal() != 0) {
    const auto counts = service.queue().counts();
    fmt::print(stderr,
               "ptxbench serve: draining: {} evaluations under way may finish within {} s; {} "
               "queued stay in the journal\n",
               counts.running, drain_timeout.count(), counts.queued);
    if (!service.queue().drain_for(drain_timeout)) {
      fmt::print(stderr,
                 "ptxbench serve: {} evaluations still running after {} s: stopping them; they "
                 "stay queued\n",
                 service.queue().counts().running, drain_timeout.count());
      util::stop_all_children();
    }
  }
  service.drain();
}

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
  std::size_t gpu_count = 0;
  int code = kExitOk;
  auto evaluator = make_evaluator(flags, workers, gpu_count, code);
  if (!evaluator) return code;
  // Children stay up on the first signal: the drain decides when to stop them (and the watch
  // itself a little after the drain's bound, should the drain hang).
  const auto drain_timeout = std::chrono::seconds(flags.drain_timeout_seconds);
  util::let_children_finish_on_stop(drain_timeout + std::chrono::seconds(10));

  auto http = flags.http;
  http.header_timeout = std::chrono::seconds(flags.header_timeout_seconds);
  http.body_timeout = std::chrono::seconds(flags.body_timeout_seconds);
  auto sessions = flags.sessions;
  sessions.idle_timeout = std::chrono::seconds(flags.session_idle_seconds);
  std::unique_ptr<serve::Service> held;
  try {
    held = std::make_unique<serve::Service>(
        serve::ServiceOptions{
            .host = flags.host,
            .port = flags.port,
            .journal_dir = flags.journal,
            .context_dir = flags.context_dir.empty() ? prompt::default_context_dir()
                                                     : std::filesystem::path(flags.context_dir),
            .limits = {.capacity = flags.queue_capacity,
                       .workers = workers,
                       .keep_done_count = flags.keep_done,
                       .keep_done_for = std::chrono::seconds(flags.keep_done_seconds)},
            .max_body_bytes = flags.max_body_bytes,
            .http = http,
            .sessions = sessions,
            .reward = reward},
        *suite, std::move(*tokens), serve::evaluate_through(evaluator));
  } catch (const serve::JournalInUse& error) {
    fmt::print(stderr, "ptxbench serve: --journal {}\n", error.what());
    return kExitUsage;
  }
  auto& service = *held;
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
  // drain.
  std::atomic<bool> listening{true};
  std::thread drainer([&] { drain_on_signal(service, listening, drain_timeout); });
  service.listen();
  listening = false;
  drainer.join();
  const auto accepted = std::filesystem::path(flags.journal) / "accepted";
  const auto left = std::distance(std::filesystem::directory_iterator(accepted), {});
  fmt::print(stderr, "ptxbench serve: stopped; {} evaluations stay queued in {}\n", left,
             accepted.string());
  return kExitOk;
}

// The bounds on clients (docs/serve.md, "Limits"); each is range-checked.
void add_limit_flags(CLI::App& sub, ServeFlags& flags) {
  sub.add_option("--http-threads", flags.http.threads,
                 "Requests answered at once (event streams and RL steps hold one each)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  sub.add_option("--max-connections", flags.http.max_connections,
                 "Open connections, all clients together; more are refused with 503")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000}))
      ->capture_default_str();
  sub.add_option("--max-connections-per-address", flags.http.max_connections_per_peer,
                 "Open connections from one client address; more are refused with 503")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000}))
      ->capture_default_str();
  sub.add_option("--header-timeout", flags.header_timeout_seconds,
                 "Seconds a request's head (and an idle kept-alive connection) may take")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  sub.add_option("--body-timeout", flags.body_timeout_seconds,
                 "Seconds a request's body may take after its head")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  sub.add_option("--session-idle-timeout", flags.session_idle_seconds,
                 "Seconds an RL session may stay unused before it expires")
      ->check(CLI::Range(1, 30 * 24 * 3600))
      ->capture_default_str();
  sub.add_option("--max-sessions-per-client", flags.sessions.per_client,
                 "RL sessions one client may hold; more get 429")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}))
      ->capture_default_str();
  sub.add_option("--max-sessions", flags.sessions.total,
                 "RL sessions of all clients (their memory); more get 503")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}))
      ->capture_default_str();
  sub.add_option("--keep-done", flags.keep_done,
                 "Finished evaluations kept for polls (the oldest are removed)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10'000'000}))
      ->capture_default_str();
  sub.add_option("--keep-done-seconds", flags.keep_done_seconds,
                 "Seconds a finished evaluation is kept")
      ->check(CLI::Range(1, 365 * 24 * 3600))
      ->capture_default_str();
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
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  sub->add_option("--port-file", flags->port_file, "Write the port listened on to this file");
  sub->add_option("--workers", flags->workers,
                  "Evaluations under way at once (compiling, or waiting for or on a GPU; GPU "
                  "stages one at a time per GPU); default: all cores")
      ->check(CLI::Range(0, 4096));
  sub->add_option("--queue-capacity", flags->queue_capacity,
                  "Evaluations that may wait; more get 429")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}))
      ->capture_default_str();
  sub->add_option("--max-body-bytes", flags->max_body_bytes,
                  "Larger request bodies get 413, whatever their encoding")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30))
      ->capture_default_str();
  add_limit_flags(*sub, *flags);
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
  sub->add_option("--sandbox", flags->sandbox,
                  "strict (default: every layer or nothing runs), best-effort (runs with what this "
                  "machine has, says what is missing) or off; docs/sandbox.md")
      ->check(CLI::IsMember({"strict", "best-effort", "off"}));
  sub->add_option("--drain-timeout", flags->drain_timeout_seconds,
                  "Seconds the evaluations under way may take to finish after SIGTERM; those "
                  "still running then are stopped and stay queued")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->callback([flags, &context] { context.exit_code = run_serve(*flags); });
}

}  // namespace ptxbench::cli
