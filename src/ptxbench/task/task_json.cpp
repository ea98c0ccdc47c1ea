// parse_task: a task file's JSON into a Task, validating every field. Objects are read in file
// order (nlohmann::ordered_json) because the order of `inputs` and `outputs` is the ABI order.
// All problems are collected, one "<file>: <field>: <problem>" line each.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <span>

#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/task/unseen_workloads.hpp"
#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::task {
namespace {
using Json = nlohmann::ordered_json;

// The axes each operator's formulas and baselines look up by name.
std::vector<std::string_view> required_axes(OpType op_type) {
  if (is_gemm(op_type)) return {"M", "N", "K"};
  if (op_type == OpType::kMhaDecode) return {"B", "H", "HKV", "S", "D"};
  return {"B", "H", "S", "D"};  // attention, forward and backward
}

constexpr std::size_t kMaxIdentifierLength = 128;      // task, axis, tensor and family names
constexpr std::uint64_t kMaxTensorBytes = 1ull << 40;  // 1 TiB: far beyond any GPU's memory

constexpr std::array<std::string_view, 14> kTopLevelFields{
    "name",      "op_type",  "description", "axes",  "inputs", "outputs",   "parameters",
    "tolerance", "baseline", "requested",   "split", "core",   "workloads", "unseen"};

// Collects problems, each prefixed with the file. Not util::FieldReader, which keeps only the
// first problem: a task file's author is shown every problem of the file at once.
class Problems {
 public:
  explicit Problems(std::string file) : file_(std::move(file)) {}
  void add(std::string_view field, std::string_view problem) {
    lines_.push_back(fmt::format("{}: {}: {}", file_, field, problem));
  }
  bool empty() const { return lines_.empty(); }
  std::string joined() const { return fmt::format("{}", fmt::join(lines_, "\n")); }

 private:
  std::string file_;
  std::vector<std::string> lines_;
};

std::string joined(std::span<const std::string_view> names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

// A plain loop, not std::regex: libstdc++'s matcher recurses once per character and overflows
// the stack on a name of some tens of thousands of characters.
bool is_identifier(std::string_view text, bool upper_only) {
  if (text.empty() || text.size() > kMaxIdentifierLength) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    const bool digit = c >= '0' && c <= '9', underscore = c == '_';
    if (upper_only) {
      if (!(upper || (i > 0 && (digit || underscore)))) return false;
    } else if (!(upper || lower || underscore || (i > 0 && digit))) {
      return false;
    }
  }
  return true;
}

// The bytes of each tensor at each workload, computed without overflow; an extent like 2^62
// must be refused here, not wrap around in an allocation size later.
void check_tensor_sizes(const Task& task, Problems& problems) {
  for (const auto& workload : task.workloads) {
    for (const auto* tensors : {&task.inputs, &task.outputs}) {
      for (const auto& tensor : *tensors) {
        std::uint64_t bytes = size_bytes(tensor.dtype);
        bool overflow = false;
        for (const auto& axis : tensor.shape) {
          const Axis* spec = task.find_axis(axis);
          std::optional<std::int64_t> extent;
          if (spec != nullptr && spec->is_const) extent = spec->value;
          if (auto it = workload.axes.find(axis); it != workload.axes.end()) extent = it->second;
          if (!extent || *extent <= 0) continue;  // reported where the axis is read
          overflow = overflow ||
                     __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(*extent), &bytes);
        }
        if (overflow || bytes > kMaxTensorBytes) {
          problems.add(
              fmt::format("workloads.{}", workload.name),
              fmt::format("tensor {} would hold more than {} bytes", tensor.name, kMaxTensorBytes));
        }
      }
    }
  }
}

// Reads an optional string; reports a wrong type.
std::string read_string(const Json& object, std::string_view key, std::string_view field,
                        Problems& problems, bool required) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) problems.add(field, "missing");
    return {};
  }
  if (!it->is_string()) {
    problems.add(field, fmt::format("must be a string, got {}", it->type_name()));
    return {};
  }
  auto value = it->get<std::string>();
  if (required && value.empty()) problems.add(field, "must not be empty");
  return value;
}

