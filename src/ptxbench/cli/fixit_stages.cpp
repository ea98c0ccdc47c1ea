#include "ptxbench/cli/fixit_stages.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/fixit/dataset_card.hpp"
#include "ptxbench/fixit/explanation_variant.hpp"
#include "ptxbench/fixit/export_files.hpp"
#include "ptxbench/fixit/export_rows.hpp"
#include "ptxbench/fixit/replay_teacher.hpp"
#include "ptxbench/fixit/verify.hpp"
#include "ptxbench/model/provider_factory.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

int fail(std::string_view stage, const std::string& message, int code = kExitUsage) {
  fmt::print(stderr, "ptxbench fixit {}: {}\n", stage, message);
  return code;
}

void say(std::string_view line) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  fmt::print(stderr, "  {}\n", line);
}

// The rows a selection names (all rows without one), in mined order.
std::vector<fixit::MinedRow> selected_rows(const std::vector<fixit::MinedRow>& mined,
                                           const std::optional<fixit::Selection>& selection) {
  if (!selection) return mined;
  std::set<std::string> ids(selection->ids.begin(), selection->ids.end());
  std::vector<fixit::MinedRow> out;
  for (const auto& row : mined)
    if (ids.contains(row.id)) out.push_back(row);
  return out;
}

// Replaces the rows of the same mined id, keeps the others (rows of other selections).
template <class Row>
std::vector<Row> merged(std::vector<Row> before, const std::vector<Row>& fresh) {
  std::map<std::string, std::size_t> where;
  for (std::size_t i = 0; i < before.size(); ++i) where[before[i].mined_id] = i;
  for (const auto& row : fresh) {
    if (auto it = where.find(row.mined_id); it != where.end())
      before[it->second] = row;
    else
      before.push_back(row);
  }
  return before;
}

// Teacher for a stage. `replay_teacher` picks the repair or the explainer of the catalog.
util::Expected<fixit::Teacher> make_teacher(const TeacherChoice& choice,
                                            const std::vector<fixit::MinedRow>& rows,
                                            const std::vector<task::Task>& suite, bool explainer) {
  if (!choice.replay_solutions.empty()) {
    auto catalog = fixit::load_replay_catalog(choice.replay_solutions);
    if (!catalog) return catalog.error();
    auto teachers = fixit::make_replay_teachers(*catalog, rows, suite);
    if (!teachers) return teachers.error();
    for (const auto& id : teachers->unmatched)
      say(fmt::format(
          "{}: no recorded repair in the replay catalog; the replay teacher cannot answer it", id));
    return explainer ? teachers->explainer : teachers->repair;
  }
  model::ProviderConfig config;
  if (!choice.config_file.empty()) {
    auto json = agent::load_yaml_file(choice.config_file);
    if (!json) return json.error();
    auto parsed =
        model::provider_config_from_json(*json, fs::path(choice.config_file).parent_path());
    if (!parsed) return util::make_error(choice.config_file + ": " + parsed.error().message);
    config = *parsed;
  } else if (!choice.command.empty()) {
    config.name = choice.name.empty() ? "command-teacher" : choice.name;
    config.kind = model::ProviderKind::kCommand;
    config.command = choice.command;
    config.retry.max_attempts = 1;
  } else {
    return util::make_error(
        "no teacher: give --teacher replay, --teacher-config FILE or --teacher-command");
  }
  auto provider = model::make_provider(config);
  if (!provider) return provider.error();
  return fixit::Teacher{.name = config.name,
                        .kind = std::string(model::to_string(config.kind)),
                        .provider = *provider};
}

Json teacher_json(const TeacherChoice& choice) {
  return {{"replay", choice.replay_solutions},
          {"config", choice.config_file},
          {"command", choice.command}};
}

}  // namespace

