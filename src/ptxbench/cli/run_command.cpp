// `ptxbench run --config run.yaml` (and/or flags): models x tasks x archs x context levels x
// samples, each trajectory up to --turns turns, written to --out and resumable by rerunning the
// same command. docs/running.md is the reference.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/agent/run_config.hpp"
#include "ptxbench/agent/run_executor.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/run_scale.hpp"
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/cli/task_suite.hpp"
#include "ptxbench/fixit/retrieve.hpp"
#include "ptxbench/model/provider_factory.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::cli {
namespace {

using Json = nlohmann::json;

struct RunFlags {
  std::string config;
  std::string out;
  // One model from flags (replaces the config's models).
  std::string model, provider, model_id, base_url, command, replay;
  std::optional<std::string> api_key_env;
  std::optional<double> temperature, top_p, timeout_s, rpm;
  std::optional<int> max_tokens, concurrency, max_attempts;
  bool stream = false;
  // The grid and the loop.
  std::vector<std::string> tasks, archs, contexts, cells;
  std::optional<int> samples, turns;
  std::optional<std::string> history;
  std::string fixit;  // the retrieval level's Fixit folder
  std::optional<int> retrieve_k;
  std::optional<double> target_speedup;
  std::string tasks_dir, context_dir;
  SettingsFlags settings;
  RunScaleFlags scale;
  bool all_turns = false;
};

util::Expected<model::ProviderConfig> model_from_flags(const RunFlags& flags) {
  Json json{{"name", flags.model},
            {"provider", flags.provider.empty() ? "openai" : flags.provider}};
  if (!flags.model_id.empty()) json["model"] = flags.model_id;
  if (!flags.base_url.empty()) json["base_url"] = flags.base_url;
  if (flags.api_key_env) json["api_key_env"] = *flags.api_key_env;
  if (!flags.command.empty()) json["command"] = flags.command;
  if (!flags.replay.empty()) json["path"] = flags.replay;
  if (flags.temperature) json["temperature"] = *flags.temperature;
  if (flags.top_p) json["top_p"] = *flags.top_p;
  if (flags.max_tokens) json["max_tokens"] = *flags.max_tokens;
  if (flags.timeout_s) json["timeout_s"] = *flags.timeout_s;
  if (flags.stream) json["stream"] = true;
  if (flags.concurrency || flags.rpm) {
    json["limits"] = Json::object();
    if (flags.concurrency) json["limits"]["concurrency"] = *flags.concurrency;
    if (flags.rpm) json["limits"]["requests_per_minute"] = *flags.rpm;
  }
  if (flags.max_attempts) json["retries"] = {{"max_attempts", *flags.max_attempts}};
  return model::provider_config_from_json(json, std::filesystem::current_path());
}

// The config file (when given) with the flags laid over it.
util::Expected<agent::RunConfig> resolve_config(const RunFlags& flags) {
  agent::RunConfig config;
  if (!flags.config.empty()) {
    auto loaded = agent::load_run_config(flags.config);
    if (!loaded) return loaded.error();
    config = std::move(*loaded);
  }
  if (!flags.model.empty()) {
    auto model = model_from_flags(flags);
    if (!model) return model.error();
    config.models = {std::move(*model)};
  } else if (!flags.provider.empty() || !flags.command.empty() || !flags.replay.empty()) {
    return util::make_error("--provider, --command and --replay need --model NAME");
  }
  if (!flags.out.empty()) config.out = flags.out;
  if (!flags.tasks.empty()) config.tasks = flags.tasks;
  if (!flags.archs.empty()) {
    auto archs = agent::parse_arch_list(flags.archs);
    if (!archs) return archs.error();
    config.archs = *archs;
  }
  if (!flags.contexts.empty()) {
    auto levels = agent::parse_context_list(flags.contexts);
    if (!levels) return levels.error();
    config.contexts = *levels;
  }
  if (!flags.cells.empty()) {
    if (!flags.tasks.empty() || !flags.contexts.empty())
      return util::make_error("--cells: give --cells, or --tasks and --contexts, not both");
    config.cells.clear();
    for (const auto& text : flags.cells) {
      auto cell = agent::parse_cell(text);
      if (!cell) return util::make_error("--cells: " + cell.error().message);
      config.cells.push_back(*cell);
    }
  } else if (!flags.tasks.empty() || !flags.contexts.empty()) {
    config.cells.clear();  // flags that name the grid replace the config's cells
  }
  if (flags.samples) config.samples = *flags.samples;
  if (flags.turns) config.turns = *flags.turns;
  if (flags.history) {
    auto history = agent::parse_history_policy(*flags.history);
    if (!history) return history.error();
    config.history = *history;
  }
  if (flags.target_speedup) config.target_speedup = *flags.target_speedup;
  auto settings = settings_from_flags(flags.settings, config.evaluation);
  if (!settings) return settings.error();
  static_cast<eval::EvaluationSettings&>(config.evaluation) = *settings;
  if (flags.all_turns) config.evaluation.all_turns_without_gpu = true;
  if (!flags.tasks_dir.empty()) config.tasks_dir = flags.tasks_dir;
  if (!flags.context_dir.empty()) config.context_dir = flags.context_dir;
  if (!flags.fixit.empty()) config.retrieval.fixit = flags.fixit;
  if (flags.retrieve_k) {
    if (*flags.retrieve_k < 1 || *flags.retrieve_k > agent::kMaxRetrieveK)
      return util::make_error(
          fmt::format("--retrieve-k: expected a whole number from 1 to {}", agent::kMaxRetrieveK));
    config.retrieval.k = *flags.retrieve_k;
  }
  if (auto valid = agent::validate(config); !valid) return valid.error();
  return config;
}

// A replay trajectory that ended before its first turn: no file matched it.
bool no_recorded_reply(const agent::Trajectory& trajectory) {
  return trajectory.info.exit_status == agent::exit_status::kReplayExhausted &&
         trajectory.turns.empty();
}

// The retrieval context level's hooks (run.yaml's retrieval.fixit): repairs from the Fixit
// folder in the system prompt and after failing turns. False once the problem is on stderr.
bool attach_retrieval(agent::RunPlan& plan, const agent::RunConfig& config,
                      const std::vector<task::Task>& suite, const std::string& fixit_flag) {
  const auto& retrieval = config.retrieval;
  if (retrieval.fixit.empty()) return true;
  auto documents =
      fixit::load_retrieval_documents(retrieval.fixit, suite, /*include_unverified=*/false);
  if (!documents) {
    fmt::print(stderr, "ptxbench run: retrieval.fixit: {}\n", documents.error().message);
    return false;
  }
  if (documents->empty()) {
    // The folder came from --fixit or from run.yaml's retrieval.fixit: name the one used.
    const bool from_flag = !fixit_flag.empty();
    fmt::print(stderr, "ptxbench run: {}: {}\n", from_flag ? "--fixit" : "retrieval.fixit",
               fixit::empty_index_note(from_flag ? fixit_flag : retrieval.fixit.string(), suite,
                                       /*include_unverified=*/false));
  }
  auto index = std::make_shared<const fixit::RetrievalIndex>(std::move(*documents));
  plan.context_hook = fixit::retrieval_hook(index, static_cast<std::size_t>(retrieval.k));
  plan.agent.failure_context =
      fixit::retrieval_feedback_hook(index, static_cast<std::size_t>(retrieval.k));
  plan.config["fixit"] = {
      {"folder", retrieval.fixit.string()}, {"k", retrieval.k}, {"documents", index->size()}};
  return true;
}

// The run's summary line and warnings, and its exit code: internal errors first, then a replay
// that matched nothing at all (a misnamed path or file, not a result), then failed trajectories.
int run_outcome(const agent::RunPlan& plan, const agent::RunSummary& summary,
                const std::filesystem::path& root, int unmatched_replays) {
  fmt::print(
      "{} trajectories: {} finished, {} failed (provider errors), {} turns run now; "
      "written to {}\n",
      plan.trajectories.size(), summary.finished, summary.failed, summary.turns_run, root.string());
  if (unmatched_replays > 0) {
    fmt::print(stderr,
               "warning: {} of {} trajectories found no recorded reply; docs/running.md (replay) "
               "lists the file names a replay looks for\n",
               unmatched_replays, plan.trajectories.size());
  }
  for (const auto& error : summary.internal_errors) {
    fmt::print(stderr, "internal error: {}\n", error);
  }
  if (!summary.internal_errors.empty()) return kExitInternal;
  // A replay that matched nothing at all is a misnamed path or file, not a result.
  if (unmatched_replays > 0 && unmatched_replays == static_cast<int>(plan.trajectories.size()))
    return kExitUsage;
  if (summary.failed > 0) {
    fmt::print(stderr, "rerun the same command to retry the failed trajectories\n");
    return kExitFailed;
  }
  return kExitOk;
}

// Prints each turn, each failed trajectory and each replay that found no recorded reply (and
// counts those in `unmatched_replays`).
agent::RunObserver printing_observer(std::mutex& print_mutex, int& unmatched_replays) {
  return agent::RunObserver{.on_turn =
                                [&print_mutex](const agent::TurnEvent& event) {
                                  std::lock_guard lock(print_mutex);
                                  fmt::print(stderr, "{}\n", agent::describe(event));
                                },
                            .on_trajectory =
                                [&print_mutex, &unmatched_replays](const agent::Trajectory& t) {
                                  std::lock_guard lock(print_mutex);
                                  if (t.info.status == agent::TrajectoryStatus::kFailed) {
                                    fmt::print(stderr, "{} failed: {}\n", t.info.id, t.info.error);
                                  } else if (no_recorded_reply(t)) {
                                    ++unmatched_replays;
                                    fmt::print(stderr, "warning: {}: 0 turns: {}\n", t.info.id,
                                               t.info.error);
                                  }
                                },
                            .on_message =
                                [&print_mutex](std::string_view line) {
                                  std::lock_guard lock(print_mutex);
                                  fmt::print(stderr, "{}\n", line);
                                }};
}

int run_run(const RunFlags& flags) {
  // What a killed earlier run left in the temp folder (its owner process is gone).
  std::error_code no_tmp;
  if (auto tmp = std::filesystem::temp_directory_path(no_tmp); !no_tmp) {
    util::remove_stale_temp_dirs(tmp, "ptxbench-");
  }
  auto config = resolve_config(flags);
  if (!config) {
    fmt::print(stderr, "ptxbench run: {}\n", config.error().message);
    return kExitUsage;
  }
  auto suite = load_task_suite("run", config->tasks_dir);
  if (!suite) return kExitUsage;
  eval::apply_correctness_rule(config->evaluation, *suite);
  auto tasks = agent::select_tasks(*suite, agent::task_selectors(*config));
  if (!tasks) {
    fmt::print(stderr, "ptxbench run: {}\n", tasks.error().message);
    return kExitUsage;
  }
  for (const auto& cell : config->cells) {
    if (std::none_of(tasks->begin(), tasks->end(),
                     [&cell](const task::Task* task) { return task->name == cell.task; })) {
      fmt::print(stderr, "ptxbench run: cells: '{}' is not a task name (cells take exact names)\n",
                 cell.task);
      return kExitUsage;
    }
  }
  const int turns = agent::effective_turns(*config);
  if (turns < config->turns) {
    fmt::print(stderr,
               "note: the GPU stages are off, so turns after the first would get the same "
               "feedback; running 1 turn per trajectory (--all-turns or "
               "evaluation.all_turns_without_gpu: true runs all {})\n",
               config->turns);
  }
  if (flags.scale.sbatch_args) return submit_run_to_slurm(flags.scale, config->out, *tasks);
  if (!keep_shard_tasks(flags.scale, *tasks)) return kExitUsage;
  agent::RunPlan plan{.trajectories = agent::expand_grid(*config, *tasks),
                      .agent = {.max_turns = turns,
                                .history = config->history,
                                .target_speedup = config->target_speedup},
                      .context_dir = config->context_dir.empty() ? prompt::default_context_dir()
                                                                 : config->context_dir,
                      .config = agent::to_json(*config, *tasks),
                      .grid = agent::grid_of(*config, *tasks)};
  if (!attach_retrieval(plan, *config, *suite, flags.fixit)) return kExitUsage;
  for (const auto& model_config : config->models) {
    auto provider = model::make_provider(model_config);
    if (!provider) {
      fmt::print(stderr, "ptxbench run: {}\n", provider.error().message);
      return kExitUsage;
    }
    plan.models.push_back({model_config, std::move(*provider)});
  }
  auto engine = open_command_engine("run", config->evaluation);
  if (!engine) return kExitUsage;
  auto directory = agent::RunDirectory::open(config->out);
  if (!directory) {
    fmt::print(stderr, "ptxbench run: {}\n", directory.error().message);
    return kExitUsage;
  }
  std::mutex print_mutex;
  int unmatched_replays = 0;
  const auto observer = printing_observer(print_mutex, unmatched_replays);
  fmt::print(stderr, "run directory: {}\n", directory->root().string());
  auto summary = agent::execute_run(plan, *directory, engine->function(), observer);
  if (!summary) {
    fmt::print(stderr, "ptxbench run: {}\n", summary.error().message);
    return kExitUsage;
  }
  return run_outcome(plan, *summary, directory->root(), unmatched_replays);
}

}  // namespace

