// ptxbench: task=mha_bwd_d128_causal arch=hopper expect=PASSED
//
// The causal form of solutions/simple/mha_bwd_wgmma.cu (read that file's header first): the same
// kernels with kCausal = true. Key block kb visits only query tiles kb..S/64−1 (earlier queries
// see none of its keys); on the diagonal tile Pᵀ is zeroed where key > query, which zeroes dSᵀ
// there as well.
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
constexpr int kBlockKV = 64;  // keys per CTA: the M of the wgmmas
constexpr int kBlockQ = 64;   // queries per streamed tile
constexpr int kBox = 64;      // columns per TMA box: 64 bf16 = 128 B = the swizzle span
constexpr int kStages = 2;
constexpr int kThreads = 128;
constexpr bool kCausal = true;
constexpr uint32_t kBoxBytes = kBox * kBlockQ * sizeof(bf16);  // 8 KB
constexpr uint32_t kTileBytes = 2 * kBoxBytes;                 // one 64 × 128 tile

// A 64 × 128 tile as two 64-row boxes (head-dim columns 0..63, 64..127) in the 128-byte swizzle
// layout, 1024-byte aligned.
struct Tile {
  alignas(1024) bf16 box[2][kBox * kBlockQ];
};
struct SharedStorage {
  Tile k, v;
  Tile q[kStages], d_o[kStages];
  alignas(1024) bf16 ds[kBlockKV * kBlockQ];  // dSᵀ [keys][queries], 128-byte swizzled
  uint64_t kv_full;
  uint64_t q_full[kStages];
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

// D(64x64) (+)= A(64x16) · B(16x64), both from shared memory; kTransA / kTransB = 1 for an
// MN-major operand (0: K-major).
template <int kTransA, int kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_ss(float (&d)[32], uint64_t a, uint64_t b,
                                                   uint32_t accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, %35, %36;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(accumulate), "n"(kTransA), "n"(kTransB));
}

// D(64x128) += A(64x16, registers) · B(16x128); B MN-major in shared memory (tnsp-b = 1).
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

// Columns 16kk..16kk+15 of a 64-column accumulator, packed to bf16: the A fragment of k16 step kk.
__device__ __forceinline__ void a_fragment(const float (&acc)[32], int kk, uint32_t (&frag)[4]) {
  frag[0] = pack_bf16x2(acc[8 * kk], acc[8 * kk + 1]);
  frag[1] = pack_bf16x2(acc[8 * kk + 2], acc[8 * kk + 3]);
  frag[2] = pack_bf16x2(acc[8 * kk + 4], acc[8 * kk + 5]);
  frag[3] = pack_bf16x2(acc[8 * kk + 6], acc[8 * kk + 7]);
}

__device__ __forceinline__ void load_tile(Tile& tile, const CUtensorMap* map, uint64_t* bar,
                                          int row) {
  for (int box = 0; box < 2; ++box) ptx::tma_load_2d(tile.box[box], map, bar, box * kBox, row);
}

__device__ __forceinline__ void load_q_tile(SharedStorage& smem, const CUtensorMap* q_map,
                                            const CUtensorMap* do_map, int stage, int row) {
  ptx::mbarrier_arrive_expect_tx(&smem.q_full[stage], 2 * kTileBytes);
  load_tile(smem.q[stage], q_map, &smem.q_full[stage], row);
  load_tile(smem.d_o[stage], do_map, &smem.q_full[stage], row);
}

// Δ[row] = Σ_d dO[row, d] · O[row, d]: one warp per row, 4 elements a lane.
__global__ void mha_bwd_delta_kernel(const bf16* __restrict__ out, const bf16* __restrict__ d_out,
                                     float* __restrict__ delta, int rows) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const int64_t base = static_cast<int64_t>(row) * kHeadDim + lane * 4;
  const uint2 o_bits = *reinterpret_cast<const uint2*>(out + base);
  const uint2 do_bits = *reinterpret_cast<const uint2*>(d_out + base);
  const auto* o2 = reinterpret_cast<const __nv_bfloat162*>(&o_bits);
  const auto* do2 = reinterpret_cast<const __nv_bfloat162*>(&do_bits);
  float sum = 0.f;
  for (int i = 0; i < 2; ++i) {
    const float2 a = __bfloat1622float2(o2[i]), b = __bfloat1622float2(do2[i]);
    sum += a.x * b.x + a.y * b.y;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) delta[row] = sum;
}

