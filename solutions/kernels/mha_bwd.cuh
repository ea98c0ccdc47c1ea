// mha_bwd: the attention backward pass shared by the six mha_bwd_d{64,96,128}[_causal] expert
// solutions, templated on head dimension and causality. Each solution file embeds this block
// verbatim (after the PTX wrapper blocks it uses) and instantiates it in its run(); this file is
// the single source of truth and tests/solutions checks every copy against it.
// docs/expert-attention-backward.md explains the design.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cmath>
#include <cstdint>
#include <mutex>
#include <utility>

#include "../ptx/bulk_copy.cuh"
#include "../ptx/fence.cuh"
#include "../ptx/mbarrier.cuh"
#include "../ptx/red.cuh"
#include "../ptx/setmaxnreg.cuh"
#include "../ptx/stmatrix.cuh"
#include "../ptx/stmatrix_trans.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/tma_reduce.cuh"
#include "../ptx/wgmma.cuh"
#include "../ptx/wgmma_transposed.cuh"

// ptx-begin: mha_bwd
// How dQ partial sums reach the fp32 workspace: 1 = staged in shared memory and added by TMA
// reducing stores, 0 = red.global.add.v2.f32 from every consumer thread.
#ifndef MHA_BWD_DQ_TMA_REDUCE
#define MHA_BWD_DQ_TMA_REDUCE 1
#endif

namespace mha_bwd {

using bf16 = __nv_bfloat16;

// One CTA owns 128 keys of one (batch, head) — 64 per consumer warpgroup — keeps their K and V
// tiles in shared memory and walks the query tiles that see them; dK and dV accumulate in
// registers, dQ partial sums go to an fp32 workspace with atomics.
template <int kHeadDimT, bool kCausalT>
struct Config {
  static constexpr int kHeadDim = kHeadDimT;
  static constexpr bool kCausal = kCausalT;

  // 64 bf16 = 128 bytes: one row of the 128-byte swizzle. Tiles are stored as 64-column panels;
  // d = 96 uses two panels, the second half zero-filled by TMA (out of bounds along d).
  static constexpr int kPanelCols = 64;
  static constexpr int kPanels = (kHeadDim + kPanelCols - 1) / kPanelCols;
  static constexpr int kPaddedDim = kPanels * kPanelCols;

  static constexpr int kBlockN = 128;                        // keys per CTA
  static constexpr int kBlockM = kHeadDim <= 64 ? 128 : 64;  // queries per step (registers)
  static constexpr int kStages = 2;                          // Q/dO/LSE/Δ ring

  static constexpr int kWarpgroupThreads = 128;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = kWarpgroupThreads * (1 + kConsumers);
  static constexpr int kKeysPerConsumer = kBlockN / kConsumers;  // = wgmma M (64)
  static constexpr int kWgmmaK = 16;
  static constexpr int kDimSteps = kHeadDim / kWgmmaK;   // k-steps of S and dP (over d)
  static constexpr int kQuerySteps = kBlockM / kWgmmaK;  // k-steps of dV and dK (over queries)
  static constexpr int kKeySteps = kBlockN / kWgmmaK;    // k-steps of dQ (over keys)
  static constexpr int kStepsPerPanel = kPanelCols / kWgmmaK;

  // dQ = dS·K is split over the two consumer warpgroups: by query rows when a step has 128 of
  // them (64 each), else by d (one 64-column panel each).
  static constexpr bool kDqSplitRows = kBlockM == 2 * 64;
  static constexpr int kDqCols = kDqSplitRows ? kPaddedDim : kPanelCols;

  static constexpr int kScoreRegs = kBlockM / 2;    // a 64 x kBlockM fp32 tile per thread
  static constexpr int kGradRegs = kPaddedDim / 2;  // dK, dV: 64 x kPaddedDim
  static constexpr int kDqRegs = kDqCols / 2;
  static constexpr bool kDqTmaReduce = MHA_BWD_DQ_TMA_REDUCE != 0;
  // fp32 staging of a consumer's 64 x 64 dQ partial: two 128-byte-swizzled boxes of 32 columns.
  static constexpr int kDqBoxCols = 32;
  static constexpr int kDqBoxes = kDqCols / kDqBoxCols;

  static constexpr uint32_t kProducerRegisters = 24;
  static constexpr uint32_t kConsumerRegisters = 240;

  static constexpr uint32_t kPanelBytesKV = kBlockN * kPanelCols * 2;
  static constexpr uint32_t kPanelBytesQ = kBlockM * kPanelCols * 2;
  static constexpr uint32_t kKVBytes = 2 * kPanels * kPanelBytesKV;
  static constexpr uint32_t kStageBytes = 2 * kPanels * kPanelBytesQ + 2 * kBlockM * 4;

