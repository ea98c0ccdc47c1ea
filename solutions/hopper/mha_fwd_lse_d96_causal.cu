// ptxbench: task=mha_fwd_lse_d96_causal arch=hopper expect=PASSED
//
// Attention forward with the log-sum-exp, FlashAttention-3 style, for the whole mha_fwd_lse
// family on Hopper (sm_90a): O = softmax(scale · Q Kᵀ) V and LSE = ln Σ_j e^(scale · s_ij) per
// (batch, head), Q/K/V/O bf16 [B, H, S, D] contiguous, LSE fp32 [B, H, S]; S a multiple of 128.
// One kernel templated on the head dim (64, 96, 128, 256) and causality (the embedded mha_fwd
// block, source solutions/kernels/mha_fwd.cuh); run() at the end picks the instance.
//
// Instructions: TMA (cp.async.bulk.tensor 2D loads, 128-byte swizzle) completing on mbarriers
// (expect_tx / try_wait.parity full and empty rings), wgmma.mma_async m64nNk16 bf16 -> fp32 for
// S = Q Kᵀ (both operands from shared memory) and for O += P V (P from registers, V N-major from
// shared memory), setmaxnreg, ex2.approx.
//
// Shape of the work (B=4, H=48, S=4096, D=128): 4·B·H·S²·D = 1.65 TFLOP (causal: half) against
// 4 · 201 MB of Q, K, V, O: ~2,000 FLOP/byte, tensor-core bound. Per 128x128 KV tile a CTA does
// 8.4 MFLOP of GEMMs (two 64x128x128 per consumer warpgroup) and 16,384 exponentials: at ~6
// TFLOP/s per SM the GEMMs take ~1.4 us and the exponentials (16 per clock per SM) ~0.55 us, so
// the softmax must run while the tensor cores work.
//
// Structure (top-down below): Config -> SharedStorage -> TileOrder -> producer (one thread of
//   warpgroup 0: TMA) / consumers (warpgroups 1, 2: wgmma + online softmax + epilogue) -> run().
//   Warp roles and registers: 384 threads; the producer warpgroup drops to 24 registers, the
//   consumers rise to 240: 24·128 + 240·256 = 64,512 of 65,536.
//   Pipeline: Q per tile (q_full / q_empty), then per KV tile K and V on separate full/empty
//   barriers, 2 stages: QKᵀ of a tile starts as soon as its K landed while its V still loads.
//   Consumers: software-pipelined by one KV tile (S_i = Q K_iᵀ and O += P_{i-1} V_{i-1} issued
//   together, the softmax of S_i overlapping the P·V), taking turns at the tensor cores.
//   Order: non-causal, persistent (one CTA per SM, fixed stride over the tiles); causal, one CTA
//   per tile, longest first. Heads are grouped so that the K and V in flight stay in L2.
//   Epilogue: O through stmatrix into a 128-byte-swizzled staging buffer and a TMA store.
// docs/expert-attention.md explains every barrier and fence.
//
// Measured (H200 SXM, driver 580.159.04, CUDA 13.0, 2026-12-02; a development check against
//   cuDNN SDPA through PyTorch in the same process, B=4 H=48 S=4096, median of 15 samples, L2
//   flushed before each): d128 2.356 ms = 700 TFLOP/s, 1.076x cuDNN; d128 causal 1.356 ms = 608
//   TFLOP/s, 1.013x; d64 0.976x; d96 1.104x; d256 1.058x; d256 causal 0.988x. O and LSE within
//   atol = rtol = 0.01 of an fp32 reference at S = 512, 1024 (spiky Q) and 4096, errors equal to
//   cuDNN's. d64 and d96 causal were not run (their code paths are those of d128 causal and of
//   d64 / d96). docs/gpu-results/ has the judge's run.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cmath>
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

// ptx-begin: wgmma
namespace ptx {

// wgmma.fence.sync.aligned — warpgroup; orders earlier register accesses to the accumulators
// before the wgmma that follows (needed before the first wgmma and after touching them).
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

// wgmma.commit_group.sync.aligned — warpgroup; closes the batch of wgmma issued since the last.
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// wgmma.wait_group.sync.aligned N — warpgroup; waits until at most N committed batches are still
// running: their accumulators are readable and the shared memory they read may be reused.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group: 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Matrix descriptor of a K-major bf16 tile stored in the 128-byte swizzle layout that TMA writes
// with CU_TENSOR_MAP_SWIZZLE_128B: rows of 64 elements (128 B), 8-row atoms 1024 B apart (stride
// byte offset), the leading byte offset unused for swizzled K-major tiles. `tile` must be
// 1024-byte aligned; the k-th 16-element slice of the row is the descriptor plus 2k (32 B >> 4).
__device__ __forceinline__ uint64_t wgmma_desc_k_major_sw128(const void* tile) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);  // bits 0-13: start address >> 4
  desc |= static_cast<uint64_t>(1) << 16;                // bits 16-29: leading byte offset >> 4
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;        // bits 32-45: stride byte offset >> 4
  desc |= static_cast<uint64_t>(1) << 62;                // bits 62-63: 1 = 128-byte swizzle
  return desc;
}

// wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 — warpgroup; D[64x256] (+)= A[64x16] *
// B[256x16]^T, A and B from shared memory (descriptors), both K-major; `accumulate` false
// overwrites D. Thread t of the warpgroup holds D rows 16(t/32) + (t%32)/4 (+8), columns
// 8j + 2(t%4) (+1): d[4j], d[4j+1] on the first row, d[4j+2], d[4j+3] on the row 8 below.
__device__ __forceinline__ void wgmma_m64n256k16_bf16(float (&d)[128], uint64_t desc_a,
                                                      uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "
      "%127}, "
      "%128, %129, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<uint32_t>(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 — warpgroup; D[64x128] (+)= A[64x16] *
// B[128x16]^T, A and B from shared memory (descriptors), both K-major; `accumulate` false
// overwrites D. Thread t of the warpgroup holds D rows 16(t/32) + (t%32)/4 (+8), columns
// 8j + 2(t%4) (+1): d[4j], d[4j+1] on the first row, d[4j+2], d[4j+3] on the row 8 below.
__device__ __forceinline__ void wgmma_m64n128k16_bf16(float (&d)[64], uint64_t desc_a,
                                                      uint64_t desc_b, bool accumulate) {
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
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<uint32_t>(accumulate)));
}

}  // namespace ptx
// ptx-end: wgmma