__global__ void __launch_bounds__(kThreads)
    mha_bwd_kernel(const __grid_constant__ CUtensorMap q_map,
                   const __grid_constant__ CUtensorMap k_map,
                   const __grid_constant__ CUtensorMap v_map,
                   const __grid_constant__ CUtensorMap do_map, const float* __restrict__ lse,
                   const float* __restrict__ delta, float* __restrict__ dq_acc,
                   bf16* __restrict__ d_k, bf16* __restrict__ d_v, int seq_len, float scale) {
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                 ~uintptr_t{1023});
  const int kv_block = blockIdx.x;
  const int head_row = blockIdx.y * seq_len;  // row of (b, h, 0) in the [B·H·S, 128] view
  const int kv_row = head_row + kv_block * kBlockKV;
  const int num_q = seq_len / kBlockQ;
  const int first_q = kCausal ? kv_block : 0;  // causal: earlier query tiles see none of these keys
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  if (tid == 0) {
    ptx::mbarrier_init(&smem.kv_full, 1);
    for (int s = 0; s < kStages; ++s) ptx::mbarrier_init(&smem.q_full[s], 1);
    ptx::fence_barrier_init();  // the barriers are visible to TMA (the async proxy)
  }
  __syncthreads();
  if (tid == 0) {
    ptx::mbarrier_arrive_expect_tx(&smem.kv_full, 2 * kTileBytes);
    load_tile(smem.k, &k_map, &smem.kv_full, kv_row);
    load_tile(smem.v, &v_map, &smem.kv_full, kv_row);
    for (int n = 0; n < kStages && first_q + n < num_q; ++n) {
      load_q_tile(smem, &q_map, &do_map, n, head_row + (first_q + n) * kBlockQ);
    }
  }

  const float scale_log2 = scale * 1.4426950408889634f;  // exp(scale·x) = exp2(scale·log2e·x)
  float dv_acc[64], dk_acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) dv_acc[i] = dk_acc[i] = 0.f;
  const int key_row[2] = {16 * warp + lane / 4, 16 * warp + lane / 4 + 8};  // within the block

  ptx::mbarrier_wait_parity(&smem.kv_full, 0);
  for (int qt = first_q, n = 0; qt < num_q; ++qt, ++n) {
    const int stage = n % kStages;
    const int q0 = qt * kBlockQ;
    ptx::mbarrier_wait_parity(&smem.q_full[stage], (n / kStages) & 1);

    // Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ: keys are the rows, the tile's queries the columns.
    float s_acc[32], dp_acc[32];
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kHeadDim / 16; ++kk) {
      const uint32_t step = (kk % 4) * 32;
      wgmma_m64n64k16_ss<0, 0>(s_acc, sw128_descriptor(smem_address(smem.k.box[kk / 4]) + step, 16),
                               sw128_descriptor(smem_address(smem.q[stage].box[kk / 4]) + step, 16),
                               kk > 0 ? 1u : 0u);
    }
#pragma unroll
    for (int kk = 0; kk < kHeadDim / 16; ++kk) {
      const uint32_t step = (kk % 4) * 32;
      wgmma_m64n64k16_ss<0, 0>(
          dp_acc, sw128_descriptor(smem_address(smem.v.box[kk / 4]) + step, 16),
          sw128_descriptor(smem_address(smem.d_o[stage].box[kk / 4]) + step, 16), kk > 0 ? 1u : 0u);
    }
    wgmma_commit();
    wgmma_wait<0>();
    pin(s_acc);
    pin(dp_acc);

    // Pᵀ = exp(scale·Sᵀ − LSE) and dSᵀ = Pᵀ ∘ (dPᵀ − Δ), LSE and Δ per query column: elements
    // 4t..4t+3 share the column pair 8t + 2(l%4), +1. On the causal diagonal tile, key > query is
    // masked to 0.
#pragma unroll
    for (int t = 0; t < 8; ++t) {
      const int column = head_row + q0 + 8 * t + 2 * (lane & 3);
      const float2 l = *reinterpret_cast<const float2*>(lse + column);
      const float2 d = *reinterpret_cast<const float2*>(delta + column);
#pragma unroll
      for (int i = 4 * t; i < 4 * t + 4; ++i) {
        const float lse_log2 = ((i & 1) ? l.y : l.x) * 1.4426950408889634f;
        s_acc[i] = exp2f(s_acc[i] * scale_log2 - lse_log2);
        if (kCausal && qt == kv_block && key_row[fragment_half(i)] > fragment_column(i, lane)) {
          s_acc[i] = 0.f;
        }
        dp_acc[i] = s_acc[i] * (dp_acc[i] - ((i & 1) ? d.y : d.x));  // now dSᵀ
      }
    }
    // Pᵀ and dSᵀ as bf16 A fragments of the next wgmmas, all packed before the fence (registers
    // written between wgmmas would make ptxas insert fences of its own).
    uint32_t p_frag[kBlockQ / 16][4], ds_frag[kBlockQ / 16][4];
