// A two-kernel candidate for gemm_n7168_k5120 that must pass: run() first launches a prologue
// that clears C, then the honest TMA + wgmma GEMM of the controls. The CUPTI probe reports only
// the first kernel function of a process, so it measures the prologue; the GEMM, which carries
// every FLOP, can only be proven by the Nsight Compute fallback (eval/ncu_counts.hpp).
// tests/controls/ncu_fallback_eval_test.cpp runs it through the whole pipeline.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

// control-base-begin (tests/controls/honest_gemm.inc; controls_copies_test keeps the copies equal)
// An honest, simple Hopper GEMM that the controls start from: C[M,N] = A[M,K]·B[N,K]ᵀ in bf16
// with fp32 accumulation. One CTA of one warpgroup per 64x64 tile of C; per 64-wide k-block one
// thread loads both operand tiles with TMA (128-byte swizzle) onto an mbarrier, and the
// warpgroup runs four wgmma.m64n64k16. Single-stage and slow, but every FLOP goes through GMMA,
// and TMA and SYNCS execute, so a control fails only for the defect it plants.
namespace honest {

using bf16 = __nv_bfloat16;
constexpr int kTile = 64;  // rows and columns of a C tile; also the k-block (64 bf16 = 128 B)
constexpr int kThreads = 128;
constexpr uint32_t kStageBytes = 2 * kTile * kTile * sizeof(bf16);

__device__ __forceinline__ uint32_t smem_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// mbarrier.init: one thread, before any arrival.
__device__ __forceinline__ void mbarrier_init(uint64_t* barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(barrier)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// mbarrier.arrive.expect_tx: the loading thread; the phase completes when `bytes` have landed.
__device__ __forceinline__ void mbarrier_expect(uint64_t* barrier, uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(barrier)),
      "r"(bytes)
      : "memory");
}
// mbarrier.try_wait.parity in a loop: every consuming thread.
__device__ __forceinline__ void mbarrier_wait(uint64_t* barrier, uint32_t phase) {
  asm volatile(
      "{\n .reg .pred done;\nwait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait_%=;\n}" ::"r"(smem_address(barrier)),
      "r"(phase)
      : "memory");
}
// cp.async.bulk.tensor.2d: one thread loads the box at (inner x, outer y).
__device__ __forceinline__ void tma_load(void* destination, const CUtensorMap* map,
                                         uint64_t* barrier, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, "
      "{%2, %3}], [%4];" ::"r"(smem_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_address(barrier))
      : "memory");
}
// Shared-memory descriptor of a K-major tile in the 128-byte swizzle (8-row atoms, 1024 B apart).
__device__ __forceinline__ uint64_t descriptor(const void* tile) {
  return ((smem_address(tile) & 0x3FFFF) >> 4) | (uint64_t{1} << 16) | (uint64_t{1024 >> 4} << 32) |
         (uint64_t{1} << 62);
}
// wgmma.mma_async m64n64k16, f32 += bf16·bf16, both K-major: the whole warpgroup.
__device__ __forceinline__ void wgmma(float (&d)[32], uint64_t a, uint64_t b, bool accumulate) {
  asm volatile(
      "{\n .reg .pred keep;\n setp.ne.b32 keep, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, keep, 1, 1, 0, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

struct Shared {
  alignas(1024) bf16 a[kTile * kTile];
  alignas(1024) bf16 b[kTile * kTile];
  uint64_t full;
};

__global__ void __launch_bounds__(kThreads)
    gemm_tma_wgmma(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, bf16* c, int m, int n, int k) {
  __shared__ Shared s;
  const int tile_m = blockIdx.y * kTile, tile_n = blockIdx.x * kTile;
  if (threadIdx.x == 0) mbarrier_init(&s.full);
  __syncthreads();
  float d[32] = {};
  for (int kb = 0; kb < k / kTile; ++kb) {
    if (threadIdx.x == 0) {
      mbarrier_expect(&s.full, kStageBytes);
      tma_load(s.a, &map_a, &s.full, kb * kTile, tile_m);  // rows past M arrive as zeros
      tma_load(s.b, &map_b, &s.full, kb * kTile, tile_n);
    }
    mbarrier_wait(&s.full, kb & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int kk = 0; kk < kTile / 16; ++kk) {
      wgmma(d, descriptor(s.a + kk * 16), descriptor(s.b + kk * 16), kb > 0 || kk > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();  // the next TMA overwrites the stage
  }
  // m64nNk16 accumulators: warp w holds rows 16w..16w+15; per 8 columns a thread has
  // (row lane/4, columns 2(lane%4)+{0,1}) and the same 8 rows further down.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = 0; j < 32; ++j) {
    const int row = tile_m + warp * 16 + lane / 4 + 8 * ((j / 2) % 2);
    const int col = tile_n + (j / 4) * 8 + (lane % 4) * 2 + (j % 2);
    if (row < m) c[static_cast<int64_t>(row) * n + col] = __float2bfloat16(d[j]);
  }
}

inline CUtensorMap tensor_map(const void* base, int rows, int cols) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(bf16)};
  const cuuint32_t box[2] = {kTile, kTile};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) TVM_FFI_THROW(RuntimeError) << "cuTensorMapEncodeTiled failed";
  return map;
}

