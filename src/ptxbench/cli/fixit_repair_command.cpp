// `ptxbench fixit repair`: a teacher repairs the selected rows (resumable).
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"

namespace ptxbench::cli {
namespace {

struct RepairFlags {
  FixitFolderFlags where;
  SettingsFlags settings;
  fixit::TeacherFlags teacher;
  std::string selection;
  int turns = 4, concurrency = 2;
  bool loose = false;
  std::optional<double> speedup_floor;
};

int run_repair(const RepairFlags& flags) {
  fixit::RepairOptions options{.max_turns = flags.turns,
                               .concurrency = flags.concurrency,
                               .strict = !flags.loose,
                               .speedup_floor = flags.speedup_floor};
  auto teacher = teacher_choice("repair", "teacher", flags.teacher);
  if (!teacher) return kExitUsage;
  return with_folder(flags.where, flags.settings,
                     [&](const fixit::FixitFolder& folder, const fixit::Environment& env) {
                       return finish_stage(
                           "repair",
                           fixit::fixit_repair(folder, env, flags.selection, *teacher, options));
                     });
}

}  // namespace

void add_fixit_repair(CLI::App& repair, CommandContext& context) {
  auto flags = std::make_shared<RepairFlags>();
  add_fixit_folder_flags(repair, flags->where);
  add_fixit_settings_flags(repair, flags->settings);
  add_teacher_flags(repair, flags->teacher, flags->selection, "teacher");
  repair.add_option("--turns", flags->turns, "Turns per repair")->capture_default_str();
  repair.add_option("--concurrency", flags->concurrency, "Repairs at once")->capture_default_str();
  repair.add_flag("--loose", flags->loose, "Stop at a correct kernel, even without the families");
  repair.add_option("--speedup-floor", flags->speedup_floor, "Also require this speedup");
  on_fixit_run(repair, context, flags, &run_repair);
}

}  // namespace ptxbench::cli