const Json* read_object(const Json& object, std::string_view key, std::string_view field,
                        Problems& problems, bool required) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) problems.add(field, "missing");
    return nullptr;
  }
  if (!it->is_object()) {
    problems.add(field, fmt::format("must be an object, got {}", it->type_name()));
    return nullptr;
  }
  return &*it;
}

std::optional<std::int64_t> positive_integer(const Json& value) {
  if (util::integer_problem(value, 1, std::numeric_limits<std::int64_t>::max()))
    return std::nullopt;
  return value.get<std::int64_t>();
}

void read_axes(const Json& json, Task& task, Problems& problems) {
  const Json* axes = read_object(json, "axes", "axes", problems, true);
  if (axes == nullptr) return;
  if (axes->empty()) problems.add("axes", "must define at least one axis");
  for (const auto& [name, spec] : axes->items()) {
    const std::string field = "axes." + name;
    if (!is_identifier(name, false)) problems.add(field, "axis names are identifiers");
    if (!spec.is_object()) {
      problems.add(field,
                   "must be an object {\"type\": \"const\", \"value\": N} or {\"type\": \"var\"}");
      continue;
    }
    Axis axis{.name = name};
    axis.description = read_string(spec, "description", field + ".description", problems, false);
    const std::string type = read_string(spec, "type", field + ".type", problems, true);
    if (type == "const") {
      axis.is_const = true;
      auto value = spec.find("value");
      if (value == spec.end()) {
        problems.add(field + ".value", "missing (a const axis needs a positive integer value)");
      } else if (auto v = positive_integer(*value)) {
        axis.value = *v;
      } else {
        problems.add(field + ".value", "must be a positive integer");
      }
    } else if (type == "var") {
      if (spec.contains("value"))
        problems.add(field + ".value", "a var axis takes its value from each workload");
      if (auto multiple = spec.find("multiple_of"); multiple != spec.end()) {
        if (auto v = positive_integer(*multiple)) {
          axis.multiple_of = *v;
        } else {
          problems.add(field + ".multiple_of", "must be a positive integer");
        }
      }
    } else if (!type.empty()) {
      problems.add(field + ".type", fmt::format("unknown '{}' (const or var)", type));
    }
    if (axis.is_const && spec.contains("multiple_of"))
      problems.add(field + ".multiple_of", "only a var axis declares a multiple");
    task.axes.push_back(std::move(axis));
  }
}

