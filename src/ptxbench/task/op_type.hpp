// A task's operator and the library call it is timed and checked against: read once from the
// task file (task_json.cpp) and handed around typed, so that no stage compares strings. The
// names are those of the task files and of every record and protocol message.
#pragma once
#include <optional>
#include <span>
#include <string_view>

namespace ptxbench::task {

// gemm_fp8: e4m3 A, B with per-tensor fp32 scales, bf16 C; mha_decode: one query token per
// sequence over a KV cache whose valid length differs per sequence.
enum class OpType { kGemm, kMhaFwdLse, kMhaBwd, kGemmFp8, kMhaDecode };
// "gemm", "mha_fwd_lse", "mha_bwd", "gemm_fp8", "mha_decode"
std::string_view to_string(OpType op_type);
std::optional<OpType> parse_op_type(std::string_view name);
std::span<const std::string_view> op_type_names();
bool is_attention(OpType op_type);  // forward, backward or decode
bool is_gemm(OpType op_type);       // bf16 or fp8

enum class Baseline {
  kCublasLtGemmBf16Nt,
  kCudnnSdpaFwd,
  kCudnnSdpaBwd,
  kCublasLtGemmFp8Nt,  // e4m3 A, B with per-tensor scales (A_SCALE/B_SCALE pointers), bf16 C
  kCudnnSdpaDecode,    // SDPA forward, one query per sequence, padding mask from KV_LEN
};
// "cublaslt.gemm_bf16_nt", "cudnn.sdpa_fwd", "cudnn.sdpa_bwd", "cublaslt.gemm_fp8_nt",
// "cudnn.sdpa_decode"
std::string_view to_string(Baseline baseline);
std::optional<Baseline> parse_baseline(std::string_view name);
std::span<const std::string_view> baseline_names();

}  // namespace ptxbench::task

// So that messages can format them directly ("op_type {}"). Not for nvcc: the .cu files that
// include the task never format one, and fmt's headers do not compile as CUDA.
#if !defined(__CUDACC__)
#include <fmt/format.h>

template <>
struct fmt::formatter<ptxbench::task::OpType> : fmt::formatter<std::string_view> {
  auto format(ptxbench::task::OpType value, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(ptxbench::task::to_string(value), ctx);
  }
};
template <>
struct fmt::formatter<ptxbench::task::Baseline> : fmt::formatter<std::string_view> {
  auto format(ptxbench::task::Baseline value, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(ptxbench::task::to_string(value), ctx);
  }
};
#endif
