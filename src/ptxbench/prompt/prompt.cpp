#include "ptxbench/prompt/prompt.hpp"

#include "ptxbench/prompt/system_prompt.hpp"
#include "ptxbench/prompt/task_prompt.hpp"

namespace ptxbench::prompt {

util::Expected<Prompt> build_prompt(const task::Task& task, arch::Arch arch, ContextLevel level,
                                    const std::filesystem::path& context_dir,
                                    const ContextHook& hook) {
  if (level == ContextLevel::kRetrieval) {
    if (!hook)
      return util::make_error("context level retrieval needs a Fixit folder (--fixit DIR)");
    auto retrieved = hook(task, arch);
    if (!retrieved) return retrieved.error();
    return Prompt{.system = build_system_prompt(arch, level, *retrieved),
                  .task = build_task_prompt(task, arch)};
  }
  auto context = load_context(context_dir, arch, level);
  if (!context) return context.error();
  return Prompt{.system = build_system_prompt(arch, level, *context),
                .task = build_task_prompt(task, arch)};
}

}  // namespace ptxbench::prompt
