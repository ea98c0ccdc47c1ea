// ptxbench: task=gemm_fp8_n7168_k5120 arch=blackwell expect=NOT_RUN
//
// C[M,N] = SCALE_A · SCALE_B · A[M,K] · B[N,K]^T — e4m3 in, fp32 accumulation in tensor memory,
// bf16 out — for the gemm_fp8_n{N}_k{K} family on Blackwell (sm_100a). Compiled and statically
// checked only: no B200 has been available, so it has never run (written 2026-12-07).
//
// It is solutions/blackwell/gemm_bf16_nt_tcgen05.cu with the FP8 form of the MMA and nothing
// else changed in its structure: tcgen05.mma.cta_group::1.kind::f8f6f4 (SASS UTCQMMA) with an
// instruction descriptor whose A and B formats are e4m3 (0), K = 32 per MMA (a 128-byte swizzle
// row holds 128 e4m3: the k-block is 128 deep, four MMAs, descriptor + 2 per step as for bf16),
// TMA maps of bytes (CU_TENSOR_MAP_DATA_TYPE_UINT8), and the per-tensor scales multiplied into
// the fp32 accumulators read back with tcgen05.ld before the bf16 conversion. Unlike Hopper's FP8
// wgmma, the accumulator in tensor memory is fp32, so there is no promotion step. The bf16
// file's notes on tile shape, pipeline and limits apply unchanged.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <cstdio>

// ptx-begin: mbarrier
namespace ptx {

// mbarrier.init.shared::cta.b64 — one thread, before any use; phase 0 expects `arrivals`.
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, uint32_t arrivals) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(addr), "r"(arrivals) : "memory");
}

// mbarrier.arrive.expect_tx.shared::cta.b64 — one thread; one arrival, and the current phase
// also waits for `bytes` more transaction bytes (completed by TMA's complete_tx).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(addr), "r"(bytes)
               : "memory");
}

// mbarrier.arrive.shared::cta.b64 — a thread; one arrival on a barrier of its own CTA
// (release at CTA scope: the thread's prior accesses happen before the phase completes).
__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(addr) : "memory");
}

// mapa + mbarrier.arrive.shared::cluster.b64 — a thread; one arrival on the barrier at the same
// shared-memory offset in CTA `cta_rank` of the cluster (itself included). Default CTA-scope
// release: enough to hand back a buffer that was only read, and by the async proxy (wgmma);
// .release.cluster would add a GPU-wide MEMBAR before every arrival.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(addr),
      "r"(cta_rank)
      : "memory");
}

// mbarrier.try_wait.parity.shared::cta.b64 — a thread; true once the phase of parity `parity`
// has completed (the hardware waits a bounded time before answering false).
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  uint32_t done = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(addr), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits for the phase of parity `parity`. Built with PTX_MBARRIER_TRAP_AFTER=<tries>, a wait that
// never completes prints the barrier and traps (the launch fails) instead of hanging the GPU.
__device__ __forceinline__ void mbarrier_wait_parity(uint64_t* bar, uint32_t parity) {
#ifdef PTX_MBARRIER_TRAP_AFTER
  for (long long tries = 0; !mbarrier_try_wait_parity(bar, parity); ++tries) {
    if (tries == (PTX_MBARRIER_TRAP_AFTER)) {
      printf("mbarrier wait stuck: block %d thread %d barrier smem 0x%x parity %u\n",
             static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x),
             static_cast<unsigned>(__cvta_generic_to_shared(bar)), parity);
      __trap();
    }
  }
#else
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
#endif
}

}  // namespace ptx
// ptx-end: mbarrier

