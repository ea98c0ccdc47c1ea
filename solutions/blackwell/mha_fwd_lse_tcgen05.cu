// ptxbench: task=mha_fwd_lse_d128 arch=blackwell expect=NOT_RUN
//
// Attention forward with the log-sum-exp on Blackwell (sm_100a): O = softmax(scale · Q·Kᵀ) · V
// and LSE = ln Σ_j exp(scale · Q·Kᵀ) (natural log of the scaled scores) per query row, for Q, K,
// V, O bf16 [B, H, S, 128] and LSE fp32 [B, H, S] (mha_fwd_lse_d128).
//
// STATUS: compiled for sm_100a and statically verified (ptxas resources; the SASS holds the
// tcgen05 MMA, TMEM and TMA instructions: tests/solutions checks both), NEVER RUN: there is no
// Blackwell GPU here. Its verdict is NOT_RUN, never PASSED. It follows the structure of
// solutions/blackwell/gemm_bf16_nt_tcgen05.cu and the schedule of the Hopper kernel
// solutions/simple/mha_fwd_lse_wgmma.cu, with the accumulators moved into tensor memory.
//
// Schedule of one CTA (128 threads, 4 warps; grid = S/128 query blocks × B·H heads). Thread t
// owns query row t: TMEM lane t holds its scores and its output, so the softmax needs no shuffles.
//   TMEM: 256 columns = S (128 keys × fp32, columns 0..127) + O (128 × fp32, columns 128..255).
//   thread 0 (TMA): Q (128 × 128) once, K/V tiles of 128 keys into a 2-stage ring (full/empty).
//   thread 32 (MMA): per tile j, S = Q·Kⱼᵀ (8 × tcgen05.mma 128x128x16, K-major operands), commit
//             -> s_ready; after the softmax, O += Pⱼ·Vⱼ (8 × 128x128x16, P K-major from shared
//             memory, V MN-major), commit -> o_ready and -> empty[stage].
//   all threads per tile: wait s_ready, tcgen05.ld the row's scores twice (the max, then exp and
//             sum), wait o_ready of tile j − 1 (its MMA read P and wrote O), rescale O in TMEM
//             (tcgen05.ld / st) by exp(scale·(m_old − m_new)), write P (bf16) into the
//             128-byte-swizzled P tile, fence.proxy.async, barrier, then thread 32 issues P·V.
//   epilogue: wait o_ready of the last tile, O / l to bf16 (one row per thread), LSE.
// Minimal, not tuned: the softmax of tile j does not overlap the MMAs of tile j + 1 (FlashAttention
// 4 splits S into two TMEM buffers and two softmax warpgroups for that), and O is rescaled on
// every tile instead of only when the maximum grew by enough to matter.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cmath>
#include <cstdint>

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