// ptx-begin: wgmma_extra
namespace ptx {

// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 — warpgroup; D[64x64] (+)= A[64x16] *
// B[64x16]^T, A and B from shared memory (descriptors), both K-major; `accumulate` false
// overwrites D. Thread t of the warpgroup holds D rows 16(t/32) + (t%32)/4 (+8), columns
// 8j + 2(t%4) (+1): d[4j], d[4j+1] on the first row, d[4j+2], d[4j+3] on the row 8 below.
__device__ __forceinline__ void wgmma_m64n64k16_bf16(float (&d)[32], uint64_t desc_a,
                                                     uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, "
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<uint32_t>(accumulate)));
}

// Matrix descriptor of an N-major bf16 B tile in the 128-byte swizzle layout TMA writes: the
// tile is stored as slabs of 64 N-elements (128 B a row), one row per K index; 8 K-rows form a
// 1024-byte swizzle atom (stride byte offset: the next 8 K-rows), and `slab_bytes` apart lie the
// slabs of the next 64 N-elements (leading byte offset). `tile` must be 1024-byte aligned; the
// next 16 K-rows start 16 * 128 = 2048 bytes further: the descriptor plus 128.
__device__ __forceinline__ uint64_t wgmma_desc_n_major_sw128(const void* tile,
                                                             uint32_t slab_bytes) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);             // bits 0-13: start address >> 4
  desc |= static_cast<uint64_t>((slab_bytes >> 4) & 0x3FFF) << 16;  // bits 16-29: next 64 N
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;                   // bits 32-45: next 8 K-rows
  desc |= static_cast<uint64_t>(1) << 62;  // bits 62-63: 1 = 128-byte swizzle
  return desc;
}

// An empty asm that "reads and writes" every register of `d`: the compiler may not move
// ordinary uses of the accumulators across it. Put after wgmma.wait_group (before reading the
// results) and before wgmma.fence (after the last ordinary write), as the wgmma's own register
// operands say nothing about when the asynchronous instruction really reads and writes them.
template <int N>
__device__ __forceinline__ void wgmma_fence_operand(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The same for the bf16x2 registers of a register-A operand: after the wait that retires the
// wgmma reading them, so that the compiler keeps them (unchanged) until then.
template <int N>
__device__ __forceinline__ void wgmma_fence_operand(uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16, A from registers — warpgroup;
// D[64x64] (+)= A[64x16] * B[16x64], B from shared memory N-major (imm-trans-b = 1: the rows of the
// tile are the K index, 64 contiguous N elements each, e.g. V[kv][d] for O += P V). `a` holds
// the bf16 pairs of A in the accumulator layout of an m64n16 result: a[0] row r cols c, c+1;
// a[1] row r+8; a[2] row r cols c+8, c+9; a[3] row r+8 cols c+8, c+9 (r = 16(t/32) + (t%32)/4,
// c = 2(t%4)), so a converted QK^T accumulator feeds it without any shuffle; `accumulate`
// false overwrites D.
__device__ __forceinline__ void wgmma_m64n64k16_bf16_rs_tn(float (&d)[32], const uint32_t (&a)[4],
                                                           uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),
        "r"(static_cast<uint32_t>(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16, A from registers — warpgroup;
// D[64x128] (+)= A[64x16] * B[16x128], B from shared memory N-major (imm-trans-b = 1: the rows of
// the tile are the K index, 128 contiguous N elements each, e.g. V[kv][d] for O += P V). `a` holds
// the bf16 pairs of A in the accumulator layout of an m64n16 result: a[0] row r cols c, c+1;
// a[1] row r+8; a[2] row r cols c+8, c+9; a[3] row r+8 cols c+8, c+9 (r = 16(t/32) + (t%32)/4,
// c = 2(t%4)), so a converted QK^T accumulator feeds it without any shuffle; `accumulate`
// false overwrites D.
__device__ __forceinline__ void wgmma_m64n128k16_bf16_rs_tn(float (&d)[64], const uint32_t (&a)[4],
                                                            uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, "
      "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n"
      "}\n"
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
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),
        "r"(static_cast<uint32_t>(accumulate)));
}

// wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16, A from registers — warpgroup;
// D[64x256] (+)= A[64x16] * B[16x256], B from shared memory N-major (imm-trans-b = 1: the rows of
// the tile are the K index, 256 contiguous N elements each, e.g. V[kv][d] for O += P V). `a` holds
// the bf16 pairs of A in the accumulator layout of an m64n16 result: a[0] row r cols c, c+1;
// a[1] row r+8; a[2] row r cols c+8, c+9; a[3] row r+8 cols c+8, c+9 (r = 16(t/32) + (t%32)/4,
// c = 2(t%4)), so a converted QK^T accumulator feeds it without any shuffle; `accumulate`
// false overwrites D.
__device__ __forceinline__ void wgmma_m64n256k16_bf16_rs_tn(float (&d)[128], const uint32_t (&a)[4],
                                                            uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "
      "%127"
      "}, "
      "{%128, %129, %130, %131}, %132, p, 1, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),
        "r"(static_cast<uint32_t>(accumulate)));
}

}  // namespace ptx
// ptx-end: wgmma_extra

// ptx-begin: setmaxnreg
namespace ptx {

// setmaxnreg.inc.sync.aligned.u32 — warpgroup; grows each thread's register budget to kRegs
// (blocks until the pool has them, e.g. after another warpgroup's dec).
template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// setmaxnreg.dec.sync.aligned.u32 — warpgroup; shrinks each thread's budget to kRegs and
// returns the rest to the CTA's pool.
template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

}  // namespace ptx
// ptx-end: setmaxnreg