#pragma unroll
    for (int kk = 0; kk < kBlockQ / 16; ++kk) {
      a_fragment(s_acc, kk, p_frag[kk]);
      a_fragment(dp_acc, kk, ds_frag[kk]);
    }

    // dSᵀ to shared memory as bf16 [keys][queries] in the 128-byte swizzle layout (16-byte chunk
    // c of row r at chunk c ^ (r % 8), as TMA would have put it), for the dQ product below.
    // ds_frag[kk][r] is the pair of elements 8kk + 2r, 8kk + 2r + 1.
    uint8_t* ds_bytes = reinterpret_cast<uint8_t*>(smem.ds);
#pragma unroll
    for (int i = 0; i < 32; i += 2) {
      const int row = key_row[fragment_half(i)], column = fragment_column(i, lane);
      *reinterpret_cast<uint32_t*>(ds_bytes + row * 128 + (((column / 8) ^ (row % 8)) << 4) +
                                   (column % 8) * 2) = ds_frag[i / 8][(i % 8) / 2];
    }
    ptx::fence_proxy_async_shared();  // generic stores -> visible to wgmma's operand reads

    // dV += Pᵀ·dO and dK += dSᵀ·Q: queries are the k dimension, dO and Q are MN-major (16 query
    // rows = 2048 B per k16 step, their two 64-column boxes 8 KB apart).
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBlockQ / 16; ++kk) {
      wgmma_m64n128k16_rs(
          dv_acc, p_frag[kk],
          sw128_descriptor(smem_address(smem.d_o[stage].box[0]) + kk * 2048, kBoxBytes));
    }
#pragma unroll
    for (int kk = 0; kk < kBlockQ / 16; ++kk) {
      wgmma_m64n128k16_rs(
          dk_acc, ds_frag[kk],
          sw128_descriptor(smem_address(smem.q[stage].box[0]) + kk * 2048, kBoxBytes));
    }
    wgmma_commit();
    ptx::named_barrier_sync(1, kThreads);  // every warp's dSᵀ rows are in shared memory
    wgmma_wait<0>();
    pin(dv_acc);
    pin(dk_acc);

    // dQ_tile = dS·K (queries × head dim, keys the k dimension): A is dSᵀ read MN-major, B is K
    // MN-major; one 64-column half of the head dimension at a time keeps 32 accumulators live.
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float dq[32];
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockKV / 16; ++kk) {
        wgmma_m64n64k16_ss<1, 1>(dq, sw128_descriptor(smem_address(smem.ds) + kk * 2048, 16),
                                 sw128_descriptor(smem_address(smem.k.box[half]) + kk * 2048, 16),
                                 kk > 0 ? 1u : 0u);
      }
      wgmma_commit();
      wgmma_wait<0>();
      pin(dq);
      // Every key block of this head adds into the same dQ rows, concurrently: atomics.
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        const int q_local = 16 * warp + lane / 4 + 8 * fragment_half(i);
        const int64_t index = static_cast<int64_t>(head_row + q0 + q_local) * kHeadDim +
                              half * kBox + fragment_column(i, lane);
        atomicAdd(dq_acc + index, dq[i] * scale);
      }
    }

    // Every warp's wgmmas have read this stage and the dSᵀ tile; only then may they be refilled.
    ptx::named_barrier_sync(1, kThreads);
    if (tid == 0 && qt + kStages < num_q) {
      load_q_tile(smem, &q_map, &do_map, stage, head_row + (qt + kStages) * kBlockQ);
    }
  }

  // dK = scale · Σ dSᵀ·Q and dV, rows = this block's keys.
#pragma unroll
  for (int i = 0; i < 64; i += 2) {
    const int64_t index = static_cast<int64_t>(kv_row + key_row[fragment_half(i)]) * kHeadDim +
                          fragment_column(i, lane);
    *reinterpret_cast<__nv_bfloat162*>(d_k + index) =
        __floats2bfloat162_rn(dk_acc[i] * scale, dk_acc[i + 1] * scale);
    *reinterpret_cast<__nv_bfloat162*>(d_v + index) =
        __floats2bfloat162_rn(dv_acc[i], dv_acc[i + 1]);
  }
}

