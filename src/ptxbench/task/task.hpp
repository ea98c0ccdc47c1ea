// A task definition: the operator's math, named axes, tensors, tolerance, baseline, requested
// instruction families per arch, and its workloads. The JSON form (tasks/<family>/<name>.json)
// follows FlashInfer-Trace definitions; docs/task-format.md describes every field.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/arch/arch.hpp"

namespace ptxbench::task {

enum class DType { kBFloat16, kFloat16, kFloat32, kFloat8E4M3, kFloat8E5M2, kInt32, kInt64 };
std::string_view to_string(DType dtype);          // "bfloat16", as in the task files
std::optional<DType> parse_dtype(std::string_view name);
std::size_t size_bytes(DType dtype);

struct Axis {
  std::string name;
  bool is_const = false;                  // "type": "const" (with a value) or "var"
  std::optional<std::int64_t> value;      // set when is_const
  std::string description;
};

struct TensorSpec {
  std::string name;
  std::vector<std::string> shape;         // axis names; [] is a scalar
  DType dtype = DType::kBFloat16;
  std::string description;
};

// Which rule decides correctness (docs/correctness.md): the original research's element rule
// against the library's output, or the candidate's error against a high-precision reference
// with the library's own error as the budget.
enum class CorrectnessRule { kMatchesLibrary, kAsAccurateAsLibrary };
std::string_view to_string(CorrectnessRule rule);  // "matches_library", "as_accurate_as_library"
std::optional<CorrectnessRule> parse_correctness_rule(std::string_view name);

struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
  double required_matched_ratio = 1.0;    // share of elements that must pass the element rule
  CorrectnessRule rule = CorrectnessRule::kAsAccurateAsLibrary;  // "rule": optional in a file
};

enum class Distribution { kNormal, kUniform, kSpiky };
std::string_view to_string(Distribution distribution);
std::optional<Distribution> parse_distribution(std::string_view name);

struct Workload {
  std::string name;                               // e.g. "M8192", unique within the task
  std::map<std::string, std::int64_t> axes;       // values of the task's var axes
  Distribution distribution = Distribution::kNormal;
  std::uint64_t seed = 0;
  bool headline = false;                          // exactly one per task: the timed size
};

struct Task {
  std::string name;                 // "gemm_n7168_k5120"
  std::string op_type;              // "gemm", "mha_fwd_lse", "mha_bwd"
  std::string family;               // folder under tasks/: "gemm", "mha_fwd", "mha_bwd"
  std::string split = "train";      // "train" or "heldout" (sizes/variants kept for generalisation)
  bool core = false;                // one of the five tasks the original research reports on
  std::string description;          // the exact math, as a model sees it
  std::vector<Axis> axes;           // in file order
  std::vector<TensorSpec> inputs;   // in ABI order: run(inputs..., outputs...)
  std::vector<TensorSpec> outputs;
  std::map<std::string, double> parameters;  // op-specific constants, e.g. causal=1, scale
  Tolerance tolerance;
  std::string baseline;             // "cublaslt.gemm_bf16_nt", "cudnn.sdpa_fwd", "cudnn.sdpa_bwd"
  std::map<arch::Arch, std::vector<std::string>> requested;  // families, e.g. {"GMMA","TMA"}
  std::vector<Workload> workloads;
  std::filesystem::path source;     // the file it was loaded from

  const Workload& headline() const;
  const Axis* find_axis(std::string_view axis_name) const;
  // Concrete shape of a tensor for a workload (const axes from the task, var axes from it).
  std::vector<std::int64_t> shape_of(const TensorSpec& tensor, const Workload& workload) const;
  std::int64_t axis_value(std::string_view axis_name, const Workload& workload) const;
  // Useful floating-point work of one call at this workload (GEMM 2MNK; attention fwd
  // 4·B·H·S²·D, halved when causal; bwd 2.5× fwd).
  double flops(const Workload& workload) const;
};

}  // namespace ptxbench::task