// ptx-begin: stmatrix
namespace ptx {

// stmatrix.sync.aligned.m8n8.x4.shared.b16 — warp; lanes 8i..8i+7 give the 16-byte row
// addresses of matrix i; register r_i of lane l holds matrix i's row l/4, columns 2(l%4), +1.
__device__ __forceinline__ void stmatrix_x4(void* row, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// cvt.rn.bf16x2.f32 — a thread; packs two floats, `lo` in the low half (the lower address).
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  uint32_t packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

}  // namespace ptx
// ptx-end: stmatrix

// ptx-begin: mha_fwd
// Tuning knobs, overridable on the nvcc command line for sweeps (-DATTN_PINGPONG=0 ...).
#ifndef ATTN_PINGPONG
#define ATTN_PINGPONG 1
#endif
#ifndef ATTN_PERSISTENT
#define ATTN_PERSISTENT 1
#endif

namespace attn {

using bf16 = __nv_bfloat16;

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

template <int kHeadDim_, bool kCausal_>
struct Config {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr bool kCausal = kCausal_;

  // A shared-memory row of the 128-byte swizzle holds 64 bf16: Q, K and V tiles are stored as
  // kSlabs column slabs of 64 (d96 is padded to two slabs: TMA zero-fills columns 96..127).
  static constexpr int kSlabCols = 64;
  static constexpr int kSlabs = (kHeadDim + kSlabCols - 1) / kSlabCols;
  static constexpr int kHeadDimPadded = kSlabs * kSlabCols;  // N of the P·V wgmma

  // Query tile: 128 rows, 64 per consumer warpgroup (= wgmma M). KV tile: 128 rows up to d128;
  // d256 needs 64 so that Q (64 KB) and two stages of K and V (2 x 64 KB) fit in shared memory
  // and the 128 fp32 output accumulators leave registers for the 64x64 scores.
  static constexpr int kBlockM = 128;
  static constexpr int kBlockN = kHeadDim <= 128 ? 128 : 64;
  static constexpr int kStages = 2;
  // The two consumer warpgroups take turns at the tensor cores (TurnTaking below).
  static constexpr bool kPingPong = ATTN_PINGPONG != 0;
  // Non-causal: one CTA per SM walks the query tiles (all equally long) with a fixed stride, so
  // that the next tile's K and V load during this tile's epilogue. Causal tiles differ in
  // length: one CTA per tile, and the hardware's in-order block dispatch balances them.
  static constexpr bool kPersistent = ATTN_PERSISTENT != 0 && !kCausal;
  // Where O is staged for its TMA store: a buffer of its own where shared memory allows (then Q
  // is released as soon as the tile's last QK^T retired and the next Q loads during the last
  // P·V and the epilogue), else (d256) the consumer's own rows of the Q tile.
  static constexpr bool kOutputBuffer = kHeadDim <= 128;

  static constexpr int kWarpgroupThreads = 128;
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kThreads = kWarpgroupThreads * (1 + kConsumerWarpgroups);
  static constexpr int kConsumerRows = kBlockM / kConsumerWarpgroups;
  static constexpr int kWgmmaK = 16;
  static constexpr int kScoreRegs = kBlockN / 2;       // m64n{kBlockN}: fp32 per thread
  static constexpr int kOutRegs = kHeadDimPadded / 2;  // m64n{D}: fp32 per thread
  static constexpr int kQkSteps = kHeadDim / kWgmmaK;  // k-steps of S = Q K^T (d96: 6)
  static constexpr int kPvSteps = kBlockN / kWgmmaK;   // k-steps of O += P V

  static constexpr uint32_t kProducerRegisters = 24;
  static constexpr uint32_t kConsumerRegisters = 240;

  static constexpr uint32_t kSlabBytesQ = kBlockM * kSlabCols * sizeof(bf16);
  static constexpr uint32_t kSlabBytesKV = kBlockN * kSlabCols * sizeof(bf16);
  static constexpr uint32_t kBytesQ = kSlabBytesQ * kSlabs;    // what q_full waits for
  static constexpr uint32_t kBytesKV = kSlabBytesKV * kSlabs;  // what k_full / v_full wait for

  static constexpr int kSharedMemoryLimit = 232448;  // sm_90 opt-in maximum per block

  static_assert(kHeadDim % kWgmmaK == 0 && kHeadDim <= 256, "head dim: multiple of 16, <= 256");
  static_assert(kConsumerRows == 64, "each consumer warpgroup owns one m64 row block");
  static_assert(kBlockM % kBlockN == 0, "causal: the diagonal falls on whole KV tiles");
  static_assert(kProducerRegisters * kWarpgroupThreads +
                        kConsumerRegisters * kWarpgroupThreads * kConsumerWarpgroups <=
                    65536,
                "register file");
};

// Every slab starts on a 1024-byte boundary (the swizzle pattern repeats every 8 rows of 128 B);
// all slab sizes are multiples of 1024.
template <class C>
struct alignas(1024) SharedStorage {
  bf16 q[C::kSlabs][C::kBlockM * C::kSlabCols];
  bf16 k[C::kStages][C::kSlabs][C::kBlockN * C::kSlabCols];
  bf16 v[C::kStages][C::kSlabs][C::kBlockN * C::kSlabCols];
  bf16 o[C::kOutputBuffer ? C::kSlabs : 1][C::kOutputBuffer ? C::kBlockM * C::kSlabCols : 1];
  uint64_t q_full;               // the Q tile has landed
  uint64_t q_empty;              // both consumers are done with Q: the producer may load the next
  uint64_t k_full[C::kStages];   // K of stage s has landed: QK^T may read it
  uint64_t v_full[C::kStages];   // V of stage s has landed: PV may read it
  uint64_t k_empty[C::kStages];  // both consumers' QK^T retired: the producer may refill K
  uint64_t v_empty[C::kStages];  // both consumers' PV retired: the producer may refill V
};
template <class C>
constexpr int shared_memory_bytes() {
  return sizeof(SharedStorage<C>) + 1024;  // + the hand alignment of the dynamic base
}

// Position in the ring: which stage, and the parity of that stage's current barrier phase.
template <class C>
struct PipelineState {
  int stage = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == C::kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// One CTA computes one 128-row query tile of one (batch, head). Block order: the heads are cut
// into sections small enough that their K and V stay in L2 (the CTAs in flight share them);
// inside a section the query tiles go longest first (for causal, the last tiles see the most
// keys), round-robin over the section's heads, so that the short tiles fill the end of the grid.
struct WorkTile {
  int head;  // b * H + h
  int m_block;
};

struct TileOrder {
  int num_heads;
  int m_blocks;
  int heads_per_section;

