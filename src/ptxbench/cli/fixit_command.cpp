// `ptxbench fixit mine|balance|repair|verify|explain|export|retrieve|all|demo` over a Fixit
// folder (docs/fixit.md): from a model's failing turns to verified, explained training rows.
#include <fmt/format.h>

#include <mutex>

#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/fixit/config.hpp"
#include "ptxbench/fixit/demo.hpp"
#include "ptxbench/fixit/retrieve.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/timestamps.hpp"

namespace ptxbench::cli {
namespace {

namespace fs = std::filesystem;
using fixit::Environment;
using fixit::kFixitDefaults;
using fixit::kFixitSettings;
using fixit::TeacherChoice;

struct FixitFlags {
  std::string folder;
  std::string tasks_dir;
  SettingsFlags settings;
  std::string selection;
  // mine
  std::vector<std::string> runs, verdicts, contexts, tasks, models;
  std::vector<int> turns;
  bool include_not_run = false;
  // balance
  std::string recipe = "balanced", mode = "balanced", recipe_file;
  std::optional<int> per_task_cap, total;
  std::uint64_t seed = 0;
  // repair / explain
  std::string teacher, teacher_config, teacher_command, explainer, explainer_config,
      explainer_command;
  std::string solutions_dir;
  int repair_turns = 4, concurrency = 2;
  bool loose = false;
  std::optional<double> speedup_floor;
  std::string length = "medium";
  int token_budget = 2000, max_attempts = 3;
  // verify / export
  bool reevaluate = false, reevaluate_all = false, include_unverified = false;
  std::vector<std::string> kernelgen_runs;
  std::string export_length, export_explainer;
  std::string teacher_name;  // explain / export: whose repairs
  // retrieve
  std::string query_task, query_arch = "hopper", query_verdict, query_error, query_code;
  int k = 3;
  // all / demo
  std::string config, out, demo_context = "none";
  // all: laid over the config (a loop that runs one user config over its own folder and runs)
  std::string all_folder;
  std::vector<std::string> all_runs;
  bool all_no_gpu = false, all_include_unverified = false, all_kernelgen = false;
};

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (c == ' ') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

std::string solutions_of(const FixitFlags& flags) {
  return flags.solutions_dir.empty() ? agent::default_solutions_dir().string()
                                     : flags.solutions_dir;
}

TeacherChoice choice_of(const std::string& kind, const std::string& config,
                        const std::string& command, const FixitFlags& flags) {
  TeacherChoice choice{.config_file = config, .command = split_words(command)};
  if (kind == "replay") choice.replay_solutions = solutions_of(flags);
  // A program's name, e.g. `python3 teacher.py` -> teacher.
  if (!choice.command.empty()) choice.name = fs::path(choice.command.back()).stem().string();
  return choice;
}

// The environment of a command: its suite, its settings, the CLI's engine opener and progress
// lines. Loaded from the suite and flags; prints and returns nullopt on error.
Environment with_output(Environment env) {
  env.open_engine = fixit_engine_opener();
  env.say = say_fixit;
  return env;
}

std::optional<Environment> environment(const FixitFlags& flags) {
  // The suite's problem first, then the flags'.
  auto settings = settings_from_flags(flags.settings, kFixitDefaults);
  auto env = fixit::load_environment(flags.tasks_dir, settings ? *settings : kFixitDefaults);
  const util::Error* problem = !env ? &env.error() : !settings ? &settings.error() : nullptr;
  if (problem != nullptr) {
    fmt::print(stderr, "ptxbench fixit: {}\n", problem->message);
    return std::nullopt;
  }
  return with_output(std::move(*env));
}

// Opens the folder and the suite, then runs `stage`.
template <class Stage>
int with_folder(const FixitFlags& flags, Stage stage) {
  if (flags.folder.empty()) {
    fmt::print(stderr, "ptxbench fixit: --fixit DIR is required\n");
    return kExitUsage;
  }
  auto env = environment(flags);
  if (!env) return kExitUsage;
  auto folder = fixit::FixitFolder::open(flags.folder);
  if (!folder) {
    fmt::print(stderr, "ptxbench fixit: {}\n", folder.error().message);
    return kExitUsage;
  }
  return stage(*folder, *env);
}

int run_mine(const FixitFlags& flags) {
  fixit::MineFilters filters{
      .tasks = flags.tasks, .models = flags.models, .include_not_run = flags.include_not_run};
  for (const auto& name : flags.verdicts) {
    auto verdict = eval::parse_verdict(name);
    if (!verdict) {
      fmt::print(stderr, "ptxbench fixit mine: --verdicts: unknown verdict {}\n", name);
      return kExitUsage;
    }
    filters.verdicts.insert(*verdict);
  }
  for (const auto& name : flags.contexts) {
    auto level = prompt::parse_context_level(name);
    if (!level) {
      fmt::print(stderr, "ptxbench fixit mine: --contexts: unknown context level {}\n", name);
      return kExitUsage;
    }
    filters.contexts.insert(*level);
  }
  filters.turns.insert(flags.turns.begin(), flags.turns.end());
  std::vector<fs::path> runs(flags.runs.begin(), flags.runs.end());
  return with_folder(flags, [&](const fixit::FixitFolder& folder, const Environment& env) {
    return finish_stage("mine", fixit::fixit_mine(folder, env, runs, filters));
  });
}

int run_balance(const FixitFlags& flags) {
  std::vector<fixit::Recipe> recipes;
  if (!flags.recipe_file.empty()) {
    auto parsed = fixit::load_recipes(flags.recipe_file);
    if (!parsed) {
      fmt::print(stderr, "ptxbench fixit balance: {}\n", parsed.error().message);
      return kExitUsage;
    }
    recipes = *parsed;
  } else {
    nlohmann::json json{{"name", flags.recipe}, {"mode", flags.mode}, {"seed", flags.seed}};
    if (flags.per_task_cap) json["per_task_cap"] = *flags.per_task_cap;
    if (flags.total) json["total"] = *flags.total;
    auto recipe = fixit::recipe_from_json(json);
    if (!recipe) {
      fmt::print(stderr, "ptxbench fixit balance: {}\n", recipe.error().message);
      return kExitUsage;
    }
    recipes.push_back(*recipe);
  }
  return with_folder(flags, [&](const fixit::FixitFolder& folder, const Environment&) {
    return finish_stage("balance", fixit::fixit_balance(folder, recipes));
  });
}

int run_repair(const FixitFlags& flags) {
  fixit::RepairOptions options{.max_turns = flags.repair_turns,
                               .concurrency = flags.concurrency,
                               .strict = !flags.loose,
                               .speedup_floor = flags.speedup_floor};
  auto choice = choice_of(flags.teacher, flags.teacher_config, flags.teacher_command, flags);
  return with_folder(flags, [&](const fixit::FixitFolder& folder, const Environment& env) {
    return finish_stage("repair",
                        fixit::fixit_repair(folder, env, flags.selection, choice, options));
  });
}

int run_explain(const FixitFlags& flags) {
  auto bin = fixit::find_length_bin(flags.length);
  if (!bin) {
    fmt::print(stderr, "ptxbench fixit explain: --length: {}\n", bin.error().message);
    return kExitUsage;
  }
  fixit::ExplainOptions options{.limits = {.bin = *bin, .token_budget = flags.token_budget},
                                .max_attempts = flags.max_attempts};
  auto choice = choice_of(flags.explainer, flags.explainer_config, flags.explainer_command, flags);
  return with_folder(flags, [&](const fixit::FixitFolder& folder, const Environment& env) {
    return finish_stage("explain", fixit::fixit_explain(folder, env, flags.selection,
                                                        flags.teacher_name, choice, options));
  });
}

int run_verify(const FixitFlags& flags) {
  return with_folder(flags, [&](const fixit::FixitFolder& folder, const Environment& env) {
    return finish_stage("verify",
                        fixit::fixit_verify(folder, env, flags.reevaluate || flags.reevaluate_all,
                                            flags.reevaluate_all));
  });
}

int run_export(const FixitFlags& flags) {
  std::vector<fs::path> runs(flags.kernelgen_runs.begin(), flags.kernelgen_runs.end());
  return with_folder(flags, [&](const fixit::FixitFolder& folder, const Environment& env) {
    return finish_stage(
        "export",
        fixit::fixit_export(
            folder, env, flags.selection, flags.teacher_name, flags.include_unverified, runs,
            {.explainer = flags.export_explainer, .length_bin = flags.export_length}));
  });
}

std::string_view relation_name(fixit::TaskRelation relation) {
  switch (relation) {
    case fixit::TaskRelation::kSameTask:
      return "same task";
    case fixit::TaskRelation::kSameFamily:
      return "same family";
    case fixit::TaskRelation::kOther:
      break;
  }
  return "other task";
}

int run_retrieve(const FixitFlags& flags) {
  auto complain = [](const std::string& message) {
    fmt::print(stderr, "ptxbench fixit retrieve: {}\n", message);
    return static_cast<int>(kExitUsage);
  };
  auto env = environment(flags);
  if (!env) return kExitUsage;
  auto arch = arch::parse(flags.query_arch);
  if (!arch) return complain("--arch: unknown arch " + flags.query_arch);
  if (!flags.query_verdict.empty() && !eval::parse_verdict(flags.query_verdict))
    return complain("--verdict: unknown verdict " + flags.query_verdict);
  if (flags.k < 1) return complain("-k: must be at least 1");
  fixit::RetrievalQuery query{.task = flags.query_task, .heldout = true};
  if (const task::Task* task = task::find_task(env->suite, flags.query_task)) {
    query = fixit::task_query(*task, *arch);
  } else {
    fmt::print(stderr,
               "note: {} is not a task of the suite; it counts as held out (no held-out rows)\n",
               flags.query_task);
    query.arch = std::string(arch::to_string(*arch));
  }
  query.verdict = flags.query_verdict;
  query.feedback = flags.query_error;
  if (!flags.query_code.empty()) {
    auto code = util::read_file(flags.query_code, util::kMaxConfigFileBytes);
    if (!code) return complain("--code: " + code.error().message);
    query.code = std::move(*code);
  }
  auto documents =
      fixit::load_retrieval_documents(fs::path(flags.folder), env->suite, flags.include_unverified);
  if (!documents) return complain(documents.error().message);
  fixit::RetrievalIndex index(std::move(*documents));
  auto hits = index.search(query, static_cast<std::size_t>(flags.k));
  fmt::print("retrieve: {} document(s) indexed; {} match(es) for {} on {}{}{}\n", index.size(),
             hits.size(), query.task, query.arch, query.verdict.empty() ? "" : ", " + query.verdict,
             query.heldout ? " (held out: held-out rows left out)" : "");
  for (const auto& hit : hits)
    fmt::print("  {}  {} {} {}  [{}{}{}, similarity {:.3f}]\n", hit.document->mined_id,
               hit.document->task, hit.document->arch, hit.document->verdict,
               relation_name(hit.relation), hit.same_arch ? ", same arch" : "",
               hit.same_verdict ? ", same verdict" : "", hit.similarity);
  return kExitOk;
}

std::string default_demo_out() {
  return "runs/fixit-demo-" + util::utc_timestamp("%Y%m%d-%H%M%S");
}

int run_all(const FixitFlags& flags) {
  auto config = fixit::read_fixit_config(flags.config);
  if (!config) {
    fmt::print(stderr, "ptxbench fixit all: {}\n", config.error().message);
    return kExitUsage;
  }
  auto complain = [&](const std::string& message) {
    fmt::print(stderr, "ptxbench fixit all: {}: {}\n", flags.config, message);
    return static_cast<int>(kExitUsage);
  };
  if (!flags.all_folder.empty()) config->folder = flags.all_folder;
  if (!flags.all_runs.empty())
    config->plan.runs = std::vector<fs::path>(flags.all_runs.begin(), flags.all_runs.end());
  if (flags.all_no_gpu) config->settings.gpu = false;
  if (flags.all_include_unverified) config->plan.include_unverified = true;
  if (config->kernelgen || flags.all_kernelgen) config->plan.kernelgen_runs = config->plan.runs;
  auto env = fixit::load_environment(config->tasks_dir, config->settings);
  if (!env) return complain(env.error().message);
  *env = with_output(std::move(*env));
  // Every recipe is repaired: the engine is opened (or refused) before any stage writes.
  if (auto engine = fixit::engine_of(*env, "all"); !engine) {
    fmt::print(stderr, "ptxbench fixit all: {}\n", engine.error().message);
    return kExitUsage;
  }
  auto folder = fixit::FixitFolder::open(config->folder);
  if (!folder) return complain(folder.error().message);
  return finish_chain(fixit::run_chain(*folder, *env, config->plan, {.on_outcome = print_outcome}));
}

// The demo's headers: the step of seven each stage is.
void print_demo_step(std::string_view stage, const fixit::LengthBin& length) {
  if (stage == "mine") fmt::print("\nfixit demo: 2/7 mine\n");
  if (stage == "balance") fmt::print("fixit demo: 3/7 balance (volume: every row)\n");
  if (stage == "repair")
    fmt::print("fixit demo: 4/7 repair (replay teacher: the expert solutions)\n");
  if (stage == "verify") fmt::print("fixit demo: 5/7 verify\n");
  if (stage == "explain")
    fmt::print("fixit demo: 6/7 explain (replay explainer, {} length)\n", length.name);
  if (stage == "export")
    fmt::print("fixit demo: 7/7 export (unverified rows included, marked \"verified\": false)\n");
}

int run_demo(const FixitFlags& flags) {
  auto env = environment(flags);
  if (!env) return kExitUsage;
  auto bin = fixit::find_length_bin(flags.length);
  if (!bin) {
    fmt::print(stderr, "ptxbench fixit demo: --length: {}\n", bin.error().message);
    return kExitUsage;
  }
  auto engine = fixit::engine_of(*env, "demo");
  if (!engine) {
    fmt::print(stderr, "ptxbench fixit demo: {}\n", engine.error().message);
    return kExitUsage;
  }
  auto folder = fixit::FixitFolder::open(flags.out.empty() ? default_demo_out() : flags.out);
  if (!folder) {
    fmt::print(stderr, "ptxbench fixit demo: {}\n", folder.error().message);
    return kExitUsage;
  }
  const fs::path solutions = solutions_of(flags);
  // 1. The demo run: the project's solutions and broken controls replayed through the loop.
  fixit::DemoRun run = fixit::plan_demo_run(*env, *folder, solutions);
  fmt::print("fixit demo: 1/7 replaying {} solution file(s) into {}\n", run.demo.entries.size(),
             run.dir.string());
  std::fflush(stdout);
  std::mutex mutex;
  agent::RunObserver observer{.on_turn = [&mutex](const agent::TurnEvent& event) {
    std::lock_guard lock(mutex);
    fmt::print(stderr, "  {}\n", agent::describe(event));
  }};
  auto table = fixit::execute_demo_run(run, **engine, observer);
  if (!table) {
    fmt::print(stderr, "ptxbench fixit demo: {}\n", table.error().message);
    return kExitUsage;
  }
  fmt::print("{}", *table);
  // 2-7. The broken controls' failures through the chain.
  fs::path exported;
  fixit::ChainObserver steps{
      .on_begin = [&](std::string_view stage) { print_demo_step(stage, *bin); },
      .on_outcome =
          [&](const fixit::StageOutcome& outcome) {
            print_outcome(outcome);
            if (const auto* done = std::get_if<fixit::ExportOutcome>(&outcome))
              exported = done->dir;
          }};
  auto plan = fixit::demo_chain_plan(run, solutions, *bin, eval::parallel_compiles(env->settings));
  if (int code = finish_chain(fixit::run_chain(*folder, *env, plan, steps)); code != kExitOk)
    return code;
  auto card = util::read_file(exported / "README.md");
  if (card) fmt::print("\n{}", *card);
  fmt::print("\nFixit folder: {}\n", folder->root().string());
  return kExitOk;
}

void add_common(CLI::App* sub, FixitFlags& flags) {
  sub->add_option("--fixit", flags.folder, "The Fixit folder");
  sub->add_option("--tasks-dir", flags.tasks_dir, "Task suite (default: built-in)");
}

// The stages that evaluate also take the engine's settings.
void add_evaluating(CLI::App* sub, FixitFlags& flags) {
  add_common(sub, flags);
  add_settings_flags(*sub, flags.settings, kFixitSettings, kFixitDefaults);
}

void add_teacher(CLI::App* sub, FixitFlags& flags, bool explainer) {
  std::string who = explainer ? "explainer" : "teacher";
  auto& kind = explainer ? flags.explainer : flags.teacher;
  auto& config = explainer ? flags.explainer_config : flags.teacher_config;
  auto& command = explainer ? flags.explainer_command : flags.teacher_command;
  sub->add_option("--" + who, kind,
                  "replay: the recorded repairs and explanations of solutions/fixit/");
  sub->add_option("--" + who + "-config", config, "Provider config file (a run.yaml model entry)");
  sub->add_option("--" + who + "-command", command,
                  "A program as the " + who + " (split on spaces)");
  sub->add_option("--solutions", flags.solutions_dir, "Solutions directory of the replay catalog");
  sub->add_option("--selection", flags.selection, "Recipe whose selection to work on");
}

CLI::App* add_mine(CLI::App& fixit, FixitFlags& flags) {
  auto* mine = fixit.add_subcommand("mine", "Collect the failing turns of runs");
  add_common(mine, flags);
  mine->add_option("runs", flags.runs, "Run directories")->required();
  mine->add_option("--verdicts", flags.verdicts, "Only these verdict kinds")->delimiter(',');
  mine->add_option("--turns", flags.turns, "Only these turns")->delimiter(',');
  mine->add_option("--contexts", flags.contexts, "Only these context levels")->delimiter(',');
  mine->add_option("--tasks", flags.tasks, "Only these tasks (names or globs)")->delimiter(',');
  mine->add_option("--models", flags.models, "Only these models (names or globs)")->delimiter(',');
  mine->add_flag(
      "--include-not-run", flags.include_not_run,
      "Also replayed controls whose GPU stages did not run here (their declared verdict)");
  return mine;
}

CLI::App* add_balance(CLI::App& fixit, FixitFlags& flags) {
  auto* balance = fixit.add_subcommand("balance", "Select rows to repair by a recipe");
  add_common(balance, flags);
  balance->add_option("--recipe", flags.recipe, "Recipe name")->capture_default_str();
  balance->add_option("--mode", flags.mode, "balanced or volume")->capture_default_str();
  balance->add_option("--per-task-cap", flags.per_task_cap, "Rows per task at most");
  balance->add_option("--total", flags.total, "Rows at most");
  balance->add_option("--seed", flags.seed, "Seed of the order within strata")
      ->capture_default_str();
  balance->add_option("--recipes", flags.recipe_file, "YAML/JSON file with a list of recipes");
  return balance;
}

CLI::App* add_repair(CLI::App& fixit, FixitFlags& flags) {
  auto* repair = fixit.add_subcommand("repair", "A teacher repairs the selected rows (resumable)");
  add_evaluating(repair, flags);
  add_teacher(repair, flags, false);
  repair->add_option("--turns", flags.repair_turns, "Turns per repair")->capture_default_str();
  repair->add_option("--concurrency", flags.concurrency, "Repairs at once")->capture_default_str();
  repair->add_flag("--loose", flags.loose, "Stop at a correct kernel, even without the families");
  repair->add_option("--speedup-floor", flags.speedup_floor, "Also require this speedup");
  return repair;
}

CLI::App* add_verify(CLI::App& fixit, FixitFlags& flags) {
  auto* verify = fixit.add_subcommand("verify", "Keep repairs judged PASSED on a GPU");
  add_evaluating(verify, flags);
  verify->add_flag("--reevaluate", flags.reevaluate,
                   "Evaluate repairs whose GPU stages did not run (NOT_RUN) again here");
  verify->add_flag("--reevaluate-all", flags.reevaluate_all, "Evaluate every repair again here");
  return verify;
}

CLI::App* add_explain(CLI::App& fixit, FixitFlags& flags) {
  auto* explain =
      fixit.add_subcommand("explain", "A teacher explains each repair in the first person");
  add_common(explain, flags);
  add_teacher(explain, flags, true);
  explain->add_option(
      "--teacher-name", flags.teacher_name,
      "Explain the repairs of this teacher (needed when several repaired the rows)");
  explain->add_option("--length", flags.length, "short, medium or long")->capture_default_str();
  explain->add_option("--token-budget", flags.token_budget, "Estimated tokens at most")
      ->capture_default_str();
  explain->add_option("--max-attempts", flags.max_attempts, "Asks per row")->capture_default_str();
  return explain;
}

CLI::App* add_export(CLI::App& fixit, FixitFlags& flags) {
  auto* exporter =
      fixit.add_subcommand("export", "Write SFT rows (JSON Lines) and the dataset card");
  add_common(exporter, flags);
  exporter->add_option("--selection", flags.selection, "Recipe whose selection to export");
  exporter->add_flag("--include-unverified", flags.include_unverified,
                     "Also rows not verified on a GPU (marked \"verified\": false)");
  exporter->add_option("--kernelgen", flags.kernelgen_runs,
                       "Runs whose passing turns become KernelGen rows");
  exporter->add_option("--teacher-name", flags.teacher_name,
                       "Take the repairs of this teacher (needed when several exist)");
  exporter->add_option("--length", flags.export_length,
                       "Take the explanations of this length bin (needed when several exist)");
  exporter->add_option("--explainer-name", flags.export_explainer,
                       "Take the explanations of this explainer (needed when several exist)");
  return exporter;
}

CLI::App* add_retrieve(CLI::App& fixit, FixitFlags& flags) {
  auto* retrieve = fixit.add_subcommand("retrieve", "The verified repairs most similar to a query");
  retrieve->add_option("--fixit", flags.folder, "The Fixit folder")->required();
  retrieve->add_option("--task", flags.query_task, "Task name")->required();
  retrieve->add_option("--arch", flags.query_arch, "Arch")->capture_default_str();
  retrieve->add_option("--verdict", flags.query_verdict, "Verdict kind");
  retrieve->add_option("--error", flags.query_error, "The failure's feedback or error text");
  retrieve->add_option("--code", flags.query_code, "File with the failing code");
  retrieve->add_option("--tasks-dir", flags.tasks_dir, "Task suite (default: built-in)");
  retrieve->add_option("-k", flags.k, "How many")->capture_default_str();
  retrieve->add_flag("--include-unverified", flags.include_unverified, "Also unverified repairs");
  return retrieve;
}

CLI::App* add_all(CLI::App& fixit, FixitFlags& flags) {
  auto* all = fixit.add_subcommand("all", "Every stage, from a config file");
  all->add_option("--config", flags.config, "fixit.yaml (docs/fixit.md)")->required();
  all->add_option("--fixit", flags.all_folder, "The Fixit folder, instead of the config's");
  all->add_option("--runs", flags.all_runs, "Run directories, instead of the config's");
  all->add_flag("--no-gpu", flags.all_no_gpu, "Run no GPU stages (as gpu: false)");
  all->add_flag("--include-unverified", flags.all_include_unverified,
                "Export unverified rows too (as export.include_unverified: true)");
  all->add_flag("--kernelgen", flags.all_kernelgen,
                "Export the runs' passing turns as KernelGen rows (as export.kernelgen: true)");
  return all;
}

CLI::App* add_demo(CLI::App& fixit, FixitFlags& flags) {
  auto* demo =
      fixit.add_subcommand("demo", "The built-in default: the demo run's failures to rows");
  demo->add_option("--out", flags.out, "Fixit folder (default: runs/fixit-demo-<UTC time>)");
  demo->add_option("--solutions", flags.solutions_dir, "Solutions directory (default: built-in)");
  demo->add_option("--tasks-dir", flags.tasks_dir, "Task suite (default: built-in)");
  add_settings_flags(*demo, flags.settings, kFixitSettings, kFixitDefaults);
  demo->add_option("--length", flags.length, "Explanation length bin")->capture_default_str();
  return demo;
}

}  // namespace

void add_fixit_command(CLI::App& app, CommandContext& context) {
  // One FixitFlags for every stage: CLI11 runs the callback of the one subcommand given.
  auto flags = std::make_shared<FixitFlags>();
  auto* fixit = app.add_subcommand("fixit", "");
  fixit->require_subcommand(1);
  auto bind = [&context, flags](CLI::App* sub, int (*body)(const FixitFlags&)) {
    sub->callback([&context, flags, body] { context.exit_code = body(*flags); });
  };
  bind(add_mine(*fixit, *flags), run_mine);
  bind(add_balance(*fixit, *flags), run_balance);
  bind(add_repair(*fixit, *flags), run_repair);
  bind(add_verify(*fixit, *flags), run_verify);
  bind(add_explain(*fixit, *flags), run_explain);
  bind(add_export(*fixit, *flags), run_export);
  bind(add_retrieve(*fixit, *flags), run_retrieve);
  bind(add_all(*fixit, *flags), run_all);
  bind(add_demo(*fixit, *flags), run_demo);
}

}  // namespace ptxbench::cli