struct Shape {
  int m, n, k;
};

// Checks the ABI's shapes (N and K multiples of 64) and returns M, N, K.
inline Shape shape_of(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  const Shape shape{static_cast<int>(a.size(0)), static_cast<int>(b.size(0)),
                    static_cast<int>(a.size(1))};
  if (b.size(1) != shape.k || c.size(0) != shape.m || c.size(1) != shape.n ||
      shape.n % kTile != 0 || shape.k % kTile != 0) {
    TVM_FFI_THROW(ValueError) << "expects A[M,K], B[N,K], C[M,N] with N, K multiples of 64";
  }
  return shape;
}

inline cudaStream_t caller_stream(tvm::ffi::TensorView tensor) {
  return static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, tensor.device().device_id));
}

// C = A·Bᵀ on `stream`.
inline void gemm(const void* a, const void* b, void* c, Shape shape, cudaStream_t stream) {
  const dim3 grid(shape.n / kTile, (shape.m + kTile - 1) / kTile);
  gemm_tma_wgmma<<<grid, kThreads, 0, stream>>>(tensor_map(a, shape.m, shape.k),
                                                tensor_map(b, shape.n, shape.k),
                                                static_cast<bf16*>(c), shape.m, shape.n, shape.k);
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(error);
}

}  // namespace honest
// control-base-end

namespace prologue {

// Clears C. Each block first passes an mbarrier phase (one arrival, no bytes) before writing:
// the core task requests SYNCS, which the probe measures in this kernel, the one it sees; GMMA,
// TMA and the GEMM's own SYNCS execute in the GEMM, where only ncu sees them.
__global__ void __launch_bounds__(honest::kThreads)
    clear_output(honest::bf16* c, int64_t elements) {
  __shared__ uint64_t ready;
  if (threadIdx.x == 0) honest::mbarrier_init(&ready);
  __syncthreads();
  if (threadIdx.x == 0) honest::mbarrier_expect(&ready, 0);
  honest::mbarrier_wait(&ready, 0);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < elements;
       i += stride) {
    c[i] = __float2bfloat16(0.0f);
  }
}

inline void clear(void* c, honest::Shape shape, cudaStream_t stream) {
  const int64_t elements = static_cast<int64_t>(shape.m) * shape.n;
  const int64_t blocks = (elements + honest::kThreads - 1) / honest::kThreads;
  clear_output<<<static_cast<unsigned>(blocks < 1024 ? blocks : 1024), honest::kThreads, 0,
                 stream>>>(static_cast<honest::bf16*>(c), elements);
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(error);
}

}  // namespace prologue

void run(tvm::ffi::TensorView A, tvm::ffi::TensorView B, tvm::ffi::TensorView C) {
  const honest::Shape shape = honest::shape_of(A, B, C);
  const cudaStream_t stream = honest::caller_stream(A);
  prologue::clear(C.data_ptr(), shape, stream);  // first: the kernel the probe measures
  honest::gemm(A.data_ptr(), B.data_ptr(), C.data_ptr(), shape, stream);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