  __host__ __device__ int num_tiles() const { return num_heads * m_blocks; }

  __device__ __forceinline__ WorkTile tile(int linear) const {
    const int per_section = heads_per_section * m_blocks;
    const int section = linear / per_section;
    const int first_head = section * heads_per_section;
    const int section_heads = min(heads_per_section, num_heads - first_head);
    const int in_section = linear - section * per_section;
    const int rank = in_section / section_heads;  // 0: the longest tile
    return WorkTile{first_head + in_section % section_heads, m_blocks - 1 - rank};
  }
};

// KV tiles a query tile reads: all of them, or (causal) those up to the diagonal.
template <class C>
__device__ __forceinline__ int kv_blocks(int m_block, int seq) {
  return C::kCausal ? (m_block + 1) * C::kBlockM / C::kBlockN : seq / C::kBlockN;
}

// ex2.approx.ftz.f32: 2^x on the special function unit; 2^-inf = 0.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// The wgmma shapes, chosen by the accumulator array's size.
__device__ __forceinline__ void mma_qk(float (&s)[64], uint64_t dq, uint64_t dk, bool acc) {
  ptx::wgmma_m64n128k16_bf16(s, dq, dk, acc);
}
__device__ __forceinline__ void mma_qk(float (&s)[32], uint64_t dq, uint64_t dk, bool acc) {
  ptx::wgmma_m64n64k16_bf16(s, dq, dk, acc);
}
__device__ __forceinline__ void mma_pv(float (&o)[32], const uint32_t (&p)[4], uint64_t dv) {
  ptx::wgmma_m64n64k16_bf16_rs_tn(o, p, dv, true);
}
__device__ __forceinline__ void mma_pv(float (&o)[64], const uint32_t (&p)[4], uint64_t dv) {
  ptx::wgmma_m64n128k16_bf16_rs_tn(o, p, dv, true);
}
__device__ __forceinline__ void mma_pv(float (&o)[128], const uint32_t (&p)[4], uint64_t dv) {
  ptx::wgmma_m64n256k16_bf16_rs_tn(o, p, dv, true);
}

// Producer: one thread. Per tile Q, then K and V of each KV tile (from the diagonal down for
// causal), each on its own barrier so that QK^T can start while V is still in flight. A stage
// is refilled only after both consumer warpgroups released it; the K and V stages run on across
// tiles. The Q buffer is reused tile after tile: q_empty (one arrival per consumer) says both
// consumers are done with it, and q_full's phase flips once per tile.
template <class C>
__device__ __forceinline__ void produce_tile(SharedStorage<C>& smem, const CUtensorMap* tensor_q,
                                             const CUtensorMap* tensor_k,
                                             const CUtensorMap* tensor_v, const WorkTile& tile,
                                             int seq, PipelineState<C>& state, uint32_t q_phase) {
  const int head_row = tile.head * seq;  // the head's first row in the [B*H*S, D] view
  ptx::mbarrier_wait_parity(&smem.q_empty, q_phase ^ 1);
  ptx::mbarrier_arrive_expect_tx(&smem.q_full, C::kBytesQ);
  for (int slab = 0; slab < C::kSlabs; ++slab) {
    ptx::tma_load_2d(smem.q[slab], tensor_q, &smem.q_full, slab * C::kSlabCols,
                     head_row + tile.m_block * C::kBlockM);
  }
  const int n_blocks = kv_blocks<C>(tile.m_block, seq);
  for (int i = 0; i < n_blocks; ++i) {
    const int kv_row = head_row + (n_blocks - 1 - i) * C::kBlockN;
    // Arrive with expect_tx first, then copy: the phase cannot complete early.
    ptx::mbarrier_wait_parity(&smem.k_empty[state.stage], state.phase ^ 1);
    ptx::mbarrier_arrive_expect_tx(&smem.k_full[state.stage], C::kBytesKV);
    for (int slab = 0; slab < C::kSlabs; ++slab) {
      ptx::tma_load_2d(smem.k[state.stage][slab], tensor_k, &smem.k_full[state.stage],
                       slab * C::kSlabCols, kv_row);
    }
    ptx::mbarrier_wait_parity(&smem.v_empty[state.stage], state.phase ^ 1);
    ptx::mbarrier_arrive_expect_tx(&smem.v_full[state.stage], C::kBytesKV);
    for (int slab = 0; slab < C::kSlabs; ++slab) {
      ptx::tma_load_2d(smem.v[state.stage][slab], tensor_v, &smem.v_full[state.stage],
                       slab * C::kSlabCols, kv_row);
    }
    state.advance();
  }
}

template <class C>
__device__ __forceinline__ void produce(SharedStorage<C>& smem, const CUtensorMap* tensor_q,
                                        const CUtensorMap* tensor_k, const CUtensorMap* tensor_v,
                                        const TileOrder& order, int seq) {
  PipelineState<C> state;
  uint32_t q_phase = 0;
  for (int linear = blockIdx.x; linear < order.num_tiles(); linear += gridDim.x) {
    produce_tile(smem, tensor_q, tensor_k, tensor_v, order.tile(linear), seq, state, q_phase);
    q_phase ^= 1;
  }
}

// Online softmax state of the two rows a thread holds (r and r + 8 of its warp's 16): the
// running maximum in log2 units (scores times scale·log2 e) and this thread's partial row sum.
struct RowState {
  float max[2] = {-INFINITY, -INFINITY};
  float sum[2] = {0.f, 0.f};
};

// Named barrier ids (0 is __syncthreads): the epilogue barrier of each consumer warpgroup, and
// the two turn barriers of the ping-pong between the consumers (kTurnBase + c: "consumer c may
// issue its GEMMs").
enum NamedBarrier : uint32_t { kEpilogueBarrierBase = 1, kTurnBarrierBase = 3 };

// Ping-pong: the two consumer warpgroups take turns at issuing their GEMMs, so that while one
// warpgroup's wgmma run on the tensor cores the other computes its softmax (exponentials and
// row sums keep the SM's other pipes busy). Consumer c waits on turn barrier c (256 threads: its
// own 128 plus the other's 128 arrivals) before issuing and arrives on the other's after. Both
// issue the same number of batches (one tile, the same KV tiles); consumer 1 arrives once at the
// start to hand consumer 0 the first turn and skips its last arrival, so every bar.sync has
// exactly one matching bar.arrive and none is left pending at exit.
template <class C>
struct TurnTaking {
  int consumer;
  __device__ __forceinline__ void start() const {
    if (C::kPingPong && consumer == 1) {
      ptx::named_barrier_arrive(kTurnBarrierBase + 0, 2 * C::kWarpgroupThreads);
    }
  }
  __device__ __forceinline__ void wait_turn() const {
    if (C::kPingPong)
      ptx::named_barrier_sync(kTurnBarrierBase + consumer, 2 * C::kWarpgroupThreads);
  }
  __device__ __forceinline__ void end_turn(bool last) const {
    if (C::kPingPong && !(last && consumer == 1)) {
      ptx::named_barrier_arrive(kTurnBarrierBase + (1 - consumer), 2 * C::kWarpgroupThreads);
    }
  }
};

// S = Q K^T for this warpgroup's 64 rows: both operands K-major in shared memory, one k-step of
// 16 is 32 bytes along the swizzled row (+2 in the descriptor), the next slab a new descriptor.
template <class C>
__device__ __forceinline__ void issue_qk(SharedStorage<C>& smem, float (&s)[C::kScoreRegs],
                                         int stage, int consumer) {
#pragma unroll
  for (int kk = 0; kk < C::kQkSteps; ++kk) {
    const int slab = kk / 4;
    const uint64_t desc_q =
        ptx::wgmma_desc_k_major_sw128(smem.q[slab] + consumer * C::kConsumerRows * C::kSlabCols);
    const uint64_t desc_k = ptx::wgmma_desc_k_major_sw128(smem.k[stage][slab]);
    mma_qk(s, desc_q + 2 * (kk % 4), desc_k + 2 * (kk % 4), kk > 0);
  }
}

// O += P V: P from registers, V N-major ([kv][d], d contiguous): the next 16 kv rows lie
// 16 · 128 = 2048 bytes further (+128 in the descriptor).
template <class C>
__device__ __forceinline__ void issue_pv(SharedStorage<C>& smem, float (&o)[C::kOutRegs],
                                         const uint32_t (&p)[C::kPvSteps][4], int stage) {
  const uint64_t desc_v = ptx::wgmma_desc_n_major_sw128(smem.v[stage][0], C::kSlabBytesKV);
#pragma unroll
  for (int kk = 0; kk < C::kPvSteps; ++kk) {
    mma_pv(o, p[kk], desc_v + kk * (C::kWgmmaK * 128 >> 4));
  }
}

// Causal: scores of keys after the query are -inf. Only KV tiles that cross the diagonal of
// the query tile call this (the others are entirely visible or never loaded).
template <class C>
__device__ __forceinline__ void mask_diagonal(float (&s)[C::kScoreRegs], int n_block, int row,
                                              int col) {
#pragma unroll
  for (int j = 0; j < C::kScoreRegs / 4; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = n_block * C::kBlockN + 8 * j + col + (e & 1);
      if (key > row + 8 * (e >> 1)) s[4 * j + e] = -INFINITY;
    }
  }
}

// Online softmax of one KV tile's scores, in place: the new row maximum (over the 4 threads of a
// row), P = 2^(s·scale·log2e − max), the running sums rescaled; returns in `rescale` the factor
// the output accumulator must be multiplied by (applied by the caller once the wgmma still
// accumulating into it has retired).
template <class C>
__device__ __forceinline__ void online_softmax(float (&s)[C::kScoreRegs], RowState& rows,
                                               float scale_log2, float (&rescale)[2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float block_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < C::kScoreRegs / 4; ++j) {
      block_max = fmaxf(block_max, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
    }
    block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffff, block_max, 1));
    block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffff, block_max, 2));
    const float new_max = fmaxf(rows.max[h], block_max * scale_log2);
    // A row whose keys so far are all masked keeps max -inf: subtract 0 then (2^-inf = 0, no NaN).
    const float base = new_max == -INFINITY ? 0.f : new_max;
    rescale[h] = exp2_approx(rows.max[h] - base);
    rows.max[h] = new_max;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < C::kScoreRegs / 4; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float& x = s[4 * j + 2 * h + e];
        x = exp2_approx(fmaf(x, scale_log2, -base));
        sum += x;
      }
    }
    rows.sum[h] = rows.sum[h] * rescale[h] + sum;
  }
}

