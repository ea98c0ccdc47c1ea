// ptxbench: task=mha_decode_b16_d128 arch=hopper expect=INCORRECT_NUMERICAL
//
// Negative control, derived from solutions/hopper/mha_decode_split_kv.cu with ONE defect: the
// split-KV reduction averages the splits' normalised outputs instead of weighting each by
// exp(LSE_s − LSE). A split over 64 keys then counts as much as one over 6,000, and one whose
// keys score low as much as one whose keys dominate the softmax. It is right only when a
// sequence fits in one split (short sequences), which is what a test with one length sees.
// Every requested family executes: only correctness can stop it -> INCORRECT_NUMERICAL.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>
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

// ptx-begin: bulk_copy
namespace ptx {

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes — one thread; copies `bytes`
// from `src` to `dst`, completing them on `bar` (count them in the expect_tx of its phase).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  const uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(dst_addr),
      "l"(reinterpret_cast<uint64_t>(src)), "r"(bytes), "r"(bar_addr)
      : "memory");
}

}  // namespace ptx
// ptx-end: bulk_copy

namespace decode {

using bf16 = __nv_bfloat16;

struct Config {
  static constexpr int kHeadDim = 128;
  static constexpr int kGroup = 4;  // query heads per KV head: H / HKV
  static constexpr int kTileKeys = 64;
  static constexpr int kStages = 3;
  static constexpr int kConsumerWarps = kGroup;  // one warp per query head of the group
  static constexpr int kProducerWarp = kConsumerWarps;
  static constexpr int kThreads = 32 * (kConsumerWarps + 1);
  static constexpr int kRowBytes = kHeadDim * sizeof(bf16);  // 256: one key or value row
  static constexpr int kChunksPerRow = kRowBytes / 16;       // 16-byte chunks of a row
  static constexpr int kMinChunkKeys = 512;  // shorter splits would spend more on the combine
  static constexpr int kCtasPerSm = 4;       // splits aim at about this many CTAs per SM

  static_assert(kHeadDim == 4 * 32, "lane l owns output dims 4l..4l+3");
  static_assert(kTileKeys == 64, "lane l scores keys l and l + 32 of a tile");
  static_assert(kChunksPerRow == 16, "the rotation (c + lane) mod 16 covers a row");
};

// 16-byte alignment is all the bulk copy needs (the dynamic shared memory base has it).
struct alignas(16) SharedStorage {
  bf16 k[Config::kStages][Config::kTileKeys * Config::kHeadDim];  // 16 KB a stage
  bf16 v[Config::kStages][Config::kTileKeys * Config::kHeadDim];  // 16 KB a stage
  bf16 q[Config::kGroup][Config::kHeadDim];
  uint64_t full[Config::kStages];   // the tile's bytes landed
  uint64_t empty[Config::kStages];  // every consumer warp is done with the stage
  int combines;                     // this CTA took the last ticket of its (b, g)
};
constexpr int kSharedMemoryBytes = sizeof(SharedStorage);

struct Params {
  const bf16* q;          // [B, H, D]
  const bf16* k;          // [B, HKV, S, D]
  const bf16* v;          // [B, HKV, S, D]
  const int32_t* kv_len;  // [B]
  bf16* o;                // [B, H, D]
  float* lse;             // [B, H], natural log
  float* o_part;          // [B, H, splits, D]: each split's normalised output
  float* lse_part;        // [B, H, splits]: each split's LSE (natural log), -inf when empty
  int* tickets;           // [B, HKV]: splits finished, zeroed before the launch
  int heads;              // H
  int kv_heads;           // HKV
  int capacity;           // S
  int splits;
  int chunk;         // keys per split, a multiple of kTileKeys
  float scale_log2;  // scale · log2(e): scores in base 2 feed exp2
};

// Position in the ring: which stage, and the parity of its barrier's current phase.
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

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(~0u, x, offset));
  return x;
}

