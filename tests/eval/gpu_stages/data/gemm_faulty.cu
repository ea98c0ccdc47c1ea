// Broken GEMM candidates for the harness's own tests, one defect per build flag:
//   GEMM_FAULT         writes far outside C (illegal address)  -> RUNTIME_ERROR
//   GEMM_HANG          a kernel that never ends                -> TIMEOUT
//   GEMM_OOM           more device memory than exists          -> RUNTIME_ERROR (out of memory)
//   GEMM_ABORT         abort() in run()                        -> RUNTIME_ERROR (signal)
//   GEMM_HOST_OOM      touches 64 GiB of host memory           -> RUNTIME_ERROR (host memory)
//   GEMM_DEVICE_HOARD  4 GiB of device memory, then correct C  -> PASSED; under a smaller
//                      device-memory cap RUNTIME_ERROR (out of memory)
//   GEMM_UNWRITTEN     returns without writing C               -> INCORRECT_SHAPE
//   GEMM_HALF_WRITTEN  writes only the first half of C's rows  -> INCORRECT_NUMERICAL
//   GEMM_MODIFIES_A    correct C, then overwrites A's first row -> INPUTS_MODIFIED
//   GEMM_WRONG_AFTER_CALLS  correct for the first 8 calls of each shape in a process, then
//                      leaves C unwritten: only the check after the timed calls sees it
//                                                              -> INCORRECT_NUMERICAL
//   GEMM_L2_PERSISTING correct C, with A marked persisting in a set-aside of L2 -> FORBIDDEN
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace {

__global__ void gemm_rows(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m,
                          int n, int k, int rows) {
  int row = blockIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || row >= m || col >= n) return;
  float acc = 0.f;
  for (int kk = 0; kk < k; ++kk) {
    acc += __bfloat162float(a[static_cast<long long>(row) * k + kk]) *
           __bfloat162float(b[static_cast<long long>(col) * k + kk]);
  }
  c[static_cast<long long>(row) * n + col] = __float2bfloat16_rn(acc);
}

#if defined(GEMM_FAULT)
__global__ void write_far_away(__nv_bfloat16* c) {
  c[1ll << 40] = __float2bfloat16_rn(1.f);
}
#endif

#if defined(GEMM_HANG)
// The sleep is a side effect the compiler keeps: the loop really never ends.
__global__ void spin_forever() {
  for (;;) __nanosleep(1000);
}
#endif

#if defined(GEMM_MODIFIES_A)
__global__ void clear_first_row(__nv_bfloat16* a, int k) {
  for (int i = threadIdx.x; i < k; i += blockDim.x) a[i] = __float2bfloat16_rn(0.f);
}
#endif

}  // namespace

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  int m = static_cast<int>(a.size(0)), k = static_cast<int>(a.size(1)),
      n = static_cast<int>(b.size(0));
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, a.device().device_id));
  auto* a_ptr = static_cast<__nv_bfloat16*>(a.data_ptr());
  auto* b_ptr = static_cast<const __nv_bfloat16*>(b.data_ptr());
  auto* c_ptr = static_cast<__nv_bfloat16*>(c.data_ptr());
  int rows = m;
#if defined(GEMM_FAULT)
  write_far_away<<<1, 1, 0, stream>>>(c_ptr);
  return;
#elif defined(GEMM_HANG)
  spin_forever<<<1, 1, 0, stream>>>();
  return;
#elif defined(GEMM_OOM)
  void* huge = nullptr;
  cudaError_t status = cudaMalloc(&huge, std::size_t{1} << 50);
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
#elif defined(GEMM_ABORT)
  std::abort();
#elif defined(GEMM_DEVICE_HOARD)
  // 4 GiB of device memory, written and released, then a correct product: passes on a whole
  // H200, fails under a smaller device-memory cap.
  void* hoard = nullptr;
  cudaError_t status = cudaMalloc(&hoard, std::size_t{4} << 30);
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
  cudaMemsetAsync(hoard, 1, std::size_t{4} << 30, stream);
  cudaStreamSynchronize(stream);
  cudaFree(hoard);
#elif defined(GEMM_HOST_OOM)
  // Within the machine's memory, beyond the worker's host budget (16 GiB): only the limit stops
  // it. Every page is touched: memory that is only reserved costs nothing.
  // The empty asm makes the pointer escape: without it the compiler may elide the allocation,
  // the memset and the free altogether (it did: the first version passed in 2 ms per call).
  constexpr std::size_t kHoard = std::size_t{64} << 30;
  auto* hoard = static_cast<char*>(std::malloc(kHoard));
  if (hoard == nullptr) TVM_FFI_THROW(RuntimeError) << "malloc failed";
  std::memset(hoard, 1, kHoard);
  asm volatile("" : : "r"(hoard) : "memory");
  rows = hoard[kHoard - 1] == 1 ? m : 0;
  std::free(hoard);
#elif defined(GEMM_UNWRITTEN)
  return;
#elif defined(GEMM_HALF_WRITTEN)
  rows = m / 2;
#elif defined(GEMM_WRONG_AFTER_CALLS)
  static int calls_at_m[1 << 16] = {};  // per process and shape (m differs between workloads)
  if (++calls_at_m[m & 0xffff] > 8) rows = 0;
#elif defined(GEMM_L2_PERSISTING)
  int device = 0, max_persisting = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device);
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(max_persisting));
  cudaStreamAttrValue window{};
  window.accessPolicyWindow.base_ptr = a_ptr;
  window.accessPolicyWindow.num_bytes =
      std::min(static_cast<std::size_t>(m) * k * 2, static_cast<std::size_t>(max_persisting));
  window.accessPolicyWindow.hitRatio = 1.0f;
  window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window);
#endif
  dim3 grid((n + 127) / 128, m);
  gemm_rows<<<grid, 128, 0, stream>>>(a_ptr, b_ptr, c_ptr, m, n, k, rows);
#if defined(GEMM_MODIFIES_A)
  clear_first_row<<<1, 128, 0, stream>>>(a_ptr, k);
#endif
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