std::vector<TensorSpec> read_tensors(const Json& json, std::string_view key, const Task& task,
                                     Problems& problems) {
  std::vector<TensorSpec> tensors;
  const Json* object = read_object(json, key, key, problems, true);
  if (object == nullptr) return tensors;
  if (object->empty()) problems.add(key, "must name at least one tensor");
  for (const auto& [name, spec] : object->items()) {
    const std::string field = fmt::format("{}.{}", key, name);
    if (!is_identifier(name, false)) problems.add(field, "tensor names are identifiers");
    if (!spec.is_object()) {
      problems.add(field, "must be an object {\"shape\": [...], \"dtype\": ...}");
      continue;
    }
    TensorSpec tensor{.name = name};
    tensor.description = read_string(spec, "description", field + ".description", problems, false);
    const std::string dtype = read_string(spec, "dtype", field + ".dtype", problems, true);
    if (auto d = parse_dtype(dtype)) {
      tensor.dtype = *d;
    } else if (!dtype.empty()) {
      problems.add(field + ".dtype",
                   fmt::format("unknown dtype '{}' (bfloat16, float16, float32, float8_e4m3fn, "
                               "float8_e5m2, int32, int64)",
                               dtype));
    }
    auto shape = spec.find("shape");
    if (shape == spec.end()) {
      problems.add(field + ".shape", "missing (a list of axis names; [] for a scalar)");
    } else if (!shape->is_array()) {
      problems.add(field + ".shape", "must be a list of axis names");
    } else {
      for (const auto& axis : *shape) {
        if (!axis.is_string()) {
          problems.add(field + ".shape", "must be a list of axis names");
          continue;
        }
        auto axis_name = axis.get<std::string>();
        if (task.find_axis(axis_name) == nullptr)
          problems.add(field + ".shape",
                       fmt::format("axis '{}' is not defined in axes", axis_name));
        tensor.shape.push_back(axis_name);
      }
    }
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

void read_parameters(const Json& json, Task& task, Problems& problems) {
  const Json* parameters = read_object(json, "parameters", "parameters", problems, false);
  if (parameters == nullptr) return;
  for (const auto& [name, value] : parameters->items()) {
    if (value.is_boolean()) {
      task.parameters[name] = value.get<bool>() ? 1.0 : 0.0;
    } else if (value.is_number()) {
      task.parameters[name] = value.get<double>();
    } else {
      problems.add("parameters." + name, "must be a number");
    }
  }
  if (auto causal = task.parameters.find("causal");
      causal != task.parameters.end() && causal->second != 0 && causal->second != 1) {
    problems.add("parameters.causal", "must be 0 or 1");
  }
}

void read_tolerance(const Json& json, Task& task, Problems& problems) {
  const Json* tolerance = read_object(json, "tolerance", "tolerance", problems, true);
  if (tolerance == nullptr) return;
  auto number = [&](std::string_view key, double& out, double low, double high) {
    const std::string field = fmt::format("tolerance.{}", key);
    auto it = tolerance->find(key);
    if (it == tolerance->end()) return problems.add(field, "missing");
    if (!it->is_number()) return problems.add(field, "must be a number");
    out = it->get<double>();
    if (!(out >= low && out <= high))
      problems.add(field, fmt::format("must be in [{}, {}], got {}", low, high, out));
  };
  number("atol", task.tolerance.atol, 0, std::numeric_limits<double>::max());
  number("rtol", task.tolerance.rtol, 0, std::numeric_limits<double>::max());
  number("required_matched_ratio", task.tolerance.required_matched_ratio, 0, 1);
  if (task.tolerance.required_matched_ratio == 0)
    problems.add("tolerance.required_matched_ratio", "must be greater than 0");
  if (auto it = tolerance->find("rule"); it != tolerance->end()) {
    auto rule = it->is_string() ? parse_correctness_rule(it->get<std::string>()) : std::nullopt;
    if (rule) {
      task.tolerance.rule = *rule;
    } else {
      problems.add("tolerance.rule", "must be \"matches_library\" or \"as_accurate_as_library\"");
    }
  }
  for (const auto& [key, value] : tolerance->items()) {
    if (key != "atol" && key != "rtol" && key != "required_matched_ratio" && key != "rule")
      problems.add("tolerance." + key, "unknown field");
  }
}

void read_requested(const Json& json, Task& task, Problems& problems) {
  const Json* requested = read_object(json, "requested", "requested", problems, true);
  if (requested == nullptr) return;
  if (requested->empty()) problems.add("requested", "must name the families for at least one arch");
  for (const auto& [arch_name, families] : requested->items()) {
    const std::string field = "requested." + arch_name;
    auto a = arch::parse(arch_name);
    if (!a || arch::to_string(*a) != arch_name) {
      problems.add(field, "unknown arch (hopper, blackwell)");
      continue;
    }
    if (!families.is_array() || families.empty()) {
      problems.add(field,
                   "must be a non-empty list of instruction families, e.g. [\"GMMA\", \"TMA\"]");
      continue;
    }
    auto& list = task.requested[*a];
    for (const auto& family : families) {
      if (!family.is_string() || !is_identifier(family.get<std::string>(), true)) {
        problems.add(field, "families are upper-case names such as GMMA, TMA, SYNCS, UTCMMA, TMEM");
        continue;
      }
      auto name = family.get<std::string>();
      if (std::find(list.begin(), list.end(), name) != list.end())
        problems.add(field, fmt::format("family '{}' listed twice", name));
      list.push_back(name);
    }
  }
}

void read_workloads(const Json& json, Task& task, Problems& problems) {
  auto it = json.find("workloads");
  if (it == json.end()) return problems.add("workloads", "missing");
  if (!it->is_array() || it->empty()) return problems.add("workloads", "must be a non-empty list");
  std::set<std::string> names;
  int headlines = 0;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& spec = (*it)[i];
    const std::string field = fmt::format("workloads[{}]", i);
    if (!spec.is_object()) {
      problems.add(field, "must be an object");
      continue;
    }
    Workload workload;
    workload.name = read_string(spec, "name", field + ".name", problems, true);
    if (!workload.name.empty() && !names.insert(workload.name).second)
      problems.add(field + ".name", fmt::format("duplicate workload name '{}'", workload.name));
    if (const Json* axes = read_object(spec, "axes", field + ".axes", problems, true)) {
      for (const auto& [axis_name, value] : axes->items()) {
        const Axis* axis = task.find_axis(axis_name);
        const std::string axis_field = fmt::format("{}.axes.{}", field, axis_name);
        if (axis == nullptr) {
          problems.add(axis_field, "axis is not defined in axes");
        } else if (axis->is_const) {
          problems.add(axis_field, "axis is const; only var axes take workload values");
        } else if (auto v = positive_integer(value)) {
          workload.axes[axis_name] = *v;
        } else {
          problems.add(axis_field, "must be a positive integer");
        }
      }
      for (const auto& axis : task.axes) {
        if (!axis.is_const && !axes->contains(axis.name))
          problems.add(field + ".axes", fmt::format("var axis '{}' has no value", axis.name));
      }
    }
    const std::string distribution =
        read_string(spec, "distribution", field + ".distribution", problems, false);
    if (!distribution.empty()) {
      if (auto d = parse_distribution(distribution)) {
        workload.distribution = *d;
      } else {
        problems.add(field + ".distribution",
                     fmt::format("unknown '{}' (normal, uniform, spiky, large, equal_scores, "
                                 "near_ties)",
                                 distribution));
      }
    }
    if (auto seed = spec.find("seed"); seed != spec.end()) {
      if (!util::value_problem<std::uint64_t>(*seed)) {
        workload.seed = seed->get<std::uint64_t>();
      } else {
        problems.add(field + ".seed", "must be a non-negative integer");
      }
    }
    if (auto headline = spec.find("headline"); headline != spec.end()) {
      if (headline->is_boolean()) {
        workload.headline = headline->get<bool>();
      } else {
        problems.add(field + ".headline", "must be true or false");
      }
    }
    headlines += workload.headline ? 1 : 0;
    task.workloads.push_back(std::move(workload));
  }
  if (headlines != 1)
    problems.add("workloads",
                 fmt::format("exactly one workload must be the headline, found {}", headlines));
}

// "unseen": {"bounds": {"S": [lo, hi]}}: the rule's per-axis range (unseen_workloads.hpp).
void read_unseen(const Json& json, Task& task, Problems& problems) {
  const Json* unseen = read_object(json, "unseen", "unseen", problems, false);
  if (unseen == nullptr) return;
  for (const auto& [key, value] : unseen->items()) {
    if (key != "bounds") problems.add("unseen." + key, "unknown field (bounds)");
  }
  const Json* bounds = read_object(*unseen, "bounds", "unseen.bounds", problems, true);
  if (bounds == nullptr) return;
  for (const auto& [axis_name, range] : bounds->items()) {
    const std::string field = "unseen.bounds." + axis_name;
    const Axis* axis = task.find_axis(axis_name);
    if (axis == nullptr || axis->is_const) {
      problems.add(field, "must name a var axis (const axes are part of the task)");
      continue;
    }
    std::optional<std::int64_t> lo, hi;
    if (range.is_array() && range.size() == 2) {
      lo = positive_integer(range[0]);
      hi = positive_integer(range[1]);
    }
    if (!lo || !hi || *lo > *hi) {
      problems.add(field, "must be [lo, hi], positive integers with lo <= hi");
      continue;
    }
    if (axis->multiple_of && (*lo % *axis->multiple_of != 0 || *hi % *axis->multiple_of != 0)) {
      problems.add(field, fmt::format("lo and hi must be multiples of {} (the axis's multiple_of)",
                                      *axis->multiple_of));
      continue;
    }
    task.unseen.bounds[axis_name] = {*lo, *hi};
  }
}

// Every shown workload respects its axes' declared multiples.
void check_multiples(const Task& task, Problems& problems) {
  for (const auto& axis : task.axes) {
    if (!axis.multiple_of) continue;
    for (const auto& w : task.workloads) {
      auto it = w.axes.find(axis.name);
      if (it != w.axes.end() && it->second % *axis.multiple_of != 0)
        problems.add(fmt::format("workloads.{}.axes.{}", w.name, axis.name),
                     fmt::format("must be a multiple of {} (axes.{}.multiple_of)",
                                 *axis.multiple_of, axis.name));
    }
  }
}

// The operator by name, and the axes it needs.
void read_op_type(const std::string& name, Task& task, Problems& problems) {
  if (name.empty()) return;
  auto op_type = parse_op_type(name);
  if (!op_type)
    return problems.add("op_type", fmt::format("unknown '{}' ({})", name, joined(op_type_names())));
  task.op_type = *op_type;
  for (auto axis : required_axes(task.op_type)) {
    if (task.find_axis(axis) == nullptr)
      problems.add("axes", fmt::format("op_type {} needs an axis named '{}'", task.op_type, axis));
  }
}

}  // namespace