__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(~0u, x, offset);
  return x;
}

// Eight bf16 (one 16-byte chunk) dotted with eight bf16, in fp32.
__device__ __forceinline__ float dot8(uint4 a, uint4 b) {
  const uint32_t wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 fa = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&wa[i]));
    const float2 fb = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&wb[i]));
    sum = fmaf(fa.x, fb.x, sum);
    sum = fmaf(fa.y, fb.y, sum);
  }
  return sum;
}

// The keys [begin, end) of this split's chunk that sequence b has, in tiles.
struct Chunk {
  int begin;
  int end;
  __device__ __forceinline__ int tiles() const {
    return end > begin ? (end - begin + Config::kTileKeys - 1) / Config::kTileKeys : 0;
  }
  __device__ __forceinline__ int rows(int tile) const {
    return min(Config::kTileKeys, end - (begin + tile * Config::kTileKeys));
  }
};

// Producer: one thread keeps the ring full with two bulk copies (K and V rows) per tile.
__device__ __forceinline__ void produce(SharedStorage& smem, const Params& p, const Chunk& chunk,
                                        int64_t head_row) {
  PipelineState state;
  for (int t = 0; t < chunk.tiles(); ++t) {
    ptx::mbarrier_wait_parity(&smem.empty[state.stage], state.phase ^ 1);
    const uint32_t bytes = static_cast<uint32_t>(chunk.rows(t) * Config::kRowBytes);
    ptx::mbarrier_arrive_expect_tx(&smem.full[state.stage], 2 * bytes);
    const int64_t row = head_row + chunk.begin + int64_t{t} * Config::kTileKeys;
    ptx::bulk_load(smem.k[state.stage], p.k + row * Config::kHeadDim, bytes,
                   &smem.full[state.stage]);
    ptx::bulk_load(smem.v[state.stage], p.v + row * Config::kHeadDim, bytes,
                   &smem.full[state.stage]);
    state.advance();
  }
}

// Consumer warp: query head `h`, online softmax over the chunk's tiles in base 2. Leaves the
// split's normalised output (4 dims per lane) and its LSE (natural log) in the workspace.
__device__ __forceinline__ void consume(SharedStorage& smem, const Params& p, const Chunk& chunk,
                                        int b, int h, int group_index, int lane) {
  float max_log2 = -INFINITY, sum = 0.0f;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const uint4* q_row = reinterpret_cast<const uint4*>(smem.q[group_index]);
  PipelineState state;
  for (int t = 0; t < chunk.tiles(); ++t) {
    ptx::mbarrier_wait_parity(&smem.full[state.stage], state.phase);
    const int rows = chunk.rows(t);
    const uint4* k_tile = reinterpret_cast<const uint4*>(smem.k[state.stage]);
    float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
    for (int c = 0; c < Config::kChunksPerRow; ++c) {
      const int column = (c + lane) % Config::kChunksPerRow;  // conflict-free rotation
      const uint4 q = q_row[column];
      s0 += dot8(q, k_tile[lane * Config::kChunksPerRow + column]);
      s1 += dot8(q, k_tile[(lane + 32) * Config::kChunksPerRow + column]);
    }
    // Keys past the valid rows were never copied into this stage: masked here, never read below.
    s0 = lane < rows ? s0 * p.scale_log2 : -INFINITY;
    s1 = lane + 32 < rows ? s1 * p.scale_log2 : -INFINITY;
    const float new_max = fmaxf(max_log2, warp_max(fmaxf(s0, s1)));  // finite: row 0 is valid
    const float rescale = exp2f(max_log2 - new_max);
    const float p0 = exp2f(s0 - new_max), p1 = exp2f(s1 - new_max);
    sum = sum * rescale + warp_sum(p0 + p1);
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] *= rescale;
    max_log2 = new_max;
    const uint2* v_tile = reinterpret_cast<const uint2*>(smem.v[state.stage]);
#pragma unroll 8
    for (int j = 0; j < rows; ++j) {
      const float pj = __shfl_sync(~0u, j < 32 ? p0 : p1, j % 32);
      const uint2 v = v_tile[j * (Config::kHeadDim / 4) + lane];
      const float2 v01 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v.x));
      const float2 v23 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v.y));
      acc[0] = fmaf(pj, v01.x, acc[0]);
      acc[1] = fmaf(pj, v01.y, acc[1]);
      acc[2] = fmaf(pj, v23.x, acc[2]);
      acc[3] = fmaf(pj, v23.y, acc[3]);
    }
    __syncwarp();  // every lane's reads of the stage are done before the warp releases it
    if (lane == 0) ptx::mbarrier_arrive(&smem.empty[state.stage]);
    state.advance();
  }
  const int64_t slot = (int64_t{b} * p.heads + h) * p.splits + blockIdx.x;
  const bool empty = chunk.tiles() == 0;
  const float inverse = empty ? 0.0f : 1.0f / sum;
  float4 out = make_float4(acc[0] * inverse, acc[1] * inverse, acc[2] * inverse, acc[3] * inverse);
  reinterpret_cast<float4*>(p.o_part + slot * Config::kHeadDim)[lane] = out;
  if (lane == 0) {
    p.lse_part[slot] = empty ? -INFINITY : (max_log2 + log2f(sum)) * 0.69314718055994531f;
  }
}

