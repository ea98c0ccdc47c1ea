#include "ptxbench/study/study_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/agent/run_config.hpp"
#include "ptxbench/eval/setting_table.hpp"
#include "ptxbench/util/field_reader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::study {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using util::FieldReader;

// `fixit all` fields a study passes on; the rest (folder, runs, teacher, recipes, explain
// length, export) the study writes itself per variant.
const std::set<std::string> kFixitFields = {"evaluation", "mine", "repair", "include_unverified",
                                            "solutions"};

fs::path resolve(const fs::path& base, const std::string& value) {
  if (value.empty()) return {};
  // Absolute: the configs the study writes live in its own folders.
  fs::path p(value);
  return p.is_absolute() ? p : fs::absolute(base / p).lexically_normal();
}

// A name used in folder names: letters, digits, '-', '_', '.', not starting with '.'.
bool is_folder_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// The run and Fixit configs the study writes live in the study folder: every folder setting
// (the setting table's folders: caches, kept artefacts) named relative to the study file is
// resolved first.
void resolve_cache(Json& config, const fs::path& dir) {
  if (!config.contains("evaluation") || !config["evaluation"].is_object()) return;
  Json& evaluation = config["evaluation"];
  for (const auto& row : eval::setting_table()) {
    const std::string key(row.field);
    if (row.type == eval::SettingType::kFolder && evaluation.contains(key) &&
        evaluation[key].is_string())
      evaluation[key] = resolve(dir, evaluation[key].get<std::string>()).string();
  }
}

// A replay provider's `path` named relative to the study file (the configs the study writes
// live elsewhere).
void resolve_provider(Json& entry, const fs::path& dir) {
  if (entry.is_object() && entry.contains("path") && entry["path"].is_string())
    entry["path"] = resolve(dir, entry["path"].get<std::string>()).string();
}

template <class T>
void read_list(FieldReader& read, std::string_view key, std::vector<T>& out) {
  read.mark(key);
  if (!read.ok() || !read.has(key)) return;
  const Json& value = read.at(key);
  if (!value.is_array()) return read.fail(key, "expected a list");
  for (const Json& item : value) {
    if constexpr (std::is_same_v<T, int>) {
      if (!item.is_number_integer()) return read.fail(key, "expected a list of integers");
      out.push_back(item.get<int>());
    } else {
      if (!item.is_string()) return read.fail(key, "expected a list of strings");
      out.push_back(item.get<std::string>());
    }
  }
}

// A mapping field (left as JSON for the command it goes to).
void read_mapping(FieldReader& read, std::string_view key, std::optional<Json>& out) {
  read.mark(key);
  if (!read.ok() || !read.has(key)) return;
  if (!read.at(key).is_object()) return read.fail(key, "expected a mapping");
  out = read.at(key);
}

void read_base(const Json& json, const std::string& where, const fs::path& dir, BaseModel& base,
               std::string& error) {
  FieldReader read(json, where + "base.");
  read.read("name", base.name);
  read_mapping(read, "model", base.model);
  if (base.model) resolve_provider(*base.model, dir);
  std::string weights;
  read.read("weights", weights);
  read.read("revision", base.revision);
  if (read.ok() && !is_folder_name(base.name))
    read.fail("name", "expected a name of letters, digits, '-', '_' or '.'");
  if (read.ok() && base.model && base.model->contains("name"))
    read.fail("model.name", "set by the study (base.name)");
  if (read.ok() && !base.model && weights.empty())
    read.fail("model", "expected `model` (an endpoint or replay) or `weights`, or both");
  // A hub id stays as written; a path that exists (or starts like one) is resolved.
  if (!weights.empty())
    base.weights =
        (weights.starts_with(".") || weights.starts_with("/") || fs::exists(dir / weights))
            ? resolve(dir, weights).string()
            : weights;
  error = read.finish();
}

void read_teachers(FieldReader& top, const std::string& where, const fs::path& dir,
                   std::vector<Teacher>& out) {
  top.mark("teachers");
  if (!top.ok() || !top.has("teachers")) return;
  const Json& list = top.at("teachers");
  if (!list.is_array() || list.empty()) return top.fail("teachers", "expected a non-empty list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    Teacher teacher;
    FieldReader read(list[i], fmt::format("{}teachers[{}].", where, i));
    read.read("name", teacher.name);
    std::optional<Json> model;
    read_mapping(read, "model", model);
    read_mapping(read, "explainer", teacher.explainer);
    if (read.ok() && !is_folder_name(teacher.name))
      read.fail("name", "expected a name of letters, digits, '-', '_' or '.'");
    if (read.ok() && !model)
      read.fail("model", "required (a provider entry, e.g. {provider: replay, path: DIR})");
    if (model) teacher.model = *model;
    resolve_provider(teacher.model, dir);
    if (teacher.explainer) resolve_provider(*teacher.explainer, dir);
    for (const auto& other : out)
      if (read.ok() && other.name == teacher.name) read.fail("name", "used twice: " + teacher.name);
    if (auto& problem = read.finish(); !problem.empty())
      return top.fail("", problem.substr(where.size()));
    out.push_back(std::move(teacher));
  }
}