// dQ = bf16(dQ_acc), four elements a thread.
__global__ void mha_bwd_convert_kernel(const float4* __restrict__ dq_acc, uint2* __restrict__ d_q,
                                       int64_t quads) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= quads) return;
  const float4 x = dq_acc[i];
  d_q[i] = make_uint2(pack_bf16x2(x.x, x.y), pack_bf16x2(x.z, x.w));
}

// ---- host --------------------------------------------------------------------------------------

// The [B·H·S, 128] bf16 view of a [B, H, S, 128] tensor with 64 × 64 boxes, 128-byte swizzle.
// Built on every call from the current pointer.
CUtensorMap make_tensor_map(const void* base, uint64_t rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {kHeadDim, rows};
  const cuuint64_t strides[1] = {kHeadDim * sizeof(bf16)};
  const cuuint32_t box[2] = {kBox, kBlockQ};
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
         tvm::ffi::TensorView o, tvm::ffi::TensorView d_o, tvm::ffi::TensorView lse,
         tvm::ffi::TensorView d_q, tvm::ffi::TensorView d_k, tvm::ffi::TensorView d_v) {
  using namespace attn;
  for (const auto* t : {&q, &k, &v, &o, &d_o, &d_q, &d_k, &d_v}) {
    check_tensor(*t, "Q/K/V/O/dO/dQ/dK/dV", 4, kDLBfloat, 16);
  }
  check_tensor(lse, "LSE", 3, kDLFloat, 32);
  const int64_t batch = q.size(0), heads = q.size(1), seq_len = q.size(2);
  if (q.size(3) != kHeadDim) TVM_FFI_THROW(ValueError) << "head dimension must be " << kHeadDim;
  if (seq_len % kBlockQ != 0) TVM_FFI_THROW(ValueError) << "S must be a multiple of " << kBlockQ;
  const int64_t rows = batch * heads * seq_len;
  if (rows * kHeadDim >= (int64_t{1} << 31)) {
    TVM_FFI_THROW(ValueError) << "B·H·S·D must fit in int32";
  }
  const int device_id = q.device().device_id;
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));

  // Workspace, stream-ordered: the fp32 dQ accumulator (zeroed) and Δ.
  void* workspace = nullptr;
  const size_t dq_bytes = static_cast<size_t>(rows) * kHeadDim * sizeof(float);
  check_cuda(cudaMallocAsync(&workspace, dq_bytes + rows * sizeof(float), stream),
             "cudaMallocAsync");
  float* dq_acc = static_cast<float*>(workspace);
  float* delta = dq_acc + rows * kHeadDim;
  check_cuda(cudaMemsetAsync(dq_acc, 0, dq_bytes, stream), "cudaMemsetAsync");

  mha_bwd_delta_kernel<<<static_cast<unsigned>((rows + 7) / 8), 256, 0, stream>>>(
      static_cast<const bf16*>(o.data_ptr()), static_cast<const bf16*>(d_o.data_ptr()), delta,
      static_cast<int>(rows));

  const CUtensorMap q_map = make_tensor_map(q.data_ptr(), rows);
  const CUtensorMap k_map = make_tensor_map(k.data_ptr(), rows);
  const CUtensorMap v_map = make_tensor_map(v.data_ptr(), rows);
  const CUtensorMap do_map = make_tensor_map(d_o.data_ptr(), rows);
  const int smem_bytes = sizeof(SharedStorage) + 1024;
  check_cuda(
      cudaFuncSetAttribute(mha_bwd_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes),
      "cudaFuncSetAttribute");
  const dim3 grid(static_cast<unsigned>(seq_len / kBlockKV), static_cast<unsigned>(batch * heads));
  mha_bwd_kernel<<<grid, kThreads, smem_bytes, stream>>>(
      q_map, k_map, v_map, do_map, static_cast<const float*>(lse.data_ptr()), delta, dq_acc,
      static_cast<bf16*>(d_k.data_ptr()), static_cast<bf16*>(d_v.data_ptr()),
      static_cast<int>(seq_len), 1.f / sqrtf(static_cast<float>(kHeadDim)));

  const int64_t quads = rows * kHeadDim / 4;
  mha_bwd_convert_kernel<<<static_cast<unsigned>((quads + 255) / 256), 256, 0, stream>>>(
      reinterpret_cast<const float4*>(dq_acc), static_cast<uint2*>(d_q.data_ptr()), quads);
  check_cuda(cudaGetLastError(), "launch");
  check_cuda(cudaFreeAsync(workspace, stream), "cudaFreeAsync");
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