// The last split of (b, g) to finish: every split's (O_s, LSE_s) rescaled to the common LSE.
// Split 0 always holds key 0, so the maximum is finite.
__device__ __forceinline__ void combine(const Params& p, int b, int h, int lane) {
  const int64_t first = (int64_t{b} * p.heads + h) * p.splits;
  float max_lse = -INFINITY;
  for (int s = 0; s < p.splits; ++s) max_lse = fmaxf(max_lse, __ldcg(p.lse_part + first + s));
  float total = 0.0f;
  float4 out = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int s = 0; s < p.splits; ++s) {
    const float weight = __ldcg(p.lse_part + first + s) == -INFINITY ? 0.0f : 1.0f;
    const float4 part =
        __ldcg(reinterpret_cast<const float4*>(p.o_part + (first + s) * Config::kHeadDim) + lane);
    total += weight;
    out.x = fmaf(weight, part.x, out.x);
    out.y = fmaf(weight, part.y, out.y);
    out.z = fmaf(weight, part.z, out.z);
    out.w = fmaf(weight, part.w, out.w);
  }
  const float inverse = 1.0f / total;
  __nv_bfloat162* o = reinterpret_cast<__nv_bfloat162*>(
      p.o + (int64_t{b} * p.heads + h) * Config::kHeadDim + 4 * lane);
  o[0] = __floats2bfloat162_rn(out.x * inverse, out.y * inverse);
  o[1] = __floats2bfloat162_rn(out.z * inverse, out.w * inverse);
  if (lane == 0) p.lse[int64_t{b} * p.heads + h] = max_lse + logf(total);
}