void read_splits(FieldReader& top, const std::string& where, std::vector<HeldOutSplit>& out) {
  top.mark("splits");
  if (!top.ok() || !top.has("splits")) return;
  FieldReader splits(top.at("splits"), where + "splits.");
  splits.mark("heldout");
  if (splits.ok() && splits.has("heldout")) {
    const Json& list = splits.at("heldout");
    if (!list.is_array()) splits.fail("heldout", "expected a list");
    for (std::size_t i = 0; splits.ok() && i < list.size(); ++i) {
      HeldOutSplit split;
      FieldReader read(list[i], fmt::format("{}splits.heldout[{}].", where, i));
      read.read("name", split.name);
      read_list(read, "tasks", split.tasks);
      read_list(read, "head_dims", split.head_dims);
      read_list(read, "variants", split.variants);
      read_list(read, "op_types", split.op_types);
      if (read.ok() && (!is_folder_name(split.name) || split.name == "train"))
        read.fail("name", "expected a name of letters, digits, '-', '_' or '.', not `train`");
      for (const auto& v : split.variants)
        if (read.ok() && v != "causal") read.fail("variants", "unknown variant " + v + " (causal)");
      if (read.ok() && split.tasks.empty() && split.head_dims.empty() && split.variants.empty() &&
          split.op_types.empty())
        read.fail("tasks", "expected at least one of tasks, head_dims, variants, op_types");
      for (const auto& other : out)
        if (read.ok() && other.name == split.name) read.fail("name", "used twice: " + split.name);
      if (auto& problem = read.finish(); !problem.empty())
        return top.fail("", problem.substr(where.size()));
      out.push_back(std::move(split));
    }
  }
  if (auto& problem = splits.finish(); !problem.empty()) top.fail("", problem.substr(where.size()));
}

void read_training(FieldReader& top, const std::string& where, const fs::path& dir,
                   Training& training) {
  top.mark("training");
  if (!top.ok() || !top.has("training")) return;
  FieldReader read(top.at("training"), where + "training.");
  read.read("recipe", training.recipe);
  if (read.has("max_steps")) {
    std::int64_t value = 0;
    read.read_integer("max_steps", 1, 10'000'000, value);
    training.max_steps = static_cast<int>(value);
  }
  read.mark("max_steps");
  std::string launcher = "local";
  read.read("launcher", launcher);
  read.read_integer("gpus", 1, 1024, training.gpus);
  read_list(read, "slurm", training.slurm);
  std::string python;
  read.read("python", python);
  training.python = python.find('/') == std::string::npos ? python : resolve(dir, python).string();
  if (launcher == "local")
    training.launcher = Launcher::kLocal;
  else if (launcher == "accelerate")
    training.launcher = Launcher::kAccelerate;
  else if (launcher == "slurm")
    training.launcher = Launcher::kSlurm;
  else
    read.fail("launcher", "expected local, accelerate or slurm (got " + launcher + ")");
  // Fields that the chosen launcher would not use are refused rather than ignored.
  if (read.ok() && training.gpus > 1 && training.launcher == Launcher::kLocal)
    read.fail("gpus", "more than one GPU needs launcher: accelerate (or slurm)");
  if (read.ok() && !training.slurm.empty() && training.launcher != Launcher::kSlurm)
    read.fail("slurm", "srun options need launcher: slurm");
  // A recipe file is resolved against the study file; a built-in name stays as written.
  if (training.recipe.find('/') != std::string::npos || training.recipe.ends_with(".yaml") ||
      training.recipe.ends_with(".json"))
    training.recipe = resolve(dir, training.recipe).string();
  if (auto& problem = read.finish(); !problem.empty()) top.fail("", problem.substr(where.size()));
}