// ptx-begin: fence
namespace ptx {

// fence.proxy.async.shared::cta — each thread that wrote shared memory with ordinary stores
// (st.shared, stmatrix), before the barrier after which TMA or the tensor cores read it.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// fence.mbarrier_init.release.cluster — the initialising thread, after mbarrier.init and before
// the CTA/cluster barrier: makes the initialised barriers visible to the async proxy and to peers.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// bar.sync id, threads — `threads` threads (a multiple of 32, whole warps) meet at named barrier
// `id` (0 is __syncthreads); orders their shared-memory accesses.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// bar.arrive id, threads — whole warps; count this warp's arrival at named barrier `id` without
// waiting (a producer/consumer hand-off: the waiting side uses bar.sync with the same count).
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// st.release.gpu.global.b32 — a thread; publishes `value` after every write that happens before
// it (its own, and other threads' ordered before it by a barrier), for any CTA of the GPU.
__device__ __forceinline__ void store_release_gpu(int* flag, int value) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

// ld.acquire.gpu.global.b32 — a thread; reads a flag so that whatever was published before the
// matching release is visible to this thread's later reads (and, after a barrier, to its CTA's).
__device__ __forceinline__ int load_acquire_gpu(const int* flag) {
  int value;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

}  // namespace ptx
// ptx-end: fence

// ptx-begin: tma
namespace ptx {

// prefetch.tensormap — a thread; fetches the descriptor into its cache ahead of the first copy.
__device__ __forceinline__ void tma_prefetch_descriptor(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes — one thread;
// copies the box at coordinates (x: inner, y: outer) to `dst`, completing its bytes on `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int32_t x, int32_t y) {
  const uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst_addr),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar_addr), "r"(x), "r"(y)
      : "memory");
}

// ... .multicast::cluster — one thread; the box lands at the same shared-memory offset, and
// completes on the barrier at the same offset, in every CTA of the cluster named in `cta_mask`.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map,
                                                      uint64_t* bar, int32_t x, int32_t y,
                                                      uint16_t cta_mask) {
  const uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst_addr),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar_addr), "r"(x), "r"(y), "h"(cta_mask)
      : "memory");
}

// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group — one thread; stores the box at `src`
// to coordinates (x, y). The smem must be written before, and fenced to the async proxy.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int32_t x,
                                             int32_t y) {
  const uint32_t src_addr = static_cast<uint32_t>(__cvta_generic_to_shared(src));
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(src_addr), "r"(x), "r"(y)
      : "memory");
}

// cp.async.bulk.commit_group — the issuing thread; closes the group of bulk copies issued since.
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// cp.async.bulk.wait_group.read N — the issuing thread; waits until at most N of its groups
// still read their shared-memory source (the source may then be overwritten).
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// cp.async.bulk.wait_group N — the issuing thread; waits until at most N of its groups are
// incomplete (their global writes done).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace ptx
// ptx-end: tma

// ptx-begin: tcgen05
namespace ptx {

// tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 — one whole warp; allocates kColumns
// TMEM columns (a power of two, 32..512) and writes their base address to `address_out` (smem).
template <uint32_t kColumns>
__device__ __forceinline__ void tmem_alloc(uint32_t* address_out) {
  static_assert(kColumns >= 32 && kColumns <= 512 && (kColumns & (kColumns - 1)) == 0,
                "TMEM allocations are powers of two from 32 to 512 columns");
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(address_out));
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(dst),
               "n"(kColumns)
               : "memory");
}

// tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned — the allocating warp; this CTA will
// allocate no more, so CTAs waiting to allocate on this SM need not wait for it.
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
}

// tcgen05.dealloc.cta_group::1.sync.aligned.b32 — the allocating warp, after every TMEM access
// has finished; frees the columns (a CTA must free all it allocated before it exits).
template <uint32_t kColumns>
__device__ __forceinline__ void tmem_dealloc(uint32_t tmem_address) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(tmem_address),
               "n"(kColumns)
               : "memory");
}

// tcgen05.fence::before_thread_sync — a thread; orders its earlier tcgen05 operations before the
// barrier that follows (e.g. tcgen05.ld before the dealloc behind a __syncthreads).
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
}

// tcgen05.fence::after_thread_sync — a thread; orders its later tcgen05 operations after the
// barrier or mbarrier wait that precedes it (e.g. reading the TMEM address, or the accumulator).
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
}

// Shared-memory descriptor of a K-major bf16 tile in the 128-byte swizzle layout (TMA's
// CU_TENSOR_MAP_SWIZZLE_128B): 8-row atoms 1024 B apart (stride byte offset), leading byte offset
// unused, bits 46-48 the fixed version 0b001, bits 61-63 layout 2 = 128-byte swizzle (the sm_100
// encoding; wgmma's sm_90 descriptor used bits 62-63 with 1 for the same layout). `tile` must be
// 1024-byte aligned; the k-th 16-element slice is the descriptor plus 2k (32 B >> 4).
__device__ __forceinline__ uint64_t umma_desc_k_major_sw128(const void* tile) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);  // bits 0-13: start address >> 4
  desc |= static_cast<uint64_t>(1) << 16;                // bits 16-29: leading byte offset >> 4
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;        // bits 32-45: stride byte offset >> 4
  desc |= static_cast<uint64_t>(1) << 46;                // bits 46-48: version 0b001
  desc |= static_cast<uint64_t>(2) << 61;                // bits 61-63: 2 = 128-byte swizzle
  return desc;
}