__global__ void __launch_bounds__(Config::kThreads, 2)
    mha_decode_kernel(const __grid_constant__ Params p) {
  extern __shared__ __align__(16) uint8_t shared_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(shared_raw);
  const int g = static_cast<int>(blockIdx.y), b = static_cast<int>(blockIdx.z);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  // The valid length, clamped to the cache: a length outside [0, S] must not read past K.
  const int length = min(max(p.kv_len[b], 0), p.capacity);
  const int begin = static_cast<int>(blockIdx.x) * p.chunk;
  const Chunk chunk{begin, min(begin + p.chunk, length)};
  const int64_t head_row = (int64_t{b} * p.kv_heads + g) * p.capacity;  // row of key 0

  if (threadIdx.x == 0) {
    for (int s = 0; s < Config::kStages; ++s) {
      ptx::mbarrier_init(&smem.full[s], 1);  // the producer's arrive.expect_tx
      ptx::mbarrier_init(&smem.empty[s], Config::kConsumerWarps);
    }
    ptx::fence_barrier_init();
  }
  if (warp < Config::kGroup) {  // the group's queries: 8 bytes a lane
    const int h = g * Config::kGroup + warp;
    reinterpret_cast<uint2*>(smem.q[warp])[lane] =
        reinterpret_cast<const uint2*>(p.q + (int64_t{b} * p.heads + h) * Config::kHeadDim)[lane];
  }
  __syncthreads();

  if (warp == Config::kProducerWarp) {
    if (lane == 0) produce(smem, p, chunk, head_row);
  } else {
    consume(smem, p, chunk, b, g * Config::kGroup + warp, warp, lane);
  }

  // Split-KV reduction: release this split's partials GPU-wide, then take a ticket; the CTA
  // with the last ticket sees every other split's partials (their fences came before their
  // tickets) and combines.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const int ticket = atomicAdd(&p.tickets[int64_t{b} * p.kv_heads + g], 1);
    smem.combines = ticket == p.splits - 1;
  }
  __syncthreads();
  if (!smem.combines) return;
  __threadfence();
  if (warp < Config::kGroup) combine(p, b, g * Config::kGroup + warp, lane);
}

// ---------------------------------------------------------------------------------------------
// Host side.

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    TVM_FFI_THROW(RuntimeError) << what << ": " << cudaGetErrorString(status);
  }
}

// Workspace comes from a pool of this file's own that keeps what is freed: after the first call
// a stream-ordered allocation maps nothing. One pool per device, created on first use.
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

void check_tensor(const tvm::ffi::TensorView& t, const char* name, int ndim, DLDataTypeCode code,
                  int bits, int device_id) {
  const DLDataType dtype = t.dtype();
  if (t.ndim() != ndim || dtype.code != code || dtype.bits != bits || dtype.lanes != 1) {
    TVM_FFI_THROW(ValueError) << name << " has the wrong rank or dtype";
  }
  if (t.device().device_type != kDLCUDA || t.device().device_id != device_id) {
    TVM_FFI_THROW(ValueError) << name << " must live on Q's CUDA device";
  }
  if (!t.IsContiguous()) TVM_FFI_THROW(ValueError) << name << " must be contiguous";
}

template <class T>
T* data_of(const tvm::ffi::TensorView& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.data_ptr()) + t.byte_offset());
}

}  // namespace decode

