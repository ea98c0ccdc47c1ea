// ptxbench: task=gemm_fp8_n7168_k5120 arch=hopper expect=INCORRECT_NUMERICAL
//
// Negative control, derived from solutions/hopper/gemm_fp8_nt_warp_specialized.cu with ONE
// defect: the epilogue multiplies by SCALE_A only and forgets SCALE_B, a slip that looks right
// whenever a test feeds scales of 1. The trials draw both scales afresh (normal values), so the
// output is off by the factor SCALE_B everywhere. Every requested family (QGMMA, TMA, SYNCS) is
// in the SASS and executes: only correctness can stop it -> INCORRECT_NUMERICAL.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <cstdio>
#include <mutex>

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

// ptx-begin: cluster
namespace ptx {

// %cluster_ctarank — a thread; this CTA's rank in its cluster (0 .. cluster size - 1).
__device__ __forceinline__ uint32_t cluster_cta_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// barrier.cluster.arrive.release + barrier.cluster.wait.acquire — every thread of every CTA in
// the cluster; shared-memory writes (barrier inits included) before it are visible to all after.
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::
          : "memory");
}

}  // namespace ptx
// ptx-end: cluster

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

// ptx-begin: wgmma_fp8
namespace ptx {

// wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3 — warpgroup; D[64xN] (+)= A[64x32] *
// B[Nx32]^T with FP8 E4M3 operands from shared memory (descriptors), both K-major (FP8 wgmma has
// no transpose); `accumulate` false overwrites D. Same fragment layout as the bf16 form: thread t
// holds rows 16(t/32) + (t%32)/4 (+8), columns 8j + 2(t%4) (+1). The accumulator keeps fewer bits
// than fp32 (about 14 of mantissa on H100/H800 as measured by DeepSeek-V3): add D into full fp32
// registers every few k32 steps ("promotion") when K is long.
__device__ __forceinline__ void wgmma_m64n192k32_e4m3(float (&d)[96], uint64_t desc_a,
                                                      uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %98, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
      "}, "
      "%96, %97, p, 1, 1;\n"
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
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<uint32_t>(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], uint64_t desc_a,
                                                      uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, "
      "%64, %65, p, 1, 1;\n"
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
// ptx-end: wgmma_fp8

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

// Tuning knobs, overridable on the nvcc command line for sweeps (-DGEMM_CLUSTER_M=1 ...).
#ifndef GEMM_CLUSTER_M
#define GEMM_CLUSTER_M 2
#endif
#ifndef GEMM_GROUP_M_BLOCKS
#define GEMM_GROUP_M_BLOCKS 16
#endif
#ifndef GEMM_STREAM_K
#define GEMM_STREAM_K 0
#endif

namespace gemm {

using bf16 = __nv_bfloat16;
using fp8 = uint8_t;  // e4m3 bits: only TMA and wgmma look at them

struct Config {
  // CTA tile and k-slab. 128 e4m3 = 128 bytes: one row of the 128-byte swizzle pattern, and
  // the promotion interval.
  static constexpr int kBlockM = 128;
  static constexpr int kBlockN = 192;
  static constexpr int kBlockK = 128;
  static constexpr int kStages = 4;

  // Two CTAs of a cluster take adjacent M tiles of one N tile and multicast halves of B.
  static constexpr int kClusterM = GEMM_CLUSTER_M;
  static constexpr int kGroupMBlocks = GEMM_GROUP_M_BLOCKS;  // L2 raster group, in M tiles
  // Split the last waves' k-blocks evenly over all clusters instead of leaving SMs idle. Off:
  // measured no faster here (0.95x against 0.977x at the core task, equal family geomean).
  static constexpr bool kStreamK = GEMM_STREAM_K != 0;

  static constexpr int kWarpgroupThreads = 128;
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kThreads = kWarpgroupThreads * (1 + kConsumerWarpgroups);
  static constexpr int kConsumerRows = kBlockM / kConsumerWarpgroups;  // = wgmma M (64)
  static constexpr int kWgmmaK = 32;
  static constexpr int kAccumulators = kBlockN / 2;  // m64nNk32: N/2 fp32 per thread

  static constexpr uint32_t kProducerRegisters = 40;
  static constexpr uint32_t kConsumerRegisters = 232;

  // 64 bf16 = 128 bytes: the widest box a 128B-swizzled TMA store takes.
  static constexpr int kStoreBoxCols = 64;
  static constexpr int kStoreBoxes = kBlockN / kStoreBoxCols;
  static constexpr int kStoreBuffers = 2;  // per consumer: fill one while the other is stored

  static constexpr uint32_t kTileBytesA = kBlockM * kBlockK * sizeof(fp8);
  static constexpr uint32_t kTileBytesB = kBlockN * kBlockK * sizeof(fp8);
  static constexpr uint32_t kStageBytes = kTileBytesA + kTileBytesB;  // what full[s] waits for
  static constexpr int kMulticastRowsB = kBlockN / kClusterM;         // B rows one CTA loads

  static constexpr int kSharedMemoryLimit = 232448;  // sm_90 opt-in maximum per block

  static_assert(kBlockK * sizeof(fp8) == 128, "one k-slab row must be one 128-byte swizzle row");
  static_assert(kConsumerRows == 64, "each consumer warpgroup owns one m64 wgmma row block");
  static_assert(kBlockN == 192, "the consumer issues m64n192k32");
  static_assert(kBlockN % kStoreBoxCols == 0, "the epilogue stores whole 64-column boxes");
  static_assert(kClusterM == 1 || kClusterM == 2, "cluster of one or two CTAs along M");
  static_assert(kBlockN % kClusterM == 0 && (kMulticastRowsB * kBlockK * sizeof(fp8)) % 1024 == 0,
                "each multicast half of B must start on a 1024-byte swizzle atom");
  static_assert(kGroupMBlocks % kClusterM == 0, "raster groups hold whole clusters");
  static_assert(kProducerRegisters * kWarpgroupThreads +
                        kConsumerRegisters * kWarpgroupThreads * kConsumerWarpgroups <=
                    65536,
                "register file");
};

// Named barrier ids (0 is __syncthreads): one per consumer warpgroup for its epilogue.
enum NamedBarrier : uint32_t { kEpilogueBarrierBase = 1 };

enum class WarpRole { kProducer, kConsumer };

__device__ __forceinline__ WarpRole warp_role(int warpgroup) {
  return warpgroup == 0 ? WarpRole::kProducer : WarpRole::kConsumer;
}

// Every tile buffer starts on a 1024-byte boundary (the 128-byte swizzle repeats every 8 rows);
// the sizes below are multiples of 1024, so alignment of the struct carries to each member.
struct alignas(1024) SharedStorage {
  fp8 a[Config::kStages][Config::kBlockM * Config::kBlockK];  // 16 KB a stage
  fp8 b[Config::kStages][Config::kBlockN * Config::kBlockK];  // 24 KB a stage
  bf16 c[Config::kConsumerWarpgroups][Config::kStoreBuffers]
        [Config::kConsumerRows * Config::kStoreBoxCols];  // 8 KB a box
  uint64_t full[Config::kStages];   // TMA bytes landed: consumers may read stage s
  uint64_t empty[Config::kStages];  // all consumers done with stage s: the producer may refill
};
// +1024: the dynamic shared memory base is aligned up to 1024 by hand.
constexpr int kSharedMemoryBytes = sizeof(SharedStorage) + 1024;
static_assert(kSharedMemoryBytes <= Config::kSharedMemoryLimit, "shared memory");

// Position in the ring: which stage, and the parity of that stage's current barrier phase.
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

struct Tile {
  int m_block;
  int n_block;
};

// What one cluster does with one unit of work (below): which k-blocks, and what happens to the
// accumulators afterwards.
enum class SegmentKind {
  kWholeTile,    // every k-block: store the tile
  kFinisher,     // the first k-blocks: add the next cluster's partial sums, then store the tile
  kContributor,  // the last k-blocks: publish the partial sums for the finisher, store nothing
};

struct Segment {
  int unit;
  int k_begin;  // k-blocks [k_begin, k_end)
  int k_end;
  SegmentKind kind;
};

// Persistent schedule over "units": a unit is the kClusterM adjacent M tiles that one cluster
// computes for one N tile. Units are rastered in groups of kGroupMBlocks M tiles, M fastest, so
// the units in flight at once cover a compact rectangle of C and reuse A and B rows from L2.
//
// Data-parallel + stream-K hybrid: with U units on G clusters, whole units go round-robin for all
// but the last two waves; the k-blocks of the remaining G + (U mod G) units are cut into G equal
// contiguous ranges, one per cluster. At the core task (896 units, 66 clusters: 13.6 waves) that
// is 12 whole waves plus 1.58 tiles of k-blocks each instead of 14 rounds, 3% fewer. Each range
// spans at least one tile's k-blocks, so a tile is split between at most two neighbouring ranges:
// the cluster holding its first k-blocks finishes it, the next cluster contributes the rest first
// thing in its range, long before the finisher needs it. Measured on the H200 it did not pay
// (Config::kStreamK says how much), so by default every unit is computed whole.
struct TileScheduler {
  int num_n_blocks;
  int num_k_blocks;
  int num_m_units;
  int num_units;
  int num_clusters;
  int data_parallel_units;  // units [0, this) are computed whole
  int stream_k_blocks;      // k-blocks of the units after them, split over the clusters

  __host__ __device__ TileScheduler(int m, int n, int k, int clusters)
      : num_n_blocks((n + Config::kBlockN - 1) / Config::kBlockN),
        num_k_blocks((k + Config::kBlockK - 1) / Config::kBlockK),
        num_m_units((m + Config::kBlockM * Config::kClusterM - 1) /
                    (Config::kBlockM * Config::kClusterM)),
        num_units(num_m_units * num_n_blocks),
        num_clusters(clusters) {
    const int full_waves = num_units / clusters;
    const bool split = Config::kStreamK && full_waves >= 1 && num_units % clusters != 0;
    data_parallel_units = split ? (full_waves - 1) * clusters : num_units;
    stream_k_blocks = (num_units - data_parallel_units) * num_k_blocks;
  }

  __host__ __device__ bool stream_k() const { return data_parallel_units < num_units; }

  __device__ __forceinline__ Tile tile(int unit, uint32_t cta_rank) const {
    constexpr int kGroupUnits = Config::kGroupMBlocks / Config::kClusterM;
    const int units_per_group = kGroupUnits * num_n_blocks;
    const int group = unit / units_per_group;
    const int first_m_unit = group * kGroupUnits;
    const int group_m_units = min(num_m_units - first_m_unit, kGroupUnits);
    const int in_group = unit - group * units_per_group;
    const int m_unit = first_m_unit + in_group % group_m_units;
    return Tile{m_unit * Config::kClusterM + static_cast<int>(cta_rank), in_group / group_m_units};
  }
};

// The segments of one cluster, in order; producer and consumers walk identical copies.
struct WorkIterator {
  TileScheduler sched;
  int next_unit;     // next whole unit
  int stream_k_pos;  // next k-block of this cluster's stream-K range
  int stream_k_end;

  __device__ WorkIterator(const TileScheduler& scheduler, int cluster)
      : sched(scheduler),
        next_unit(cluster),
        stream_k_pos(static_cast<int>(int64_t{cluster} * scheduler.stream_k_blocks /
                                      scheduler.num_clusters)),
        stream_k_end(static_cast<int>(int64_t{cluster + 1} * scheduler.stream_k_blocks /
                                      scheduler.num_clusters)) {}

  __device__ __forceinline__ bool next(Segment& segment) {
    if (next_unit < sched.data_parallel_units) {
      segment = Segment{next_unit, 0, sched.num_k_blocks, SegmentKind::kWholeTile};
      next_unit += sched.num_clusters;
      return true;
    }
    if (stream_k_pos >= stream_k_end) return false;
    const int unit_offset = stream_k_pos / sched.num_k_blocks;
    const int k_begin = stream_k_pos - unit_offset * sched.num_k_blocks;
    const int k_end = min(sched.num_k_blocks, k_begin + (stream_k_end - stream_k_pos));
    const SegmentKind kind = k_begin > 0                  ? SegmentKind::kContributor
                             : k_end < sched.num_k_blocks ? SegmentKind::kFinisher
                                                          : SegmentKind::kWholeTile;
    segment = Segment{sched.data_parallel_units + unit_offset, k_begin, k_end, kind};
    stream_k_pos += k_end - k_begin;
    return true;
  }
};

// Producer: one thread keeps the ring full. It reuses stage s only after empty[s] says every
// consumer (of both CTAs: its half of B lands in the peer too) has finished reading it.
__device__ __forceinline__ void produce(SharedStorage& smem, const CUtensorMap* tensor_a,
                                        const CUtensorMap* tensor_b, const TileScheduler& sched,
                                        int cluster, uint32_t cta_rank) {
  ptx::tma_prefetch_descriptor(tensor_a);
  ptx::tma_prefetch_descriptor(tensor_b);
  PipelineState state;
  WorkIterator work(sched, cluster);
  for (Segment segment; work.next(segment);) {
    const Tile tile = sched.tile(segment.unit, cta_rank);
    for (int k_block = segment.k_begin; k_block < segment.k_end; ++k_block) {
      uint64_t* full = &smem.full[state.stage];
      ptx::mbarrier_wait_parity(&smem.empty[state.stage], state.phase ^ 1);
      // Arrive first, then copy: the phase cannot complete before this arrival, so bytes that the
      // peer's multicast delivers early only run the transaction count ahead.
      ptx::mbarrier_arrive_expect_tx(full, Config::kStageBytes);
      const int k = k_block * Config::kBlockK;
      ptx::tma_load_2d(smem.a[state.stage], tensor_a, full, k, tile.m_block * Config::kBlockM);
      if constexpr (Config::kClusterM == 1) {
        ptx::tma_load_2d(smem.b[state.stage], tensor_b, full, k, tile.n_block * Config::kBlockN);
      } else {
        const int row = static_cast<int>(cta_rank) * Config::kMulticastRowsB;
        ptx::tma_load_2d_multicast(smem.b[state.stage] + row * Config::kBlockK, tensor_b, full, k,
                                   tile.n_block * Config::kBlockN + row,
                                   static_cast<uint16_t>((1u << Config::kClusterM) - 1));
      }
      state.advance();
    }
  }
  // Tail: wait until every stage's last use is released. Consumers of the peer CTA arrive on
  // this CTA's empty barriers; exiting before those arrivals land would leave them dangling.
  for (int i = 0; i < Config::kStages; ++i) {
    ptx::mbarrier_wait_parity(&smem.empty[state.stage], state.phase ^ 1);
    state.advance();
  }
}

// One arrival per consumer warpgroup on empty[stage] of every CTA in the cluster (thread r
// signals CTA r), after wgmma.wait_group has retired the reads of that stage.
__device__ __forceinline__ void release_stage(SharedStorage& smem, int stage, int thread_in_wg) {
  if constexpr (Config::kClusterM == 1) {
    if (thread_in_wg == 0) ptx::mbarrier_arrive(&smem.empty[stage]);
  } else {
    if (thread_in_wg < Config::kClusterM) {
      ptx::mbarrier_arrive_cluster(&smem.empty[stage], static_cast<uint32_t>(thread_in_wg));
    }
  }
}

// Epilogue of one consumer warpgroup: its 64x256 fp32 accumulators become four 64x64 bf16 boxes.
// Per box: (1) the storing thread waits until the buffer's previous TMA store has read it;
// (2) barrier; (3) stmatrix writes the swizzled box; (4) fence.proxy.async makes those generic
// stores visible to the TMA engine; (5) barrier; (6) one thread issues the TMA store.
__device__ __forceinline__ void store_tile(SharedStorage& smem, const CUtensorMap* tensor_c,
                                           const float (&acc)[Config::kAccumulators],
                                           const Tile& tile, int consumer, int thread_in_wg) {
  const bool store_thread = thread_in_wg == 0;
  const uint32_t barrier = kEpilogueBarrierBase + consumer;
  const int warp = thread_in_wg / 32;
  const int lane = thread_in_wg % 32;
  // stmatrix x4: lanes 8i..8i+7 address the rows of 8x8 matrix i. Matrices 0/1 are rows 0-7/8-15
  // of the warp's 16 rows at the first 8 columns of a 16-column chunk, 2/3 the next 8 columns.
  const int matrix = lane / 8;
  const int row = warp * 16 + 8 * (matrix % 2) + lane % 8;
  const int column_half = matrix / 2;
#pragma unroll
  for (int box = 0; box < Config::kStoreBoxes; ++box) {
    bf16* buffer = smem.c[consumer][box % Config::kStoreBuffers];
    if (store_thread) ptx::bulk_wait_group_read<Config::kStoreBuffers - 1>();
    ptx::named_barrier_sync(barrier, Config::kWarpgroupThreads);
#pragma unroll
    for (int chunk = 0; chunk < Config::kStoreBoxCols / 16; ++chunk) {
      const int j = box * (Config::kStoreBoxCols / 8) + 2 * chunk;  // first 8-column group
      const int column16 = 2 * chunk + column_half;                 // 16-byte column in the row
      // 128-byte swizzle: the 16-byte column index is XORed with the row index modulo 8.
      char* address = reinterpret_cast<char*>(buffer) + row * 128 + ((column16 ^ (row % 8)) * 16);
      ptx::stmatrix_x4(address, ptx::pack_bf16x2(acc[4 * j + 0], acc[4 * j + 1]),
                       ptx::pack_bf16x2(acc[4 * j + 2], acc[4 * j + 3]),
                       ptx::pack_bf16x2(acc[4 * j + 4], acc[4 * j + 5]),
                       ptx::pack_bf16x2(acc[4 * j + 6], acc[4 * j + 7]));
    }
    ptx::fence_proxy_async_shared();
    ptx::named_barrier_sync(barrier, Config::kWarpgroupThreads);
    if (store_thread) {
      ptx::tma_store_2d(tensor_c, buffer,
                        tile.n_block * Config::kBlockN + box * Config::kStoreBoxCols,
                        tile.m_block * Config::kBlockM + consumer * Config::kConsumerRows);
      ptx::bulk_commit_group();
    }
  }
}

// Stream-K fix-up. A partial is one consumer warpgroup's 64x256 fp32 accumulators (64 KB) in a
// global workspace slot, stored thread-major (float4 i of thread t at [i][t]) so that every warp
// access is one contiguous 512-byte run. The flag of the slot is set with release semantics after
// all 128 threads have written; the finisher acquires it before any thread reads.
constexpr int kPartialFloats = Config::kConsumerRows * Config::kBlockN;

__device__ __forceinline__ void publish_partial(float* workspace, int* flags, int slot,
                                                const float (&acc)[Config::kAccumulators],
                                                int consumer, int thread_in_wg) {
  float4* partial = reinterpret_cast<float4*>(workspace + int64_t{slot} * kPartialFloats);
#pragma unroll
  for (int i = 0; i < Config::kAccumulators / 4; ++i) {
    __stcg(&partial[i * Config::kWarpgroupThreads + thread_in_wg],
           make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
  }
  __threadfence();
  ptx::named_barrier_sync(kEpilogueBarrierBase + consumer, Config::kWarpgroupThreads);
  if (thread_in_wg == 0) ptx::store_release_gpu(&flags[slot], 1);
}

__device__ __forceinline__ void add_partial(const float* workspace, const int* flags, int slot,
                                            float (&acc)[Config::kAccumulators], int consumer,
                                            int thread_in_wg) {
  if (thread_in_wg == 0) {
    while (ptx::load_acquire_gpu(&flags[slot]) == 0) {
    }
  }
  ptx::named_barrier_sync(kEpilogueBarrierBase + consumer, Config::kWarpgroupThreads);
  const float4* partial =
      reinterpret_cast<const float4*>(workspace + int64_t{slot} * kPartialFloats);
#pragma unroll
  for (int i = 0; i < Config::kAccumulators / 4; ++i) {
    const float4 v = __ldcg(&partial[i * Config::kWarpgroupThreads + thread_in_wg]);
    acc[4 * i] += v.x;
    acc[4 * i + 1] += v.y;
    acc[4 * i + 2] += v.z;
    acc[4 * i + 3] += v.w;
  }
}

// Consumer warpgroup: rows [64·consumer, 64·consumer + 64) of each tile, all 192 columns.
// `acc` is the promoted fp32 sum; `partial` the FP8 wgmma's own accumulator for one k-block.
__device__ __forceinline__ void consume(SharedStorage& smem, const CUtensorMap* tensor_c,
                                        float* workspace, int* flags, const TileScheduler& sched,
                                        int cluster, uint32_t cta_rank, int consumer,
                                        int thread_in_wg, float scale) {
  float acc[Config::kAccumulators];
  float partial[Config::kAccumulators];
  PipelineState state;
  // This CTA's workspace slot, and the one of the same-rank CTA in the next cluster.
  const int own_slot = static_cast<int>(blockIdx.x) * Config::kConsumerWarpgroups + consumer;
  const int next_slot = own_slot + Config::kClusterM * Config::kConsumerWarpgroups;
  WorkIterator work(sched, cluster);
  for (Segment segment; work.next(segment);) {
    const Tile tile = sched.tile(segment.unit, cta_rank);
    for (int k_block = segment.k_begin; k_block < segment.k_end; ++k_block) {
      ptx::mbarrier_wait_parity(&smem.full[state.stage], state.phase);
      const uint64_t desc_a = ptx::wgmma_desc_k_major_sw128(
          smem.a[state.stage] + consumer * Config::kConsumerRows * Config::kBlockK);
      const uint64_t desc_b = ptx::wgmma_desc_k_major_sw128(smem.b[state.stage]);
      ptx::wgmma_fence();
#pragma unroll
      for (int k = 0; k < Config::kBlockK / Config::kWgmmaK; ++k) {
        // +2 per step: 32 e4m3 = 32 bytes further along the (swizzled) row, in 16-byte units.
        ptx::wgmma_m64n192k32_e4m3(partial, desc_a + 2 * k, desc_b + 2 * k, k > 0);
      }
      ptx::wgmma_commit_group();
      // Promotion needs this k-block's sums: wait for them (the other consumer warpgroup's
      // wgmma keep the tensor cores busy meanwhile), free the stage, add into fp32.
      ptx::wgmma_wait_group<0>();
      release_stage(smem, state.stage, thread_in_wg);
      const bool first = k_block == segment.k_begin;
#pragma unroll
      for (int i = 0; i < Config::kAccumulators; ++i) {
        // Pinned after the wait: the compiler must not read the sums before they exist.
        asm volatile("" : "+f"(partial[i])::"memory");
        acc[i] = first ? partial[i] : acc[i] + partial[i];
      }
      state.advance();
    }
    if (segment.kind == SegmentKind::kContributor) {
      publish_partial(workspace, flags, own_slot, acc, consumer, thread_in_wg);
      continue;
    }
    if (segment.kind == SegmentKind::kFinisher) {
      add_partial(workspace, flags, next_slot, acc, consumer, thread_in_wg);
    }
    // Per-tensor scales commute with the sum: applied once, to the promoted fp32 result.
#pragma unroll
    for (int i = 0; i < Config::kAccumulators; ++i) acc[i] *= scale;
    store_tile(smem, tensor_c, acc, tile, consumer, thread_in_wg);
  }
  // The shared-memory boxes must stay valid until the last TMA store has read them.
  if (thread_in_wg == 0) ptx::bulk_wait_group<0>();
}

__global__ void __launch_bounds__(Config::kThreads, 1)
    gemm_fp8_nt_warp_specialized_kernel(const __grid_constant__ CUtensorMap tensor_a,
                                        const __grid_constant__ CUtensorMap tensor_b,
                                        const __grid_constant__ CUtensorMap tensor_c, int m, int n,
                                        int k, const float* scale_a, const float* scale_b,
                                        float* workspace, int* flags) {
  extern __shared__ uint8_t shared_raw[];
  const uint32_t raw_address = static_cast<uint32_t>(__cvta_generic_to_shared(shared_raw));
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(
      shared_raw + (((raw_address + 1023) & ~1023u) - raw_address));

  const int warpgroup = static_cast<int>(threadIdx.x) / Config::kWarpgroupThreads;
  const int thread_in_wg = static_cast<int>(threadIdx.x) % Config::kWarpgroupThreads;
  const uint32_t cta_rank = Config::kClusterM > 1 ? ptx::cluster_cta_rank() : 0;
  const int cluster = static_cast<int>(blockIdx.x) / Config::kClusterM;
  const TileScheduler sched(m, n, k, static_cast<int>(gridDim.x) / Config::kClusterM);

  if (threadIdx.x == 0) {
    for (int s = 0; s < Config::kStages; ++s) {
      ptx::mbarrier_init(&smem.full[s], 1);  // the producer's arrive.expect_tx
      ptx::mbarrier_init(&smem.empty[s], Config::kConsumerWarpgroups * Config::kClusterM);
    }
    ptx::fence_barrier_init();
  }
  // The peer CTA multicasts into this CTA's buffers and barriers: both must be initialised first.
  if constexpr (Config::kClusterM > 1) {
    ptx::cluster_sync();
  } else {
    __syncthreads();
  }

  if (warp_role(warpgroup) == WarpRole::kProducer) {
    ptx::setmaxnreg_dec<Config::kProducerRegisters>();
    if (thread_in_wg == 0) {
      produce(smem, &tensor_a, &tensor_b, sched, cluster, cta_rank);
    }
  } else {
    ptx::setmaxnreg_inc<Config::kConsumerRegisters>();
    const float scale = *scale_a;
    consume(smem, &tensor_c, workspace, flags, sched, cluster, cta_rank, warpgroup - 1,
            thread_in_wg, scale);
  }
}

// ---------------------------------------------------------------------------------------------
// Host side.

// A row-major [outer, inner] matrix (bf16, or e4m3 as bytes) as a TMA tensor map with a box of
// box_outer rows of box_inner elements, 128-byte swizzled, zero fill out of bounds. Built on
// every call from the actual pointer: a map cached by shape would keep pointing at the previous
// call's buffers.
CUtensorMap make_tensor_map(const void* base, CUtensorMapDataType type, uint64_t element_bytes,
                            uint64_t inner, uint64_t outer, uint32_t box_inner,
                            uint32_t box_outer) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {inner, outer};
  const cuuint64_t strides[1] = {inner * element_bytes};  // bytes between rows
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = cuTensorMapEncodeTiled(
      &map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
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
  if ((t.size(1) * (e4m3 ? 1 : 2)) % 16 != 0)
    TVM_FFI_THROW(ValueError) << name << ": rows must be a multiple of 16 bytes";
}

// A per-tensor scale: one float32 on the device.
void check_scale(const tvm::ffi::TensorView& t, const char* name, int device_id) {
  const DLDataType dtype = t.dtype();
  if (t.numel() != 1 || dtype.code != kDLFloat || dtype.bits != 32 || dtype.lanes != 1 ||
      t.device().device_type != kDLCUDA || t.device().device_id != device_id) {
    TVM_FFI_THROW(ValueError) << name << " must be one float32 on A's device";
  }
}

void check_cuda(cudaError_t status, const char* what);

// Stream-K scratch comes from a memory pool of this file's own that keeps what is freed (release
// threshold: unlimited): after the first call a stream-ordered allocation is a sub-allocation
// that maps nothing. With the default pool, which returns memory at every synchronisation, calls
// measured 20-60 us slower on the H200. One pool per device, created on first use.
cudaMemPool_t scratch_pool(int device_id) {
  constexpr int kMaxDevices = 64;
  static std::mutex mutex;
  static cudaMemPool_t pools[kMaxDevices] = {};
  if (device_id < 0 || device_id >= kMaxDevices) TVM_FFI_THROW(ValueError) << "device id";
  std::lock_guard<std::mutex> lock(mutex);
  if (pools[device_id] == nullptr) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device_id;
    check_cuda(cudaMemPoolCreate(&pools[device_id], &props), "cudaMemPoolCreate");
    uint64_t keep_everything = UINT64_MAX;
    check_cuda(cudaMemPoolSetAttribute(pools[device_id], cudaMemPoolAttrReleaseThreshold,
                                       &keep_everything),
               "cudaMemPoolSetAttribute");
  }
  return pools[device_id];
}

const void* data_of(const tvm::ffi::TensorView& t) {
  return static_cast<const char*>(t.data_ptr()) + t.byte_offset();
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
  gemm::check_scale(scale_a, "SCALE_A", device_id);
  gemm::check_scale(scale_b, "SCALE_B", device_id);
  const int64_t m = a.size(0), k = a.size(1), n = b.size(0);
  if (b.size(1) != k || c.size(0) != m || c.size(1) != n) {
    TVM_FFI_THROW(ValueError) << "shapes must be A[M,K], B[N,K], C[M,N]";
  }
  if (m >= (int64_t{1} << 31) || n >= (int64_t{1} << 31) || k >= (int64_t{1} << 31)) {
    TVM_FFI_THROW(ValueError) << "dimensions must fit in int32";
  }
  if (m == 0 || n == 0) return;
  if (k == 0) TVM_FFI_THROW(ValueError) << "K must be positive";
  for (const void* p : {gemm::data_of(a), gemm::data_of(b), gemm::data_of(c)}) {
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
      TVM_FFI_THROW(ValueError) << "tensor data must be 16-byte aligned for TMA";
    }
  }

  // TMA has no FP8 element type: e4m3 moves as bytes, which is all a copy needs.
  const CUtensorMap tensor_a = gemm::make_tensor_map(
      gemm::data_of(a), CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, k, m, Config::kBlockK, Config::kBlockM);
  const CUtensorMap tensor_b =
      gemm::make_tensor_map(gemm::data_of(b), CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, k, n,
                            Config::kBlockK, Config::kMulticastRowsB);
  const CUtensorMap tensor_c =
      gemm::make_tensor_map(gemm::data_of(c), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, n, m,
                            Config::kStoreBoxCols, Config::kConsumerRows);

  auto* kernel = gemm::gemm_fp8_nt_warp_specialized_kernel;
  gemm::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        gemm::kSharedMemoryBytes),
                   "cudaFuncSetAttribute");
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));

  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = Config::kClusterM;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t launch = {};
  launch.blockDim = dim3(Config::kThreads);
  launch.dynamicSmemBytes = gemm::kSharedMemoryBytes;
  launch.stream = stream;
  launch.attrs = &attribute;
  launch.numAttrs = 1;

  // Persistent grid: as many clusters as can be resident at once (queried, since clusters must
  // fit inside one GPC), never more than there are units of work.
  int sm_count = 0;
  gemm::check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device_id),
                   "cudaDeviceGetAttribute");
  int resident_clusters = sm_count / Config::kClusterM;
  if constexpr (Config::kClusterM > 1) {
    launch.gridDim = dim3(resident_clusters * Config::kClusterM);
    gemm::check_cuda(cudaOccupancyMaxActiveClusters(&resident_clusters, kernel, &launch),
                     "cudaOccupancyMaxActiveClusters");
    if (resident_clusters < 1) TVM_FFI_THROW(RuntimeError) << "no cluster fits on this GPU";
  }
  const int num_units =
      gemm::TileScheduler(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1)
          .num_units;
  const int clusters = resident_clusters < num_units ? resident_clusters : num_units;
  const gemm::TileScheduler sched(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                  clusters);
  launch.gridDim = dim3(clusters * Config::kClusterM);

  // Stream-K scratch: one flag and one 64 KB partial per consumer warpgroup, stream-ordered so
  // that concurrent calls on other streams never share it; flags start at zero.
  void* scratch = nullptr;
  int* flags = nullptr;
  float* workspace = nullptr;
  if (sched.stream_k()) {
    const size_t slots =
        static_cast<size_t>(clusters) * Config::kClusterM * Config::kConsumerWarpgroups;
    const size_t flag_bytes = (slots * sizeof(int) + 255) / 256 * 256;
    gemm::check_cuda(
        cudaMallocFromPoolAsync(&scratch, flag_bytes + slots * gemm::kPartialFloats * sizeof(float),
                                gemm::scratch_pool(device_id), stream),
        "cudaMallocFromPoolAsync");
    gemm::check_cuda(cudaMemsetAsync(scratch, 0, flag_bytes, stream), "cudaMemsetAsync");
    flags = static_cast<int*>(scratch);
    workspace = reinterpret_cast<float*>(static_cast<char*>(scratch) + flag_bytes);
  }
  gemm::check_cuda(
      cudaLaunchKernelEx(&launch, kernel, tensor_a, tensor_b, tensor_c, static_cast<int>(m),
                         static_cast<int>(n), static_cast<int>(k),
                         static_cast<const float*>(gemm::data_of(scale_a)),
                         static_cast<const float*>(gemm::data_of(scale_b)), workspace, flags),
      "launch gemm_fp8_nt_warp_specialized_kernel");
  if (scratch != nullptr) gemm::check_cuda(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