template <class C>
__device__ __forceinline__ void rescale_output(float (&o)[C::kOutRegs], const float (&rescale)[2]) {
#pragma unroll
  for (int j = 0; j < C::kOutRegs / 4; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) o[4 * j + e] *= rescale[e >> 1];
  }
}

// P as bf16 A fragments: the m64n16 accumulator layout is the register-A layout of wgmma, so
// k-step kk of P·V is the pairs of score columns 16kk .. 16kk + 15.
template <class C>
__device__ __forceinline__ void convert_scores(const float (&s)[C::kScoreRegs],
                                               uint32_t (&p)[C::kPvSteps][4]) {
#pragma unroll
  for (int kk = 0; kk < C::kPvSteps; ++kk) {
#pragma unroll
    for (int r = 0; r < 4; ++r)
      p[kk][r] = ptx::pack_bf16x2(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
  }
}

// The P registers are an input of the P·V wgmma, which reads them asynchronously: keep them
// alive (unchanged, not reused by the compiler) until the wait that retires it.
template <class C>
__device__ __forceinline__ void hold_fragments(uint32_t (&p)[C::kPvSteps][4]) {
#pragma unroll
  for (int kk = 0; kk < C::kPvSteps; ++kk) ptx::wgmma_fence_operand(p[kk]);
}

// Epilogue of one consumer warpgroup: O / rowsum as bf16 through shared memory and a TMA store,
// LSE = ln Σ e^(scale·s) = (max + log2 Σ 2^(s·scale·log2e − max)) · ln 2 straight from registers.
// Staging: the warpgroup's 64 rows of the O buffer, or (d256) of the Q tile, which only this
// warpgroup's wgmma read and the last of them has retired. (0) With an O buffer: the storing
// thread waits until the previous tile's store has read it, and a named barrier holds the others
// back; (1) stmatrix writes the 128-byte-swizzled 64x64 boxes the O map expects; (2)
// fence.proxy.async makes those generic stores visible to the TMA engine; (3) the named barrier
// of the warpgroup's 128 threads; (4) one thread stores the boxes (a box past D, the padding of
// d96, is clipped by the map); staged in Q, it waits for the store to read them and releases Q.
template <class C>
__device__ __forceinline__ void store_output(SharedStorage<C>& smem, const CUtensorMap* tensor_o,
                                             float* lse, float (&o)[C::kOutRegs],
                                             const RowState& rows, const WorkTile& tile, int seq,
                                             int consumer, int thread) {
  const int warp = thread / 32;
  const int lane = thread % 32;
  const int tile_row = consumer * C::kConsumerRows;  // first row of this warpgroup in the tile
  const int64_t first_row = int64_t{tile.head} * seq + tile.m_block * C::kBlockM + tile_row;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = rows.sum[h];
    sum += __shfl_xor_sync(0xffffffff, sum, 1);
    sum += __shfl_xor_sync(0xffffffff, sum, 2);
    const float inv = 1.f / sum;
#pragma unroll
    for (int j = 0; j < C::kOutRegs / 4; ++j) {
      o[4 * j + 2 * h] *= inv;
      o[4 * j + 2 * h + 1] *= inv;
    }
    if (lane % 4 == 0) {
      lse[first_row + warp * 16 + lane / 4 + 8 * h] = (rows.max[h] + log2f(sum)) * kLn2;
    }
  }
  // stmatrix x4: lanes 8i..8i+7 address the rows of 8x8 matrix i. Matrices 0/1 are rows 0-7/8-15
  // of the warp's 16 rows at the first 8 columns of a 16-column chunk, 2/3 the next 8 columns.
  const int matrix = lane / 8;
  const int row = warp * 16 + 8 * (matrix % 2) + lane % 8;
  const int column_half = matrix / 2;
  auto staging = [&](int slab) {
    return (C::kOutputBuffer ? smem.o[slab] : smem.q[slab]) + tile_row * C::kSlabCols;
  };
  if constexpr (C::kOutputBuffer) {
    if (thread == 0) ptx::bulk_wait_group_read<0>();
    ptx::named_barrier_sync(kEpilogueBarrierBase + consumer, C::kWarpgroupThreads);
  }
#pragma unroll
  for (int slab = 0; slab < C::kSlabs; ++slab) {
    char* box = reinterpret_cast<char*>(staging(slab));
#pragma unroll
    for (int chunk = 0; chunk < C::kSlabCols / 16; ++chunk) {
      const int j = slab * (C::kSlabCols / 8) + 2 * chunk;  // first 8-column group
      const int column16 = 2 * chunk + column_half;         // 16-byte column in the row
      // 128-byte swizzle: the 16-byte column index is XORed with the row index modulo 8.
      ptx::stmatrix_x4(box + row * 128 + ((column16 ^ (row % 8)) * 16),
                       ptx::pack_bf16x2(o[4 * j + 0], o[4 * j + 1]),
                       ptx::pack_bf16x2(o[4 * j + 2], o[4 * j + 3]),
                       ptx::pack_bf16x2(o[4 * j + 4], o[4 * j + 5]),
                       ptx::pack_bf16x2(o[4 * j + 6], o[4 * j + 7]));
    }
  }
  ptx::fence_proxy_async_shared();
  ptx::named_barrier_sync(kEpilogueBarrierBase + consumer, C::kWarpgroupThreads);
  if (thread == 0) {
#pragma unroll
    for (int slab = 0; slab < C::kSlabs; ++slab) {
      ptx::tma_store_2d(tensor_o, staging(slab), slab * C::kSlabCols,
                        static_cast<int32_t>(first_row));
    }
    ptx::bulk_commit_group();
    if constexpr (!C::kOutputBuffer) {
      ptx::bulk_wait_group_read<0>();
      ptx::mbarrier_arrive(&smem.q_empty);
    }
  }
}

