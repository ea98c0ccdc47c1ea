// ptxbench: task=gemm_fp8_n7168_k5120 arch=hopper expect=PASSED
//
// C = SCALE_A * SCALE_B * A * B^T with one warpgroup per 64x128 output tile: FP8 e4m3 in, fp32
// accumulation with promotion, bf16 out. A: [M, K], B: [N, K] row-major (both K-major; FP8 wgmma
// takes no other layout), SCALE_A, SCALE_B: one float32 each on the device, C: [M, N] row-major.
// Each 128-wide K block (128 e4m3 = 128 B = the swizzle span): one thread loads A (64x128) and
// B (128x128) with TMA as bytes; the warpgroup issues four wgmma.m64n128k32.e4m3 into a partial
// accumulator, waits, and adds it into the fp32 accumulator (promotion: the FP8 MMA keeps fewer
// accumulator bits than fp32). The per-tensor scales are applied once, in the epilogue.
// Single-buffered on purpose, like the bf16 tile example.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {

constexpr int kBlockM = 64, kBlockN = 128,
              kBlockK = 128;  // kBlockK * 1 B = 128 B = the swizzle span, and the promotion step
constexpr uint32_t kStageBytes = (kBlockM + kBlockN) * kBlockK;  // 24 KB of e4m3

struct SharedStorage {
  alignas(1024) uint8_t a[kBlockM * kBlockK];  // 8 KB: 64 rows of 128 B (e4m3 bits)
  alignas(1024) uint8_t b[kBlockN * kBlockK];  // 16 KB: 128 rows of 128 B
  uint64_t full;
};

}  // namespace

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

namespace {

// Keeps the compiler from moving accumulator reads/writes across the asynchronous wgmma window.
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// ---- kernel ----------------------------------------------------------------------------------
__global__ void __launch_bounds__(128)
    gemm_fp8_kernel(const __grid_constant__ CUtensorMap a_map,
                    const __grid_constant__ CUtensorMap b_map, const float* __restrict__ scale_a,
                    const float* __restrict__ scale_b, __nv_bfloat16* __restrict__ c, int m, int n,
                    int k) {
  extern __shared__ uint8_t smem_raw[];
  // 128-B swizzled tiles must start on a 1024-B boundary (the launch asks for +1024 B).
  auto& smem = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                 ~uintptr_t(1023));

  const int m0 = blockIdx.y * kBlockM, n0 = blockIdx.x * kBlockN;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&smem.full, 1);
    ptx::fence_barrier_init();
  }
  __syncthreads();

  float acc[64];      // fp32: the promoted sum over all of K
  float partial[64];  // the FP8 MMA's own accumulator, one K block (128) at a time
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.f;

  const int num_k_blocks = (k + kBlockK - 1) / kBlockK;  // the K tail is zero-filled by TMA
  for (int kb = 0; kb < num_k_blocks; ++kb) {
    if (threadIdx.x == 0) {
      ptx::mbarrier_arrive_expect_tx(&smem.full, kStageBytes);
      ptx::tma_load_2d(smem.a, &a_map, &smem.full, kb * kBlockK, m0);
      ptx::tma_load_2d(smem.b, &b_map, &smem.full, kb * kBlockK, n0);
    }
    ptx::mbarrier_wait_parity(&smem.full, kb & 1);  // one phase per K block

    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBlockK / 32; ++kk) {
      // Stepping 32 e4m3 along K inside the swizzled rows = +32 B = +2 in descriptor units.
      const uint64_t a_desc = ptx::wgmma_desc_k_major_sw128(smem.a) + 2 * kk;
      const uint64_t b_desc = ptx::wgmma_desc_k_major_sw128(smem.b) + 2 * kk;
      ptx::wgmma_m64n128k32_e4m3(partial, a_desc, b_desc, kk > 0);  // fresh per K block
    }
    ptx::wgmma_commit_group();
    ptx::wgmma_wait_group<0>();
    fence_accumulators(partial);
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] += partial[i];  // promotion into fp32
    __syncthreads();  // every warp is done with this stage before thread 0 overwrites it
  }

  // Accumulator fragment: thread t (warp w = t/32, lane l) holds acc[i] at
  //   row = 16w + l/4 + 8*((i/2)%2),  col = 8*(i/4) + 2*(l%4) + (i%2).
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float scale = *scale_a * *scale_b;  // per-tensor scales commute with the sum
#pragma unroll
  for (int i = 0; i < 64; i += 2) {
    const int row = m0 + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    const int col = n0 + 8 * (i / 4) + 2 * (lane % 4);
    if (row < m && col < n) {  // n is a multiple of 8, so col + 1 < n as well
      *reinterpret_cast<__nv_bfloat162*>(&c[static_cast<int64_t>(row) * n + col]) =
          __floats2bfloat162_rn(scale * acc[i], scale * acc[i + 1]);
    }
  }
}

CUtensorMap make_tensor_map_2d(const void* base, uint64_t inner, uint64_t outer, uint64_t row_bytes,
                               uint32_t box_inner, uint32_t box_outer, CUtensorMapSwizzle swizzle) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {inner, outer};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult status =
      cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims,
                             strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    TVM_FFI_THROW(RuntimeError) << "cuTensorMapEncodeTiled failed: " << int(status);
  return map;
}

}  // namespace

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView scale_a,
         tvm::ffi::TensorView scale_b, tvm::ffi::TensorView c) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(0);
  if (b.size(1) != k || c.size(0) != m || c.size(1) != n)
    TVM_FFI_THROW(ValueError) << "shape mismatch";
  // TMA: 16-byte row pitches (K e4m3 bytes); the epilogue stores column pairs (n even, and 8 | n).
  if (k % 16 != 0 || n % 8 != 0) TVM_FFI_THROW(ValueError) << "K % 16 and N % 8 must be 0";
  // TMA has no FP8 element type: e4m3 moves as bytes (UINT8), which is all a copy needs.
  const CUtensorMap a_map =
      make_tensor_map_2d(a.data_ptr(), k, m, k, kBlockK, kBlockM, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap b_map =
      make_tensor_map_2d(b.data_ptr(), k, n, k, kBlockK, kBlockN, CU_TENSOR_MAP_SWIZZLE_128B);
  const int smem_bytes = sizeof(SharedStorage) + 1024;
  cudaFuncSetAttribute(gemm_fp8_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  const DLDevice device = c.device();
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device.device_id));
  const dim3 grid(static_cast<unsigned>((n + kBlockN - 1) / kBlockN),
                  static_cast<unsigned>((m + kBlockM - 1) / kBlockM));
  gemm_fp8_kernel<<<grid, 128, smem_bytes, stream>>>(
      a_map, b_map, static_cast<const float*>(scale_a.data_ptr()),
      static_cast<const float*>(scale_b.data_ptr()), static_cast<__nv_bfloat16*>(c.data_ptr()),
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k));
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
