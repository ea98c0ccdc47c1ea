// Correct, simple GEMM candidate for the harness's own tests: C[M,N] = A[M,K] · B[N,K]^T in bf16
// with fp32 accumulation, 16x16 shared-memory tiles. No tensor cores: it is slow on purpose.
// Two breaches of the ABI's one-stream rule, each still correct in the caller's stream order, so
// that only the timing trace's stream rule can fail them (FORBIDDEN):
// -DGEMM_PRIVATE_STREAM forks onto a stream of its own and joins the caller's stream back with
// events; -DGEMM_BACKGROUND_STREAM computes on the caller's stream, then a detached thread clears
// a scratch buffer on a stream of its own while the harness goes on.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <chrono>
#include <thread>

namespace {

constexpr int kTile = 16;

__global__ void gemm_tiled(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m,
                           int n, int k) {
  __shared__ float a_tile[kTile][kTile + 1];
  __shared__ float b_tile[kTile][kTile + 1];
  int row = blockIdx.y * kTile + threadIdx.y;  // of C (and A)
  int col = blockIdx.x * kTile + threadIdx.x;  // of C (row of B)
  float acc = 0.f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    int ka = k0 + threadIdx.x;
    a_tile[threadIdx.y][threadIdx.x] =
        (row < m && ka < k) ? __bfloat162float(a[static_cast<long long>(row) * k + ka]) : 0.f;
    int b_row = blockIdx.x * kTile + threadIdx.y;
    b_tile[threadIdx.y][threadIdx.x] =
        (b_row < n && ka < k) ? __bfloat162float(b[static_cast<long long>(b_row) * k + ka]) : 0.f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) acc += a_tile[threadIdx.y][kk] * b_tile[threadIdx.x][kk];
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<long long>(row) * n + col] = __float2bfloat16_rn(acc);
}

#if defined(GEMM_PRIVATE_STREAM) || defined(GEMM_BACKGROUND_STREAM)
cudaStream_t own_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  return stream;
}
#endif

#ifdef GEMM_PRIVATE_STREAM
cudaEvent_t new_event() {
  cudaEvent_t event = nullptr;
  cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  return event;
}
#endif

}  // namespace

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  int m = static_cast<int>(a.size(0)), k = static_cast<int>(a.size(1)),
      n = static_cast<int>(b.size(0));
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, a.device().device_id));
#ifdef GEMM_PRIVATE_STREAM
  const cudaStream_t caller = stream;
  static cudaEvent_t fork = new_event(), join = new_event();
  cudaEventRecord(fork, caller);  // the inputs are ready in the caller's order
  cudaStreamWaitEvent(own_stream(), fork, 0);
  stream = own_stream();
#endif
  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  gemm_tiled<<<grid, block, 0, stream>>>(static_cast<const __nv_bfloat16*>(a.data_ptr()),
                                         static_cast<const __nv_bfloat16*>(b.data_ptr()),
                                         static_cast<__nv_bfloat16*>(c.data_ptr()), m, n, k);
#ifdef GEMM_PRIVATE_STREAM
  cudaEventRecord(join, own_stream());
  cudaStreamWaitEvent(caller, join, 0);
#endif
#ifdef GEMM_BACKGROUND_STREAM
  constexpr size_t kScratchBytes = 1 << 20;
  static void* scratch = [] {
    void* p = nullptr;
    cudaMalloc(&p, kScratchBytes);
    return p;
  }();
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    cudaMemsetAsync(scratch, 0, kScratchBytes, own_stream());
  }).detach();
#endif
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