// Consumer warpgroup `consumer`, one query tile: rows [64·consumer, +64). Software-pipelined
// by one KV tile inside the warpgroup: while the tensor cores compute S_i = Q K_iᵀ and
// O += P_{i-1} V_{i-1} (issued together), the warpgroup waits only for S_i and runs the softmax
// of tile i; O is rescaled after the P·V wgmma retired (it was still accumulating into O).
template <class C>
__device__ __forceinline__ void consume_tile(SharedStorage<C>& smem, const CUtensorMap* tensor_o,
                                             float* lse, const WorkTile& tile, int seq,
                                             float scale_log2, int consumer, int thread,
                                             const TurnTaking<C>& turns, PipelineState<C>& state,
                                             uint32_t q_phase, bool last_tile) {
  const int warp = thread / 32;
  const int lane = thread % 32;
  // This thread's rows (the +8 one is h = 1) and the first of its column pairs.
  const int row = tile.m_block * C::kBlockM + consumer * C::kConsumerRows + warp * 16 + lane / 4;
  const int col = 2 * (lane % 4);
  const int n_blocks = kv_blocks<C>(tile.m_block, seq);
  // KV tiles go from the last (the diagonal one, for causal) down to 0.
  auto needs_mask = [&](int n_block) {
    return C::kCausal && (n_block + 1) * C::kBlockN - 1 > tile.m_block * C::kBlockM;
  };

  float o[C::kOutRegs];
#pragma unroll
  for (int i = 0; i < C::kOutRegs; ++i) o[i] = 0.f;
  float s[C::kScoreRegs];
  uint32_t p[C::kPvSteps][4];
  float rescale[2];
  RowState rows;

  ptx::mbarrier_wait_parity(&smem.q_full, q_phase);

  // Prologue: S_0 and its softmax.
  turns.wait_turn();
  ptx::mbarrier_wait_parity(&smem.k_full[state.stage], state.phase);
  ptx::wgmma_fence();
  issue_qk(smem, s, state.stage, consumer);
  ptx::wgmma_commit_group();
  turns.end_turn(false);
  ptx::wgmma_wait_group<0>();
  ptx::wgmma_fence_operand(s);
  // The wgmma that read K retired: hand K back (one arrival per consumer warpgroup).
  if (thread == 0) ptx::mbarrier_arrive(&smem.k_empty[state.stage]);
  if (needs_mask(n_blocks - 1)) mask_diagonal<C>(s, n_blocks - 1, row, col);
  online_softmax<C>(s, rows, scale_log2, rescale);  // rescale: 0 (o is still zero)
  convert_scores<C>(s, p);

  for (int i = 1; i < n_blocks; ++i) {
    const int n_block = n_blocks - 1 - i;
    PipelineState<C> next = state;
    next.advance();
    turns.wait_turn();
    ptx::mbarrier_wait_parity(&smem.k_full[next.stage], next.phase);
    // One fence for both batches: P and the rescaled O were written since the last wgmma.
    ptx::wgmma_fence_operand(o);
    ptx::wgmma_fence();
    issue_qk(smem, s, next.stage, consumer);
    ptx::wgmma_commit_group();
    ptx::mbarrier_wait_parity(&smem.v_full[state.stage], state.phase);
    issue_pv(smem, o, p, state.stage);
    ptx::wgmma_commit_group();
    turns.end_turn(false);

    ptx::wgmma_wait_group<1>();  // S_i is ready; P_{i-1} V_{i-1} may still run
    ptx::wgmma_fence_operand(s);
    if (thread == 0) ptx::mbarrier_arrive(&smem.k_empty[next.stage]);
    if (needs_mask(n_block)) mask_diagonal<C>(s, n_block, row, col);
    online_softmax<C>(s, rows, scale_log2, rescale);

    ptx::wgmma_wait_group<0>();  // P_{i-1} V_{i-1} retired: O, P and V_{i-1} are free
    ptx::wgmma_fence_operand(o);
    hold_fragments<C>(p);
    if (thread == 0) ptx::mbarrier_arrive(&smem.v_empty[state.stage]);
    rescale_output<C>(o, rescale);
    convert_scores<C>(s, p);
    state = next;
  }

  // Every QK^T of the tile has retired: with O staged elsewhere, Q may be refilled now.
  if (C::kOutputBuffer && thread == 0) ptx::mbarrier_arrive(&smem.q_empty);
  // The last P·V.
  turns.wait_turn();
  ptx::mbarrier_wait_parity(&smem.v_full[state.stage], state.phase);
  ptx::wgmma_fence_operand(o);
  ptx::wgmma_fence();
  issue_pv(smem, o, p, state.stage);
  ptx::wgmma_commit_group();
  turns.end_turn(last_tile);
  ptx::wgmma_wait_group<0>();
  ptx::wgmma_fence_operand(o);
  hold_fragments<C>(p);
  if (thread == 0) ptx::mbarrier_arrive(&smem.v_empty[state.stage]);

  state.advance();  // the stage after this tile's last KV tile
  store_output(smem, tensor_o, lse, o, rows, tile, seq, consumer, thread);
}

