#include "ptxbench/eval/task_fingerprint.hpp"

#include <nlohmann/json.hpp>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::eval {
namespace {

using Json = nlohmann::json;

Json tensors_json(const std::vector<task::TensorSpec>& tensors) {
  Json out = Json::array();
  for (const auto& t : tensors)
    out.push_back({t.name, t.shape, std::string(task::to_string(t.dtype))});
  return out;
}

}  // namespace

std::string task_fingerprint(const task::Task& task) {
  Json axes = Json::array();
  for (const auto& a : task.axes)
    axes.push_back({a.name, a.is_const, a.value ? Json(*a.value) : Json(nullptr),
                    a.multiple_of ? Json(*a.multiple_of) : Json(nullptr)});
  Json requested = Json::object();
  for (const auto& [arch, families] : task.requested)
    requested[std::string(arch::info(arch).sm)] = families;
  Json workloads = Json::array();
  for (const auto& w : task.workloads)
    workloads.push_back({w.name, w.axes, std::string(task::to_string(w.distribution)), w.seed,
                         w.headline, w.unseen});
  Json unseen = Json::object();
  for (const auto& [axis, bounds] : task.unseen.bounds)
    unseen[axis] = {bounds.first, bounds.second};
  // The file's bytes as a hash: the text itself would make every key as long as the task.
  std::string file_hash;
  if (!task.source.empty()) {
    if (auto text = util::read_file(task.source, util::kMaxRecordFileBytes))
      file_hash = util::hash_hex(*text);
  }
  const Json fingerprint{
      {"name", task.name},
      {"op_type", task.op_type},
      {"description", task.description},
      {"axes", axes},
      {"inputs", tensors_json(task.inputs)},
      {"outputs", tensors_json(task.outputs)},
      {"parameters", task.parameters},
      {"tolerance",
       {task.tolerance.atol, task.tolerance.rtol, task.tolerance.required_matched_ratio,
        std::string(task::to_string(task.tolerance.rule))}},
      {"baseline", task.baseline},
      {"requested", requested},
      {"workloads", workloads},
      {"unseen", unseen},
      {"file", file_hash},
  };
  return fingerprint.dump();
}

}  // namespace ptxbench::eval
