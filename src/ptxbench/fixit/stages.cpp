#include "ptxbench/fixit/stages.hpp"

#include <fmt/format.h>

#include <set>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/fixit/dataset_card.hpp"
#include "ptxbench/fixit/explanation_variant.hpp"
#include "ptxbench/fixit/export_files.hpp"
#include "ptxbench/fixit/export_rows.hpp"
#include "ptxbench/fixit/repair_teachers.hpp"
#include "ptxbench/fixit/replay_teacher.hpp"
#include "ptxbench/fixit/verify.hpp"
#include "ptxbench/model/provider_factory.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

void say(const Environment& env, std::string_view line) {
  if (env.say) env.say(line);
}

// The rows a selection names (all rows without one), in mined order.
std::vector<MinedRow> selected_rows(const std::vector<MinedRow>& mined,
                                    const std::optional<Selection>& selection) {
  if (!selection) return mined;
  std::set<std::string> ids(selection->ids.begin(), selection->ids.end());
  std::vector<MinedRow> out;
  for (const auto& row : mined)
    if (ids.contains(row.id)) out.push_back(row);
  return out;
}

// Teacher for a stage. `replay_teacher` picks the repair or the explainer of the catalog.
util::Expected<Teacher> make_teacher(const TeacherChoice& choice, const std::vector<MinedRow>& rows,
                                     const Environment& env, bool explainer) {
  if (!choice.replay_solutions.empty()) {
    auto catalog = load_replay_catalog(choice.replay_solutions);
    if (!catalog) return catalog.error();
    auto teachers = make_replay_teachers(*catalog, rows, env.suite);
    if (!teachers) return teachers.error();
    for (const auto& id : teachers->unmatched)
      say(env,
          fmt::format(
              "{}: no recorded repair in the replay catalog; the replay teacher cannot answer it",
              id));
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
  return Teacher{.name = config.name,
                 .kind = std::string(model::to_string(config.kind)),
                 .provider = *provider};
}

Json teacher_json(const TeacherChoice& choice) {
  return {{"replay", choice.replay_solutions},
          {"config", choice.config_file},
          {"command", choice.command}};
}

}  // namespace

