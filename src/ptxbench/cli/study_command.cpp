// `ptxbench study STUDY.yaml [--out DIR] [--stop-after STEP]`: the whole Fixit study of one
// study file (docs/study.md), resumable after a kill at any point; the library holds the steps
// (study/study_runner.hpp), this file only flags and exit codes.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/study/study_runner.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/relocation.hpp"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;

struct StudyFlags {
  std::string file;
  std::string out;
  std::string stop_after;
  std::string python;
};

int run_study_command(const StudyFlags& flags) {
  auto study = study::read_study_file(flags.file, flags.out);
  if (!study) {
    fmt::print(stderr, "ptxbench study: {}\n", study.error().message);
    return kExitUsage;
  }
  if (const auto labels = study::step_labels(*study);
      !flags.stop_after.empty() &&
      std::find(labels.begin(), labels.end(), flags.stop_after) == labels.end()) {
    fmt::print(stderr, "ptxbench study: --stop-after {}: not a step of this study ({})\n",
               flags.stop_after, fmt::join(labels, ", "));
    return kExitUsage;
  }
  fs::path python =
      flags.python.empty() ? fs::path(study->training.python) : fs::path(flags.python);
  if (python.empty()) {
    const char* from_env = std::getenv("PTXBENCH_TRAIN_PYTHON");
    python = from_env != nullptr && *from_env != '\0'
                 ? fs::path(from_env)
                 : config::source_path(".deps/python-train/bin/python");
  }
  study::StudyEnvironment env{.ptxbench = fs::read_symlink("/proc/self/exe"),
                              .python = python,
                              .train_src = config::source_path("python/ptxbench_train/src"),
                              .default_tasks = task::default_tasks_dir(),
                              .stop_after = flags.stop_after,
                              .say = [](const std::string& line) {
                                fmt::print("study: {}\n", line);
                                std::fflush(stdout);
                              }};
  // Every field and path, and the folder, before any step: a problem there is a usage error.
  auto held = study::open_study(*study, env);
  if (!held) {
    fmt::print(stderr, "ptxbench study: {}\n", held.error().message);
    return kExitUsage;
  }
  auto result = study::run_study(*study, env, *held);
  if (!result) {
    fmt::print(stderr, "ptxbench study: {}\n", result.error().message);
    return kExitFailed;
  }
  fmt::print("study: {}\n", result->string());
  return kExitOk;
}

}  // namespace

void add_study_command(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<StudyFlags>();
  auto* sub = app.add_subcommand("study", "");
  sub->add_option("file", flags->file, "The study file (docs/study.md)")->required();
  sub->add_option("--out", flags->out, "The study folder (default: the file's `out`)");
  sub->add_option("--stop-after", flags->stop_after,
                  "Stop once this step is done, e.g. train/balanced (STEP/VARIANT)");
  sub->add_option("--python", flags->python,
                  "The training venv's python (default: training.python, $PTXBENCH_TRAIN_PYTHON, "
                  ".deps/python-train/bin/python)");
  sub->callback([flags, &context] { context.exit_code = run_study_command(*flags); });
}

}  // namespace ptxbench::cli