// Instruction descriptor of tcgen05.mma kind::f16 for D(fp32) = A(bf16) * B(bf16), both K-major,
// tile kM x kN: bits 4-5 D format (1 = f32), 7-9 A format (1 = bf16), 10-12 B format (1 = bf16),
// 15/16 A/B major (0 = K), 17-22 N >> 3, 24-28 M >> 4.
template <int kM, int kN>
__host__ __device__ constexpr uint32_t umma_instr_desc_bf16_f32() {
  static_assert(kM == 64 || kM == 128, "cta_group::1 takes M = 64 or 128");
  static_assert(kN % (kM == 64 ? 8 : 16) == 0 && kN >= 16 && kN <= 256, "N: 16..256");
  return (1u << 4) | (1u << 7) | (1u << 10) | (static_cast<uint32_t>(kN >> 3) << 17) |
         (static_cast<uint32_t>(kM >> 4) << 24);
}

// tcgen05.mma.cta_group::1.kind::f16 — one thread; D[tmem] (+)= A[smem desc] * B[smem desc]^T,
// asynchronous; `accumulate` false overwrites D. Completion is observed through tcgen05.commit.
__device__ __forceinline__ void umma_bf16(uint32_t d_tmem, uint64_t desc_a, uint64_t desc_b,
                                          uint32_t instr_desc, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
      "}\n" ::"r"(d_tmem),
      "l"(desc_a), "l"(desc_b), "r"(instr_desc), "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 — the issuing thread;
// one arrival on `bar` once all its earlier tcgen05.mma have completed (their smem reads too).
__device__ __forceinline__ void umma_commit(uint64_t* bar) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(addr)
      : "memory");
}

// tcgen05.ld.sync.aligned.32x32b.x32.b32 — warp; lane i receives TMEM lane (address lane + i),
// 32 consecutive 32-bit columns from the address's column. Wait with tmem_wait_ld before use.
__device__ __forceinline__ void tmem_load_32x32b_x32(uint32_t tmem_address, uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
      "%30, %31}, [%32];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
        "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]),
        "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]),
        "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]),
        "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(tmem_address));
}

// tcgen05.wait::ld.sync.aligned — warp; waits for its earlier tcgen05.ld to land in registers.
__device__ __forceinline__ void tmem_wait_ld() {
  asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
}

}  // namespace ptx
// ptx-end: tcgen05

// ptx-begin: tcgen05_fp8
namespace ptx {

// Instruction descriptor of tcgen05.mma kind::f8f6f4 for D(fp32) = A(e4m3) * B(e4m3), both
// K-major, tile kM x kN: bits 4-5 D format (1 = f32), 7-9 A format (0 = e4m3), 10-12 B format
// (0 = e4m3), 15/16 A/B major (0 = K), 17-22 N >> 3, 24-28 M >> 4.
template <int kM, int kN>
__host__ __device__ constexpr uint32_t umma_instr_desc_e4m3_f32() {
  static_assert(kM == 64 || kM == 128, "cta_group::1 takes M = 64 or 128");
  static_assert(kN % (kM == 64 ? 8 : 16) == 0 && kN >= 16 && kN <= 256, "N: 16..256");
  return (1u << 4) | (0u << 7) | (0u << 10) | (static_cast<uint32_t>(kN >> 3) << 17) |
         (static_cast<uint32_t>(kM >> 4) << 24);
}

// tcgen05.mma.cta_group::1.kind::f8f6f4 — one thread; D[tmem] (+)= A[smem desc] * B[smem desc]^T
// with FP8 operands, K = 32 per instruction, asynchronous; `accumulate` false overwrites D. The
// accumulator in tensor memory is fp32 (no promotion as on Hopper). Completion through
// tcgen05.commit.
__device__ __forceinline__ void umma_e4m3(uint32_t d_tmem, uint64_t desc_a, uint64_t desc_b,
                                          uint32_t instr_desc, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n"
      "}\n" ::"r"(d_tmem),
      "l"(desc_a), "l"(desc_b), "r"(instr_desc), "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

}  // namespace ptx
// ptx-end: tcgen05_fp8

namespace gemm {

using bf16 = __nv_bfloat16;
using fp8 = uint8_t;  // e4m3 bits: only TMA and the tensor cores look at them

struct Config {
  static constexpr int kBlockM = 128;  // = UMMA M (cta_group::1): TMEM lanes 0-127
  static constexpr int kBlockN = 256;  // = UMMA N: 256 fp32 TMEM columns
  static constexpr int kBlockK = 128;  // one 128-byte swizzle row of e4m3
  static constexpr int kUmmaK = 32;    // K of one kind::f8f6f4 MMA
  static constexpr int kStages = 4;
  static constexpr int kThreads = 128;  // 4 warps: one per 32-lane quarter of TMEM
  static constexpr uint32_t kTmemColumns = 256;

