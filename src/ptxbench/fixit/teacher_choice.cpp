#include "ptxbench/fixit/teacher_choice.hpp"

#include <filesystem>

#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/util/command_line.hpp"

namespace ptxbench::fixit {

util::Expected<TeacherChoice> teacher_choice(const TeacherFlags& flags) {
  auto command = util::split_command_line(flags.command_line);
  if (!command) return command.error();
  TeacherChoice choice{.config_file = flags.config_file, .command = std::move(*command)};
  if (flags.kind == "replay")
    choice.replay_solutions =
        flags.solutions_dir.empty() ? agent::default_solutions_dir().string() : flags.solutions_dir;
  if (!choice.command.empty())
    choice.name = std::filesystem::path(choice.command.back()).stem().string();
  return choice;
}

}  // namespace ptxbench::fixit
