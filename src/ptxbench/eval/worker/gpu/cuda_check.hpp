// One check macro per GPU library: the message names the call and the library's error name.
// They throw (util::throw_check_failure, which builds the message out of line), so they are for
// ptxbench's own calls; in a worker that has already called the candidate, the worker's top level
// turns such a failure into the candidate's RUNTIME_ERROR (a sticky fault surfaces in the next
// call, whoever makes it). The *_WARN twins only print, for destructors.
#pragma once
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::gpu {

std::string cuda_error_text(cudaError_t error);
std::string cu_error_text(CUresult result);
std::string cublas_error_text(cublasStatus_t status);
void warn_failure(const char* file, int line, const char* call, const std::string& what);

}  // namespace ptxbench::eval::gpu

#define PTXBENCH_GPU_CHECK_IMPL(call, ok, text)                                                 \
  do {                                                                                          \
    auto ptxbench_status_ = (call);                                                             \
    if (ptxbench_status_ != (ok)) {                                                             \
      ::ptxbench::util::throw_check_failure(__FILE__, __LINE__, #call, text(ptxbench_status_)); \
    }                                                                                           \
  } while (false)

#define PTXBENCH_GPU_WARN_IMPL(call, ok, text)                                                \
  do {                                                                                        \
    auto ptxbench_status_ = (call);                                                           \
    if (ptxbench_status_ != (ok)) {                                                           \
      ::ptxbench::eval::gpu::warn_failure(__FILE__, __LINE__, #call, text(ptxbench_status_)); \
    }                                                                                         \
  } while (false)

#define PTXBENCH_CUDA_CHECK(call) \
  PTXBENCH_GPU_CHECK_IMPL(call, cudaSuccess, ::ptxbench::eval::gpu::cuda_error_text)
#define PTXBENCH_CUDA_WARN(call) \
  PTXBENCH_GPU_WARN_IMPL(call, cudaSuccess, ::ptxbench::eval::gpu::cuda_error_text)
#define PTXBENCH_CU_CHECK(call) \
  PTXBENCH_GPU_CHECK_IMPL(call, CUDA_SUCCESS, ::ptxbench::eval::gpu::cu_error_text)
#define PTXBENCH_CUBLAS_CHECK(call) \
  PTXBENCH_GPU_CHECK_IMPL(call, CUBLAS_STATUS_SUCCESS, ::ptxbench::eval::gpu::cublas_error_text)