  static constexpr uint32_t kTileBytesA = kBlockM * kBlockK * sizeof(fp8);
  static constexpr uint32_t kTileBytesB = kBlockN * kBlockK * sizeof(fp8);
  static constexpr uint32_t kStageBytes = kTileBytesA + kTileBytesB;
  static constexpr uint32_t kInstrDesc = ptx::umma_instr_desc_e4m3_f32<kBlockM, kBlockN>();
  static constexpr int kSharedMemoryLimit = 232448;  // sm_100 opt-in maximum per block

  static_assert(kBlockK * sizeof(fp8) == 128, "one k-slab row must be one 128-byte swizzle row");
  static_assert(kTmemColumns >= kBlockN, "the fp32 accumulator takes one TMEM column per N");
  static_assert(kThreads == 4 * 32 && kBlockM == 128, "warp w reads TMEM lanes 32w..32w+31");
};

enum class WarpRole { kProducer, kMmaIssuer, kEpilogueOnly };

__device__ __forceinline__ WarpRole warp_role(int warp) {
  return warp == 0   ? WarpRole::kProducer
         : warp == 1 ? WarpRole::kMmaIssuer
                     : WarpRole::kEpilogueOnly;
}

struct alignas(1024) SharedStorage {
  fp8 a[Config::kStages][Config::kBlockM * Config::kBlockK];  // 16 KB a stage
  fp8 b[Config::kStages][Config::kBlockN * Config::kBlockK];  // 32 KB a stage
  uint64_t full[Config::kStages];                             // TMA bytes landed
  uint64_t empty[Config::kStages];  // the MMAs reading the stage have completed (tcgen05.commit)
  uint64_t accumulator_ready;       // every MMA of the tile has completed
  uint32_t tmem_base;               // written by tcgen05.alloc
};
constexpr int kSharedMemoryBytes = sizeof(SharedStorage) + 1024;  // + manual 1024 alignment
static_assert(kSharedMemoryBytes <= Config::kSharedMemoryLimit, "shared memory");

struct PipelineState {
  int stage = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == Config::kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

__global__ void __launch_bounds__(Config::kThreads, 1)
    gemm_fp8_nt_tcgen05_kernel(const __grid_constant__ CUtensorMap tensor_a,
                               const __grid_constant__ CUtensorMap tensor_b, const float* scale_a,
                               const float* scale_b, bf16* c, int m, int n, int k) {
  extern __shared__ uint8_t shared_raw[];
  const uint32_t raw_address = static_cast<uint32_t>(__cvta_generic_to_shared(shared_raw));
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(
      shared_raw + (((raw_address + 1023) & ~1023u) - raw_address));
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int m_block = static_cast<int>(blockIdx.y);
  const int n_block = static_cast<int>(blockIdx.x);
  const int num_k_blocks = (k + Config::kBlockK - 1) / Config::kBlockK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Config::kStages; ++s) {
      ptx::mbarrier_init(&smem.full[s], 1);   // the producer's arrive.expect_tx
      ptx::mbarrier_init(&smem.empty[s], 1);  // one tcgen05.commit
    }
    ptx::mbarrier_init(&smem.accumulator_ready, 1);
    ptx::fence_barrier_init();
  }
  if (warp_role(warp) == WarpRole::kMmaIssuer) {
    ptx::tmem_alloc<Config::kTmemColumns>(&smem.tmem_base);
    ptx::tmem_relinquish_alloc_permit();
  }
  // The TMEM address was written by the tensor-core side of warp 1: fence around the barrier so
  // that every thread's later tcgen05 operations see the allocation.
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem_accumulator = smem.tmem_base;