util::Expected<std::optional<fixit::Selection>> read_selection(const fixit::FixitFolder& folder,
                                                               const std::string& name) {
  std::string chosen = name;
  if (chosen.empty()) {
    std::vector<std::string> names;
    if (fs::is_directory(folder.root() / "selections"))
      for (const auto& entry : fs::directory_iterator(folder.root() / "selections"))
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    if (names.empty()) return std::optional<fixit::Selection>();
    if (names.size() > 1)
      return util::make_error(fmt::format("several selections ({}); name one with --selection",
                                          fmt::join(names, ", ")));
    chosen = names.front();
  }
  fs::path path = folder.selection_path(chosen);
  auto text = util::read_file(path);
  if (!text)
    return util::make_error(fmt::format("selection '{}': {}", chosen, text.error().message));
  Json json = Json::parse(*text, nullptr, false);
  if (json.is_discarded()) return util::make_error(path.string() + ": not valid JSON");
  auto selection = fixit::selection_from_json(json);
  if (!selection) return util::make_error(path.string() + ": " + selection.error().message);
  return std::optional<fixit::Selection>(std::move(*selection));
}

int fixit_mine(const fixit::FixitFolder& folder, const FixitEnvironment& env,
               const std::vector<fs::path>& runs, const fixit::MineFilters& filters) {
  auto result = fixit::mine_runs(runs, env.suite, filters);
  if (!result) return fail("mine", result.error().message);
  for (const auto& problem : result->problems) say("skipped: " + problem);
  folder.write_mined(result->rows);
  Json manifest = fixit::manifest_of(*result);
  util::write_file_atomic(folder.manifest_path(), manifest.dump(2) + "\n");
  std::vector<std::string> run_names;
  for (const auto& run : runs) run_names.push_back(run.string());
  folder.record_stage("mine", {{"runs", run_names}, {"include_not_run", filters.include_not_run}});
  fmt::print("mine: {} failing turn(s) of {} seen, {} duplicate(s) dropped -> {}\n",
             result->rows.size(), result->turns_seen, result->duplicates,
             folder.mined_path().string());
  for (const auto& [task, kinds] : manifest["counts"].items())
    for (const auto& [kind, turns] : kinds.items())
      for (const auto& [turn, count] : turns.items())
        fmt::print("  {:<24} {:<26} turn {}: {}\n", task, kind, turn, count.get<int>());
  return kExitOk;
}

int fixit_balance(const fixit::FixitFolder& folder, const std::vector<fixit::Recipe>& recipes) {
  auto mined = folder.read_mined();
  if (!mined) return fail("balance", mined.error().message);
  if (mined->empty())
    return fail("balance",
                folder.mined_path().string() + ": no mined rows (run `fixit mine` first)");
  for (const auto& recipe : recipes) {
    fixit::Selection selection = fixit::balance(*mined, recipe);
    fs::create_directories(folder.selection_path(recipe.name).parent_path());
    util::write_file_atomic(folder.selection_path(recipe.name),
                            fixit::to_json(selection).dump(2) + "\n");
    folder.record_stage("balance", fixit::to_json(recipe));
    fmt::print("balance: recipe {} took {} of {} row(s) -> {}\n", recipe.name, selection.ids.size(),
               mined->size(), folder.selection_path(recipe.name).string());
    for (const auto& [task, cells] : selection.strata)
      for (const auto& [key, count] : cells)
        fmt::print("  {:<24} {:<36} {} of {}\n", task, key, count.taken, count.available);
  }
  return kExitOk;
}

std::shared_ptr<eval::Engine> engine_of(const FixitEnvironment& env, std::string_view stage) {
  if (!env.engine) env.engine = open_command_engine("fixit " + std::string(stage), env.settings);
  return env.engine;
}

