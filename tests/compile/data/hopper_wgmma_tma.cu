// Test candidate (Hopper, sm_90a): C[M,N] = A[M,K] * B[N,K]^T in bf16 with fp32 accumulation.
// One warpgroup per 64x128 tile of C; thread 0 loads 64x64 (A) and 128x64 (B) K-slices with TMA
// (cp.async.bulk.tensor, 128-byte swizzle) and signals an mbarrier with the byte count; all 128
// threads wait on the barrier and issue wgmma.mma_async m64n128k16 over the slice. Requires
// M % 64 == 0, N % 128 == 0, K % 64 == 0. Its SASS must show GMMA, TMA and SYNCS.
#include <cuda.h>
#include <cuda_bf16.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {
constexpr int kBlockM = 64;
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;  // 64 bf16 = 128 bytes: one 128-byte swizzle row
constexpr int kThreads = 128;
constexpr uint32_t kStageBytes = (kBlockM + kBlockN) * kBlockK * sizeof(__nv_bfloat16);

struct alignas(1024) SharedStorage {
  __nv_bfloat16 a[kBlockM * kBlockK];  // 8 KiB, 1024-byte aligned for the 128-byte swizzle
  __nv_bfloat16 b[kBlockN * kBlockK];  // 16 KiB
  uint64_t full_barrier;
};

__device__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// mbarrier: one thread initialises; `count` arrivals complete a phase.
__device__ void mbarrier_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One thread arrives and announces how many bytes the TMA loads will deliver.
__device__ void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

// Every thread spins until the phase with this parity completes.
__device__ void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// TMA: one thread copies a 2D box of the tensor map into shared memory.
__device__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(x), "r"(y)
      : "memory");
}

// wgmma shared-memory descriptor of a K-major tile with 128-byte swizzle: 8-row groups are
// 1024 bytes apart (stride byte offset), layout type 1 in bits 62-63.
__device__ uint64_t smem_descriptor(const void* tile) {
  uint64_t desc = (smem_addr(tile) & 0x3FFFF) >> 4;
  desc |= uint64_t(1) << 16;             // leading byte offset (unused for swizzled K-major)
  desc |= uint64_t(1024 >> 4) << 32;     // stride byte offset
  desc |= uint64_t(1) << 62;             // 128-byte swizzle
  return desc;
}

// wgmma m64n128k16, bf16 inputs from shared memory, fp32 accumulators (64 per thread).
__device__ void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),
        "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
        "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),
        "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

__global__ void __launch_bounds__(kThreads)
    gemm_tma_wgmma(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, __nv_bfloat16* c, int n, int k) {
  extern __shared__ uint8_t raw_smem[];
  auto& smem = *reinterpret_cast<SharedStorage*>(
      (reinterpret_cast<uintptr_t>(raw_smem) + 1023) & ~uintptr_t(1023));
  const int tile_m = blockIdx.y * kBlockM;
  const int tile_n = blockIdx.x * kBlockN;
  if (threadIdx.x == 0) mbarrier_init(&smem.full_barrier, 1);
  __syncthreads();

  float acc[64] = {};
  uint32_t phase = 0;
  for (int k0 = 0; k0 < k; k0 += kBlockK, phase ^= 1) {
    if (threadIdx.x == 0) {
      mbarrier_arrive_expect_tx(&smem.full_barrier, kStageBytes);
      tma_load_2d(smem.a, &map_a, &smem.full_barrier, k0, tile_m);
      tma_load_2d(smem.b, &map_b, &smem.full_barrier, k0, tile_n);
    }
    mbarrier_wait(&smem.full_barrier, phase);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < kBlockK / 16; ++kk) {
      // Inside a 128-byte swizzled row, the next 16 elements start 32 bytes further.
      wgmma_m64n128k16(acc, smem_descriptor(smem.a + kk * 16), smem_descriptor(smem.b + kk * 16),
                       k0 > 0 || kk > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();  // the tiles are overwritten by the next iteration's TMA
  }

  // Accumulator layout of m64nNk16: warp w owns rows 16w..16w+15; lane l holds rows l/4 and
  // l/4+8 of that band, columns 8i + 2(l%4) and +1.
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int row = tile_m + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = tile_n + i * 8 + (lane % 4) * 2;
    c[int64_t(row) * n + col] = __float2bfloat16(acc[4 * i + 0]);
    c[int64_t(row) * n + col + 1] = __float2bfloat16(acc[4 * i + 1]);
    c[int64_t(row + 8) * n + col] = __float2bfloat16(acc[4 * i + 2]);
    c[int64_t(row + 8) * n + col + 1] = __float2bfloat16(acc[4 * i + 3]);
  }
}

// A K-major bf16 matrix [rows, cols] as a TMA map with a box of box_rows x 64 and 128B swizzle.
CUtensorMap make_map(void* data, int64_t rows, int64_t cols, uint32_t box_rows) {
  CUtensorMap map;
  cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(__nv_bfloat16)};
  cuuint32_t box[2] = {kBlockK, box_rows};
  cuuint32_t element_strides[2] = {1, 1};
  CUresult status = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, data, dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  TVM_FFI_ICHECK(status == CUDA_SUCCESS) << "cuTensorMapEncodeTiled failed: " << status;
  return map;
}
}  // namespace

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(0);
  TVM_FFI_ICHECK(m % kBlockM == 0 && n % kBlockN == 0 && k % kBlockK == 0)
      << "unsupported shape";
  CUtensorMap map_a = make_map(a.data_ptr(), m, k, kBlockM);
  CUtensorMap map_b = make_map(b.data_ptr(), n, k, kBlockN);
  const size_t smem_bytes = sizeof(SharedStorage) + 1024;
  cudaFuncSetAttribute(gemm_tma_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(smem_bytes));
  auto stream = static_cast<cudaStream_t>(
      TVMFFIEnvGetStream(a.device().device_type, a.device().device_id));
  dim3 grid(static_cast<unsigned>(n / kBlockN), static_cast<unsigned>(m / kBlockM));
  gemm_tma_wgmma<<<grid, kThreads, smem_bytes, stream>>>(
      map_a, map_b, static_cast<__nv_bfloat16*>(c.data_ptr()), static_cast<int>(n),
      static_cast<int>(k));
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
