// `ptxbench fixit verify`: keeps the repairs judged PASSED on a GPU.
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"

namespace ptxbench::cli {
namespace {

struct VerifyFlags {
  FixitFolderFlags where;
  SettingsFlags settings;
  bool reevaluate = false, reevaluate_all = false;
};

int run_verify(const VerifyFlags& flags) {
  return with_folder(
      flags.where, flags.settings,
      [&](const fixit::FixitFolder& folder, const fixit::Environment& env) {
        return finish_stage(
            "verify", fixit::fixit_verify(folder, env, flags.reevaluate || flags.reevaluate_all,
                                          flags.reevaluate_all));
      });
}

}  // namespace

void add_fixit_verify(CLI::App& verify, CommandContext& context) {
  auto flags = std::make_shared<VerifyFlags>();
  add_fixit_folder_flags(verify, flags->where);
  add_fixit_settings_flags(verify, flags->settings);
  verify.add_flag("--reevaluate", flags->reevaluate,
                  "Evaluate repairs whose GPU stages did not run (NOT_RUN) again here");
  verify.add_flag("--reevaluate-all", flags->reevaluate_all, "Evaluate every repair again here");
  on_fixit_run(verify, context, flags, &run_verify);
}

}  // namespace ptxbench::cli