  static_assert(kHeadDim % kWgmmaK == 0 && kHeadDim <= 128, "head dim: multiple of 16, <= 128");
  static_assert(kKeysPerConsumer == 64, "each consumer owns one m64 block of keys");
  static_assert(kDqSplitRows || kPanels == kConsumers, "dQ split by d: one panel a consumer");
  static_assert(kDqCols == 64, "dQ partial: m64n64 a consumer");
  static_assert(kProducerRegisters * kWarpgroupThreads +
                        kConsumerRegisters * kWarpgroupThreads * kConsumers <=
                    65536,
                "register file");
};

// Every buffer is a whole number of 1024-byte swizzle atoms, so the 1024 alignment of the struct
// carries to each member.
template <class C>
struct alignas(1024) SharedStorage {
  bf16 k[C::kPanels][C::kBlockN * C::kPanelCols];  // resident: this CTA's keys
  bf16 v[C::kPanels][C::kBlockN * C::kPanelCols];
  bf16 q[C::kStages][C::kPanels][C::kBlockM * C::kPanelCols];  // streamed query tiles
  bf16 d_o[C::kStages][C::kPanels][C::kBlockM * C::kPanelCols];
  // dS [queries, keys] for dQ = dS·K, double-buffered; panel p holds consumer p's 64 keys.
  bf16 ds[2][C::kConsumers][C::kBlockM * C::kPanelCols];
  float dq[C::kDqTmaReduce ? C::kConsumers : 1][C::kDqBoxes][64 * C::kDqBoxCols];
  float lse[C::kStages][C::kBlockM];
  float delta[C::kStages][C::kBlockM];
  uint64_t kv_full;            // K and V landed
  uint64_t full[C::kStages];   // Q, dO, LSE, Δ of stage s landed
  uint64_t empty[C::kStages];  // every consumer thread done with stage s
};

template <class C>
constexpr int shared_memory_bytes() {
  return sizeof(SharedStorage<C>) + 1024;  // the dynamic base is aligned up by hand
}

// Named barrier ids (0 is __syncthreads).
enum NamedBarrier : uint32_t {
  kDsWrittenBarrier = 1,  // both consumers: dS is in shared memory
  kDqStagingBase = 2,     // + consumer: its dQ staging buffer is written
};

struct PipelineState {
  int stage = 0;
  uint32_t phase = 0;
  template <int kStages>
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// Query tiles [begin, end) that see keys [n0, n0 + kBlockN): causal skips the tiles whose every
// query precedes the first key.
template <class C>
__device__ __forceinline__ int first_query_tile(int n0) {
  return C::kCausal ? n0 / C::kBlockM : 0;
}

// ex2.approx.ftz.f32: 2^x in one MUFU operation.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// D[64 x kN] (+)= A·Bᵀ, both K-major in shared memory.
template <int kN>
__device__ __forceinline__ void mma_k_major(float (&d)[kN / 2], uint64_t desc_a, uint64_t desc_b,
                                            bool accumulate) {
  if constexpr (kN == 64) {
    ptx::wgmma_m64n64k16_bf16_ss<0>(d, desc_a, desc_b, accumulate);
  } else {
    static_assert(kN == 128, "score tile: 64 or 128 queries");
    ptx::wgmma_m64n128k16_bf16(d, desc_a, desc_b, accumulate);
  }
}

// D[64 x kN] += A·B, A from registers, B MN-major in shared memory.
template <int kN>
__device__ __forceinline__ void mma_rs_mn_major(float (&d)[kN / 2], const uint32_t (&a)[4],
                                                uint64_t desc_b) {
  if constexpr (kN == 64) {
    ptx::wgmma_m64n64k16_bf16_rs_mn_major_b(d, a, desc_b, true);
  } else {
    static_assert(kN == 128, "gradient tile: 64 or 128 columns");
    ptx::wgmma_m64n128k16_bf16_rs_mn_major_b(d, a, desc_b, true);
  }
}

// The A fragment of k-step `step` out of a packed bf16 tile in accumulator layout.
template <int kRegs>
__device__ __forceinline__ void fragment(const uint32_t (&packed)[kRegs], int step,
                                         uint32_t (&a)[4]) {
  a[0] = packed[4 * step];
  a[1] = packed[4 * step + 1];
  a[2] = packed[4 * step + 2];
  a[3] = packed[4 * step + 3];
}

// One thread of warpgroup 0 issues every copy: K and V once, then Q, dO, LSE and Δ per step.
template <class C>
__device__ __forceinline__ void produce(SharedStorage<C>& smem, const CUtensorMap* map_q,
                                        const CUtensorMap* map_k, const CUtensorMap* map_v,
                                        const CUtensorMap* map_do, const float* lse,
                                        const float* delta, int row0, int n0, int num_m) {
  ptx::tma_prefetch_descriptor(map_q);
  ptx::tma_prefetch_descriptor(map_k);
  ptx::tma_prefetch_descriptor(map_v);
  ptx::tma_prefetch_descriptor(map_do);
  ptx::mbarrier_arrive_expect_tx(&smem.kv_full, C::kKVBytes);
  for (int p = 0; p < C::kPanels; ++p) {
    ptx::tma_load_2d(smem.k[p], map_k, &smem.kv_full, p * C::kPanelCols, row0 + n0);
    ptx::tma_load_2d(smem.v[p], map_v, &smem.kv_full, p * C::kPanelCols, row0 + n0);
  }
  PipelineState state;
  for (int m = first_query_tile<C>(n0); m < num_m; ++m) {
    // Parity phase ^ 1: the first pass over the ring finds every stage free.
    ptx::mbarrier_wait_parity(&smem.empty[state.stage], state.phase ^ 1);
    uint64_t* full = &smem.full[state.stage];
    ptx::mbarrier_arrive_expect_tx(full, C::kStageBytes);
    const int row = row0 + m * C::kBlockM;
    for (int p = 0; p < C::kPanels; ++p) {
      ptx::tma_load_2d(smem.q[state.stage][p], map_q, full, p * C::kPanelCols, row);
      ptx::tma_load_2d(smem.d_o[state.stage][p], map_do, full, p * C::kPanelCols, row);
    }
    ptx::bulk_load(smem.lse[state.stage], lse + row, C::kBlockM * 4, full);
    ptx::bulk_load(smem.delta[state.stage], delta + row, C::kBlockM * 4, full);
    state.advance<C::kStages>();
  }
}

// A consumer's 64 x 64 dQ partial (accumulator layout) goes to its staging buffer — two boxes of
// 32 fp32 columns (128 bytes a row, 16-byte chunks XOR-swizzled by row mod 8 as TMA expects) —
// and one thread adds the boxes into the workspace with TMA reducing stores.
template <class C>
__device__ __forceinline__ void add_dq_by_tma(SharedStorage<C>& smem, const CUtensorMap* map_dq,
                                              const float (&dq)[C::kDqRegs], int tile_row, int col0,
                                              int consumer, int thread_in_wg) {
  const int lane = thread_in_wg % 32;
  const int frag_row = 16 * (thread_in_wg / 32) + lane / 4;
  // The previous step's reduction has read the buffer: its issuing thread waited for that
  // before the dS barrier, which every thread has passed since.
#pragma unroll
  for (int j = 0; j < C::kDqCols / 8; ++j) {
    const int col = 8 * j + 2 * (lane % 4);
    float* box = smem.dq[consumer][col / C::kDqBoxCols];
    const int chunk = (col % C::kDqBoxCols) / 4;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = frag_row + 8 * half;
      float* dst = box + row * C::kDqBoxCols + 4 * (chunk ^ (row % 8)) + col % 4;
      *reinterpret_cast<float2*>(dst) = make_float2(dq[4 * j + 2 * half], dq[4 * j + 2 * half + 1]);
    }
  }
  // Generic-proxy stores, read by the TMA engine (async proxy).
  ptx::fence_proxy_async_shared();
  ptx::named_barrier_sync(kDqStagingBase + consumer, C::kWarpgroupThreads);
  if (thread_in_wg == 0) {
#pragma unroll
    for (int b = 0; b < C::kDqBoxes; ++b) {
      // d = 96: the last box lies wholly past the end of the row; skip it.
      if (col0 + b * C::kDqBoxCols < C::kHeadDim) {
        ptx::tma_reduce_add_2d(map_dq, smem.dq[consumer][b], col0 + b * C::kDqBoxCols, tile_row);
      }
    }
    ptx::bulk_commit_group();
  }
}

// Consumer warpgroup `consumer`: keys [n0 + 64·consumer, +64) of the CTA's tile.
template <class C>
__device__ __forceinline__ void consume(SharedStorage<C>& smem, const CUtensorMap* map_dq,
                                        float* dq_accum, bf16* dk, bf16* dv, int row0, int n0,
                                        int num_m, float scale, int consumer, int thread_in_wg) {
  const int warp = thread_in_wg / 32;
  const int lane = thread_in_wg % 32;
  const int quad_col = 2 * (lane % 4);        // first column of the thread in each 8-block
  const int frag_row = 16 * warp + lane / 4;  // first row of the thread in the m64 tile
  const int key = n0 + C::kKeysPerConsumer * consumer + frag_row;  // and key + 8
  constexpr float kLog2e = 1.4426950408889634f;
  const float scale_log2 = scale * kLog2e;

  float dv_acc[C::kGradRegs];
  float dk_acc[C::kGradRegs];
#pragma unroll
  for (int i = 0; i < C::kGradRegs; ++i) {
    dv_acc[i] = 0.f;
    dk_acc[i] = 0.f;
  }
  const int key_offset = C::kKeysPerConsumer * consumer * C::kPanelCols;  // in the K/V panels
  ptx::mbarrier_wait_parity(&smem.kv_full, 0);

  PipelineState state;
  int buffer = 0;
  for (int m = first_query_tile<C>(n0); m < num_m; ++m) {
    const int m0 = m * C::kBlockM;
    ptx::mbarrier_wait_parity(&smem.full[state.stage], state.phase);

    // Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ (rows: this consumer's keys; columns: the step's queries).
    float s[C::kScoreRegs];
    float dp[C::kScoreRegs];
    ptx::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < C::kDimSteps; ++ks) {
      const int panel = ks / C::kStepsPerPanel, step = ks % C::kStepsPerPanel;
      mma_k_major<C::kBlockM>(
          s, ptx::wgmma_desc_k_major_sw128(smem.k[panel] + key_offset) + 2 * step,
          ptx::wgmma_desc_k_major_sw128(smem.q[state.stage][panel]) + 2 * step, ks > 0);
    }
    ptx::wgmma_commit_group();
#pragma unroll
    for (int ks = 0; ks < C::kDimSteps; ++ks) {
      const int panel = ks / C::kStepsPerPanel, step = ks % C::kStepsPerPanel;
      mma_k_major<C::kBlockM>(
          dp, ptx::wgmma_desc_k_major_sw128(smem.v[panel] + key_offset) + 2 * step,
          ptx::wgmma_desc_k_major_sw128(smem.d_o[state.stage][panel]) + 2 * step, ks > 0);
    }
    ptx::wgmma_commit_group();

    // Pᵀ = exp(scale·Sᵀ − LSE[query]) in place, while dPᵀ still runs; causal: zero where
    // key > query (diagonal tiles only).
    ptx::wgmma_wait_group<1>();
    const bool diagonal = C::kCausal && n0 + C::kBlockN - 1 > m0;
    const float* lse = smem.lse[state.stage];
#pragma unroll
    for (int j = 0; j < C::kBlockM / 8; ++j) {
      const int col = 8 * j + quad_col;
      const float2 l = *reinterpret_cast<const float2*>(lse + col);
      const float l0 = l.x * kLog2e, l1 = l.y * kLog2e;
      s[4 * j] = fast_exp2(s[4 * j] * scale_log2 - l0);
      s[4 * j + 1] = fast_exp2(s[4 * j + 1] * scale_log2 - l1);
      s[4 * j + 2] = fast_exp2(s[4 * j + 2] * scale_log2 - l0);
      s[4 * j + 3] = fast_exp2(s[4 * j + 3] * scale_log2 - l1);
      if (diagonal) {
        const int query = m0 + col;
        if (key > query) s[4 * j] = 0.f;
        if (key > query + 1) s[4 * j + 1] = 0.f;
        if (key + 8 > query) s[4 * j + 2] = 0.f;
        if (key + 8 > query + 1) s[4 * j + 3] = 0.f;
      }
    }

    // dSᵀ = Pᵀ ∘ (dPᵀ − Δ[query]); P and dS packed to bf16 as they are produced, so that the
    // fp32 tiles die along the way (registers: dK, dV, Sᵀ and dPᵀ are live at the start).
    ptx::wgmma_wait_group<0>();
    const float* delta = smem.delta[state.stage];
    uint32_t p_packed[C::kScoreRegs / 2];
    uint32_t ds_packed[C::kScoreRegs / 2];
#pragma unroll
    for (int j = 0; j < C::kBlockM / 8; ++j) {
      const float2 dl = *reinterpret_cast<const float2*>(delta + 8 * j + quad_col);
      p_packed[2 * j] = ptx::pack_bf16x2(s[4 * j], s[4 * j + 1]);
      p_packed[2 * j + 1] = ptx::pack_bf16x2(s[4 * j + 2], s[4 * j + 3]);
      ds_packed[2 * j] =
          ptx::pack_bf16x2(s[4 * j] * (dp[4 * j] - dl.x), s[4 * j + 1] * (dp[4 * j + 1] - dl.y));
      ds_packed[2 * j + 1] = ptx::pack_bf16x2(s[4 * j + 2] * (dp[4 * j + 2] - dl.x),
                                              s[4 * j + 3] * (dp[4 * j + 3] - dl.y));
    }

    // dV += Pᵀ·dO and dK += dSᵀ·Q (dK scaled at the end): A straight from registers, dO and Q
    // [queries, d] read as MN-major B operands.
    ptx::wgmma_fence();
#pragma unroll
    for (int qs = 0; qs < C::kQuerySteps; ++qs) {
      uint32_t a[4];
      fragment(p_packed, qs, a);
      mma_rs_mn_major<C::kPaddedDim>(
          dv_acc, a,
          ptx::wgmma_desc_mn_major_sw128(smem.d_o[state.stage][0], C::kPanelBytesQ) + 128 * qs);
    }
#pragma unroll
    for (int qs = 0; qs < C::kQuerySteps; ++qs) {
      uint32_t a[4];
      fragment(ds_packed, qs, a);
      mma_rs_mn_major<C::kPaddedDim>(
          dk_acc, a,
          ptx::wgmma_desc_mn_major_sw128(smem.q[state.stage][0], C::kPanelBytesQ) + 128 * qs);
    }
    ptx::wgmma_commit_group();

    // dS [queries, keys] into shared memory, transposed by stmatrix, for dQ = dS·K: both
    // consumers' keys make dQ's k-dimension. Each 16x16 patch of dSᵀ (keys 16·warp.., queries
    // 16·qs..) is four 8x8 matrices; lane 8i + r addresses stored row (query) 16·qs + 8(i/2) + r,
    // 16-byte chunk of keys 2·warp + i%2, XOR-swizzled by the row like TMA's 128-byte pattern.
    bf16* ds_tile = smem.ds[buffer][consumer];
#pragma unroll
    for (int qs = 0; qs < C::kQuerySteps; ++qs) {
      const int i = lane / 8;
      const int query = 16 * qs + 8 * (i / 2) + lane % 8;
      const int chunk = 2 * warp + i % 2;
      ptx::stmatrix_x4_trans(ds_tile + query * C::kPanelCols + 8 * (chunk ^ (query % 8)),
                             ds_packed[4 * qs], ds_packed[4 * qs + 1], ds_packed[4 * qs + 2],
                             ds_packed[4 * qs + 3]);
    }
    // The stores go through the generic proxy, wgmma reads through the async proxy.
    ptx::fence_proxy_async_shared();
    // The dQ staging buffer is rewritten below: the reduction of the previous step must have
    // read it. Waiting here lets the dS barrier tell every thread of the consumer.
    if (C::kDqTmaReduce && thread_in_wg == 0) ptx::bulk_wait_group_read<0>();
    ptx::named_barrier_sync(kDsWrittenBarrier, C::kConsumers * C::kWarpgroupThreads);

    // dQ partial [64 x 64] = dS·K: rows 64·consumer.. (split by rows) or columns of panel
    // `consumer` (split by d); K [keys, d] is an MN-major B.
    float dq[C::kDqRegs];
    ptx::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < C::kKeySteps; ++ks) {
      const int panel = ks / C::kStepsPerPanel, step = ks % C::kStepsPerPanel;
      const bf16* a_tile =
          smem.ds[buffer][panel] + (C::kDqSplitRows ? 64 * consumer * C::kPanelCols : 0);
      const bf16* b_tile = smem.k[C::kDqSplitRows ? 0 : consumer];
      ptx::wgmma_m64n64k16_bf16_ss<1>(
          dq, ptx::wgmma_desc_k_major_sw128(a_tile) + 2 * step,
          ptx::wgmma_desc_mn_major_sw128(b_tile, C::kPanelBytesKV) + 128 * ks, ks > 0);
    }
    ptx::wgmma_commit_group();
    ptx::wgmma_wait_group<0>();

