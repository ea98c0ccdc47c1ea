// `ptxbench prompt TASK --arch A --context L`: the two messages a model gets first, with a
// token estimate (bytes / 4, see prompt::estimate_tokens). `--context retrieval --fixit DIR`
// shows what the retrieval level adds from a Fixit folder, as `ptxbench run` builds it.
#include <fmt/format.h>

#include <string>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/task_suite.hpp"
#include "ptxbench/fixit/retrieve.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::cli {
namespace {

struct PromptOptions {
  std::string task;
  std::string arch = "hopper";
  std::string context = "none";
  bool system_only = false;
  bool task_only = false;
  std::string tasks_dir;
  std::string context_dir;
  std::string fixit;  // the retrieval level's Fixit folder
  int retrieve_k = 3;
  bool include_unverified = false;
};

std::string size_note(std::string_view text) {
  return fmt::format("{} bytes, ~{} tokens", text.size(), prompt::estimate_tokens(text));
}

int run_prompt(const PromptOptions& options) {
  auto arch = arch::parse(options.arch);
  if (!arch) {
    fmt::print(stderr, "ptxbench prompt: --arch {}: expected hopper or blackwell\n", options.arch);
    return kExitUsage;
  }
  auto level = prompt::parse_context_level(options.context);
  if (!level) {
    fmt::print(stderr,
               "ptxbench prompt: --context {}: expected none, isa, guide, examples or retrieval\n",
               options.context);
    return kExitUsage;
  }
  auto suite = load_task_suite("prompt", options.tasks_dir);
  if (!suite) return kExitUsage;
  const task::Task* task = task::find_task(*suite, options.task);
  if (task == nullptr) {
    fmt::print(stderr, "ptxbench prompt: no task named '{}' (see `ptxbench tasks`)\n",
               options.task);
    return kExitUsage;
  }
  prompt::ContextHook hook;
  if (!options.fixit.empty()) {
    if (options.retrieve_k < 1 || options.retrieve_k > 64) {
      fmt::print(stderr, "ptxbench prompt: --retrieve-k: expected a whole number from 1 to 64\n");
      return kExitUsage;
    }
    auto documents =
        fixit::load_retrieval_documents(options.fixit, *suite, options.include_unverified);
    if (!documents) {
      fmt::print(stderr, "ptxbench prompt: --fixit: {}\n", documents.error().message);
      return kExitUsage;
    }
    if (documents->empty())
      fmt::print(stderr, "ptxbench prompt: --fixit: {}\n",
                 fixit::empty_index_note(options.fixit, *suite, options.include_unverified));
    auto index = std::make_shared<const fixit::RetrievalIndex>(std::move(*documents));
    hook = fixit::retrieval_hook(index, static_cast<std::size_t>(options.retrieve_k));
  }
  auto built =
      prompt::build_prompt(*task, *arch, *level,
                           options.context_dir.empty() ? prompt::default_context_dir()
                                                       : std::filesystem::path(options.context_dir),
                           hook);
  if (!built) {
    fmt::print(stderr, "ptxbench prompt: {}\n", built.error().message);
    return kExitUsage;
  }
  // With one part only, stdout holds exactly that text (for piping); the estimate goes to stderr.
  if (options.system_only || options.task_only) {
    const std::string& text = options.system_only ? built->system : built->task;
    fmt::print("{}", text);
    fmt::print(stderr, "[{} prompt: {}; tokens estimated as bytes / 4]\n",
               options.system_only ? "system" : "task", size_note(text));
    return kExitOk;
  }
  fmt::print("===== system prompt ({}) =====\n{}\n", size_note(built->system), built->system);
  fmt::print("===== task prompt ({}) =====\n{}\n", size_note(built->task), built->task);
  fmt::print("===== total: ~{} tokens (estimate: bytes / 4) =====\n",
             prompt::estimate_tokens(built->system) + prompt::estimate_tokens(built->task));
  return kExitOk;
}

}  // namespace

void add_prompt_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<PromptOptions>();
  auto* sub = app.add_subcommand("prompt", "");
  sub->add_option("task", options->task, "Task name (see `ptxbench tasks`)")->required();
  sub->add_option("--arch", options->arch, "hopper or blackwell")->capture_default_str();
  sub->add_option("--context", options->context,
                  "Context level: none, isa, guide, examples or retrieval")
      ->capture_default_str();
  sub->add_option("--fixit", options->fixit, "Fixit folder whose repairs `retrieval` adds");
  sub->add_option("--retrieve-k", options->retrieve_k, "Repairs the retrieval level adds")
      ->capture_default_str();
  sub->add_flag(
      "--include-unverified", options->include_unverified,
      "Retrieve repairs not verified on a GPU too (a CPU-only Fixit folder has only those)");
  auto* system_only =
      sub->add_flag("--system-only", options->system_only, "Print only the system prompt");
  sub->add_flag("--task-only", options->task_only, "Print only the task prompt")
      ->excludes(system_only);
  sub->add_option("--tasks-dir", options->tasks_dir, "Task suite directory (default: built-in)");
  sub->add_option("--context-dir", options->context_dir,
                  "Context documents directory (default: built-in context/)");
  sub->callback([options, &context] { context.exit_code = run_prompt(*options); });
}

}  // namespace ptxbench::cli
