// ptxbench: task=mha_fwd_lse_d128_causal arch=hopper expect=INCORRECT_NUMERICAL
//
// Negative control, derived from solutions/simple/mha_fwd_lse_wgmma_causal.cu (the causal form of
// solutions/simple/mha_fwd_lse_wgmma.cu) with ONE defect: on the diagonal tile the mask tests
// `column > row + 1` instead of `column > row`, so query i also attends to key i + 1. Only the
// diagonal tiles are wrong (tiles below the diagonal need no mask, tiles above it are skipped):
// 63 of every 64 rows see one extra key. The error is large in the first rows of a head, where
// one key is a large share of the softmax, and fades in late rows, so a spot check of late rows
// looks right (measured at S = 512: 1.6 M of 12.6 M O elements and 3,914 of 98,304 LSE values
// outside atol = rtol = 0.01).
// Caught by: correctness -> INCORRECT_NUMERICAL (O and LSE) on every workload.
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

namespace attn {

using bf16 = __nv_bfloat16;
constexpr int kHeadDim = 128;
constexpr int kBlockQ = 64;  // query rows per CTA: the M of one wgmma
constexpr int kBlockKV =
    64;                   // keys per K/V tile (equal to kBlockQ: the causal diagonal is one tile)
constexpr int kBox = 64;  // columns per TMA box: 64 bf16 = 128 B = the swizzle span
constexpr int kStages = 2;
constexpr int kThreads = 128;
constexpr bool kCausal = true;
constexpr uint32_t kBoxBytes = kBox * kBlockKV * sizeof(bf16);  // 8 KB
constexpr uint32_t kTileBytes = 2 * kBoxBytes;                  // one 64 × 128 tile

// Every tile is two 64-row boxes (head-dim columns 0..63, 64..127), each 64 rows of 128 B in the
// 128-byte swizzle layout; 1024-byte aligned, as the swizzle and the descriptors require.
struct Tile {
  alignas(1024) bf16 box[2][kBox * kBlockKV];
};
struct SharedStorage {
  Tile q;  // also the staging buffer of the O epilogue
  Tile k[kStages];
  Tile v[kStages];
  uint64_t q_full;
  uint64_t kv_full[kStages];
};

// ---- wgmma (the shapes attention needs) ------------------------------------------------------
__device__ __forceinline__ uint32_t smem_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// Descriptor of a bf16 operand in the 128-byte swizzle layout: 128-byte rows, 8-row groups
// 1024 B apart (stride byte offset). `leading_bytes` is the leading byte offset: unused for a
// K-major operand, and for an MN-major one the distance between its 64-element panels along N.
__device__ __forceinline__ uint64_t sw128_descriptor(uint32_t address, uint32_t leading_bytes) {
  return static_cast<uint64_t>((address & 0x3FFFF) >> 4) |
         static_cast<uint64_t>(leading_bytes >> 4) << 16 | static_cast<uint64_t>(1024 >> 4) << 32 |
         static_cast<uint64_t>(1) << 62;
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accesses to the accumulators across the asynchronous window.
template <int R>
__device__ __forceinline__ void pin(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// S(64x64) (+)= A(64x16) · B(64x16)ᵀ; A and B from shared memory, both K-major.
__device__ __forceinline__ void wgmma_m64n64k16_ss(float (&d)[32], uint64_t a, uint64_t b,
                                                   uint32_t accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(accumulate));
}

// O(64x128) += A(64x16, registers) · B(16x128); B MN-major in shared memory (tnsp-b = 1).
__device__ __forceinline__ void wgmma_m64n128k16_rs(float (&d)[64], const uint32_t (&a)[4],
                                                    uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"  // scale-d = true: always accumulate
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&pair);
}

// Accumulator fragment of thread t (warp w, lane l): element i sits on row 16w + l/4 + 8·half(i)
// and column 8·(i/4) + 2·(l%4) + (i%2), where half(i) = (i/2) % 2 picks the thread's second row.
__device__ __forceinline__ int fragment_half(int i) {
  return (i >> 1) & 1;
}
__device__ __forceinline__ int fragment_column(int i, int lane) {
  return 8 * (i >> 2) + 2 * (lane & 3) + (i & 1);
}

// The four lanes of a quad (lane / 4 equal) share a row.
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Byte offset of 16-byte chunk `chunk` (0..15) of row `row` in the 64 × 256-byte O staging tile:
// the chunk index XOR row % 8 spreads a column of chunks over all banks.
__device__ __forceinline__ uint32_t staging_offset(int row, int chunk) {
  return static_cast<uint32_t>(row * 256 + ((chunk ^ (row & 7)) << 4));
}

__device__ __forceinline__ void load_kv(SharedStorage& smem, const CUtensorMap* k_map,
                                        const CUtensorMap* v_map, int stage, int row) {
  uint64_t* bar = &smem.kv_full[stage];
  ptx::mbarrier_arrive_expect_tx(bar, 2 * kTileBytes);
  for (int box = 0; box < 2; ++box) {
    ptx::tma_load_2d(smem.k[stage].box[box], k_map, bar, box * kBox, row);
    ptx::tma_load_2d(smem.v[stage].box[box], v_map, bar, box * kBox, row);
  }
}

__global__ void __launch_bounds__(kThreads)
    mha_fwd_kernel(const __grid_constant__ CUtensorMap q_map,
                   const __grid_constant__ CUtensorMap k_map,
                   const __grid_constant__ CUtensorMap v_map, bf16* __restrict__ out,
                   float* __restrict__ lse, int seq_len, float scale) {
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                 ~uintptr_t{1023});
  // Causal: the longest query blocks are launched first, so the short ones fill the last wave.
  const int q_block = kCausal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : blockIdx.x;
  const int head_row = blockIdx.y * seq_len;  // row of (b, h, 0) in the [B·H·S, 128] view
  const int q_row = head_row + q_block * kBlockQ;
  const int num_kv = kCausal ? q_block + 1 : seq_len / kBlockKV;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  if (tid == 0) {
    ptx::mbarrier_init(&smem.q_full, 1);
    for (int s = 0; s < kStages; ++s) ptx::mbarrier_init(&smem.kv_full[s], 1);
    ptx::fence_barrier_init();  // the barriers are visible to TMA (the async proxy)
  }
  __syncthreads();
  if (tid == 0) {
    ptx::mbarrier_arrive_expect_tx(&smem.q_full, kTileBytes);
    for (int box = 0; box < 2; ++box) {
      ptx::tma_load_2d(smem.q.box[box], &q_map, &smem.q_full, box * kBox, q_row);
    }
    for (int j = 0; j < kStages && j < num_kv; ++j) {
      load_kv(smem, &k_map, &v_map, j, head_row + j * kBlockKV);
    }
  }