void read_serving(FieldReader& top, const std::string& where, Serving& serving) {
  top.mark("serving");
  if (!top.ok() || !top.has("serving")) return;
  FieldReader read(top.at("serving"), where + "serving.");
  read.read("engine", serving.engine);
  if (read.has("max_new_tokens")) {
    int value = 0;
    read.read_integer("max_new_tokens", 1, 10'000'000, value);
    serving.max_new_tokens = value;
  }
  read.mark("max_new_tokens");
  read.read_integer("max_tokens", 1, 10'000'000, serving.max_tokens);
  read.read_integer("ready_timeout_s", 1, 86'400, serving.ready_timeout_s);
  read.read("temperature", serving.temperature);
  if (read.ok() && serving.temperature &&
      !(*serving.temperature >= 0 && *serving.temperature <= 10))
    read.fail("temperature", "expected a number from 0 to 10");
  if (read.ok() && serving.engine != "builtin" && serving.engine != "vllm" &&
      serving.engine != "auto")
    read.fail("engine", "expected builtin, vllm or auto");
  if (auto& problem = read.finish(); !problem.empty()) top.fail("", problem.substr(where.size()));
}

void read_variants(FieldReader& top, const std::string& where, const StudyFile& study,
                   std::vector<DataVariant>& out) {
  top.mark("variants");
  if (!top.ok()) return;
  if (!top.has("variants") || !top.at("variants").is_array() || top.at("variants").empty())
    return top.fail("variants", "expected a non-empty list of data variants");
  const Json& list = top.at("variants");
  for (std::size_t i = 0; i < list.size(); ++i) {
    DataVariant v;
    FieldReader read(list[i], fmt::format("{}variants[{}].", where, i));
    read.read("name", v.name);
    std::string data = "fixit";
    read.read("data", data);
    if (data == "fixit")
      v.data = DataSource::kFixit;
    else if (data == "kernelgen")
      v.data = DataSource::kKernelGen;
    else if (data == "both")
      v.data = DataSource::kBoth;
    else
      read.fail("data", "expected fixit, kernelgen or both (got " + data + ")");
    read.mark("balance");
    if (read.ok() && read.has("balance")) {
      FieldReader balance(read.at("balance"), fmt::format("{}variants[{}].balance.", where, i));
      balance.read("mode", v.balance_mode);
      if (balance.has("per_task_cap")) {
        int cap = 0;
        balance.read_integer("per_task_cap", 1, 1'000'000, cap);
        v.per_task_cap = cap;
      }
      balance.mark("per_task_cap");
      if (balance.has("total")) {
        int total = 0;
        balance.read_integer("total", 1, 100'000'000, total);
        v.total = total;
      }
      balance.mark("total");
      balance.read("seed", v.seed);
      if (balance.ok() && v.balance_mode != "balanced" && v.balance_mode != "volume")
        balance.fail("mode", "expected balanced or volume");
      if (auto& problem = balance.finish(); !problem.empty())
        read.fail("", problem.substr(fmt::format("{}variants[{}].", where, i).size()));
    }
    if (read.has("volume")) {
      int volume = 0;
      read.read_integer("volume", 1, 100'000'000, volume);
      v.volume = volume;
    }
    read.mark("volume");
    read.read("teacher", v.teacher);
    read.mark("reasoning");
    if (read.ok() && read.has("reasoning")) {
      FieldReader reasoning(read.at("reasoning"),
                            fmt::format("{}variants[{}].reasoning.", where, i));
      std::string source = "teacher";
      reasoning.read("source", source);
      reasoning.read("length", v.length);
      if (source == "teacher")
        v.reasoning = ReasoningSource::kTeacher;
      else if (source == "self")
        v.reasoning = ReasoningSource::kSelf;
      else
        reasoning.fail("source", "expected teacher or self (got " + source + ")");
      if (reasoning.ok() && v.length != "short" && v.length != "medium" && v.length != "long")
        reasoning.fail("length", "expected short, medium or long");
      if (auto& problem = reasoning.finish(); !problem.empty())
        read.fail("", problem.substr(fmt::format("{}variants[{}].", where, i).size()));
    }
    read.read("retrieval", v.retrieval);
    read.read_integer("retrieve_k", 1, 64, v.retrieve_k);
    if (read.ok() && (!is_folder_name(v.name) || v.name == study.base.name))
      read.fail("name", "expected a name of letters, digits, '-', '_' or '.', not the base's");
    if (read.ok() && v.teacher.empty() && !study.teachers.empty())
      v.teacher = study.teachers.front().name;
    if (read.ok() && !study.teacher(v.teacher))
      read.fail("teacher",
                v.teacher.empty() ? "no teachers are given" : "no teacher named " + v.teacher);
    if (read.ok() && v.reasoning == ReasoningSource::kSelf && !study.base.model)
      read.fail("reasoning.source", "self needs base.model (the base model explains)");
    if (read.ok() && !v.retrieval && study.base.weights.empty())
      read.fail("retrieval", "false needs base.weights to train on (or set retrieval: true)");
    for (const auto& other : out)
      if (read.ok() && other.name == v.name) read.fail("name", "used twice: " + v.name);
    if (auto& problem = read.finish(); !problem.empty())
      return top.fail("", problem.substr(where.size()));
    out.push_back(std::move(v));
  }
}

}  // namespace

