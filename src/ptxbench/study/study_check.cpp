#include "ptxbench/study/study_check.hpp"

#include <fmt/format.h>

#include <system_error>
#include <vector>

#include "ptxbench/agent/run_config.hpp"
#include "ptxbench/model/provider_config.hpp"
#include "ptxbench/model/provider_factory.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::study {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::json;

// A provider entry that needs no network is made now (a replay reads its replies, a command's
// program is looked up); an HTTP one is only read, since its server may start with the study.
std::string provider_problem(const Json& entry, const std::string& name, const fs::path& dir) {
  Json named = entry;
  named["name"] = name;
  auto config = model::provider_config_from_json(named, dir);
  if (!config) return config.error().message;
  if (config->kind != model::ProviderKind::kReplay && config->kind != model::ProviderKind::kCommand)
    return {};
  auto provider = model::make_provider(*config);
  return provider ? std::string() : provider.error().message;
}

}  // namespace

util::Expected<bool> check_study(const StudyFile& study, const fs::path& default_tasks) {
  const std::string where = study.path.string() + ": ";
  const fs::path dir = study.path.parent_path().empty() ? fs::path(".") : study.path.parent_path();
  auto fail = [&](std::string_view field, const std::string& problem) {
    return util::make_error(fmt::format("{}{}: {}", where, field, problem));
  };

  std::error_code error;
  const auto out = fs::status(study.out, error);
  if (fs::exists(out) && !fs::is_directory(out))
    return fail("out", fmt::format("{}: exists and is not a folder", study.out.string()));

  const fs::path tasks_dir = study.tasks_dir.empty() ? default_tasks : study.tasks_dir;
  auto suite = task::load_suite(tasks_dir);
  if (!suite) return fail(study.tasks_dir.empty() ? "tasks" : "tasks_dir", suite.error().message);

  // The grid as each run step's run.yaml gives it to `ptxbench run`, with a stand-in model.
  Json grid = study.grid;
  grid["out"] = (study.out / "steps/run/check").string();
  grid["models"] = Json::array({{{"name", study.base.name},
                                 {"provider", "openai"},
                                 {"base_url", "http://127.0.0.1:1/v1"},
                                 {"model", study.base.name},
                                 {"api_key_env", ""}}});
  // run.yaml's reader names its field first ("samples: expected ..."): as a study field,
  // grid.samples.
  auto grid_fail = [&](const std::string& message) {
    const auto colon = message.find(':');
    const std::string field = message.substr(0, colon);
    if (colon != std::string::npos && agent::run_grid_fields().contains(field))
      return util::make_error(fmt::format("{}grid.{}", where, message));
    return fail("grid", message);
  };
  auto run = agent::run_config_from_json(grid, dir);
  if (!run) return grid_fail(run.error().message);
  if (auto valid = agent::validate(*run); !valid) return grid_fail(valid.error().message);
  if (auto tasks = agent::select_tasks(*suite, agent::task_selectors(*run)); !tasks)
    return fail("grid.tasks", tasks.error().message);

  if (study.base.model) {
    if (auto problem = provider_problem(*study.base.model, study.base.name, dir); !problem.empty())
      return fail("base.model", problem);
  }
  for (std::size_t i = 0; i < study.teachers.size(); ++i) {
    const auto& teacher = study.teachers[i];
    if (auto problem = provider_problem(teacher.model, teacher.name, dir); !problem.empty())
      return fail(fmt::format("teachers[{}].model", i), problem);
    if (!teacher.explainer) continue;
    if (auto problem = provider_problem(*teacher.explainer, teacher.name, dir); !problem.empty())
      return fail(fmt::format("teachers[{}].explainer", i), problem);
  }
  return true;
}

}  // namespace ptxbench::study
