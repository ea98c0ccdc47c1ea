// `ptxbench fixit balance`: the rows to repair, selected by one recipe from the flags or by the
// recipes of a file.
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"
#include "ptxbench/fixit/config.hpp"

namespace ptxbench::cli {
namespace {

struct BalanceFlags {
  FixitFolderFlags where;
  std::string recipe = "balanced", mode = "balanced", recipe_file;
  std::optional<int> per_task_cap, total;
  std::uint64_t seed = 0;
};

// The recipes of the file, or the one the flags describe (read as a recipe file's entry, so
// its checks and messages are the file's).
util::Expected<std::vector<fixit::Recipe>> recipes_of(const BalanceFlags& flags) {
  if (!flags.recipe_file.empty()) return fixit::load_recipes(flags.recipe_file);
  nlohmann::json json{{"name", flags.recipe}, {"mode", flags.mode}, {"seed", flags.seed}};
  if (flags.per_task_cap) json["per_task_cap"] = *flags.per_task_cap;
  if (flags.total) json["total"] = *flags.total;
  auto recipe = fixit::recipe_from_json(json);
  if (!recipe) return recipe.error();
  return std::vector<fixit::Recipe>{*recipe};
}

int run_balance(const BalanceFlags& flags) {
  auto recipes = recipes_of(flags);
  if (!recipes) {
    fmt::print(stderr, "ptxbench fixit balance: {}\n", recipes.error().message);
    return kExitUsage;
  }
  return with_folder(flags.where, {},
                     [&](const fixit::FixitFolder& folder, const fixit::Environment&) {
                       return finish_stage("balance", fixit::fixit_balance(folder, *recipes));
                     });
}

}  // namespace

void add_fixit_balance(CLI::App& balance, CommandContext& context) {
  auto flags = std::make_shared<BalanceFlags>();
  add_fixit_folder_flags(balance, flags->where);
  balance.add_option("--recipe", flags->recipe, "Recipe name")->capture_default_str();
  balance.add_option("--mode", flags->mode, "balanced or volume")->capture_default_str();
  balance.add_option("--per-task-cap", flags->per_task_cap, "Rows per task at most");
  balance.add_option("--total", flags->total, "Rows at most");
  balance.add_option("--seed", flags->seed, "Seed of the order within strata")
      ->capture_default_str();
  balance.add_option("--recipes", flags->recipe_file, "YAML/JSON file with a list of recipes");
  on_fixit_run(balance, context, flags, &run_balance);
}

}  // namespace ptxbench::cli
