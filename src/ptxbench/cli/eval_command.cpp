// `ptxbench eval FILE... --task NAME|GLOB[,...] --arch hopper|blackwell [--json] [--out FILE]
//  [--jobs N] [--keep-artifacts DIR] [--compile-timeout S] [--no-gpu] [--time-workloads SPEC]
//  [--unseen require|report|off] [--seed N]`:
// every (task, file) pair through the staged pipeline; later candidates compile while earlier
// ones are on the GPU, and each verdict is printed as soon as it is known (a line per verdict,
// or with --json one JSON record per line; --out FILE receives the JSON Lines too, record by
// record), with progress on stderr and the summary table at the end. Markdown replies (.md,
// .markdown, .txt) give their last fenced code block; sources (.cu, .cuh, .cpp) are taken whole.
// Exit 0 when every verdict is PASSED or NOT_RUN, 1 when any candidate failed a stage, 3 when
// ptxbench itself failed, 128 + signal when stopped by SIGTERM / SIGINT.
// --correctness-rule RULE overrides every task's tolerance.rule (docs/correctness.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/eval_selection.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/eval/evaluator.hpp"
#include "ptxbench/eval/summary.hpp"
#include "ptxbench/gpus/gpu_list.hpp"
#include "ptxbench/sandbox/evaluation_sandbox.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/child_processes.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/json_text.hpp"
#include "ptxbench/util/termination.hpp"

