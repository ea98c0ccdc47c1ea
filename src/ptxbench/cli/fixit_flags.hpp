// What several `ptxbench fixit` subcommands share: the folder and suite flags, the engine's
// settings, the teacher flags, and opening the environment and the folder a stage runs on.
// Each subcommand's own flags live in its file (cli/fixit_<name>_command.cpp).
#pragma once
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/fixit/stages.hpp"
#include "ptxbench/fixit/teacher_choice.hpp"

namespace ptxbench::cli {

// `--fixit` and `--tasks-dir`.
struct FixitFolderFlags {
  std::string folder;
  std::string tasks_dir;
};
void add_fixit_folder_flags(CLI::App& sub, FixitFolderFlags& flags);
// The engine's settings that Fixit's evaluating stages offer.
void add_fixit_settings_flags(CLI::App& sub, SettingsFlags& settings);

// `--WHO`, `--WHO-config`, `--WHO-command`, `--solutions`, `--selection` (WHO: teacher or
// explainer).
void add_teacher_flags(CLI::App& sub, fixit::TeacherFlags& teacher, std::string& selection,
                       const std::string& who);
// The choice the flags make; nullopt after printing "ptxbench fixit STAGE: --WHO-command: ...".
std::optional<fixit::TeacherChoice> teacher_choice(std::string_view stage, std::string_view who,
                                                   const fixit::TeacherFlags& teacher);

// The suite and settings of a command, with the CLI's engine opener and progress lines;
// nullopt after printing the problem.
std::optional<fixit::Environment> fixit_environment(const std::string& tasks_dir,
                                                    const SettingsFlags& settings);

// Opens the environment and the folder (`--fixit` is required), then runs `stage`; the exit code.
template <class Stage>
int with_folder(const FixitFolderFlags& flags, const SettingsFlags& settings, Stage stage) {
  if (flags.folder.empty()) {
    fmt::print(stderr, "ptxbench fixit: --fixit DIR is required\n");
    return kExitUsage;
  }
  auto env = fixit_environment(flags.tasks_dir, settings);
  if (!env) return kExitUsage;
  auto folder = fixit::FixitFolder::open(flags.folder);
  if (!folder) {
    fmt::print(stderr, "ptxbench fixit: {}\n", folder.error().message);
    return kExitUsage;
  }
  return stage(*folder, *env);
}

// Runs `body` over the subcommand's flags when CLI11 chose it; the flags live as long as the app.
template <class Flags>
void on_fixit_run(CLI::App& sub, CommandContext& context, std::shared_ptr<Flags> flags,
                  int (*body)(const Flags&)) {
  sub.callback([&context, flags, body] { context.exit_code = body(*flags); });
}

}  // namespace ptxbench::cli