template <class C>
__device__ __forceinline__ void consume(SharedStorage<C>& smem, const CUtensorMap* tensor_o,
                                        float* lse, const TileOrder& order, int seq,
                                        float scale_log2, int consumer, int thread) {
  const TurnTaking<C> turns{consumer};
  turns.start();
  PipelineState<C> state;
  uint32_t q_phase = 0;
  for (int linear = blockIdx.x; linear < order.num_tiles(); linear += gridDim.x) {
    const bool last_tile = linear + static_cast<int>(gridDim.x) >= order.num_tiles();
    consume_tile(smem, tensor_o, lse, order.tile(linear), seq, scale_log2, consumer, thread, turns,
                 state, q_phase, last_tile);
    q_phase ^= 1;
  }
  // Shared memory must outlive the reads of the last TMA store.
  if (thread == 0) ptx::bulk_wait_group<0>();
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    mha_fwd_kernel(const __grid_constant__ CUtensorMap tensor_q,
                   const __grid_constant__ CUtensorMap tensor_k,
                   const __grid_constant__ CUtensorMap tensor_v,
                   const __grid_constant__ CUtensorMap tensor_o, float* lse, int seq,
                   TileOrder order, float scale_log2) {
  extern __shared__ uint8_t shared_raw[];
  const uint32_t raw_address = static_cast<uint32_t>(__cvta_generic_to_shared(shared_raw));
  SharedStorage<C>& smem = *reinterpret_cast<SharedStorage<C>*>(
      shared_raw + (((raw_address + 1023) & ~1023u) - raw_address));
  const int warpgroup = static_cast<int>(threadIdx.x) / C::kWarpgroupThreads;
  const int thread = static_cast<int>(threadIdx.x) % C::kWarpgroupThreads;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&smem.q_full, 1);  // the producer's arrive.expect_tx
    ptx::mbarrier_init(&smem.q_empty, C::kConsumerWarpgroups);
    for (int s = 0; s < C::kStages; ++s) {
      ptx::mbarrier_init(&smem.k_full[s], 1);
      ptx::mbarrier_init(&smem.v_full[s], 1);
      ptx::mbarrier_init(&smem.k_empty[s], C::kConsumerWarpgroups);
      ptx::mbarrier_init(&smem.v_empty[s], C::kConsumerWarpgroups);
    }
    ptx::fence_barrier_init();
  }
  __syncthreads();  // the barriers are initialised before anyone waits on them

  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<C::kProducerRegisters>();
    if (thread == 0) {
      ptx::tma_prefetch_descriptor(&tensor_q);
      ptx::tma_prefetch_descriptor(&tensor_k);
      ptx::tma_prefetch_descriptor(&tensor_v);
      ptx::tma_prefetch_descriptor(&tensor_o);
      produce(smem, &tensor_q, &tensor_k, &tensor_v, order, seq);
    }
  } else {
    ptx::setmaxnreg_inc<C::kConsumerRegisters>();
    consume(smem, &tensor_o, lse, order, seq, scale_log2, warpgroup - 1, thread);
  }
}

// ---------------------------------------------------------------------------------------------
// Host side.

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    TVM_FFI_THROW(RuntimeError) << what << ": " << cudaGetErrorString(status);
  }
}