namespace ptxbench::cli {
namespace {

struct EvalOptions {
  std::vector<std::string> files;
  std::vector<std::string> tasks;  // names, globs or comma lists of them
  std::string time_workloads = "headline";
  std::string arch;
  bool json = false;
  std::string out_file;  // JSON Lines, one record per verdict
  int jobs = 0;
  std::string keep_artifacts;
  std::string tasks_dir;
  bool no_gpu = false;
  std::string gpus;  // --gpus all|LIST; empty: the default worker
  int compile_timeout_seconds = 180;
  int racecheck_timeout_seconds = 15;
  std::string correctness_rule;  // empty: each task's tolerance.rule
  std::string sandbox = "strict";
  std::string unseen = "require";     // the unseen workloads' policy
  std::optional<std::uint64_t> seed;  // replays a verdict's inputs (its input_seed)
};

constexpr std::array<std::string_view, 3> kMarkdownExtensions{".md", ".markdown", ".txt"};
constexpr std::array<std::string_view, 5> kSourceExtensions{".cu", ".cuh", ".cpp", ".cc", ".cxx"};

// Reads the files; prints the first problem and returns nullopt on failure.
std::optional<std::vector<eval::CandidateInput>> read_inputs(
    const std::vector<std::string>& files) {
  std::vector<eval::CandidateInput> inputs;
  for (const auto& file : files) {
    const auto extension = std::filesystem::path(file).extension().string();
    const bool markdown = std::find(kMarkdownExtensions.begin(), kMarkdownExtensions.end(),
                                    extension) != kMarkdownExtensions.end();
    const bool source = std::find(kSourceExtensions.begin(), kSourceExtensions.end(), extension) !=
                        kSourceExtensions.end();
    if (!markdown && !source) {
      fmt::print(stderr,
                 "ptxbench eval: {}: expected a source file (.cu, .cuh, .cpp) or a model reply "
                 "(.md, .txt)\n",
                 file);
      return std::nullopt;
    }
    auto text = util::read_file(file);
    if (!text) {
      fmt::print(stderr, "ptxbench eval: {}\n", text.error().message);
      return std::nullopt;
    }
    inputs.push_back({.text = std::move(*text), .is_markdown = markdown, .source_name = file});
  }
  return inputs;
}

int exit_code_of(const std::vector<eval::Evaluation>& evaluations) {
  int code = kExitOk;
  for (const auto& e : evaluations) {
    if (e.verdict == eval::Verdict::kInternalError) return kExitInternal;
    if (e.verdict != eval::Verdict::kPassed && e.verdict != eval::Verdict::kNotRun)
      code = kExitFailed;
  }
  return code;
}

int run_eval(const EvalOptions& options) {
  auto arch = arch::parse(options.arch);
  if (!arch) {
    fmt::print(stderr, "ptxbench eval: --arch {}: expected hopper or blackwell\n", options.arch);
    return kExitUsage;
  }
  auto suite =
      task::load_suite(options.tasks_dir.empty() ? task::default_tasks_dir()
                                                 : std::filesystem::path(options.tasks_dir));
  if (!suite) {
    fmt::print(stderr, "ptxbench eval: {}\n", suite.error().message);
    return kExitUsage;
  }
  if (!options.correctness_rule.empty()) {
    auto rule = task::parse_correctness_rule(options.correctness_rule);
    if (!rule) {
      fmt::print(stderr,
                 "ptxbench eval: --correctness-rule {}: expected as_accurate_as_library or "
                 "matches_library\n",
                 options.correctness_rule);
      return kExitUsage;
    }
    for (auto& task : *suite) task.tolerance.rule = *rule;
  }
  auto tasks = select_tasks(*suite, options.tasks);
  if (!tasks) {
    fmt::print(stderr, "ptxbench eval: {}\n", tasks.error().message);
    return kExitUsage;
  }
  auto timed = select_timed_workloads(options.time_workloads, *tasks);
  if (!timed) {
    fmt::print(stderr, "ptxbench eval: {}\n", timed.error().message);
    return kExitUsage;
  }
  auto unseen = eval::correctness::parse_unseen_policy(options.unseen);
  if (!unseen) {
    fmt::print(stderr, "ptxbench eval: --unseen {}: expected require, report or off\n",
               options.unseen);
    return kExitUsage;
  }
  auto inputs = read_inputs(options.files);
  if (!inputs) return kExitUsage;
  std::vector<eval::TaskCandidate> pairs;
  for (const auto* task : *tasks) {
    for (const auto& input : *inputs) pairs.push_back({.task = task, .input = input});
  }

  std::ofstream out_stream;
  if (!options.out_file.empty()) {
    out_stream.open(options.out_file, std::ios::trunc);
    if (!out_stream) {
      fmt::print(stderr, "ptxbench eval: --out {}: cannot write\n", options.out_file);
      return kExitUsage;
    }
  }

  auto mode = sandbox::parse_mode(options.sandbox);
  if (!mode) {
    fmt::print(stderr, "ptxbench eval: --sandbox: {}\n", mode.error().message);
    return kExitUsage;
  }
  // The evaluator shows its artefact folder to the worker's sandbox (read-only).
  auto box =
      sandbox::make_evaluation_sandbox(*mode, std::make_shared<util::SystemProcessRunner>(), {});
  if (!box.usable) {
    fmt::print(stderr,
               "ptxbench eval: --sandbox strict: the sandbox cannot be set up here ({}); "
               "see docs/sandbox.md, or choose --sandbox best-effort|off\n",
               box.description);
    return kExitInternal;
  }
  if (box.description != "full" && box.description != "off")
    fmt::print(stderr, "ptxbench eval: WARNING: sandbox {}\n", box.description);
  std::shared_ptr<util::ProcessRunner> runner = box.worker;
  std::vector<std::shared_ptr<eval::GpuStages>> gpu_slots;  // one per GPU of --gpus
  if (!options.no_gpu) {
    auto slots = gpus::gpu_slots(
        options.gpus, runner,
        {.timed_workloads = *timed,
         .racecheck_timeout = std::chrono::seconds(options.racecheck_timeout_seconds),
         .unseen = *unseen,
         .input_seed = options.seed});
    if (!slots) {
      fmt::print(stderr, "ptxbench eval: {}\n", slots.error().message);
      return kExitUsage;
    }
    gpu_slots = std::move(*slots);
  }
  eval::Evaluator evaluator(
      {.work_dir = options.keep_artifacts,
       .compile_timeout = std::chrono::seconds(options.compile_timeout_seconds),
       .jobs = options.jobs,
       .run_gpu_stages = !options.no_gpu,
       .compile_runner = box.compiler,
       .sandbox = box.description},
      runner, gpu_slots);
  std::size_t done = 0;
  auto print_verdict = [&](std::size_t, const eval::Evaluation& e) {
    ++done;
    const std::string line = util::dump_json(eval::to_json(e));
    if (out_stream.is_open()) out_stream << line << '\n' << std::flush;
    if (options.json) {
      fmt::print("{}\n", line);
    } else {
      fmt::print("{}\n", eval::render_verdict_line(e));
    }
    std::fflush(stdout);
    fmt::print(stderr, "ptxbench eval: {} of {} judged ({} {}: {}, {:.1f} s)\n", done, pairs.size(),
               e.source_name, e.task, eval::to_string(e.verdict), e.wall_seconds);
  };
  std::vector<eval::Evaluation> evaluations;
  try {
    evaluations = evaluator.evaluate_pairs(*arch, pairs, print_verdict);
  } catch (const util::Stopped&) {
    fmt::print(stderr, "ptxbench eval: stopped after {} of {} verdicts\n", done, pairs.size());
    return 128 + std::max(util::stop_signal(), 1);
  }

  if (!options.json) {
    fmt::print("\n{}", eval::render_summary(evaluations));
    if (!options.keep_artifacts.empty())
      fmt::print("\nartifacts kept in {}\n", options.keep_artifacts);
  }
  return exit_code_of(evaluations);
}

// A usage error, not an internal one, when the path cannot become the artifacts directory.
const CLI::Validator kDirectoryOrAbsent(
    [](std::string& path) {
      std::error_code error;
      const auto status = std::filesystem::status(path, error);
      if (error && error != std::errc::no_such_file_or_directory)
        return path + ": " + error.message();
      if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
        return path + ": exists and is not a directory";
      return std::string();
    },
    "DIR");

}  // namespace

void add_eval_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<EvalOptions>();
  auto* sub = app.add_subcommand("eval", "");
  sub->add_option("files", options->files, "Candidate .cu files or model replies (.md)")
      ->required();
  sub->add_option("--task", options->tasks,
                  "Task name or glob (gemm_*; see `ptxbench tasks`); repeat it or give a comma "
                  "list for several tasks: every file is evaluated on each")
      ->required()
      ->allow_extra_args(false);
  sub->add_option("--arch", options->arch, "hopper (sm_90a) or blackwell (sm_100a)")->required();
  sub->add_option("--sandbox", options->sandbox,
                  "strict (default: every layer or nothing runs), best-effort (runs with what this "
                  "machine has, says what is missing) or off; docs/sandbox.md")
      ->check(CLI::IsMember({"strict", "best-effort", "off"}));
  sub->add_flag("--json", options->json,
                "Print each evaluation record as one line of JSON (JSON Lines) as it is known");
  sub->add_option("--out", options->out_file,
                  "Also write the records to this file as JSON Lines, one line per verdict");
  sub->add_option("--jobs", options->jobs, "Parallel compiles (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--keep-artifacts", options->keep_artifacts,
                  "Keep sources, objects and cubins in this directory")
      ->check(kDirectoryOrAbsent);
  sub->add_option("--tasks-dir", options->tasks_dir,
                  "Task suite directory (default: the built-in suite)");
  sub->add_option("--compile-timeout", options->compile_timeout_seconds,
                  "Seconds nvcc may take per candidate")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--no-gpu", options->no_gpu,
                "Stop after the static stages even where a GPU is present");
  sub->add_option("--correctness-rule", options->correctness_rule,
                  "as_accurate_as_library or matches_library: the rule that decides every "
                  "task's correctness (default: each task's tolerance.rule; docs/correctness.md)");
  sub->add_option("--gpus", options->gpus,
                  "all, or a list of GPUs (0,1,3): one worker per GPU, each judging one "
                  "candidate at a time while the others compile (default: one worker)");
  sub->add_option("--time-workloads", options->time_workloads,
                  "Workloads the timing stage times: headline (default), all, or a comma list "
                  "of workload names (M8192,M8828; a task lacking one skips it). The verdict "
                  "and headline speedup always come from the headline workload")
      ->capture_default_str();
  sub->add_option("--racecheck-timeout", options->racecheck_timeout_seconds,
                  "Seconds racecheck may take on the smallest workload beyond the correctness "
                  "check it runs beside; past them the sanitize stage reads \"not checked\", "
                  "never \"passed\" (memcheck has its own 60 s)")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  sub->add_option("--unseen", options->unseen,
                  "The tasks' unseen workloads (sizes no prompt shows; docs/correctness.md): "
                  "require (an unseen failure fails the verdict), report (recorded in "
                  "`generalisation` only, to measure the seen/unseen gap) or off")
      ->capture_default_str();
  sub->add_option("--seed", options->seed,
                  "The input seed of every verdict (its record's input_seed): replays a "
                  "verdict's inputs exactly; 0 keeps the task files' seeds (default: drawn per "
                  "verdict)")
      ->check(CLI::NonNegativeNumber);
  sub->callback([options, &context] { context.exit_code = run_eval(*options); });
}

}  // namespace ptxbench::cli
