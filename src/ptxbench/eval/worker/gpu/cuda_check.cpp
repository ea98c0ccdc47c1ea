#include "ptxbench/eval/worker/gpu/cuda_check.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace ptxbench::eval::gpu {

std::string cuda_error_text(cudaError_t error) {
  return fmt::format("{} ({})", cudaGetErrorName(error), cudaGetErrorString(error));
}

std::string cu_error_text(CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  return fmt::format("{} ({})", name ? name : "CUresult", text ? text : std::to_string(result));
}

std::string cublas_error_text(cublasStatus_t status) {
  return fmt::format("{} ({})", cublasLtGetStatusName(status), cublasLtGetStatusString(status));
}

void warn_failure(const char* file, int line, const char* call, const std::string& what) {
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, what.c_str());
}

}  // namespace ptxbench::eval::gpu