  if (warp_role(warp) == WarpRole::kProducer && lane == 0) {
    PipelineState state;
    for (int k_block = 0; k_block < num_k_blocks; ++k_block) {
      ptx::mbarrier_wait_parity(&smem.empty[state.stage], state.phase ^ 1);
      ptx::mbarrier_arrive_expect_tx(&smem.full[state.stage], Config::kStageBytes);
      const int kx = k_block * Config::kBlockK;
      ptx::tma_load_2d(smem.a[state.stage], &tensor_a, &smem.full[state.stage], kx,
                       m_block * Config::kBlockM);
      ptx::tma_load_2d(smem.b[state.stage], &tensor_b, &smem.full[state.stage], kx,
                       n_block * Config::kBlockN);
      state.advance();
    }
  } else if (warp_role(warp) == WarpRole::kMmaIssuer && lane == 0) {
    PipelineState state;
    for (int k_block = 0; k_block < num_k_blocks; ++k_block) {
      ptx::mbarrier_wait_parity(&smem.full[state.stage], state.phase);
      ptx::tcgen05_fence_after_thread_sync();
      const uint64_t desc_a = ptx::umma_desc_k_major_sw128(smem.a[state.stage]);
      const uint64_t desc_b = ptx::umma_desc_k_major_sw128(smem.b[state.stage]);
#pragma unroll
      for (int kk = 0; kk < Config::kBlockK / Config::kUmmaK; ++kk) {
        // +2 per step: 32 e4m3 = 32 bytes along the swizzled row, in 16-byte units.
        ptx::umma_e4m3(tmem_accumulator, desc_a + 2 * kk, desc_b + 2 * kk, Config::kInstrDesc,
                       k_block > 0 || kk > 0);
      }
      // The stage is free once these MMAs have read it; commit tracks all MMAs issued so far.
      ptx::umma_commit(&smem.empty[state.stage]);
      state.advance();
    }
    ptx::umma_commit(&smem.accumulator_ready);
  }
  __syncwarp();

  // Epilogue, all four warps: warp w owns tile rows 32w..32w+31 (TMEM lanes), one row a thread,
  // read 32 fp32 columns at a time, converted and stored as four 16-byte vectors.
  ptx::mbarrier_wait_parity(&smem.accumulator_ready, 0);
  ptx::tcgen05_fence_after_thread_sync();
  const int row = m_block * Config::kBlockM + warp * 32 + lane;
  const float scale = *scale_a * *scale_b;  // per-tensor scales commute with the sum
  const uint32_t lane_address = tmem_accumulator + (static_cast<uint32_t>(warp * 32) << 16);
#pragma unroll 1
  for (int chunk = 0; chunk < Config::kBlockN / 32; ++chunk) {
    uint32_t raw[32];
    ptx::tmem_load_32x32b_x32(lane_address + chunk * 32, raw);
    ptx::tmem_wait_ld();
    const int col0 = n_block * Config::kBlockN + chunk * 32;
    if (row < m) {
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        if (col0 + 8 * v >= n) break;
        uint4 packed;
        uint32_t* words = &packed.x;
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          const __nv_bfloat162 pair =
              __floats2bfloat162_rn(scale * __uint_as_float(raw[8 * v + 2 * w]),
                                    scale * __uint_as_float(raw[8 * v + 2 * w + 1]));
          words[w] = *reinterpret_cast<const uint32_t*>(&pair);
        }
        *reinterpret_cast<uint4*>(&c[static_cast<int64_t>(row) * n + col0 + 8 * v]) = packed;
      }
    }
  }

  // Free TMEM only after every warp's tcgen05.ld has completed.
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp_role(warp) == WarpRole::kMmaIssuer) {
    ptx::tcgen05_fence_after_thread_sync();
    ptx::tmem_dealloc<Config::kTmemColumns>(tmem_accumulator);
  }
}

// ---------------------------------------------------------------------------------------------
// Host side.