    // Accumulate the partial into the fp32 dQ workspace (other CTAs add theirs concurrently).
    const int tile_row = row0 + m0 + (C::kDqSplitRows ? 64 * consumer : 0);
    const int col0 = C::kDqSplitRows ? 0 : C::kPanelCols * consumer;
    if constexpr (C::kDqTmaReduce) {
      add_dq_by_tma<C>(smem, map_dq, dq, tile_row, col0, consumer, thread_in_wg);
    } else {
#pragma unroll
      for (int j = 0; j < C::kDqCols / 8; ++j) {
        const int col = col0 + 8 * j + quad_col;
        if (col < C::kHeadDim) {
          float* dst = dq_accum + static_cast<int64_t>(tile_row + frag_row) * C::kHeadDim + col;
          ptx::red_add_v2_f32(dst, dq[4 * j], dq[4 * j + 1]);
          ptx::red_add_v2_f32(dst + 8 * C::kHeadDim, dq[4 * j + 2], dq[4 * j + 3]);
        }
      }
    }
    // dV, dK and dQ have read Q, dO and dS (wait_group 0 above); LSE and Δ were read before:
    // hand the stage back. Every consumer thread arrives for its own reads: one arrival per
    // warpgroup after the named barrier orders them too, but racecheck does not follow a named
    // barrier into another thread's arrival and reports the next bulk copy as a race
    // (benchmarks/device/tool-facts/stage_handback.cu). Here, after the dQ partial is out, the
    // arrival costs no register (right after the wait, ptxas spilled at d = 64).
    ptx::mbarrier_arrive(&smem.empty[state.stage]);
    buffer ^= 1;
    state.advance<C::kStages>();
  }

  // Shared memory must outlive the reads of the last reducing stores.
  if (C::kDqTmaReduce && thread_in_wg == 0) ptx::bulk_wait_group<0>();

  // dK (scaled) and dV for this consumer's 64 keys, straight from the accumulators.
  const int64_t out_row = static_cast<int64_t>(row0) + key;