namespace attn {

using bf16 = __nv_bfloat16;
constexpr int kHeadDim = 128;
constexpr int kBlockQ = 128;   // query rows per CTA = UMMA M = TMEM lanes
constexpr int kBlockKV = 128;  // keys per K/V tile = UMMA N of S = K of P·V
constexpr int kBox = 64;       // columns per TMA box: 64 bf16 = 128 B = the swizzle span
constexpr int kStages = 2;
constexpr int kThreads = 128;
constexpr int kUmmaK = 16;
constexpr uint32_t kTmemColumns = 256;
constexpr uint32_t kScoreColumn = 0, kOutputColumn = 128;
constexpr uint32_t kPanelBytes = kBox * 128 * sizeof(bf16);  // 16 KB: 128 rows of 128 B
constexpr uint32_t kTileBytes = 2 * kPanelBytes;             // a 128 × 128 tile
// kind::f16, bf16 × bf16 -> fp32, M = N = 128; S: both operands K-major; P·V: B (V) MN-major.
constexpr uint32_t kInstrScores = ptx::umma_instr_desc_bf16_f32<kBlockQ, kBlockKV>();
constexpr uint32_t kInstrOutput = ptx::umma_instr_desc_bf16_f32<kBlockQ, kHeadDim>() | (1u << 16);

// A 128-row tile as two 64-column panels (head-dim or key columns 0..63, 64..127), each 128 rows
// of 128 B in the 128-byte swizzle layout, 1024-byte aligned.
struct Tile {
  alignas(1024) bf16 panel[2][kBox * 128];
};
struct SharedStorage {
  Tile q;
  Tile k[kStages];
  Tile v[kStages];
  Tile p;  // P = exp(scale·S − m) in bf16, [query rows][keys], K-major for the P·V MMA
  uint64_t q_full;
  uint64_t full[kStages];   // TMA bytes of a K/V tile landed
  uint64_t empty[kStages];  // the MMAs that read a K/V stage completed
  uint64_t s_ready;         // S of the current tile is in TMEM
  uint64_t o_ready;         // P·V of the current tile completed (P read, O written)
  uint32_t tmem_base;
};
constexpr int kSharedMemoryBytes = sizeof(SharedStorage) + 1024;  // + manual 1024 alignment
static_assert(kSharedMemoryBytes <= 232448, "sm_100 opt-in shared memory per block");

// Shared-memory descriptor (sm_100 layout) of a bf16 operand in the 128-byte swizzle layout:
// 8-row groups 1024 B apart (stride byte offset), version 0b001 in bits 46-48, layout 2 =
// 128-byte swizzle in bits 61-63. `leading_bytes`: unused for K-major operands; for an MN-major
// one, the distance between its 64-element panels along N.
__device__ __forceinline__ uint64_t umma_descriptor(const void* start, uint32_t leading_bytes) {
  const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(start));
  return static_cast<uint64_t>((address & 0x3FFFF) >> 4) |
         static_cast<uint64_t>(leading_bytes >> 4) << 16 | static_cast<uint64_t>(1024 >> 4) << 32 |
         static_cast<uint64_t>(1) << 46 | static_cast<uint64_t>(2) << 61;
}

