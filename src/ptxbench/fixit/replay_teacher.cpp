#include "ptxbench/fixit/replay_teacher.hpp"

#include <fmt/format.h>

#include <map>

#include "ptxbench/fixit/mine.hpp"
#include "ptxbench/model/replay_provider.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::fixit {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::json;
}  // namespace

util::Expected<std::vector<ReplayCatalogEntry>> load_replay_catalog(const fs::path& solutions_dir) {
  fs::path path = solutions_dir / "fixit" / "catalog.json";
  auto text = util::read_file(path);
  if (!text) return text.error();
  Json json = Json::parse(*text, nullptr, false);
  if (json.is_discarded() || !json.contains("repairs") || !json["repairs"].is_array())
    return util::make_error(path.string() + ": repairs: expected an array");
  std::vector<ReplayCatalogEntry> out;
  for (std::size_t i = 0; i < json["repairs"].size(); ++i) {
    const Json& entry = json["repairs"][i];
    ReplayCatalogEntry parsed;
    for (const char* field : {"broken", "repair", "explanation"}) {
      if (!entry.is_object() || !entry.contains(field) || !entry[field].is_string())
        return util::make_error(
            fmt::format("{}: repairs[{}].{}: expected a path", path.string(), i, field));
      fs::path value = solutions_dir / entry[field].get<std::string>();
      if (!fs::exists(value))
        return util::make_error(fmt::format("{}: repairs[{}].{}: {} does not exist", path.string(),
                                            i, field, value.string()));
      (std::string_view(field) == "broken"   ? parsed.broken
       : std::string_view(field) == "repair" ? parsed.repair
                                             : parsed.explanation) = value;
    }
    out.push_back(std::move(parsed));
  }
  return out;
}

util::Expected<ReplayTeachers> make_replay_teachers(const std::vector<ReplayCatalogEntry>& catalog,
                                                    const std::vector<MinedRow>& rows,
                                                    const std::vector<task::Task>& suite) {
  std::map<std::string, const ReplayCatalogEntry*> by_name, by_code;
  for (const auto& entry : catalog) {
    by_name[entry.broken.filename().string()] = &entry;
    auto code = util::read_file(entry.broken);
    if (!code) return code.error();
    by_code[util::hash_hex(normalize_code(*code))] = &entry;
  }
  ReplayTeachers teachers{.repair = {.name = "replay-expert", .kind = "replay"},
                          .explainer = {.name = "replay-explainer", .kind = "replay"}};
  model::ReplayBook repairs, explanations;
  for (const auto& row : rows) {
    const ReplayCatalogEntry* entry = nullptr;
    if (auto it = by_name.find(fs::path(row.source.reply_file).filename().string());
        it != by_name.end())
      entry = it->second;
    else if (auto code = by_code.find(row.normalized_hash); code != by_code.end())
      entry = code->second;
    const task::Task* task = task::find_task(suite, row.task);
    if (entry == nullptr || task == nullptr) {
      teachers.unmatched.push_back(row.id);
      continue;
    }
    auto repair = util::read_file(entry->repair);
    if (!repair) return repair.error();
    auto explanation = util::read_file(entry->explanation);
    if (!explanation) return explanation.error();
    repairs.add(
        repair_spec(row, teachers.repair, *task).id(),
        {{.content = model::as_reply(*repair, entry->repair), .source = entry->repair.string()}});
    explanations.add("explain__" + row.id,
                     {{.content = *explanation, .source = entry->explanation.string()}});
  }
  teachers.repair.provider = std::make_shared<model::ReplayProvider>(std::move(repairs));
  teachers.explainer.provider = std::make_shared<model::ReplayProvider>(std::move(explanations));
  return teachers;
}

}  // namespace ptxbench::fixit
