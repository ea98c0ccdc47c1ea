#include "ptxbench/task/task.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "ptxbench/util/check.hpp"

namespace ptxbench::task {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t bytes;
};

constexpr std::array<DTypeInfo, 7> kDTypes{{
    {DType::kBFloat16, "bfloat16", 2},
    {DType::kFloat16, "float16", 2},
    {DType::kFloat32, "float32", 4},
    {DType::kFloat8E4M3, "float8_e4m3fn", 1},
    {DType::kFloat8E5M2, "float8_e5m2", 1},
    {DType::kInt32, "int32", 4},
    {DType::kInt64, "int64", 8},
}};

constexpr std::array<std::pair<Distribution, std::string_view>, 6> kDistributions{{
    {Distribution::kNormal, "normal"},
    {Distribution::kUniform, "uniform"},
    {Distribution::kSpiky, "spiky"},
    {Distribution::kLarge, "large"},
    {Distribution::kEqualScores, "equal_scores"},
    {Distribution::kNearTies, "near_ties"},
}};

constexpr std::array<std::pair<CorrectnessRule, std::string_view>, 2> kCorrectnessRules{{
    {CorrectnessRule::kMatchesLibrary, "matches_library"},
    {CorrectnessRule::kAsAccurateAsLibrary, "as_accurate_as_library"},
}};

const DTypeInfo& dtype_info(DType dtype) {
  auto it = std::find_if(kDTypes.begin(), kDTypes.end(),
                         [dtype](const DTypeInfo& d) { return d.dtype == dtype; });
  PTXBENCH_CHECK(it != kDTypes.end(), "unknown DType");
  return *it;
}

double attention_forward_flops(const Task& task, const Workload& workload) {
  const double b = static_cast<double>(task.axis_value("B", workload));
  const double h = static_cast<double>(task.axis_value("H", workload));
  const double s = static_cast<double>(task.axis_value("S", workload));
  const double d = static_cast<double>(task.axis_value("D", workload));
  // Two matmuls (QKᵀ and PV) of 2·S·S·D each per (batch, head); causal skips half of them.
  const double full = 4.0 * b * h * s * s * d;
  auto causal = task.parameters.find("causal");
  return causal != task.parameters.end() && causal->second != 0 ? full / 2 : full;
}

// Decode: q·Kᵀ and P·V, 2·D FLOPs each per (query head, key). The valid lengths are drawn per
// trial in [1, S] with one sequence at S (docs/task-format.md), so the count takes the
// expected length, (S + 1) / 2; decode is bound by the bytes of K and V, not by these FLOPs.
double decode_flops(const Task& task, const Workload& workload) {
  const double b = static_cast<double>(task.axis_value("B", workload));
  const double h = static_cast<double>(task.axis_value("H", workload));
  const double s = static_cast<double>(task.axis_value("S", workload));
  const double d = static_cast<double>(task.axis_value("D", workload));
  return 4.0 * b * h * d * (s + 1.0) / 2.0;
}

}  // namespace

std::string_view to_string(DType dtype) {
  return dtype_info(dtype).name;
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& d : kDTypes) {
    if (d.name == name) return d.dtype;
  }
  return std::nullopt;
}

std::size_t size_bytes(DType dtype) {
  return dtype_info(dtype).bytes;
}

std::string_view to_string(Distribution distribution) {
  for (const auto& [d, name] : kDistributions) {
    if (d == distribution) return name;
  }
  PTXBENCH_CHECK(false, "unknown Distribution");
}

std::string_view to_string(CorrectnessRule rule) {
  for (const auto& [r, name] : kCorrectnessRules) {
    if (r == rule) return name;
  }
  PTXBENCH_CHECK(false, "unknown CorrectnessRule");
}

std::optional<CorrectnessRule> parse_correctness_rule(std::string_view name) {
  for (const auto& [r, n] : kCorrectnessRules) {
    if (n == name) return r;
  }
  return std::nullopt;
}

std::optional<Distribution> parse_distribution(std::string_view name) {
  for (const auto& [d, n] : kDistributions) {
    if (n == name) return d;
  }
  return std::nullopt;
}

const Workload& Task::headline() const {
  auto it = std::find_if(workloads.begin(), workloads.end(),
                         [](const Workload& w) { return w.headline; });
  PTXBENCH_CHECK(it != workloads.end(), "task " + name + " has no headline workload");
  return *it;
}

const Axis* Task::find_axis(std::string_view axis_name) const {
  auto it = std::find_if(axes.begin(), axes.end(),
                         [axis_name](const Axis& a) { return a.name == axis_name; });
  return it == axes.end() ? nullptr : &*it;
}

std::int64_t Task::axis_value(std::string_view axis_name, const Workload& workload) const {
  const Axis* axis = find_axis(axis_name);
  PTXBENCH_CHECK(axis != nullptr, "task " + name + " has no axis " + std::string(axis_name));
  if (axis->is_const) return axis->value.value();
  auto it = workload.axes.find(std::string(axis_name));
  PTXBENCH_CHECK(it != workload.axes.end(),
                 "workload " + workload.name + " sets no value for axis " + axis->name);
  return it->second;
}

std::vector<std::int64_t> Task::shape_of(const TensorSpec& tensor, const Workload& workload) const {
  std::vector<std::int64_t> shape;
  shape.reserve(tensor.shape.size());
  for (const auto& axis_name : tensor.shape) shape.push_back(axis_value(axis_name, workload));
  return shape;
}

double Task::flops(const Workload& workload) const {
  switch (op_type) {
    case OpType::kGemm:
    case OpType::kGemmFp8:
      return 2.0 * static_cast<double>(axis_value("M", workload)) *
             static_cast<double>(axis_value("N", workload)) *
             static_cast<double>(axis_value("K", workload));
    case OpType::kMhaFwdLse:
      return attention_forward_flops(*this, workload);
    case OpType::kMhaBwd:
      // The usual convention: the backward pass does 2.5x the forward's matmul work.
      return 2.5 * attention_forward_flops(*this, workload);
    case OpType::kMhaDecode:
      return decode_flops(*this, workload);
  }
  PTXBENCH_CHECK(false, "no FLOP formula for op_type " + std::string(to_string(op_type)));
}

}  // namespace ptxbench::task