#pragma unroll
  for (int j = 0; j < C::kPaddedDim / 8; ++j) {
    const int col = 8 * j + quad_col;
    if (col < C::kHeadDim) {
      bf16* k0 = dk + out_row * C::kHeadDim + col;
      bf16* v0 = dv + out_row * C::kHeadDim + col;
      *reinterpret_cast<uint32_t*>(k0) =
          ptx::pack_bf16x2(scale * dk_acc[4 * j], scale * dk_acc[4 * j + 1]);
      *reinterpret_cast<uint32_t*>(k0 + 8 * C::kHeadDim) =
          ptx::pack_bf16x2(scale * dk_acc[4 * j + 2], scale * dk_acc[4 * j + 3]);
      *reinterpret_cast<uint32_t*>(v0) = ptx::pack_bf16x2(dv_acc[4 * j], dv_acc[4 * j + 1]);
      *reinterpret_cast<uint32_t*>(v0 + 8 * C::kHeadDim) =
          ptx::pack_bf16x2(dv_acc[4 * j + 2], dv_acc[4 * j + 3]);
    }
  }
}

// Grid: (key tiles, batch · heads); key tiles fastest so that the CTAs in flight share a few
// heads' Q and dO in L2. Causal: tile 0 (the most query tiles) of each head starts first.
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    mha_bwd_kernel(const __grid_constant__ CUtensorMap map_q,
                   const __grid_constant__ CUtensorMap map_k,
                   const __grid_constant__ CUtensorMap map_v,
                   const __grid_constant__ CUtensorMap map_do,
                   const __grid_constant__ CUtensorMap map_dq, const float* lse, const float* delta,
                   float* dq_accum, bf16* dk, bf16* dv, int seq_len, float scale) {
  extern __shared__ uint8_t shared_raw[];
  const uint32_t raw_address = static_cast<uint32_t>(__cvta_generic_to_shared(shared_raw));
  SharedStorage<C>& smem = *reinterpret_cast<SharedStorage<C>*>(
      shared_raw + (((raw_address + 1023) & ~1023u) - raw_address));

  const int warpgroup = static_cast<int>(threadIdx.x) / C::kWarpgroupThreads;
  const int n0 = static_cast<int>(blockIdx.x) * C::kBlockN;
  const int row0 = static_cast<int>(blockIdx.y) * seq_len;  // first row of this (b, h)
  const int num_m = seq_len / C::kBlockM;

  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&smem.kv_full, 1);
    for (int s = 0; s < C::kStages; ++s) {
      ptx::mbarrier_init(&smem.full[s], 1);  // the producer's arrive.expect_tx
      ptx::mbarrier_init(&smem.empty[s], C::kConsumers * C::kWarpgroupThreads);  // every reader
    }
    ptx::fence_barrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<C::kProducerRegisters>();
    if (threadIdx.x == 0) {  // thread 0 of warpgroup 0
      produce<C>(smem, &map_q, &map_k, &map_v, &map_do, lse, delta, row0, n0, num_m);
    }
  } else {
    ptx::setmaxnreg_inc<C::kConsumerRegisters>();
    // The index in the warpgroup is taken after setmaxnreg: taken at entry, ptxas kept it in a
    // spilled register at d = 64 once every consumer thread arrived on `empty`.
    consume<C>(smem, &map_dq, dq_accum, dk, dv, row0, n0, num_m, scale, warpgroup - 1,
               static_cast<int>(threadIdx.x) % C::kWarpgroupThreads);
  }
}