  // exp(scale·x) = exp2(scale·log2(e)·x): scores stay raw products, one multiply folds both.
  const float scale_log2 = scale * 1.4426950408889634f;
  float o_acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) o_acc[i] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY};  // running max of the raw scores Q·Kᵀ
  float row_sum[2] = {0.f, 0.f};              // this thread's part of Σ exp(scale·(x − max))

  ptx::mbarrier_wait_parity(&smem.q_full, 0);
  for (int j = 0; j < num_kv; ++j) {
    const int stage = j % kStages;
    ptx::mbarrier_wait_parity(&smem.kv_full[stage], (j / kStages) & 1);

    // S = Q·Kⱼᵀ: 8 k16 steps over the head dimension, 4 per 64-column box (32 B each).
    float s_acc[32];
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kHeadDim / 16; ++kk) {
      const uint32_t step = (kk % 4) * 32;
      wgmma_m64n64k16_ss(s_acc, sw128_descriptor(smem_address(smem.q.box[kk / 4]) + step, 16),
                         sw128_descriptor(smem_address(smem.k[stage].box[kk / 4]) + step, 16),
                         kk > 0 ? 1u : 0u);
    }
    wgmma_commit();
    wgmma_wait<0>();
    pin(s_acc);

    if (kCausal && j == q_block) {  // the diagonal tile: key column c is masked for c > row
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        const int row = 16 * warp + lane / 4 + 8 * fragment_half(i);
        if (fragment_column(i, lane) > row + 1) s_acc[i] = -INFINITY;
      }
    }

    // Online softmax: new running max, rescale what was accumulated under the old one.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float tile_max = row_max[h];
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        if (fragment_half(i) == h) tile_max = fmaxf(tile_max, s_acc[i]);
      }
      tile_max = quad_max(tile_max);  // finite: every processed tile has a key per row
      const float rescale = exp2f((row_max[h] - tile_max) * scale_log2);  // 0 on the first tile
      row_max[h] = tile_max;
      const float offset = tile_max * scale_log2;
      float sum = 0.f;
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        if (fragment_half(i) != h) continue;
        s_acc[i] = exp2f(s_acc[i] * scale_log2 - offset);
        sum += s_acc[i];
      }
      row_sum[h] = row_sum[h] * rescale + sum;
