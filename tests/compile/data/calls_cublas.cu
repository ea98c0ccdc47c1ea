// Test candidate that hands the GEMM to cuBLAS instead of writing a kernel. It compiles (the
// cuBLAS symbols stay undefined in the shared object) and must be refused as FORBIDDEN from what
// the object imports. The include is spelled through a macro so that only the binary check,
// not the source pre-check, can catch it.
#define PTXBENCH_TEST_HEADER <cublas_v2.h>
#include PTXBENCH_TEST_HEADER
#include <cuda_bf16.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  const int m = static_cast<int>(a.size(0)), k = static_cast<int>(a.size(1));
  const int n = static_cast<int>(b.size(0));
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, static_cast<cudaStream_t>(TVMFFIEnvGetStream(
                              a.device().device_type, a.device().device_id)));
  const float alpha = 1.f, beta = 0.f;
  // Column-major view: C^T[N,M] = B[N,K] * A^T[K,M].
  cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b.data_ptr(), CUDA_R_16BF, k,
               a.data_ptr(), CUDA_R_16BF, k, &beta, c.data_ptr(), CUDA_R_16BF, n,
               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cublasDestroy(handle);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