// Δ[row] = Σ_d dO[row, d]·O[row, d] in fp32: four lanes a row, 16-byte loads.
template <int kHeadDim>
__global__ void delta_kernel(const bf16* o, const bf16* d_o, float* delta, int rows) {
  constexpr int kChunks = kHeadDim / 8;  // 16-byte chunks a row
  const int row = (static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x) / 4;
  const int part = threadIdx.x % 4;
  float acc = 0.f;
  if (row < rows) {
    const uint4* o_row = reinterpret_cast<const uint4*>(o + static_cast<int64_t>(row) * kHeadDim);
    const uint4* do_row =
        reinterpret_cast<const uint4*>(d_o + static_cast<int64_t>(row) * kHeadDim);
    for (int c = part; c < kChunks; c += 4) {
      const uint4 a = o_row[c], b = do_row[c];
      const uint32_t av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float2 fa = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&av[i]));
        const float2 fb = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bv[i]));
        acc += fa.x * fb.x + fa.y * fb.y;
      }
    }
  }
  acc += __shfl_xor_sync(0xffffffffu, acc, 1);
  acc += __shfl_xor_sync(0xffffffffu, acc, 2);
  if (row < rows && part == 0) delta[row] = acc;
}

// dQ = scale · workspace, fp32 -> bf16, four elements a thread.
__global__ void convert_dq_kernel(const float* dq_accum, bf16* dq, float scale, int64_t count4) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count4) return;
  const float4 v = reinterpret_cast<const float4*>(dq_accum)[i];
  uint2 out;
  out.x = ptx::pack_bf16x2(scale * v.x, scale * v.y);
  out.y = ptx::pack_bf16x2(scale * v.z, scale * v.w);
  reinterpret_cast<uint2*>(dq)[i] = out;
}