#pragma unroll
      for (int i = 0; i < 64; ++i) {
        if (fragment_half(i) == h) o_acc[i] *= rescale;
      }
    }

    // O += P·Vⱼ: columns 16kk..16kk+15 of P, packed to bf16, are the A fragment of k16 step kk.
    // V's tile is MN-major (head dim contiguous): a k16 step is 16 rows = 2048 B further, and its
    // two 64-column boxes are 8 KB apart (the leading byte offset).
    // All fragments are packed before the fence: registers written between wgmmas would make
    // ptxas insert fences of its own.
    uint32_t p_frag[kBlockKV / 16][4];
#pragma unroll
    for (int kk = 0; kk < kBlockKV / 16; ++kk) {
      p_frag[kk][0] = pack_bf16x2(s_acc[8 * kk], s_acc[8 * kk + 1]);
      p_frag[kk][1] = pack_bf16x2(s_acc[8 * kk + 2], s_acc[8 * kk + 3]);
      p_frag[kk][2] = pack_bf16x2(s_acc[8 * kk + 4], s_acc[8 * kk + 5]);
      p_frag[kk][3] = pack_bf16x2(s_acc[8 * kk + 6], s_acc[8 * kk + 7]);
    }
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBlockKV / 16; ++kk) {
      wgmma_m64n128k16_rs(
          o_acc, p_frag[kk],
          sw128_descriptor(smem_address(smem.v[stage].box[0]) + kk * 2048, kBoxBytes));
    }
    wgmma_commit();
    wgmma_wait<0>();
    pin(o_acc);

    // Every warp's wgmmas have read this stage; only then may TMA overwrite it.
    ptx::named_barrier_sync(1, kThreads);
    if (tid == 0 && j + kStages < num_kv) {
      load_kv(smem, &k_map, &v_map, stage, head_row + (j + kStages) * kBlockKV);
    }
  }

  // Epilogue. The row sums were kept per thread: add the quad's parts once, at the end.
  float inv_sum[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float total = quad_sum(row_sum[h]);
    inv_sum[h] = 1.f / total;
    const int row = 16 * warp + lane / 4 + 8 * h;
    if (lane % 4 == 0) lse[q_row + row] = row_max[h] * scale + logf(total);
  }
  // The Q buffer is free (its last reader, the final S wgmma, completed before the loop's last
  // barrier): stage O there, then write whole 256-byte rows.
  uint8_t* staging = reinterpret_cast<uint8_t*>(smem.q.box);
#pragma unroll
  for (int i = 0; i < 64; i += 2) {
    const int row = 16 * warp + lane / 4 + 8 * fragment_half(i);
    const int column = fragment_column(i, lane);
    const float scale_row = inv_sum[fragment_half(i)];
    *reinterpret_cast<uint32_t*>(staging + staging_offset(row, column / 8) + (column % 8) * 2) =
        pack_bf16x2(o_acc[i] * scale_row, o_acc[i + 1] * scale_row);
  }
  ptx::named_barrier_sync(1, kThreads);  // every row is staged before any thread reads one
#pragma unroll
  for (int pass = 0; pass < kBlockQ * 16 / kThreads; ++pass) {
    const int chunk = pass * kThreads + tid;
    const int row = chunk / 16, column_chunk = chunk % 16;
    const uint4 value =
        *reinterpret_cast<const uint4*>(staging + staging_offset(row, column_chunk));
    *reinterpret_cast<uint4*>(out + static_cast<int64_t>(q_row + row) * kHeadDim +
                              column_chunk * 8) = value;
  }
}

// ---- host --------------------------------------------------------------------------------------

// The [B·H·S, 128] bf16 view of a [B, H, S, 128] tensor with 64 × 64 boxes, 128-byte swizzle.
// Built on every call from the current pointer.
CUtensorMap make_tensor_map(const void* base, uint64_t rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {kHeadDim, rows};
  const cuuint64_t strides[1] = {kHeadDim * sizeof(bf16)};
  const cuuint32_t box[2] = {kBox, kBlockKV};
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
  const int smem_bytes = sizeof(SharedStorage) + 1024;
  cudaFuncSetAttribute(mha_fwd_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, q.device().device_id));
  const dim3 grid(static_cast<unsigned>(seq_len / kBlockQ), static_cast<unsigned>(batch * heads));
  mha_fwd_kernel<<<grid, kThreads, smem_bytes, stream>>>(
      q_map, k_map, v_map, static_cast<bf16*>(o.data_ptr()), static_cast<float*>(lse.data_ptr()),
      static_cast<int>(seq_len), 1.f / sqrtf(static_cast<float>(kHeadDim)));
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
