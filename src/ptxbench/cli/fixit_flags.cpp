#include "ptxbench/cli/fixit_flags.hpp"

#include "ptxbench/cli/fixit_output.hpp"

namespace ptxbench::cli {

void add_fixit_folder_flags(CLI::App& sub, FixitFolderFlags& flags) {
  sub.add_option("--fixit", flags.folder, "The Fixit folder");
  sub.add_option("--tasks-dir", flags.tasks_dir, "Task suite (default: built-in)");
}

void add_fixit_settings_flags(CLI::App& sub, SettingsFlags& settings) {
  add_settings_flags(sub, settings, fixit::kFixitSettings, fixit::kFixitDefaults);
}

void add_teacher_flags(CLI::App& sub, fixit::TeacherFlags& teacher, std::string& selection,
                       const std::string& who) {
  sub.add_option("--" + who, teacher.kind,
                 "replay: the recorded repairs and explanations of solutions/fixit/");
  sub.add_option("--" + who + "-config", teacher.config_file,
                 "Provider config file (a run.yaml model entry)");
  sub.add_option("--" + who + "-command", teacher.command_line,
                 "A program as the " + who +
                     ": one command line, split into words as a shell splits them (quotes, "
                     "backslashes; nothing expanded, no shell runs)");
  sub.add_option("--solutions", teacher.solutions_dir, "Solutions directory of the replay catalog");
  sub.add_option("--selection", selection, "Recipe whose selection to work on");
}

std::optional<fixit::TeacherChoice> teacher_choice(std::string_view stage, std::string_view who,
                                                   const fixit::TeacherFlags& teacher) {
  auto choice = fixit::teacher_choice(teacher);
  if (!choice) {
    fmt::print(stderr, "ptxbench fixit {}: --{}-command: {}\n", stage, who, choice.error().message);
    return std::nullopt;
  }
  return std::move(*choice);
}

std::optional<fixit::Environment> fixit_environment(const std::string& tasks_dir,
                                                    const SettingsFlags& settings_flags) {
  // The suite's problem first, then the flags'.
  auto settings = settings_from_flags(settings_flags, fixit::kFixitDefaults);
  auto env = fixit::load_environment(tasks_dir, settings ? *settings : fixit::kFixitDefaults);
  const util::Error* problem = !env ? &env.error() : !settings ? &settings.error() : nullptr;
  if (problem != nullptr) {
    fmt::print(stderr, "ptxbench fixit: {}\n", problem->message);
    return std::nullopt;
  }
  return with_fixit_output(std::move(*env));
}

}  // namespace ptxbench::cli