void add_run_command(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<RunFlags>();
  auto* sub = app.add_subcommand("run", "");
  sub->add_option("--config", flags->config, "run.yaml (see docs/running.md); flags override it");
  sub->add_option("--out", flags->out, "Run directory; rerunning with the same one resumes");
  sub->add_option("--model", flags->model, "One model from flags: its name in results");
  sub->add_option("--provider", flags->provider, "openai (default), anthropic, command or replay");
  sub->add_option("--model-id", flags->model_id,
                  "The model name the API expects (default: --model)");
  sub->add_option("--base-url", flags->base_url, "API base URL (e.g. http://localhost:8000/v1)");
  sub->add_option("--api-key-env", flags->api_key_env,
                  "Environment variable with the API key (\"\" for none)");
  sub->add_option("--command", flags->command, "Program for provider command (split on spaces)");
  sub->add_option("--replay", flags->replay, "Recorded replies for provider replay");
  sub->add_option("--temperature", flags->temperature);
  sub->add_option("--top-p", flags->top_p);
  sub->add_option("--max-tokens", flags->max_tokens);
  sub->add_option("--timeout-s", flags->timeout_s, "Per request (or command run)");
  sub->add_flag("--stream", flags->stream, "Stream replies (OpenAI-compatible)");
  sub->add_option("--concurrency", flags->concurrency, "Model calls in flight at once");
  sub->add_option("--rpm", flags->rpm, "Requests per minute at most");
  sub->add_option("--max-attempts", flags->max_attempts, "Requests per call, retries included");
  sub->add_option("--tasks", flags->tasks, "Task names, globs, core or all")->delimiter(',');
  sub->add_option("--archs", flags->archs, "hopper, blackwell")->delimiter(',');
  sub->add_option("--contexts,--context", flags->contexts, "none, isa, guide, examples, retrieval")
      ->delimiter(',');
  sub->add_option("--fixit", flags->fixit, "Fixit folder whose verified repairs `retrieval` adds");
  sub->add_option("--retrieve-k", flags->retrieve_k,
                  "Repairs the retrieval level adds (default 3; run.yaml retrieval.k)");
  sub->add_option("--cells", flags->cells,
                  "Explicit TASK:CONTEXT pairs instead of --tasks x --contexts")
      ->delimiter(',');
  sub->add_option("--samples", flags->samples, "Trajectories per cell");
  sub->add_option("--turns", flags->turns, "Turns per trajectory (default 8)");
  sub->add_option("--history", flags->history, "full (default) or last-K");
  sub->add_option("--target-speedup", flags->target_speedup, "Stop a trajectory once reached");
  add_settings_flags(*sub, flags->settings, agent::kRunSettings);
  sub->add_flag("--all-turns", flags->all_turns,
                "With --no-gpu: still run every turn (without it such a run stops after turn 1)");
  sub->add_option("--tasks-dir", flags->tasks_dir, "Task suite (default: built-in)");
  sub->add_option("--context-dir", flags->context_dir, "Context documents (default: built-in)");
  add_run_scale_flags(*sub, flags->scale);
  sub->callback([flags, &context] { context.exit_code = run_run(*flags); });
}

}  // namespace ptxbench::cli