util::Expected<std::optional<Selection>> read_selection(const FixitFolder& folder,
                                                        const std::string& name) {
  std::string chosen = name;
  if (chosen.empty()) {
    std::vector<std::string> names;
    if (fs::is_directory(folder.root() / "selections"))
      for (const auto& entry : fs::directory_iterator(folder.root() / "selections"))
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    if (names.empty()) return std::optional<Selection>();
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
  auto selection = selection_from_json(json);
  if (!selection) return util::make_error(path.string() + ": " + selection.error().message);
  return std::optional<Selection>(std::move(*selection));
}

util::Expected<Environment> load_environment(const fs::path& tasks_dir,
                                             const eval::EvaluationSettings& settings) {
  auto suite = task::load_suite(tasks_dir.empty() ? task::default_tasks_dir() : tasks_dir);
  if (!suite) return suite.error();
  Environment env{.suite = std::move(*suite), .settings = settings};
  eval::apply_correctness_rule(env.settings, env.suite);
  return env;
}

util::Expected<MineOutcome> fixit_mine(const FixitFolder& folder, const Environment& env,
                                       const std::vector<fs::path>& runs,
                                       const MineFilters& filters) {
  auto result = mine_runs(runs, env.suite, filters);
  if (!result) return result.error();
  for (const auto& problem : result->problems) say(env, "skipped: " + problem);
  folder.write_mined(result->rows);
  Json manifest = manifest_of(*result);
  util::write_file_atomic(folder.manifest_path(), manifest.dump(2) + "\n");
  std::vector<std::string> run_names;
  for (const auto& run : runs) run_names.push_back(run.string());
  folder.record_stage("mine", {{"runs", run_names}, {"include_not_run", filters.include_not_run}});
  return MineOutcome{.rows = result->rows.size(),
                     .turns_seen = result->turns_seen,
                     .duplicates = result->duplicates,
                     .path = folder.mined_path(),
                     .manifest = std::move(manifest)};
}

util::Expected<std::vector<BalanceOutcome>> fixit_balance(const FixitFolder& folder,
                                                          const std::vector<Recipe>& recipes) {
  auto mined = folder.read_mined();
  if (!mined) return mined.error();
  if (mined->empty())
    return util::make_error(folder.mined_path().string() +
                            ": no mined rows (run `fixit mine` first)");
  std::vector<BalanceOutcome> out;
  for (const auto& recipe : recipes) {
    Selection selection = balance(*mined, recipe);
    fs::create_directories(folder.selection_path(recipe.name).parent_path());
    util::write_file_atomic(folder.selection_path(recipe.name), to_json(selection).dump(2) + "\n");
    folder.record_stage("balance", to_json(recipe));
    out.push_back({.selection = std::move(selection),
                   .mined = mined->size(),
                   .path = folder.selection_path(recipe.name)});
  }
  return out;
}

util::Expected<std::shared_ptr<eval::Engine>> engine_of(const Environment& env,
                                                        std::string_view stage) {
  if (env.engine) return env.engine;
  auto engine =
      env.open_engine ? env.open_engine(env.settings, stage) : eval::open_engine(env.settings);
  if (engine) env.engine = *engine;
  return engine;
}

util::Expected<RepairOutcome> fixit_repair(const FixitFolder& folder, const Environment& env,
                                           const std::string& selection_name,
                                           const TeacherChoice& choice,
                                           const RepairOptions& options) {
  auto mined = folder.read_mined();
  if (!mined) return mined.error();
  auto selection = read_selection(folder, selection_name);
  if (!selection) return selection.error();
  auto rows = selected_rows(*mined, *selection);
  auto teacher = make_teacher(choice, rows, env, /*explainer=*/false);
  if (!teacher) return teacher.error();
  auto engine = engine_of(env, "repair");
  if (!engine) return engine.error();
  auto summary = repair_rows(folder, rows, env.suite, *teacher, (*engine)->function(), options,
                             [&env](std::string_view line) { say(env, line); });
  if (!summary) return summary.error();
  auto before = folder.read_repairs();
  if (!before) return before.error();
  folder.write_repairs(merge_repairs(std::move(*before), summary->rows));
  folder.record_stage("repair", {{"teacher", teacher_json(choice)},
                                 {"teacher_name", teacher->name},
                                 {"max_turns", options.max_turns},
                                 {"strict", options.strict},
                                 {"rows", rows.size()}});
  return RepairOutcome{.teacher = teacher->name,
                       .rows = std::move(summary->rows),
                       .path = folder.repairs_path(),
                       .errors = std::move(summary->errors)};
}

util::Expected<VerifyOutcome> fixit_verify(const FixitFolder& folder, const Environment& env,
                                           bool reevaluate, bool all) {
  auto mined = folder.read_mined();
  if (!mined) return mined.error();
  auto repairs = folder.read_repairs();
  if (!repairs) return repairs.error();
  std::shared_ptr<eval::Engine> engine;
  if (reevaluate) {
    auto opened = engine_of(env, "verify");
    if (!opened) return opened.error();
    engine = *opened;
  }
  agent::EvaluateFn evaluate = engine ? agent::EvaluateFn(engine->function()) : nullptr;
  VerifyOptions options{.evaluate = reevaluate ? &evaluate : nullptr, .reevaluate_all = all};
  auto rows = verify_rows(*repairs, *mined, env.suite, options);
  folder.write_verified(rows);
  folder.record_stage("verify",
                      {{"gpu", env.settings.gpu}, {"reevaluate", reevaluate}, {"all", all}});
  return VerifyOutcome{.rows = std::move(rows), .path = folder.verified_path()};
}

util::Expected<ExplainOutcome> fixit_explain(const FixitFolder& folder, const Environment& env,
                                             const std::string& selection_name,
                                             const std::string& teacher_name,
                                             const TeacherChoice& choice,
                                             const ExplainOptions& options) {
  auto mined = folder.read_mined();
  if (!mined) return mined.error();
  auto repairs = folder.read_repairs();
  if (!repairs) return repairs.error();
  auto before = folder.read_explained();
  if (!before) return before.error();
  auto selection = read_selection(folder, selection_name);
  if (!selection) return selection.error();
  auto rows = selected_rows(*mined, *selection);
  std::set<std::string> ids;
  for (const auto& row : rows) ids.insert(row.id);
  std::vector<RepairRow> wanted;
  for (const auto& repair : *repairs)
    if (ids.contains(repair.mined_id)) wanted.push_back(repair);
  auto teacher = choose_teacher(wanted, teacher_name);
  if (!teacher) return teacher.error();
  wanted = rows_of_teacher(wanted, *teacher);
  auto explainer = make_teacher(choice, rows, env, /*explainer=*/true);
  if (!explainer) return explainer.error();
  auto fresh = explain_rows(rows, wanted, rows_of_teacher(*before, *teacher), *explainer, options,
                            [&env](std::string_view line) { say(env, line); });
  folder.write_explained(merge_explained(std::move(*before), fresh));
  folder.record_stage("explain", {{"explainer", teacher_json(choice)},
                                  {"teacher_name", *teacher},
                                  {"length_bin", options.limits.bin.name},
                                  {"token_budget", options.limits.token_budget},
                                  {"max_attempts", options.max_attempts}});
  int accepted = 0;
  for (const auto& row : fresh) accepted += row.accepted() ? 1 : 0;
  return ExplainOutcome{.explained = fresh.size(),
                        .accepted = accepted,
                        .limits = options.limits,
                        .path = folder.explained_path()};
}

util::Expected<ExportOutcome> fixit_export(const FixitFolder& folder, const Environment& env,
                                           const std::string& selection_name,
                                           const std::string& teacher_name, bool include_unverified,
                                           const std::vector<fs::path>& kernelgen_runs,
                                           const ExplanationFilter& explanations) {
  auto rows = folder.read_all();
  if (!rows) return rows.error();
  auto selection = read_selection(folder, selection_name);
  if (!selection) return selection.error();
  auto teacher = choose_teacher(rows->repairs, teacher_name);
  if (!teacher) return teacher.error();
  const bool several_teachers = teachers_of(rows->repairs).size() > 1;
  rows->repairs = rows_of_teacher(rows->repairs, *teacher);
  rows->verified = rows_of_teacher(rows->verified, *teacher);
  rows->explained = rows_of_teacher(rows->explained, *teacher);
  auto variant = choose_variant(rows->explained, explanations);
  if (!variant) return variant.error();
  std::vector<ExplainedRow> used =
      *variant ? rows_of_variant(rows->explained, **variant) : std::vector<ExplainedRow>{};
  ExportOptions options{.include_unverified = include_unverified};
  ExportedSet set = export_fixit_rows({.mined = &rows->mined,
                                       .repairs = &rows->repairs,
                                       .verified = &rows->verified,
                                       .explained = &used,
                                       .selection = *selection ? &**selection : nullptr},
                                      env.suite, options);
  auto kernelgen = export_kernelgen_rows(kernelgen_runs, env.suite, options);
  if (!kernelgen) return kernelgen.error();
  set.kernelgen = std::move(kernelgen->rows);
  set.left_out.insert(set.left_out.end(), kernelgen->left_out.begin(), kernelgen->left_out.end());
  std::string name = *selection ? (*selection)->recipe.name : "all";
  fs::path dir = folder.export_dir(name) / export_key(*variant, *teacher, several_teachers);
  // Built aside and renamed into place: a refused or killed export leaves no half-written folder.
  auto staged = util::StagedFolder::begin(dir, util::StagedFolder::Start::kEmpty);
  if (!staged) return staged.error();
  ExportFiles files = write_export(staged->path(), set);
  std::string card = render_dataset_card({.fixit = &set.fixit,
                                          .kernelgen = &set.kernelgen,
                                          .selection = *selection ? &**selection : nullptr,
                                          .left_out = set.left_out,
                                          .content_hash = files.content_hash,
                                          .data_files = files.data_files});
  util::write_file_atomic(staged->path() / "README.md", card);
  if (auto published = staged->publish(); !published) return published.error();
  folder.record_stage("export", {{"selection", name},
                                 {"teacher_name", *teacher},
                                 {"explanations", *variant ? (*variant)->key() : ""},
                                 {"include_unverified", include_unverified},
                                 {"fixit_rows", set.fixit.size()},
                                 {"kernelgen_rows", set.kernelgen.size()}});
  return ExportOutcome{
      .fixit_rows = set.fixit.size(),
      .kernelgen_rows = set.kernelgen.size(),
      .dir = dir,
      .explained = variant->has_value(),
      .filtered = !explanations.length_bin.empty() || !explanations.explainer.empty(),
      .left_out = std::move(set.left_out)};
}

}  // namespace ptxbench::fixit