// tcgen05.st.sync.aligned.32x32b.x32.b32 — warp; lane i writes TMEM lane (address lane + i),
// 32 consecutive columns. tcgen05.wait::st before anything that depends on the stored values.
__device__ __forceinline__ void tmem_store_32x32b_x32(uint32_t tmem_address,
                                                      const uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31, %32};\n" ::"r"(tmem_address),
      "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
      "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]),
      "r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]),
      "r"(r[23]), "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]),
      "r"(r[30]), "r"(r[31])
      : "memory");
}
__device__ __forceinline__ void tmem_wait_st() {
  asm volatile("tcgen05.wait::st.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&pair);
}

__device__ __forceinline__ void load_kv(SharedStorage& smem, const CUtensorMap* k_map,
                                        const CUtensorMap* v_map, int stage, int row) {
  ptx::mbarrier_arrive_expect_tx(&smem.full[stage], 2 * kTileBytes);
  for (int panel = 0; panel < 2; ++panel) {
    ptx::tma_load_2d(smem.k[stage].panel[panel], k_map, &smem.full[stage], panel * kBox, row);
    ptx::tma_load_2d(smem.v[stage].panel[panel], v_map, &smem.full[stage], panel * kBox, row);
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    mha_fwd_tcgen05_kernel(const __grid_constant__ CUtensorMap q_map,
                           const __grid_constant__ CUtensorMap k_map,
                           const __grid_constant__ CUtensorMap v_map, bf16* __restrict__ out,
                           float* __restrict__ lse, int seq_len, float scale) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw_address = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  SharedStorage& smem =
      *reinterpret_cast<SharedStorage*>(smem_raw + (((raw_address + 1023) & ~1023u) - raw_address));
  const int tid = threadIdx.x, warp = tid / 32;
  const int head_row = blockIdx.y * seq_len;  // row of (b, h, 0) in the [B·H·S, 128] view
  const int q_row = head_row + blockIdx.x * kBlockQ;
  const int num_kv = seq_len / kBlockKV;
  const bool producer = tid == 0, issuer = tid == 32;

  if (producer) {
    ptx::mbarrier_init(&smem.q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(&smem.full[s], 1);   // the producer's arrive.expect_tx
      ptx::mbarrier_init(&smem.empty[s], 1);  // one tcgen05.commit
    }
    ptx::mbarrier_init(&smem.s_ready, 1);
    ptx::mbarrier_init(&smem.o_ready, 1);
    ptx::fence_barrier_init();
  }
  if (warp == 1) {
    ptx::tmem_alloc<kTmemColumns>(&smem.tmem_base);
    ptx::tmem_relinquish_alloc_permit();
  }
  // The TMEM address was written by the tensor-core side of warp 1: fence around the barrier.
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = smem.tmem_base;
  const uint32_t lane_base = tmem + (static_cast<uint32_t>(warp * 32) << 16);  // this warp's lanes

  if (producer) {
    ptx::mbarrier_arrive_expect_tx(&smem.q_full, kTileBytes);
    for (int panel = 0; panel < 2; ++panel) {
      ptx::tma_load_2d(smem.q.panel[panel], &q_map, &smem.q_full, panel * kBox, q_row);
    }
    for (int j = 0; j < kStages && j < num_kv; ++j) {
      load_kv(smem, &k_map, &v_map, j, head_row + j * kBlockKV);
    }
  }
  if (issuer) ptx::mbarrier_wait_parity(&smem.q_full, 0);

  const float scale_log2 = scale * 1.4426950408889634f;  // exp(scale·x) = exp2(scale·log2e·x)
  float row_max = -INFINITY, row_sum = 0.f;  // of raw scores; of exp(scale·(x − max))
  uint8_t* p_row = reinterpret_cast<uint8_t*>(smem.p.panel) + tid * 128;

  for (int j = 0; j < num_kv; ++j) {
    const int stage = j % kStages;
    if (issuer) {  // S = Q·Kⱼᵀ into TMEM columns 0..127
      ptx::mbarrier_wait_parity(&smem.full[stage], (j / kStages) & 1);
      ptx::tcgen05_fence_after_thread_sync();
#pragma unroll
      for (int kk = 0; kk < kHeadDim / kUmmaK; ++kk) {
        const uint32_t step = (kk % 4) * 32;  // 16 bf16 along the swizzled row
        ptx::umma_bf16(
            tmem + kScoreColumn,
            umma_descriptor(reinterpret_cast<uint8_t*>(smem.q.panel[kk / 4]) + step, 16),
            umma_descriptor(reinterpret_cast<uint8_t*>(smem.k[stage].panel[kk / 4]) + step, 16),
            kInstrScores, kk > 0);
      }
      ptx::umma_commit(&smem.s_ready);
    }
    __syncwarp();

    // The row's scores: first the maximum, then exp and the sum, 32 columns at a time.
    ptx::mbarrier_wait_parity(&smem.s_ready, j & 1);
    ptx::tcgen05_fence_after_thread_sync();
    float tile_max = row_max;
#pragma unroll 1
    for (int chunk = 0; chunk < kBlockKV / 32; ++chunk) {
      uint32_t raw[32];
      ptx::tmem_load_32x32b_x32(lane_base + kScoreColumn + chunk * 32, raw);
      ptx::tmem_wait_ld();
#pragma unroll
      for (int c = 0; c < 32; ++c) tile_max = fmaxf(tile_max, __uint_as_float(raw[c]));
    }
    const float rescale = exp2f((row_max - tile_max) * scale_log2);  // 0 on the first tile
    row_max = tile_max;
    const float offset = tile_max * scale_log2;

    // P·V of the previous tile must have finished reading P and writing O before both change.
    if (j > 0) {
      ptx::mbarrier_wait_parity(&smem.o_ready, (j - 1) & 1);
      ptx::tcgen05_fence_after_thread_sync();
#pragma unroll 1
      for (int chunk = 0; chunk < kHeadDim / 32; ++chunk) {
        uint32_t raw[32];
        ptx::tmem_load_32x32b_x32(lane_base + kOutputColumn + chunk * 32, raw);
        ptx::tmem_wait_ld();
#pragma unroll
        for (int c = 0; c < 32; ++c) raw[c] = __float_as_uint(__uint_as_float(raw[c]) * rescale);
        tmem_store_32x32b_x32(lane_base + kOutputColumn + chunk * 32, raw);
      }
      tmem_wait_st();
    }
    float sum = 0.f;
#pragma unroll 1
    for (int chunk = 0; chunk < kBlockKV / 32; ++chunk) {
      uint32_t raw[32];
      ptx::tmem_load_32x32b_x32(lane_base + kScoreColumn + chunk * 32, raw);
      ptx::tmem_wait_ld();
      // Keys 32·chunk .. +31 of this row: panel chunk / 2, 16-byte pieces 4·(chunk % 2) .. +3,
      // each at piece ^ (row % 8) as the 128-byte swizzle places it.
#pragma unroll
      for (int piece = 0; piece < 4; ++piece) {
        uint32_t packed[4];
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          const float lo = exp2f(__uint_as_float(raw[8 * piece + 2 * w]) * scale_log2 - offset);
          const float hi = exp2f(__uint_as_float(raw[8 * piece + 2 * w + 1]) * scale_log2 - offset);
          sum += lo + hi;
          packed[w] = pack_bf16x2(lo, hi);
        }
        const int logical = 4 * (chunk % 2) + piece;
        *reinterpret_cast<uint4*>(p_row + (chunk / 2) * kPanelBytes +
                                  ((logical ^ (tid % 8)) << 4)) =
            make_uint4(packed[0], packed[1], packed[2], packed[3]);
      }
    }
    row_sum = row_sum * rescale + sum;

    // P is in shared memory for the tensor core (async proxy); the reads of S and the stores to O
    // are ordered before the barrier, the MMAs after it.
    ptx::fence_proxy_async_shared();
    ptx::tcgen05_fence_before_thread_sync();
    ptx::named_barrier_sync(1, kThreads);
    if (issuer) {  // O += Pⱼ·Vⱼ into TMEM columns 128..255
      ptx::tcgen05_fence_after_thread_sync();
#pragma unroll
      for (int kk = 0; kk < kBlockKV / kUmmaK; ++kk) {
        const uint32_t step = (kk % 4) * 32;
        // V [keys][d] is MN-major: 16 keys = 16 rows of 128 B per k step, its two 64-column
        // panels 16 KB apart (the leading byte offset).
        ptx::umma_bf16(
            tmem + kOutputColumn,
            umma_descriptor(reinterpret_cast<uint8_t*>(smem.p.panel[kk / 4]) + step, 16),
            umma_descriptor(reinterpret_cast<uint8_t*>(smem.v[stage].panel[0]) + kk * kUmmaK * 128,
                            kPanelBytes),
            kInstrOutput, j > 0 || kk > 0);
      }
      ptx::umma_commit(&smem.o_ready);
      ptx::umma_commit(&smem.empty[stage]);
    }
    if (producer && j + kStages < num_kv) {
      ptx::mbarrier_wait_parity(&smem.empty[stage], (j / kStages) & 1);
      load_kv(smem, &k_map, &v_map, stage, head_row + (j + kStages) * kBlockKV);
    }
    __syncwarp();
  }

  // Epilogue: this thread's row of O / l, and its LSE.
  ptx::mbarrier_wait_parity(&smem.o_ready, (num_kv - 1) & 1);
  ptx::tcgen05_fence_after_thread_sync();
  const float inv_sum = 1.f / row_sum;
  lse[q_row + tid] = row_max * scale + logf(row_sum);
  bf16* out_row = out + static_cast<int64_t>(q_row + tid) * kHeadDim;
#pragma unroll 1
  for (int chunk = 0; chunk < kHeadDim / 32; ++chunk) {
    uint32_t raw[32];
    ptx::tmem_load_32x32b_x32(lane_base + kOutputColumn + chunk * 32, raw);
    ptx::tmem_wait_ld();
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      uint32_t packed[4];
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        packed[w] = pack_bf16x2(__uint_as_float(raw[8 * v + 2 * w]) * inv_sum,
                                __uint_as_float(raw[8 * v + 2 * w + 1]) * inv_sum);
      }
      *reinterpret_cast<uint4*>(out_row + chunk * 32 + 8 * v) =
          make_uint4(packed[0], packed[1], packed[2], packed[3]);
    }
  }

  // Free TMEM only after every warp's tcgen05.ld has completed.
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp == 1) {
    ptx::tcgen05_fence_after_thread_sync();
    ptx::tmem_dealloc<kTmemColumns>(tmem);
  }
}

