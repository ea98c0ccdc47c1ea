// `ptxbench eval FILE... --task NAME|GLOB[,...] --arch hopper|blackwell [--json] [--out FILE]
//  [the engine's settings: cli/settings_flags.hpp]`:
// every (task, file) pair through the staged pipeline; later candidates compile while earlier
// ones are on the GPU, and each verdict is printed as soon as it is known (a line per verdict,
// or with --json one JSON record per line; --out FILE receives the JSON Lines too, record by
// record), with progress on stderr and the summary table at the end. Markdown replies (.md,
// .markdown, .txt) give their last fenced code block; sources (.cu, .cuh, .cpp) are taken whole.
// Exit 0 when every verdict is PASSED or NOT_RUN, 1 when any candidate failed a stage, 3 when
// ptxbench itself failed, 128 + signal when stopped by SIGTERM / SIGINT.
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
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/cli/task_suite.hpp"
#include "ptxbench/eval/engine.hpp"
#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/eval/summary.hpp"
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
  std::string arch;
  bool json = false;
  std::string out_file;  // JSON Lines, one record per verdict
  std::string tasks_dir;
  SettingsFlags settings;
};

// eval offers every setting of the engine.
constexpr eval::SettingSet kEvalSettings = eval::SettingSet::all();

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
  auto settings = settings_from_flags(options.settings, {});
  if (!settings) {
    fmt::print(stderr, "ptxbench eval: {}\n", settings.error().message);
    return kExitUsage;
  }
  auto suite = load_task_suite("eval", options.tasks_dir);
  if (!suite) return kExitUsage;
  auto tasks = select_tasks(*suite, options.tasks);
  if (!tasks) {
    fmt::print(stderr, "ptxbench eval: {}\n", tasks.error().message);
    return kExitUsage;
  }
  if (auto unknown = unknown_timed_workload(settings->judge.timed_workloads, *tasks)) {
    fmt::print(stderr, "ptxbench eval: {}\n", *unknown);
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

  auto engine = open_command_engine("eval", *settings);
  if (!engine) return kExitUsage;
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
    evaluations = engine->evaluate_pairs(*arch, pairs, print_verdict);
  } catch (const util::Stopped&) {
    fmt::print(stderr, "ptxbench eval: stopped after {} of {} verdicts\n", done, pairs.size());
    return 128 + std::max(util::stop_signal(), 1);
  }

  if (!options.json) {
    fmt::print("\n{}", eval::render_summary(evaluations));
    if (!settings->keep_artifacts.empty())
      fmt::print("\nartifacts kept in {}\n", settings->keep_artifacts.string());
  }
  return exit_code_of(evaluations);
}

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
  sub->add_flag("--json", options->json,
                "Print each evaluation record as one line of JSON (JSON Lines) as it is known");
  sub->add_option("--out", options->out_file,
                  "Also write the records to this file as JSON Lines, one line per verdict");
  sub->add_option("--tasks-dir", options->tasks_dir,
                  "Task suite directory (default: the built-in suite)");
  add_settings_flags(*sub, options->settings, kEvalSettings);
  sub->callback([options, &context] { context.exit_code = run_eval(*options); });
}

}  // namespace ptxbench::cli
