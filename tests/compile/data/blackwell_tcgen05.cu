// Test candidate (Blackwell, sm_100a): C[M,N] = A[M,K] * B[N,K]^T in bf16 with fp32 accumulation
// in tensor memory. One CTA (4 warps) per 128x128 tile of C: warp 0 allocates 128 TMEM columns;
// thread 0 loads 128x64 K-slices of A and B with TMA (128-byte swizzle), issues tcgen05.mma
// (M=128, N=128, K=16) four times per slice and commits to an mbarrier that every thread waits
// on; each warp then reads its 32 TMEM lanes with tcgen05.ld. Requires M, N % 128 == 0 and
// K % 64 == 0. Its SASS must show UTCMMA, UTCBAR, TMEM, TMA and SYNCS.
#include <cuda.h>
#include <cuda_bf16.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {
constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;  // 64 bf16 = 128 bytes: one 128-byte swizzle row
constexpr int kThreads = 128;
constexpr uint32_t kTmemColumns = 128;  // fp32 accumulator: one column per N
constexpr uint32_t kStageBytes = (kBlockM + kBlockN) * kBlockK * sizeof(__nv_bfloat16);

struct alignas(1024) SharedStorage {
  __nv_bfloat16 a[kBlockM * kBlockK];  // 16 KiB
  __nv_bfloat16 b[kBlockN * kBlockK];  // 16 KiB
  uint64_t tma_barrier;                // TMA bytes landed
  uint64_t mma_barrier;                // tcgen05.commit: the MMAs reading the slice are done
  uint32_t tmem_base;                  // written by tcgen05.alloc
};

__device__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ void mbarrier_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

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

__device__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(x), "r"(y)
      : "memory");
}

// UMMA shared-memory descriptor of a K-major tile with 128-byte swizzle: 8-row groups 1024 bytes
// apart, descriptor version 1 (bits 46-47), layout 2 = 128-byte swizzle (bits 61-63).
__device__ uint64_t smem_descriptor(const void* tile) {
  uint64_t desc = (smem_addr(tile) & 0x3FFFF) >> 4;
  desc |= uint64_t(1) << 16;
  desc |= uint64_t(1024 >> 4) << 32;
  desc |= uint64_t(1) << 46;
  desc |= uint64_t(2) << 61;
  return desc;
}

// Instruction descriptor for kind::f16: fp32 D (bits 4-5 = 1), bf16 A and B (bits 7-9, 10-12 = 1),
// both K-major, N >> 3 in bits 17-22, M >> 4 in bits 24-28.
constexpr uint32_t kInstrDescriptor = (1u << 4) | (1u << 7) | (1u << 10) |
                                      (uint32_t(kBlockN >> 3) << 17) |
                                      (uint32_t(kBlockM >> 4) << 24);

__global__ void __launch_bounds__(kThreads)
    gemm_tcgen05(const __grid_constant__ CUtensorMap map_a,
                 const __grid_constant__ CUtensorMap map_b, __nv_bfloat16* c, int n, int k) {
  extern __shared__ uint8_t raw_smem[];
  auto& smem = *reinterpret_cast<SharedStorage*>(
      (reinterpret_cast<uintptr_t>(raw_smem) + 1023) & ~uintptr_t(1023));
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int tile_m = blockIdx.y * kBlockM;
  const int tile_n = blockIdx.x * kBlockN;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                     smem_addr(&smem.tmem_base)),
                 "r"(kTmemColumns));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (threadIdx.x == 0) {
    mbarrier_init(&smem.tma_barrier, 1);
    mbarrier_init(&smem.mma_barrier, 1);
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem_d = smem.tmem_base;

  uint32_t phase = 0;
  for (int k0 = 0; k0 < k; k0 += kBlockK, phase ^= 1) {
    if (threadIdx.x == 0) {
      mbarrier_arrive_expect_tx(&smem.tma_barrier, kStageBytes);
      tma_load_2d(smem.a, &map_a, &smem.tma_barrier, k0, tile_m);
      tma_load_2d(smem.b, &map_b, &smem.tma_barrier, k0, tile_n);
      mbarrier_wait(&smem.tma_barrier, phase);
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < kBlockK / 16; ++kk) {
        const uint32_t accumulate = (k0 > 0 || kk > 0) ? 1u : 0u;
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "setp.ne.b32 p, %4, 0;\n"
            "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
            "}\n" ::"r"(tmem_d),
            "l"(smem_descriptor(smem.a + kk * 16)), "l"(smem_descriptor(smem.b + kk * 16)),
            "r"(kInstrDescriptor), "r"(accumulate));
      }
      asm volatile(
          "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
              smem_addr(&smem.mma_barrier))
          : "memory");
    }
    mbarrier_wait(&smem.mma_barrier, phase);  // the slice may now be overwritten
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  }

  // Warp w reads TMEM lanes 32w..32w+31 (rows of the tile), 32 fp32 columns per tcgen05.ld.
  const int row = tile_m + warp * 32 + lane;
#pragma unroll
  for (int col0 = 0; col0 < kBlockN; col0 += 32) {
    uint32_t v[32];
    const uint32_t address = tmem_d + (uint32_t(warp * 32) << 16) + uint32_t(col0);
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]),
          "=r"(v[7]), "=r"(v[8]), "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]),
          "=r"(v[13]), "=r"(v[14]), "=r"(v[15]), "=r"(v[16]), "=r"(v[17]), "=r"(v[18]),
          "=r"(v[19]), "=r"(v[20]), "=r"(v[21]), "=r"(v[22]), "=r"(v[23]), "=r"(v[24]),
          "=r"(v[25]), "=r"(v[26]), "=r"(v[27]), "=r"(v[28]), "=r"(v[29]), "=r"(v[30]),
          "=r"(v[31])
        : "r"(address));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      c[int64_t(row) * n + tile_n + col0 + j] = __float2bfloat16(__uint_as_float(v[j]));
    }
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem_d),
                 "r"(kTmemColumns));
  }
}

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
  cudaFuncSetAttribute(gemm_tcgen05, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(smem_bytes));
  auto stream = static_cast<cudaStream_t>(
      TVMFFIEnvGetStream(a.device().device_type, a.device().device_id));
  dim3 grid(static_cast<unsigned>(n / kBlockN), static_cast<unsigned>(m / kBlockM));
  gemm_tcgen05<<<grid, kThreads, smem_bytes, stream>>>(
      map_a, map_b, static_cast<__nv_bfloat16*>(c.data_ptr()), static_cast<int>(n),
      static_cast<int>(k));
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