// ---- host --------------------------------------------------------------------------------------

// The [B·H·S, 128] bf16 view of a [B, H, S, 128] tensor with 128-row × 64-column boxes, 128-byte
// swizzle. Built on every call from the current pointer.
CUtensorMap make_tensor_map(const void* base, uint64_t rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {kHeadDim, rows};
  const cuuint64_t strides[1] = {kHeadDim * sizeof(bf16)};
  const cuuint32_t box[2] = {kBox, 128};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    TVM_FFI_THROW(RuntimeError) << "cuTensorMapEncodeTiled failed with CUresult " << result;
  }
  return map;
}

void check_tensor(const tvm::ffi::TensorView& t, const char* name, int ndim, DLDataTypeCode code,
                  int bits) {
  if (t.ndim() != ndim || t.dtype().code != code || t.dtype().bits != bits ||
      t.device().device_type != kDLCUDA) {
    TVM_FFI_THROW(ValueError) << name << ": expected a " << ndim << "-D CUDA tensor of "
                              << (code == kDLBfloat ? "bfloat16" : "float32");
  }
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    TVM_FFI_THROW(RuntimeError) << what << ": " << cudaGetErrorString(status);
  }
}

}  // namespace attn

void run(tvm::ffi::TensorView q, tvm::ffi::TensorView k, tvm::ffi::TensorView v,
         tvm::ffi::TensorView o, tvm::ffi::TensorView lse) {
  using namespace attn;
  for (const auto* t : {&q, &k, &v, &o}) check_tensor(*t, "Q/K/V/O", 4, kDLBfloat, 16);
  check_tensor(lse, "LSE", 3, kDLFloat, 32);
  const int64_t batch = q.size(0), heads = q.size(1), seq_len = q.size(2);
  if (q.size(3) != kHeadDim) TVM_FFI_THROW(ValueError) << "head dimension must be " << kHeadDim;
  if (seq_len % kBlockQ != 0) TVM_FFI_THROW(ValueError) << "S must be a multiple of " << kBlockQ;
  const int64_t rows = batch * heads * seq_len;
  if (rows >= (int64_t{1} << 31)) TVM_FFI_THROW(ValueError) << "B·H·S must fit in int32";

  const CUtensorMap q_map = make_tensor_map(q.data_ptr(), rows);
  const CUtensorMap k_map = make_tensor_map(k.data_ptr(), rows);
  const CUtensorMap v_map = make_tensor_map(v.data_ptr(), rows);
  check_cuda(cudaFuncSetAttribute(mha_fwd_tcgen05_kernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedMemoryBytes),
             "cudaFuncSetAttribute");
  const int device_id = q.device().device_id;
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));
  const dim3 grid(static_cast<unsigned>(seq_len / kBlockQ), static_cast<unsigned>(batch * heads));
  mha_fwd_tcgen05_kernel<<<grid, kThreads, kSharedMemoryBytes, stream>>>(
      q_map, k_map, v_map, static_cast<bf16*>(o.data_ptr()), static_cast<float*>(lse.data_ptr()),
      static_cast<int>(seq_len), 1.f / sqrtf(static_cast<float>(kHeadDim)));
  check_cuda(cudaGetLastError(), "launch mha_fwd_tcgen05_kernel");
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