int fixit_repair(const fixit::FixitFolder& folder, const FixitEnvironment& env,
                 const std::string& selection_name, const TeacherChoice& choice,
                 const fixit::RepairOptions& options) {
  auto mined = folder.read_mined();
  if (!mined) return fail("repair", mined.error().message);
  auto selection = read_selection(folder, selection_name);
  if (!selection) return fail("repair", selection.error().message);
  auto rows = selected_rows(*mined, *selection);
  auto teacher = make_teacher(choice, rows, env.suite, /*explainer=*/false);
  if (!teacher) return fail("repair", teacher.error().message);
  auto engine = engine_of(env, "repair");
  if (!engine) return kExitUsage;
  auto summary =
      fixit::repair_rows(folder, rows, env.suite, *teacher, engine->function(), options, say);
  if (!summary) return fail("repair", summary.error().message);
  auto before = folder.read_repairs();
  if (!before) return fail("repair", before.error().message);
  folder.write_repairs(merged(std::move(*before), summary->rows));
  folder.record_stage("repair", {{"teacher", teacher_json(choice)},
                                 {"teacher_name", teacher->name},
                                 {"max_turns", options.max_turns},
                                 {"strict", options.strict},
                                 {"rows", rows.size()}});
  std::map<std::string, int> counts;
  for (const auto& row : summary->rows) ++counts[std::string(fixit::to_string(row.status))];
  fmt::print(
      "repair: {} row(s) with teacher {}: {} repaired, {} unjudged (GPU stages not run), {} not "
      "repaired -> {}\n",
      summary->rows.size(), teacher->name, counts["repaired"], counts["unjudged"],
      counts["not_repaired"], folder.repairs_path().string());
  for (const auto& error : summary->errors) fmt::print(stderr, "internal error: {}\n", error);
  return summary->errors.empty() ? kExitOk : kExitInternal;
}

int fixit_verify(const fixit::FixitFolder& folder, const FixitEnvironment& env, bool reevaluate,
                 bool all) {
  auto mined = folder.read_mined();
  if (!mined) return fail("verify", mined.error().message);
  auto repairs = folder.read_repairs();
  if (!repairs) return fail("verify", repairs.error().message);
  std::shared_ptr<eval::Engine> engine;
  if (reevaluate) {
    engine = engine_of(env, "verify");
    if (!engine) return kExitUsage;
  }
  agent::EvaluateFn evaluate = engine ? agent::EvaluateFn(engine->function()) : nullptr;
  fixit::VerifyOptions options{.evaluate = reevaluate ? &evaluate : nullptr, .reevaluate_all = all};
  auto rows = fixit::verify_rows(*repairs, *mined, env.suite, options);
  folder.write_verified(rows);
  folder.record_stage("verify",
                      {{"gpu", env.settings.gpu}, {"reevaluate", reevaluate}, {"all", all}});
  std::map<std::string, int> counts;
  for (const auto& row : rows) ++counts[std::string(fixit::to_string(row.status))];
  fmt::print("verify: {} verified, {} unverified, {} rejected -> {}\n", counts["verified"],
             counts["unverified"], counts["rejected"], folder.verified_path().string());
  for (const auto& row : rows)
    if (row.status != fixit::VerifyStatus::kVerified)
      fmt::print("  {} {}: {}\n", row.mined_id, fixit::to_string(row.status), row.reason);
  return kExitOk;
}

int fixit_explain(const fixit::FixitFolder& folder, const FixitEnvironment& env,
                  const std::string& selection_name, const TeacherChoice& choice,
                  const fixit::ExplainOptions& options) {
  auto mined = folder.read_mined();
  if (!mined) return fail("explain", mined.error().message);
  auto repairs = folder.read_repairs();
  if (!repairs) return fail("explain", repairs.error().message);
  auto before = folder.read_explained();
  if (!before) return fail("explain", before.error().message);
  auto selection = read_selection(folder, selection_name);
  if (!selection) return fail("explain", selection.error().message);
  auto rows = selected_rows(*mined, *selection);
  std::set<std::string> ids;
  for (const auto& row : rows) ids.insert(row.id);
  std::vector<fixit::RepairRow> wanted;
  for (const auto& repair : *repairs)
    if (ids.contains(repair.mined_id)) wanted.push_back(repair);
  auto explainer = make_teacher(choice, rows, env.suite, /*explainer=*/true);
  if (!explainer) return fail("explain", explainer.error().message);
  auto fresh = fixit::explain_rows(rows, wanted, *before, *explainer, options, say);
  folder.write_explained(fixit::merge_explained(std::move(*before), fresh));
  folder.record_stage("explain", {{"explainer", teacher_json(choice)},
                                  {"length_bin", options.limits.bin.name},
                                  {"token_budget", options.limits.token_budget},
                                  {"max_attempts", options.max_attempts}});
  int accepted = 0;
  for (const auto& row : fresh) accepted += row.accepted() ? 1 : 0;
  fmt::print("explain: {} of {} accepted ({} length, budget {} tokens) -> {}\n", accepted,
             fresh.size(), options.limits.bin.name, options.limits.token_budget,
             folder.explained_path().string());
  return kExitOk;
}