util::Expected<Task> parse_task(std::string_view json_text, const std::filesystem::path& source) {
  Problems problems(source.string());
  Json json;
  std::vector<std::pair<std::string, std::string>> duplicates;  // (object, key)
  try {
    json = util::parse_json_strict<Json>(json_text, duplicates);
  } catch (const Json::exception& e) {
    // Also out_of_range: a number such as 1e400 that no double holds.
    problems.add("JSON", e.what());
    return util::make_error(problems.joined());
  }
  for (const auto& [field, key] : duplicates) {
    problems.add(field.empty() ? "(top level)" : field, fmt::format("key '{}' appears twice", key));
  }
  if (!json.is_object()) {
    problems.add("(top level)", "must be a JSON object");
    return util::make_error(problems.joined());
  }
  for (const auto& [key, value] : json.items()) {
    if (std::find(kTopLevelFields.begin(), kTopLevelFields.end(), key) == kTopLevelFields.end())
      problems.add(key, "unknown field");
  }

  Task task;
  task.source = source;
  task.family = source.parent_path().filename().string();
  task.name = read_string(json, "name", "name", problems, true);
  if (!task.name.empty() && !is_identifier(task.name, false))
    problems.add("name", fmt::format("must be an identifier (letters, digits, _; at most {})",
                                     kMaxIdentifierLength));
  const std::string op_type = read_string(json, "op_type", "op_type", problems, true);
  task.description = read_string(json, "description", "description", problems, true);
  read_axes(json, task, problems);
  read_op_type(op_type, task, problems);
  task.inputs = read_tensors(json, "inputs", task, problems);
  task.outputs = read_tensors(json, "outputs", task, problems);
  for (const auto& output : task.outputs) {
    for (const auto& input : task.inputs) {
      if (input.name == output.name)
        problems.add("outputs." + output.name, "an input has the same name");
    }
  }
  read_parameters(json, task, problems);
  read_tolerance(json, task, problems);
  if (auto name = read_string(json, "baseline", "baseline", problems, true); !name.empty()) {
    if (auto baseline = parse_baseline(name)) {
      task.baseline = *baseline;
    } else {
      problems.add("baseline", fmt::format("unknown '{}' ({})", name, joined(baseline_names())));
    }
  }
  read_requested(json, task, problems);
  if (json.contains("split")) {
    task.split = read_string(json, "split", "split", problems, true);
    if (task.split != "train" && task.split != "heldout" && !task.split.empty())
      problems.add("split", fmt::format("unknown '{}' (train, heldout)", task.split));
  }
  if (auto core = json.find("core"); core != json.end()) {
    if (core->is_boolean()) {
      task.core = core->get<bool>();
    } else {
      problems.add("core", "must be true or false");
    }
  }
  read_workloads(json, task, problems);
  read_unseen(json, task, problems);
  check_multiples(task, problems);
  if (problems.empty()) {
    check_tensor_sizes(task, problems);
    Task unseen = task;  // the unseen sizes must fit as well
    unseen.workloads = unseen_workloads(task);
    check_tensor_sizes(unseen, problems);
  }

  if (!problems.empty()) return util::make_error(problems.joined());
  return task;
}

}  // namespace ptxbench::task