// ---------------------------------------------------------------------------------------------
// Host side.

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    TVM_FFI_THROW(RuntimeError) << what << ": " << cudaGetErrorString(status);
  }
}

// [rows, head_dim] as a TMA map with boxes of 128 bytes x box_rows, 128-byte swizzle, zero fill
// out of bounds (columns past d = 96). Built on every call from the actual pointer: a map cached
// by shape would keep pointing at the previous call's buffers.
inline CUtensorMap make_tensor_map(const void* base, CUtensorMapDataType type, uint32_t bytes,
                                   uint64_t head_dim, uint64_t rows, uint32_t box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {head_dim, rows};
  const cuuint64_t strides[1] = {head_dim * bytes};
  const cuuint32_t box[2] = {128 / bytes, box_rows};
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

inline void check_tensor(const tvm::ffi::TensorView& t, const char* name, int ndim, int code,
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
}

// Workspace from a pool of this file's own that keeps what is freed: after the first call an
// allocation maps nothing and costs nothing.
inline cudaMemPool_t workspace_pool(int device_id) {
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

template <int kHeadDim, bool kCausal>
void backward(tvm::ffi::TensorView q, tvm::ffi::TensorView k, tvm::ffi::TensorView v,
              tvm::ffi::TensorView o, tvm::ffi::TensorView d_o, tvm::ffi::TensorView lse,
              tvm::ffi::TensorView dq, tvm::ffi::TensorView dk, tvm::ffi::TensorView dv) {
  using C = Config<kHeadDim, kCausal>;
  static_assert(shared_memory_bytes<C>() <= 232448, "sm_90 opt-in shared memory per block");
  const int device_id = q.device().device_id;
  const std::pair<const tvm::ffi::TensorView*, const char*> bf16_tensors[] = {
      {&q, "Q"},    {&k, "K"},   {&v, "V"},   {&o, "O"},
      {&d_o, "dO"}, {&dq, "dQ"}, {&dk, "dK"}, {&dv, "dV"}};
  for (const auto& [t, name] : bf16_tensors) {
    check_tensor(*t, name, 4, kDLBfloat, 16, device_id);
    for (int i = 0; i < 4; ++i) {
      if (t->size(i) != q.size(i)) TVM_FFI_THROW(ValueError) << name << " must have Q's shape";
    }
  }
  // LSE: [B, H, S] fp32 (a trailing dimension of 1 is accepted: same memory).
  check_tensor(lse, "LSE", lse.ndim(), kDLFloat, 32, device_id);
  const int64_t batch_heads = q.size(0) * q.size(1), seq_len = q.size(2);
  if (lse.ndim() < 3 || lse.size(0) != q.size(0) || lse.size(1) != q.size(1) ||
      lse.size(2) != seq_len || lse.numel() != batch_heads * seq_len) {
    TVM_FFI_THROW(ValueError) << "LSE must be [B, H, S]";
  }
  if (q.size(3) != kHeadDim) TVM_FFI_THROW(ValueError) << "head dim must be " << kHeadDim;
  if (seq_len % C::kBlockN != 0) {
    TVM_FFI_THROW(ValueError) << "sequence length must be a multiple of " << C::kBlockN;
  }
  if (batch_heads * seq_len * kHeadDim >= (int64_t{1} << 31) || batch_heads > 65535) {
    TVM_FFI_THROW(ValueError) << "tensor too large for 32-bit row indices";
  }
  const int64_t rows = batch_heads * seq_len;
  if (rows == 0) return;

  const auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));
  // Workspace: Δ (fp32 [rows]) then the fp32 dQ accumulator ([rows, d]), both 256-aligned.
  const size_t delta_bytes = (static_cast<size_t>(rows) * 4 + 255) / 256 * 256;
  const size_t dq_bytes = static_cast<size_t>(rows) * kHeadDim * 4;
  void* workspace = nullptr;
  check_cuda(cudaMallocFromPoolAsync(&workspace, delta_bytes + dq_bytes, workspace_pool(device_id),
                                     stream),
             "cudaMallocFromPoolAsync");
  float* delta = static_cast<float*>(workspace);
  float* dq_accum = reinterpret_cast<float*>(static_cast<char*>(workspace) + delta_bytes);
  check_cuda(cudaMemsetAsync(dq_accum, 0, dq_bytes, stream), "cudaMemsetAsync");

  constexpr int kDeltaThreads = 256;
  delta_kernel<kHeadDim><<<static_cast<unsigned>((rows * 4 + kDeltaThreads - 1) / kDeltaThreads),
                           kDeltaThreads, 0, stream>>>(static_cast<const bf16*>(o.data_ptr()),
                                                       static_cast<const bf16*>(d_o.data_ptr()),
                                                       delta, static_cast<int>(rows));
  check_cuda(cudaGetLastError(), "launch delta_kernel");

  constexpr auto kBf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const CUtensorMap map_q = make_tensor_map(q.data_ptr(), kBf16, 2, kHeadDim, rows, C::kBlockM);
  const CUtensorMap map_k = make_tensor_map(k.data_ptr(), kBf16, 2, kHeadDim, rows, C::kBlockN);
  const CUtensorMap map_v = make_tensor_map(v.data_ptr(), kBf16, 2, kHeadDim, rows, C::kBlockN);
  const CUtensorMap map_do = make_tensor_map(d_o.data_ptr(), kBf16, 2, kHeadDim, rows, C::kBlockM);
  const CUtensorMap map_dq =
      make_tensor_map(dq_accum, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, kHeadDim, rows, 64);
  const float scale = 1.0f / sqrtf(static_cast<float>(kHeadDim));
  auto* kernel = mha_bwd_kernel<C>;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  shared_memory_bytes<C>()),
             "cudaFuncSetAttribute");
  const dim3 grid(static_cast<unsigned>(seq_len / C::kBlockN), static_cast<unsigned>(batch_heads));
  kernel<<<grid, C::kThreads, shared_memory_bytes<C>(), stream>>>(
      map_q, map_k, map_v, map_do, map_dq, static_cast<const float*>(lse.data_ptr()), delta,
      dq_accum, static_cast<bf16*>(dk.data_ptr()), static_cast<bf16*>(dv.data_ptr()),
      static_cast<int>(seq_len), scale);
  check_cuda(cudaGetLastError(), "launch mha_bwd_kernel");

  const int64_t count4 = rows * kHeadDim / 4;
  constexpr int kConvertThreads = 256;
  convert_dq_kernel<<<static_cast<unsigned>((count4 + kConvertThreads - 1) / kConvertThreads),
                      kConvertThreads, 0, stream>>>(dq_accum, static_cast<bf16*>(dq.data_ptr()),
                                                    scale, count4);
  check_cuda(cudaGetLastError(), "launch convert_dq_kernel");
  check_cuda(cudaFreeAsync(workspace, stream), "cudaFreeAsync");
}

}  // namespace mha_bwd
// ptx-end: mha_bwd
