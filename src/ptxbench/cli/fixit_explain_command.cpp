// `ptxbench fixit explain`: a teacher explains each repair in the first person.
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"

namespace ptxbench::cli {
namespace {

struct ExplainFlags {
  FixitFolderFlags where;
  fixit::TeacherFlags explainer;
  std::string selection;
  std::string teacher_name;  // whose repairs
  std::string length = "medium";
  int token_budget = 2000, max_attempts = 3;
};

int run_explain(const ExplainFlags& flags) {
  auto bin = fixit::find_length_bin(flags.length);
  if (!bin) {
    fmt::print(stderr, "ptxbench fixit explain: --length: {}\n", bin.error().message);
    return kExitUsage;
  }
  fixit::ExplainOptions options{.limits = {.bin = *bin, .token_budget = flags.token_budget},
                                .max_attempts = flags.max_attempts};
  auto explainer = teacher_choice("explain", "explainer", flags.explainer);
  if (!explainer) return kExitUsage;
  return with_folder(
      flags.where, {}, [&](const fixit::FixitFolder& folder, const fixit::Environment& env) {
        return finish_stage("explain",
                            fixit::fixit_explain(folder, env, flags.selection, flags.teacher_name,
                                                 *explainer, options));
      });
}

}  // namespace

void add_fixit_explain(CLI::App& explain, CommandContext& context) {
  auto flags = std::make_shared<ExplainFlags>();
  add_fixit_folder_flags(explain, flags->where);
  add_teacher_flags(explain, flags->explainer, flags->selection, "explainer");
  explain.add_option("--teacher-name", flags->teacher_name,
                     "Explain the repairs of this teacher (needed when several repaired the rows)");
  explain.add_option("--length", flags->length, "short, medium or long")->capture_default_str();
  explain.add_option("--token-budget", flags->token_budget, "Estimated tokens at most")
      ->capture_default_str();
  explain.add_option("--max-attempts", flags->max_attempts, "Asks per row")->capture_default_str();
  on_fixit_run(explain, context, flags, &run_explain);
}

}  // namespace ptxbench::cli