// The [B*H*S, D] bf16 view of a [B, H, S, D] tensor as a TMA map with a box of 64 columns (one
// 128-byte swizzle row) by box_rows rows; columns past D (d96) are zero-filled.
template <class C>
CUtensorMap make_tensor_map(const void* base, uint64_t head_dim, uint64_t rows, uint32_t box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {head_dim, rows};
  const cuuint64_t strides[1] = {head_dim * sizeof(bf16)};
  const cuuint32_t box[2] = {C::kSlabCols, box_rows};
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

const void* data_of(const tvm::ffi::TensorView& t) {
  return static_cast<const char*>(t.data_ptr()) + t.byte_offset();
}

void check_tensor(const tvm::ffi::TensorView& t, const char* name, int ndim, DLDataTypeCode code,
                  int bits, int device_id) {
  const DLDataType dtype = t.dtype();
  if (t.ndim() != ndim || dtype.code != code || dtype.bits != bits || dtype.lanes != 1) {
    TVM_FFI_THROW(ValueError) << name << " must be a " << ndim << "-D "
                              << (code == kDLBfloat ? "bf16" : "fp32") << " tensor";
  }
  if (t.device().device_type != kDLCUDA || t.device().device_id != device_id) {
    TVM_FFI_THROW(ValueError) << name << " must live on the same CUDA device as Q";
  }
  if (!t.IsContiguous()) TVM_FFI_THROW(ValueError) << name << " must be contiguous";
  if (reinterpret_cast<uintptr_t>(data_of(t)) % 16 != 0) {
    TVM_FFI_THROW(ValueError) << name << " must be 16-byte aligned for TMA";
  }
}

// The instance a solution file picks in its run(): checks the tensors, builds the TMA maps and
// launches the kernel on the caller's stream.
template <int HeadDim, bool Causal>
void forward(tvm::ffi::TensorView q, tvm::ffi::TensorView k, tvm::ffi::TensorView v,
             tvm::ffi::TensorView o, tvm::ffi::TensorView lse) {
  using TaskConfig = Config<HeadDim, Causal>;
  static_assert(shared_memory_bytes<TaskConfig>() <= TaskConfig::kSharedMemoryLimit,
                "shared memory");
  const int device_id = q.device().device_id;
  attn::check_tensor(q, "Q", 4, kDLBfloat, 16, device_id);
  attn::check_tensor(k, "K", 4, kDLBfloat, 16, device_id);
  attn::check_tensor(v, "V", 4, kDLBfloat, 16, device_id);
  attn::check_tensor(o, "O", 4, kDLBfloat, 16, device_id);
  for (int d = 0; d < 4; ++d) {
    if (k.size(d) != q.size(d) || v.size(d) != q.size(d) || o.size(d) != q.size(d)) {
      TVM_FFI_THROW(ValueError) << "Q, K, V and O must have the same shape [B, H, S, D]";
    }
  }
  attn::check_tensor(lse, "LSE", 3, kDLFloat, 32, device_id);
  const int64_t batch = q.size(0), heads = q.size(1), seq = q.size(2), head_dim = q.size(3);
  if (lse.size(0) != batch || lse.size(1) != heads || lse.size(2) != seq) {
    TVM_FFI_THROW(ValueError) << "LSE must be [B, H, S]";
  }
  if (head_dim != TaskConfig::kHeadDim) {
    TVM_FFI_THROW(ValueError) << "this kernel is built for head dim " << TaskConfig::kHeadDim
                              << ", got " << head_dim;
  }
  if (seq % TaskConfig::kBlockM != 0) {
    TVM_FFI_THROW(ValueError) << "S must be a multiple of " << TaskConfig::kBlockM << ", got "
                              << seq;
  }
  const int64_t rows = batch * heads * seq;
  if (rows >= (int64_t{1} << 31)) TVM_FFI_THROW(ValueError) << "B*H*S must fit in int32";
  if (rows == 0) return;

  const CUtensorMap tensor_q =
      attn::make_tensor_map<TaskConfig>(attn::data_of(q), head_dim, rows, TaskConfig::kBlockM);
  const CUtensorMap tensor_k =
      attn::make_tensor_map<TaskConfig>(attn::data_of(k), head_dim, rows, TaskConfig::kBlockN);
  const CUtensorMap tensor_v =
      attn::make_tensor_map<TaskConfig>(attn::data_of(v), head_dim, rows, TaskConfig::kBlockN);
  const CUtensorMap tensor_o =
      attn::make_tensor_map<TaskConfig>(attn::data_of(o), head_dim, rows, TaskConfig::kConsumerRows);

  // Sections of heads whose K and V (2·S·D·2 bytes a head) together stay within ~8 MB of L2.
  constexpr int64_t kL2SectionBytes = int64_t{8} << 20;
  const int64_t kv_bytes_per_head = 2 * seq * head_dim * int64_t{sizeof(attn::bf16)};
  const int64_t num_heads = batch * heads;
  int64_t heads_per_section = kL2SectionBytes / kv_bytes_per_head;
  if (heads_per_section < 1) heads_per_section = 1;
  if (heads_per_section > num_heads) heads_per_section = num_heads;
  const attn::TileOrder order{static_cast<int>(num_heads),
                              static_cast<int>(seq / TaskConfig::kBlockM),
                              static_cast<int>(heads_per_section)};

  auto* kernel = attn::mha_fwd_kernel<TaskConfig>;
  constexpr int kSmem = attn::shared_memory_bytes<TaskConfig>();
  attn::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem),
                   "cudaFuncSetAttribute");
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));
  const float scale_log2 = attn::kLog2e / sqrtf(static_cast<float>(head_dim));
  int grid = order.num_tiles();
  if constexpr (TaskConfig::kPersistent) {
    int sm_count = 0;
    attn::check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device_id),
                     "cudaDeviceGetAttribute");
    if (sm_count < grid) grid = sm_count;
  }
  kernel<<<grid, TaskConfig::kThreads, kSmem, stream>>>(
      tensor_q, tensor_k, tensor_v, tensor_o,
      static_cast<float*>(const_cast<void*>(attn::data_of(lse))), static_cast<int>(seq), order,
      scale_log2);
  attn::check_cuda(cudaGetLastError(), "launch mha_fwd_kernel");
}

}  // namespace attn
// ptx-end: mha_fwd

void run(tvm::ffi::TensorView q, tvm::ffi::TensorView k, tvm::ffi::TensorView v,
         tvm::ffi::TensorView o, tvm::ffi::TensorView lse) {
  attn::forward</*head_dim=*/96, /*causal=*/true>(q, k, v, o, lse);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
