#include "ptxbench/task/op_type.hpp"

#include <array>

namespace ptxbench::task {
namespace {

// Indexed by the enums' values.
constexpr std::array<std::string_view, 5> kOpTypes{"gemm", "mha_fwd_lse", "mha_bwd", "gemm_fp8",
                                                   "mha_decode"};
constexpr std::array<std::string_view, 5> kBaselines{"cublaslt.gemm_bf16_nt", "cudnn.sdpa_fwd",
                                                     "cudnn.sdpa_bwd", "cublaslt.gemm_fp8_nt",
                                                     "cudnn.sdpa_decode"};

template <class Enum, std::size_t N>
std::optional<Enum> parse_name(const std::array<std::string_view, N>& names,
                               std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(OpType op_type) {
  return kOpTypes.at(static_cast<std::size_t>(op_type));
}
std::optional<OpType> parse_op_type(std::string_view name) {
  return parse_name<OpType>(kOpTypes, name);
}
std::span<const std::string_view> op_type_names() {
  return kOpTypes;
}
bool is_attention(OpType op_type) {
  return op_type == OpType::kMhaFwdLse || op_type == OpType::kMhaBwd ||
         op_type == OpType::kMhaDecode;
}
bool is_gemm(OpType op_type) {
  return op_type == OpType::kGemm || op_type == OpType::kGemmFp8;
}

std::string_view to_string(Baseline baseline) {
  return kBaselines.at(static_cast<std::size_t>(baseline));
}
std::optional<Baseline> parse_baseline(std::string_view name) {
  return parse_name<Baseline>(kBaselines, name);
}
std::span<const std::string_view> baseline_names() {
  return kBaselines;
}

}  // namespace ptxbench::task