int fixit_export(const fixit::FixitFolder& folder, const FixitEnvironment& env,
                 const std::string& selection_name, bool include_unverified,
                 const std::vector<fs::path>& kernelgen_runs,
                 const fixit::ExplanationFilter& explanations, fs::path* written) {
  auto mined = folder.read_mined();
  if (!mined) return fail("export", mined.error().message);
  auto repairs = folder.read_repairs();
  if (!repairs) return fail("export", repairs.error().message);
  auto verified = folder.read_verified();
  if (!verified) return fail("export", verified.error().message);
  auto explained = folder.read_explained();
  if (!explained) return fail("export", explained.error().message);
  auto selection = read_selection(folder, selection_name);
  if (!selection) return fail("export", selection.error().message);
  auto variant = fixit::choose_variant(*explained, explanations);
  if (!variant) return fail("export", variant.error().message);
  std::vector<fixit::ExplainedRow> used =
      *variant ? fixit::rows_of_variant(*explained, **variant) : std::vector<fixit::ExplainedRow>{};
  fixit::ExportOptions options{.include_unverified = include_unverified};
  fixit::ExportedSet set =
      fixit::export_fixit_rows({.mined = &*mined,
                                .repairs = &*repairs,
                                .verified = &*verified,
                                .explained = &used,
                                .selection = *selection ? &**selection : nullptr},
                               env.suite, options);
  auto kernelgen = fixit::export_kernelgen_rows(kernelgen_runs, env.suite, options);
  if (!kernelgen) return fail("export", kernelgen.error().message);
  set.kernelgen = std::move(kernelgen->rows);
  set.left_out.insert(set.left_out.end(), kernelgen->left_out.begin(), kernelgen->left_out.end());
  std::string name = *selection ? (*selection)->recipe.name : "all";
  fs::path dir = folder.export_dir(name) / (*variant ? (*variant)->key() : fixit::kUnexplainedKey);
  // Built aside and renamed into place: a refused or killed export leaves no half-written folder.
  auto staged = util::StagedFolder::begin(dir, util::StagedFolder::Start::kEmpty);
  if (!staged) return fail("export", staged.error().message);
  fixit::ExportFiles files = fixit::write_export(staged->path(), set);
  std::string card = fixit::render_dataset_card({.fixit = &set.fixit,
                                                 .kernelgen = &set.kernelgen,
                                                 .selection = *selection ? &**selection : nullptr,
                                                 .left_out = set.left_out,
                                                 .content_hash = files.content_hash,
                                                 .data_files = files.data_files});
  util::write_file_atomic(staged->path() / "README.md", card);
  if (auto published = staged->publish(); !published)
    return fail("export", published.error().message);
  folder.record_stage("export", {{"selection", name},
                                 {"explanations", *variant ? (*variant)->key() : ""},
                                 {"include_unverified", include_unverified},
                                 {"fixit_rows", set.fixit.size()},
                                 {"kernelgen_rows", set.kernelgen.size()}});
  fmt::print("export: {} Fixit row(s), {} KernelGen row(s) -> {} (card: README.md)\n",
             set.fixit.size(), set.kernelgen.size(), dir.string());
  if (!*variant)
    fmt::print("  no explanation{}: every Fixit row is left out until `fixit explain` runs\n",
               explanations.length_bin.empty() && explanations.explainer.empty()
                   ? ""
                   : " matches --length/--explainer-name");
  for (const auto& line : set.left_out) fmt::print("  left out: {}\n", line);
  if (written != nullptr) *written = dir;
  return kExitOk;
}

}  // namespace ptxbench::cli
