#include "ptxbench/study/splits.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <regex>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/json_text.hpp"

namespace ptxbench::study {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The head dimension named in a task's name (`mha_fwd_lse_d128_causal` -> 128), or -1.
int head_dim_of(const std::string& name) {
  static const std::regex pattern("_d([0-9]+)(_|$)");
  std::smatch match;
  if (!std::regex_search(name, match, pattern)) return -1;
  return std::stoi(match[1].str());
}

bool has_variant(const Json& task, const std::string& variant) {
  if (variant != "causal") return false;
  const Json params = task.value("parameters", Json::object());
  const Json causal = params.is_object() ? params.value("causal", Json(0)) : Json(0);
  return causal.is_number() ? causal.get<double>() != 0 : causal == true;
}

bool matches(const Json& task, const HeldOutSplit& split) {
  const std::string name = task.value("name", "");
  for (const auto& pattern : split.tasks)
    if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  const int dim = head_dim_of(name);
  if (dim >= 0 && std::count(split.head_dims.begin(), split.head_dims.end(), dim) > 0) return true;
  for (const auto& variant : split.variants)
    if (has_variant(task, variant)) return true;
  const std::string op = task.value("op_type", "");
  return std::count(split.op_types.begin(), split.op_types.end(), op) > 0;
}

}  // namespace

std::string split_of(const Json& task, const std::vector<HeldOutSplit>& splits) {
  for (const auto& split : splits)
    if (matches(task, split)) return split.name;
  return "train";
}

util::Expected<std::map<std::string, std::string>> write_split_suite(
    const fs::path& source, const std::vector<HeldOutSplit>& splits, const fs::path& out) {
  std::vector<fs::path> files;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(source, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error))
    if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
  if (error) return util::make_error(source.string() + ": " + error.message());
  std::sort(files.begin(), files.end());  // one order on every machine
  std::map<std::string, std::string> assigned;
  for (const auto& file : files) {
    auto text = util::read_file(file);
    if (!text) return text.error();
    Json task = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!task.is_object() || !task.contains("name"))
      return util::make_error(file.string() + ": not a task file (no name)");
    const std::string split = split_of(task, splits);
    task["split"] = split == "train" ? "train" : "heldout";
    assigned[task.value("name", "")] = split;
    const fs::path target = out / fs::relative(file, source);
    fs::create_directories(target.parent_path());
    util::write_file_atomic(target, util::dump_json(task, 2) + "\n");
  }
  if (assigned.empty()) return util::make_error(source.string() + ": no task files");
  return assigned;
}

}  // namespace ptxbench::study