const Teacher* StudyFile::teacher(const std::string& name) const {
  for (const auto& t : teachers)
    if (t.name == name) return &t;
  return nullptr;
}

std::string_view to_string(DataSource source) {
  switch (source) {
    case DataSource::kFixit:
      return "fixit";
    case DataSource::kKernelGen:
      return "kernelgen";
    case DataSource::kBoth:
      return "both";
  }
  return "?";
}
std::string_view to_string(ReasoningSource source) {
  return source == ReasoningSource::kSelf ? "self" : "teacher";
}
std::string_view to_string(Launcher launcher) {
  switch (launcher) {
    case Launcher::kLocal:
      return "local";
    case Launcher::kAccelerate:
      return "accelerate";
    case Launcher::kSlurm:
      return "slurm";
  }
  return "?";
}

util::Expected<StudyFile> parse_study_file(std::string_view text, const fs::path& path,
                                           const fs::path& out_override) {
  auto json = agent::parse_yaml(text, path.string());
  if (!json) return json.error();
  StudyFile study;
  study.path = path;
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const std::string where = path.string() + ": ";
  FieldReader read(*json, where);
  std::string out, tasks_dir, published;
  read.read("out", out);
  read.read("tasks_dir", tasks_dir);
  read.read("published", published);
  read.mark("grid");
  if (read.ok()) {
    if (!read.has("grid") || !read.at("grid").is_object()) {
      read.fail("grid", "expected a mapping of run.yaml grid fields (tasks, archs, turns, ...)");
    } else {
      for (const auto& item : read.at("grid").items())
        if (read.ok() && !agent::run_grid_fields().contains(item.key()))
          read.fail("grid." + item.key(),
                    "not a grid field (models, out, tasks_dir and retrieval are the study's)");
      study.grid = read.at("grid");
      if (read.ok() && study.grid.contains("turns") &&
          util::integer_problem(study.grid["turns"], 1, 1000))
        read.fail("grid.turns", *util::integer_problem(study.grid["turns"], 1, 1000));
      if (read.ok() && study.grid.contains("context_dir") && study.grid["context_dir"].is_string())
        study.grid["context_dir"] =
            resolve(dir, study.grid["context_dir"].get<std::string>()).string();
      resolve_cache(study.grid, dir);
    }
  }
  read_list(read, "turn_limits", study.turn_limits);
  for (int t : study.turn_limits)
    if (read.ok() && t < 1) read.fail("turn_limits", "turns are numbered from 1");
  read.read("fast_p", study.fast_p);
  if (read.ok() && !(study.fast_p > 0 && study.fast_p < 1e6))
    read.fail("fast_p", "expected a number above 0");
  std::string base_error;
  read.mark("base");
  if (read.ok()) {
    if (!read.has("base"))
      read.fail("base", "required (model and/or weights)");
    else
      read_base(read.at("base"), where, dir, study.base, base_error);
    if (!base_error.empty()) read.fail("", base_error.substr(where.size()));
  }
  read_teachers(read, where, dir, study.teachers);
  if (read.ok() && study.teachers.empty()) read.fail("teachers", "required (at least one)");
  read.mark("fixit");
  if (read.ok() && read.has("fixit")) {
    if (!read.at("fixit").is_object())
      read.fail("fixit", "expected a mapping");
    else {
      for (const auto& item : read.at("fixit").items())
        if (read.ok() && !kFixitFields.contains(item.key()))
          read.fail("fixit." + item.key(),
                    "unknown field (the study writes folder, runs, teacher, "
                    "recipes, explain and export itself)");
      study.fixit = read.at("fixit");
      resolve_cache(study.fixit, dir);
      if (study.fixit.contains("solutions") && study.fixit["solutions"].is_string())
        study.fixit["solutions"] =
            resolve(dir, study.fixit["solutions"].get<std::string>()).string();
    }
  }
  read_splits(read, where, study.heldout);
  read_training(read, where, dir, study.training);
  read_serving(read, where, study.serving);
  read_variants(read, where, study, study.variants);
  const std::string& problem = read.finish();
  if (!problem.empty()) return util::make_error(problem);
  if (!out_override.empty())
    study.out = out_override;
  else if (!out.empty())
    study.out = resolve(dir, out);
  else
    return util::make_error(where + "out: required (or pass --out)");
  study.tasks_dir = resolve(dir, tasks_dir);
  study.published = resolve(dir, published);
  return study;
}

util::Expected<StudyFile> read_study_file(const fs::path& path, const fs::path& out_override) {
  auto text = util::read_file(path);
  if (!text) return text.error();
  return parse_study_file(*text, path, out_override);
}

}  // namespace ptxbench::study
