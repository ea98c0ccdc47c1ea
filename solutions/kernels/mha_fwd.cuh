// mha_fwd: the attention forward with LSE shared by the eight mha_fwd_lse_d{64,96,128,256}[_causal]
// expert solutions, templated on head dimension and causality. Each solution file embeds this
// block verbatim (after the PTX wrapper blocks it uses) and instantiates it in its run(); this file
// is the single source of truth and tests/solutions checks every copy against it.
// docs/expert-attention.md explains the design.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "../ptx/mbarrier.cuh"
#include "../ptx/fence.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "../ptx/wgmma_extra.cuh"
#include "../ptx/setmaxnreg.cuh"
#include "../ptx/stmatrix.cuh"

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
