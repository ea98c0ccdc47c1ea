// `ptxbench serve --tokens FILE [--journal DIR] [--host H] [--port P] [--queue-capacity N]
//  [--max-body-bytes B] [--reward FILE] [--drain-timeout S] [--port-file FILE] [the engine's
//  settings: cli/settings_flags.hpp]`: the evaluation service and RL environment of
// docs/serve.md (API: docs/openapi.yaml), evaluating through the same engine as `ptxbench eval`
// (compiles on the CPU cores, one GPU slot per GPU, the same sandbox), so a record from the
// service is the record `eval --json` writes.
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
#include <optional>
#include <thread>
#include <vector>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/cli/task_suite.hpp"
#include "ptxbench/fixit/retrieve.hpp"
#include "ptxbench/prompt/context_level.hpp"
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
  std::size_t queue_capacity = 256;
  std::size_t max_body_bytes = 1 << 20;
  int drain_timeout_seconds = 60;
  SettingsFlags settings;
  std::string fixit;  // the RL environment's retrieval level: verified repairs of this folder
  int retrieve_k = 3;
  serve::FrontLimits http;
  int header_timeout_seconds = 10, body_timeout_seconds = 60;
  serve::SessionLimits sessions;
  int session_idle_seconds = 3600;
  std::size_t keep_done = 10'000;
  int keep_done_seconds = 7 * 24 * 3600;
};

// The service offers every setting but kept artefacts: its stream never ends.
constexpr eval::SettingSet kServeSettings =
    eval::SettingSet::all().without(eval::Setting::kKeepArtifacts);

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

// The retrieval context level's hooks from --fixit (none without it); nullopt once the
// problem is on stderr.
std::optional<serve::RetrievalHooks> retrieval_hooks(const ServeFlags& flags,
                                                     const std::vector<task::Task>& suite) {
  if (flags.fixit.empty()) return serve::RetrievalHooks{};
  auto documents = fixit::load_retrieval_documents(std::filesystem::path(flags.fixit), suite,
                                                   /*include_unverified=*/false);
  if (!documents) {
    fmt::print(stderr, "ptxbench serve: --fixit: {}\n", documents.error().message);
    return std::nullopt;
  }
  auto index = std::make_shared<const fixit::RetrievalIndex>(std::move(*documents));
  const auto k = static_cast<std::size_t>(flags.retrieve_k);
  return serve::RetrievalHooks{.first_turn = fixit::retrieval_hook(index, k),
                               .after_failure = fixit::retrieval_feedback_hook(index, k)};
}

serve::ServiceOptions service_options(const ServeFlags& flags, int workers,
                                      const serve::RewardConfig& reward,
                                      serve::RetrievalHooks retrieval) {
  auto http = flags.http;
  http.header_timeout = std::chrono::seconds(flags.header_timeout_seconds);
  http.body_timeout = std::chrono::seconds(flags.body_timeout_seconds);
  auto sessions = flags.sessions;
  sessions.idle_timeout = std::chrono::seconds(flags.session_idle_seconds);
  return {.host = flags.host,
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
          .reward = reward,
          .retrieval = std::move(retrieval)};
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
  auto settings = settings_from_flags(flags.settings, {});
  if (!settings) {
    fmt::print(stderr, "ptxbench serve: {}\n", settings.error().message);
    return kExitUsage;
  }
  auto suite = load_task_suite("serve", flags.tasks_dir);
  if (!suite) return kExitUsage;
  if (auto journal = serve::prepare_journal_dir(flags.journal); !journal) {
    fmt::print(stderr, "ptxbench serve: --journal: {}\n", journal.error().message);
    return kExitUsage;
  }
  eval::apply_correctness_rule(*settings, *suite);
  const int workers = eval::parallel_compiles(*settings);
  auto engine = open_command_engine("serve", *settings);
  if (!engine) return kExitUsage;
  const std::size_t gpu_count = engine->gpu_count();
  auto retrieval = retrieval_hooks(flags, *suite);
  if (!retrieval) return kExitUsage;
  // Children stay up on the first signal: the drain decides when to stop them (and the watch
  // itself a little after the drain's bound, should the drain hang).
  const auto drain_timeout = std::chrono::seconds(flags.drain_timeout_seconds);
  util::let_children_finish_on_stop(drain_timeout + std::chrono::seconds(10));

  std::unique_ptr<serve::Service> held;
  try {
    held = std::make_unique<serve::Service>(
        service_options(flags, workers, reward, std::move(*retrieval)), *suite, std::move(*tokens),
        serve::evaluate_through(engine));
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
  sub->add_option("--queue-capacity", flags->queue_capacity,
                  "Evaluations that may wait; more get 429")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}))
      ->capture_default_str();
  sub->add_option("--max-body-bytes", flags->max_body_bytes,
                  "Larger request bodies get 413, whatever their encoding")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30))
      ->capture_default_str();
  sub->add_option("--fixit", flags->fixit,
                  "Fixit folder whose verified repairs the RL environment's retrieval level adds");
  sub->add_option("--retrieve-k", flags->retrieve_k, "Repairs the retrieval level adds")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  add_limit_flags(*sub, *flags);
  sub->add_option("--reward", flags->reward,
                  "JSON file of reward weights (compile, correct, executed, speedup, speedup_cap)");
  sub->add_option("--tasks-dir", flags->tasks_dir, "Task suite directory (default: built-in)");
  sub->add_option("--context-dir", flags->context_dir,
                  "Context documents directory (default: built-in)");
  sub->add_option("--drain-timeout", flags->drain_timeout_seconds,
                  "Seconds the evaluations under way may take to finish after SIGTERM; those "
                  "still running then are stopped and stay queued")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  add_settings_flags(*sub, flags->settings, kServeSettings);
  sub->callback([flags, &context] { context.exit_code = run_serve(*flags); });
}

}  // namespace ptxbench::cli
