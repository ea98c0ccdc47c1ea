// `ptxbench export-tasks --format harbor DIR [--task NAME|GLOB...] [--arch hopper|blackwell...]
//  [--context LEVEL] [--image IMAGE]`: each task and arch as a self-contained Harbor task folder
// (harbor/harbor_task.hpp), DIR/<task>-<arch>/. Each folder is built aside and swapped into place;
// rerunning rewrites them. The tasks start FROM the image docker/Dockerfile builds.
#include <sys/stat.h>

#include <fmt/format.h>

#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/eval_selection.hpp"
#include "ptxbench/harbor/harbor_task.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;

struct ExportTasksFlags {
  std::string format = "harbor";
  std::string out;
  std::vector<std::string> tasks{"*"};
  std::vector<std::string> archs{"hopper", "blackwell"};
  std::string context = "none";
  std::string image = "ptxbench:latest";
  std::string tasks_dir, context_dir;
};

// The shipped solution expected to pass on (task, arch), if there is one.
std::optional<std::string> shipped_solution(const agent::SolutionScan& scan,
                                            const std::string& task, arch::Arch arch) {
  for (const auto& file : scan.files) {
    const auto& h = file.header;
    if (h.task == task && h.arch == arch && h.expect == eval::Verdict::kPassed) {
      if (auto text = util::read_file(file.path)) return *text;
    }
  }
  return std::nullopt;
}

int run_export_tasks(const ExportTasksFlags& flags) {
  const auto fail = [](const std::string& message) {
    fmt::print(stderr, "ptxbench export-tasks: {}\n", message);
    return kExitUsage;
  };
  if (flags.format != "harbor") return fail("--format " + flags.format + ": expected harbor");
  auto level = prompt::parse_context_level(flags.context);
  if (!level) return fail("--context " + flags.context + ": expected none, isa, guide or examples");
  std::vector<arch::Arch> archs;
  for (const auto& name : flags.archs) {
    auto arch = arch::parse(name);
    if (!arch) return fail("--arch " + name + ": expected hopper or blackwell");
    archs.push_back(*arch);
  }
  auto suite = task::load_suite(flags.tasks_dir.empty() ? task::default_tasks_dir()
                                                        : fs::path(flags.tasks_dir));
  if (!suite) return fail(suite.error().message);
  auto tasks = select_tasks(*suite, flags.tasks);
  if (!tasks) return fail(tasks.error().message);
  const auto solutions = agent::scan_solutions(agent::default_solutions_dir());

  if (auto out = util::check_output_folder(flags.out); !out)
    return fail("out: " + out.error().message);
  // Every task is rendered before anything is written; each folder is then built aside and
  // swapped into place whole (a rerun leaves no stale file of an earlier export).
  std::vector<std::pair<fs::path, std::map<std::string, harbor::HarborFile>>> folders;
  for (const auto* task : *tasks) {
    for (auto arch : archs) {
      if (!task->requested.contains(arch)) continue;  // the task is not posed on this arch
      auto files = harbor::render_harbor_task(
          *task, {.arch = arch,
                  .context = *level,
                  .context_dir = flags.context_dir.empty() ? prompt::default_context_dir()
                                                           : fs::path(flags.context_dir),
                  .base_image = flags.image,
                  .solution = shipped_solution(solutions, task->name, arch)});
      if (!files) return fail(files.error().message);
      folders.emplace_back(fs::path(flags.out) / harbor::harbor_task_name(*task, arch),
                           std::move(*files));
    }
  }
  for (const auto& [folder, files] : folders) {
    auto staged = util::StagedFolder::begin(folder, util::StagedFolder::Start::kEmpty);
    if (!staged) return fail(staged.error().message);
    for (const auto& [relative, file] : files) {
      const auto path = staged->path() / relative;
      fs::create_directories(path.parent_path());
      util::write_file_atomic(path, file.content);
      if (file.executable)
        fs::permissions(path,
                        fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        fs::perm_options::add);
    }
    if (auto published = staged->publish(); !published) return fail(published.error().message);
  }
  fmt::print("{} Harbor tasks written to {}\n", folders.size(), flags.out);
  fmt::print(
      "Their environments start FROM {}: build it first, in the ptxbench source tree, with\n  {}\n",
      flags.image, harbor::image_build_command(flags.image));
  return kExitOk;
}

}  // namespace

void add_export_tasks_command(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<ExportTasksFlags>();
  auto* sub = app.add_subcommand("export-tasks", "");
  sub->add_option("out", flags->out, "Directory to write the task folders to")->required();
  sub->add_option("--format", flags->format, "Task format: harbor")->capture_default_str();
  sub->add_option("--task", flags->tasks, "Task names or globs (default: all)");
  sub->add_option("--arch", flags->archs, "hopper and/or blackwell (default: both)");
  sub->add_option("--context", flags->context,
                  "Context level of the instruction: none, isa, guide, examples")
      ->capture_default_str();
  sub->add_option("--image", flags->image,
                  "Base image of the environment: the image docker/Dockerfile builds "
                  "(`docker build -f docker/Dockerfile -t TAG .` in the source tree)")
      ->capture_default_str();
  sub->add_option("--tasks-dir", flags->tasks_dir, "Task suite directory (default: built-in)");
  sub->add_option("--context-dir", flags->context_dir, "Context documents (default: built-in)");
  sub->callback([flags, &context] { context.exit_code = run_export_tasks(*flags); });
}

}  // namespace ptxbench::cli