// A row-major [outer, inner] e4m3 matrix as a TMA tensor map of bytes (TMA has no FP8 type; box
// box_outer x box_inner, 128-byte swizzle, zero fill out of bounds), built on every call from the
// actual pointer.
CUtensorMap make_tensor_map(const void* base, uint64_t inner, uint64_t outer, uint32_t box_inner,
                            uint32_t box_outer) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {inner, outer};
  const cuuint64_t strides[1] = {inner * sizeof(fp8)};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    TVM_FFI_THROW(RuntimeError) << "cuTensorMapEncodeTiled failed with CUresult " << result;
  }
  return map;
}

void check_matrix(const tvm::ffi::TensorView& t, const char* name, int device_id, bool e4m3) {
  const DLDataType dtype = t.dtype();
  const bool right_type = e4m3 ? dtype.code == kDLFloat8_e4m3fn && dtype.bits == 8
                               : dtype.code == kDLBfloat && dtype.bits == 16;
  if (t.ndim() != 2 || !right_type || dtype.lanes != 1) {
    TVM_FFI_THROW(ValueError) << name
                              << (e4m3 ? " must be a 2-D float8_e4m3fn tensor"
                                       : " must be a 2-D bf16 tensor");
  }
  if (t.device().device_type != kDLCUDA || t.device().device_id != device_id) {
    TVM_FFI_THROW(ValueError) << name << " must live on the same CUDA device as A";
  }
  if (!t.IsContiguous()) TVM_FFI_THROW(ValueError) << name << " must be row-major contiguous";
  if (t.size(1) % 16 != 0) {  // 16-byte rows for TMA (e4m3), 8-column vectors of C (bf16)
    TVM_FFI_THROW(ValueError) << name << ": row length must be a multiple of 16";
  }
  if (reinterpret_cast<uintptr_t>(static_cast<const char*>(t.data_ptr()) + t.byte_offset()) % 16 !=
      0) {
    TVM_FFI_THROW(ValueError) << name << ": data must be 16-byte aligned";
  }
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    TVM_FFI_THROW(RuntimeError) << what << ": " << cudaGetErrorString(status);
  }
}

}  // namespace gemm

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView scale_a,
         tvm::ffi::TensorView scale_b, tvm::ffi::TensorView c) {
  using gemm::Config;
  const int device_id = a.device().device_id;
  gemm::check_matrix(a, "A", device_id, true);
  gemm::check_matrix(b, "B", device_id, true);
  gemm::check_matrix(c, "C", device_id, false);
  for (const tvm::ffi::TensorView* scale : {&scale_a, &scale_b}) {
    const DLDataType dtype = scale->dtype();
    if (scale->numel() != 1 || dtype.code != kDLFloat || dtype.bits != 32 ||
        scale->device().device_type != kDLCUDA || scale->device().device_id != device_id) {
      TVM_FFI_THROW(ValueError) << "SCALE_A and SCALE_B must be one float32 each on A's device";
    }
  }
  const int64_t m = a.size(0), k = a.size(1), n = b.size(0);
  if (b.size(1) != k || c.size(0) != m || c.size(1) != n) {
    TVM_FFI_THROW(ValueError) << "shapes must be A[M,K], B[N,K], C[M,N]";
  }
  if (m == 0 || n == 0) return;
  if (k == 0) TVM_FFI_THROW(ValueError) << "K must be positive";
  auto data = [](const tvm::ffi::TensorView& t) {
    return static_cast<char*>(t.data_ptr()) + t.byte_offset();
  };
  const CUtensorMap tensor_a =
      gemm::make_tensor_map(data(a), k, m, Config::kBlockK, Config::kBlockM);
  const CUtensorMap tensor_b =
      gemm::make_tensor_map(data(b), k, n, Config::kBlockK, Config::kBlockN);
  auto* kernel = gemm::gemm_fp8_nt_tcgen05_kernel;
  gemm::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        gemm::kSharedMemoryBytes),
                   "cudaFuncSetAttribute");
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));
  const dim3 grid(static_cast<unsigned>((n + Config::kBlockN - 1) / Config::kBlockN),
                  static_cast<unsigned>((m + Config::kBlockM - 1) / Config::kBlockM));
  kernel<<<grid, Config::kThreads, gemm::kSharedMemoryBytes, stream>>>(
      tensor_a, tensor_b, reinterpret_cast<const float*>(data(scale_a)),
      reinterpret_cast<const float*>(data(scale_b)), reinterpret_cast<gemm::bf16*>(data(c)),
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k));
  gemm::check_cuda(cudaGetLastError(), "launch gemm_fp8_nt_tcgen05_kernel");
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