void run(tvm::ffi::TensorView q, tvm::ffi::TensorView k, tvm::ffi::TensorView v,
         tvm::ffi::TensorView kv_len, tvm::ffi::TensorView o, tvm::ffi::TensorView lse) {
  using decode::Config;
  const int device_id = q.device().device_id;
  decode::check_tensor(q, "Q", 3, kDLBfloat, 16, device_id);
  decode::check_tensor(k, "K", 4, kDLBfloat, 16, device_id);
  decode::check_tensor(v, "V", 4, kDLBfloat, 16, device_id);
  decode::check_tensor(kv_len, "KV_LEN", 1, kDLInt, 32, device_id);
  decode::check_tensor(o, "O", 3, kDLBfloat, 16, device_id);
  decode::check_tensor(lse, "LSE", 2, kDLFloat, 32, device_id);
  const int64_t batch = q.size(0), heads = q.size(1), kv_heads = k.size(1), capacity = k.size(2);
  if (q.size(2) != Config::kHeadDim || k.size(3) != Config::kHeadDim || k.size(0) != batch ||
      heads != Config::kGroup * kv_heads) {
    TVM_FFI_THROW(ValueError) << "needs D = 128 and H = 4 · HKV";
  }
  for (int i = 0; i < 4; ++i) {
    if (v.size(i) != k.size(i)) TVM_FFI_THROW(ValueError) << "V must have K's shape";
  }
  if (kv_len.size(0) != batch || o.size(0) != batch || o.size(1) != heads ||
      o.size(2) != Config::kHeadDim || lse.size(0) != batch || lse.size(1) != heads) {
    TVM_FFI_THROW(ValueError) << "KV_LEN [B], O [B, H, D], LSE [B, H]";
  }
  if (capacity >= (int64_t{1} << 30)) TVM_FFI_THROW(ValueError) << "capacity must fit in int32";
  if (batch == 0) return;
  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));

  // Splits: about kCtasPerSm CTAs per SM over all (b, g) pairs, chunks of at least
  // kMinChunkKeys keys, rounded up to whole tiles.
  int sm_count = 0;
  decode::check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device_id),
                     "cudaDeviceGetAttribute");
  const int64_t pairs = batch * kv_heads;
  const int64_t wanted = (int64_t{Config::kCtasPerSm} * sm_count + pairs - 1) / pairs;
  const int64_t most = (capacity + Config::kMinChunkKeys - 1) / Config::kMinChunkKeys;
  int64_t splits = wanted < most ? wanted : most;
  if (splits < 1) splits = 1;
  int64_t chunk = (capacity + splits - 1) / splits;
  chunk = (chunk + Config::kTileKeys - 1) / Config::kTileKeys * Config::kTileKeys;
  splits = (capacity + chunk - 1) / chunk;
  if (splits > 65535) TVM_FFI_THROW(ValueError) << "too many splits for the grid";

  // Workspace: partial outputs and LSEs of every split, then the tickets (zeroed each call).
  const size_t part_floats = static_cast<size_t>(batch * heads * splits);
  const size_t o_bytes = part_floats * Config::kHeadDim * sizeof(float);
  const size_t lse_bytes = (part_floats * sizeof(float) + 255) / 256 * 256;
  const size_t ticket_bytes = static_cast<size_t>(pairs) * sizeof(int);
  void* workspace = nullptr;
  decode::check_cuda(cudaMallocFromPoolAsync(&workspace, o_bytes + lse_bytes + ticket_bytes,
                                             decode::scratch_pool(device_id), stream),
                     "cudaMallocFromPoolAsync");
  char* base = static_cast<char*>(workspace);
  decode::check_cuda(cudaMemsetAsync(base + o_bytes + lse_bytes, 0, ticket_bytes, stream),
                     "cudaMemsetAsync");

  decode::Params params{};
  params.q = decode::data_of<const __nv_bfloat16>(q);
  params.k = decode::data_of<const __nv_bfloat16>(k);
  params.v = decode::data_of<const __nv_bfloat16>(v);
  params.kv_len = decode::data_of<const int32_t>(kv_len);
  params.o = decode::data_of<__nv_bfloat16>(o);
  params.lse = decode::data_of<float>(lse);
  params.o_part = reinterpret_cast<float*>(base);
  params.lse_part = reinterpret_cast<float*>(base + o_bytes);
  params.tickets = reinterpret_cast<int*>(base + o_bytes + lse_bytes);
  params.heads = static_cast<int>(heads);
  params.kv_heads = static_cast<int>(kv_heads);
  params.capacity = static_cast<int>(capacity);
  params.splits = static_cast<int>(splits);
  params.chunk = static_cast<int>(chunk);
  params.scale_log2 = 1.4426950408889634f / sqrtf(static_cast<float>(Config::kHeadDim));

  auto* kernel = decode::mha_decode_kernel;
  decode::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          decode::kSharedMemoryBytes),
                     "cudaFuncSetAttribute");
  const dim3 grid(static_cast<unsigned>(splits), static_cast<unsigned>(kv_heads),
                  static_cast<unsigned>(batch));
  kernel<<<grid, Config::kThreads, decode::kSharedMemoryBytes, stream>>>(params);
  decode::check_cuda(cudaGetLastError(), "launch mha_decode_kernel");
  decode::check_cuda(cudaFreeAsync(workspace, stream), "cudaFreeAsync");
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
