#include "ptxbench/cli/fixit_output.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "ptxbench/cli/command.hpp"

namespace ptxbench::cli {
namespace {

void print(const fixit::MineOutcome& outcome) {
  fmt::print("mine: {} failing turn(s) of {} seen, {} duplicate(s) dropped -> {}\n", outcome.rows,
             outcome.turns_seen, outcome.duplicates, outcome.path.string());
  for (const auto& [task, kinds] : outcome.manifest["counts"].items())
    for (const auto& [kind, turns] : kinds.items())
      for (const auto& [turn, count] : turns.items())
        fmt::print("  {:<24} {:<26} turn {}: {}\n", task, kind, turn, count.get<int>());
}

void print(const std::vector<fixit::BalanceOutcome>& outcomes) {
  for (const auto& outcome : outcomes) {
    const fixit::Selection& selection = outcome.selection;
    fmt::print("balance: recipe {} took {} of {} row(s) -> {}\n", selection.recipe.name,
               selection.ids.size(), outcome.mined, outcome.path.string());
    for (const auto& [task, cells] : selection.strata)
      for (const auto& [key, count] : cells)
        fmt::print("  {:<24} {:<36} {} of {}\n", task, key, count.taken, count.available);
  }
}

void print(const fixit::RepairOutcome& outcome) {
  std::map<std::string, int> counts;
  for (const auto& row : outcome.rows) ++counts[std::string(fixit::to_string(row.status))];
  fmt::print(
      "repair: {} row(s) with teacher {}: {} repaired, {} unjudged (GPU stages not run), {} not "
      "repaired -> {}\n",
      outcome.rows.size(), outcome.teacher, counts["repaired"], counts["unjudged"],
      counts["not_repaired"], outcome.path.string());
  for (const auto& error : outcome.errors) fmt::print(stderr, "internal error: {}\n", error);
}

void print(const fixit::VerifyOutcome& outcome) {
  std::map<std::string, int> counts;
  for (const auto& row : outcome.rows) ++counts[std::string(fixit::to_string(row.status))];
  fmt::print("verify: {} verified, {} unverified, {} rejected -> {}\n", counts["verified"],
             counts["unverified"], counts["rejected"], outcome.path.string());
  for (const auto& row : outcome.rows)
    if (row.status != fixit::VerifyStatus::kVerified)
      fmt::print("  {} {}: {}\n", row.mined_id, fixit::to_string(row.status), row.reason);
}

void print(const fixit::ExplainOutcome& outcome) {
  fmt::print("explain: {} of {} accepted ({} length, budget {} tokens) -> {}\n", outcome.accepted,
             outcome.explained, outcome.limits.bin.name, outcome.limits.token_budget,
             outcome.path.string());
}

void print(const fixit::ExportOutcome& outcome) {
  fmt::print("export: {} Fixit row(s), {} KernelGen row(s) -> {} (card: README.md)\n",
             outcome.fixit_rows, outcome.kernelgen_rows, outcome.dir.string());
  if (!outcome.explained)
    fmt::print("  no explanation{}: every Fixit row is left out until `fixit explain` runs\n",
               outcome.filtered ? " matches --length/--explainer-name" : "");
  for (const auto& line : outcome.left_out) fmt::print("  left out: {}\n", line);
}

bool has_errors(const fixit::RepairOutcome& outcome) {
  return !outcome.errors.empty();
}
template <class Outcome>
bool has_errors(const Outcome&) {
  return false;
}

}  // namespace

fixit::Environment with_fixit_output(fixit::Environment env) {
  env.say = [](std::string_view line) {
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    fmt::print(stderr, "  {}\n", line);
  };
  env.open_engine = [](const eval::EvaluationSettings& settings,
                       std::string_view stage) -> util::Expected<std::shared_ptr<eval::Engine>> {
    auto engine = eval::open_engine(settings);
    if (engine)
      if (auto warning = (*engine)->warning())
        fmt::print(stderr, "ptxbench fixit {}: WARNING: {}\n", stage, *warning);
    return engine;
  };
  return env;
}

void print_outcome(const fixit::StageOutcome& outcome) {
  std::visit([](const auto& value) { print(value); }, outcome);
}

template <class Outcome>
int finish_stage(std::string_view stage, const util::Expected<Outcome>& outcome) {
  if (!outcome) {
    fmt::print(stderr, "ptxbench fixit {}: {}\n", stage, outcome.error().message);
    return kExitUsage;
  }
  print(*outcome);
  return has_errors(*outcome) ? kExitInternal : kExitOk;
}

template int finish_stage(std::string_view, const util::Expected<fixit::MineOutcome>&);
template int finish_stage(std::string_view,
                          const util::Expected<std::vector<fixit::BalanceOutcome>>&);
template int finish_stage(std::string_view, const util::Expected<fixit::RepairOutcome>&);
template int finish_stage(std::string_view, const util::Expected<fixit::VerifyOutcome>&);
template int finish_stage(std::string_view, const util::Expected<fixit::ExplainOutcome>&);
template int finish_stage(std::string_view, const util::Expected<fixit::ExportOutcome>&);

int finish_chain(const std::optional<fixit::StageFailure>& failure) {
  if (!failure) return kExitOk;
  if (failure->internal) return kExitInternal;
  fmt::print(stderr, "ptxbench fixit {}: {}\n", failure->stage, failure->message);
  return kExitUsage;
}

}  // namespace ptxbench::cli
