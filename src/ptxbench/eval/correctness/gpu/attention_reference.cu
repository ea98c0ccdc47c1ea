#include <cmath>

#include "ptxbench/eval/correctness/gpu/attention_reference.hpp"
#include "ptxbench/eval/correctness/gpu/attention_reference_tiles.cuh"
#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_buffer.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::correctness::gpu {
namespace {

struct HeadOffsets {
  std::int64_t q_head;   // b·Hq + h
  std::int64_t kv_head;  // b·Hkv + h / (Hq / Hkv)
};

__device__ inline HeadOffsets head_offsets(std::int64_t q_head, const AttentionDims& dims) {
  std::int64_t b = q_head / dims.q_heads, h = q_head % dims.q_heads;
  return {q_head, b * dims.kv_heads + h / (dims.q_heads / dims.kv_heads)};
}

// One block per (query tile, batch·head): the online softmax of FlashAttention, all in fp32.
// Per key tile: scores to shared memory, then one thread per row takes the new running
// maximum, rescales its running sum, and turns its scores into P; then every thread rescales
// its share of the running output and adds P·V.
template <int D>
__global__ void __launch_bounds__(kReferenceThreads)
    forward_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, float* o,
                   float* lse, AttentionDims dims) {
  using Shape = TileShape<D>;
  extern __shared__ float shared[];
  float* q_tile = shared;
  float* k_tile = q_tile + Shape::wide_words;
  float* v_tile = k_tile + Shape::wide_words;
  float* p_tile = v_tile + Shape::wide_words;
  float* row_max = p_tile + Shape::square_words;
  float* row_sum = row_max + Shape::rows;
  float* row_rescale = row_sum + Shape::rows;

  HeadOffsets head = head_offsets(blockIdx.y, dims);
  const std::int64_t q0 = std::int64_t{blockIdx.x} * Shape::rows;
  const __nv_bfloat16* q_head = q + head.q_head * dims.q_len * D;
  const __nv_bfloat16* k_head = k + head.kv_head * dims.kv_len * D;
  const __nv_bfloat16* v_head = v + head.kv_head * dims.kv_len * D;
  ThreadPlace p = thread_place();

  load_rows<D>(q_tile, q_head, q0, dims.q_len);
  if (static_cast<int>(threadIdx.x) < Shape::rows) {
    row_max[threadIdx.x] = -INFINITY;
    row_sum[threadIdx.x] = 0.0f;
  }
  float acc[Shape::micro_rows][Shape::micro_cols] = {};
  std::int64_t key_end = dims.kv_len;
  if (dims.causal && q0 + Shape::rows < key_end)
    key_end = q0 + Shape::rows;  // later keys are masked for all

  for (std::int64_t k0 = 0; k0 < key_end; k0 += Shape::rows) {
    __syncthreads();  // the previous tile's P and V are consumed
    load_rows<D>(k_tile, k_head, k0, dims.kv_len);
    load_rows<D>(v_tile, v_head, k0, dims.kv_len);
    __syncthreads();
    float scores[Shape::micro_rows][Shape::micro_rows];
    tile_dot<D>(q_tile, k_tile, scores);
#pragma unroll
    for (int a = 0; a < Shape::micro_rows; ++a) {
#pragma unroll
      for (int b = 0; b < Shape::micro_rows; ++b) {
        int r = p.ty + kGridSide * a, c = p.tx + kGridSide * b;
        bool visible = score_visible(q0 + r, k0 + c, dims.q_len, dims.kv_len, dims.causal);
        p_tile[r * Shape::square_stride + c] = visible ? dims.scale * scores[a][b] : -INFINITY;
      }
    }
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < Shape::rows) {
      float* row = p_tile + threadIdx.x * Shape::square_stride;
      float old_max = row_max[threadIdx.x], new_max = old_max;
      for (int c = 0; c < Shape::rows; ++c) new_max = fmaxf(new_max, row[c]);
      // A row with no visible key so far keeps max -inf, sum 0 and P 0.
      bool empty = new_max == -INFINITY;
      float rescale = empty ? 1.0f : expf(old_max - new_max);
      float sum = 0.0f;
      for (int c = 0; c < Shape::rows; ++c) {
        float prob = empty ? 0.0f : expf(row[c] - new_max);
        row[c] = prob;
        sum += prob;
      }
      row_sum[threadIdx.x] = row_sum[threadIdx.x] * rescale + sum;
      row_max[threadIdx.x] = new_max;
      row_rescale[threadIdx.x] = rescale;
    }
    __syncthreads();
#pragma unroll
    for (int a = 0; a < Shape::micro_rows; ++a) {
      float rescale = row_rescale[p.ty + kGridSide * a];
#pragma unroll
      for (int c = 0; c < Shape::micro_cols; ++c) acc[a][c] *= rescale;
    }
    tile_multiply_add<D>(p_tile, v_tile, acc);
  }
  __syncthreads();
#pragma unroll
  for (int a = 0; a < Shape::micro_rows; ++a) {
    int r = p.ty + kGridSide * a;
    std::int64_t i = q0 + r;
    if (i >= dims.q_len) continue;
    float sum = row_sum[r];
#pragma unroll
    for (int c = 0; c < Shape::micro_cols; ++c) {
      o[(head.q_head * dims.q_len + i) * D + p.tx + kGridSide * c] = acc[a][c] / sum;
    }
  }
  if (static_cast<int>(threadIdx.x) < Shape::rows && q0 + threadIdx.x < dims.q_len) {
    double log_sum =
        static_cast<double>(row_max[threadIdx.x]) + log(static_cast<double>(row_sum[threadIdx.x]));
    lse[head.q_head * dims.q_len + q0 + threadIdx.x] = static_cast<float>(log_sum);
  }
}

// Δ[row] = Σ_d dO[row, d] · O[row, d], one warp per row, in fp64.
__global__ void delta_kernel(const __nv_bfloat16* o, const __nv_bfloat16* d_o, float* delta,
                             std::int64_t rows, int head_dim) {
  std::int64_t row = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  double sum = 0;
  for (int d = lane; d < head_dim; d += 32) {
    sum += static_cast<double>(__bfloat162float(o[row * head_dim + d])) *
           static_cast<double>(__bfloat162float(d_o[row * head_dim + d]));
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) delta[row] = static_cast<float>(sum);
}

// P and dS for the tile pair (queries q0.., keys k0..) into shared memory:
//   p_tile[r][c] = P(q0 + r, k0 + c), ds_tile[r][c] = P · (dO_r · v_c − Δ_r); 0 where masked.
template <int D>
__device__ void probabilities_and_score_gradients(const float* q_tile, const float* do_tile,
                                                  const float* k_tile, const float* v_tile,
                                                  const float* lse_rows, const float* delta_rows,
                                                  float* p_tile, float* ds_tile, std::int64_t q0,
                                                  std::int64_t k0, const AttentionDims& dims) {
  using Shape = TileShape<D>;
  ThreadPlace p = thread_place();
  float scores[Shape::micro_rows][Shape::micro_rows];
  float d_probs[Shape::micro_rows][Shape::micro_rows];
  tile_dot<D>(q_tile, k_tile, scores);
  tile_dot<D>(do_tile, v_tile, d_probs);
#pragma unroll
  for (int a = 0; a < Shape::micro_rows; ++a) {
#pragma unroll
    for (int b = 0; b < Shape::micro_rows; ++b) {
      int r = p.ty + kGridSide * a, c = p.tx + kGridSide * b;
      bool visible = score_visible(q0 + r, k0 + c, dims.q_len, dims.kv_len, dims.causal);
      float prob = visible ? expf(dims.scale * scores[a][b] - lse_rows[r]) : 0.0f;
      p_tile[r * Shape::square_stride + c] = prob;
      ds_tile[r * Shape::square_stride + c] = prob * (d_probs[a][b] - delta_rows[r]);
    }
  }
}

template <int D>
struct BackwardTiles {
  float* q;
  float* d_o;
  float* k;
  float* v;
  float* p;
  float* ds;
  float* lse;
  float* delta;

  __device__ explicit BackwardTiles(float* shared) {
    using Shape = TileShape<D>;
    q = shared;
    d_o = q + Shape::wide_words;
    k = d_o + Shape::wide_words;
    v = k + Shape::wide_words;
    p = v + Shape::wide_words;
    ds = p + Shape::square_words;
    lse = ds + Shape::square_words;
    delta = lse + Shape::rows;
  }
  static constexpr std::size_t bytes() {
    using Shape = TileShape<D>;
    return sizeof(float) * (4 * Shape::wide_words + 2 * Shape::square_words + 2 * Shape::rows);
  }
};

template <int D>
__device__ void load_query_side(BackwardTiles<D>& tiles, const __nv_bfloat16* q_head,
                                const __nv_bfloat16* do_head, const float* lse_head,
                                const float* delta_head, std::int64_t q0, std::int64_t q_len) {
  load_rows<D>(tiles.q, q_head, q0, q_len);
  load_rows<D>(tiles.d_o, do_head, q0, q_len);
  if (static_cast<int>(threadIdx.x) < TileShape<D>::rows) {
    std::int64_t i = q0 + threadIdx.x;
    tiles.lse[threadIdx.x] = i < q_len ? lse_head[i] : 0.0f;
    tiles.delta[threadIdx.x] = i < q_len ? delta_head[i] : 0.0f;
  }
}

// One block per (query tile, batch·head): dQ = scale · Σ over key tiles of dS·K.
template <int D>
__global__ void __launch_bounds__(kReferenceThreads)
    dq_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
              const __nv_bfloat16* d_o, const float* lse, const float* delta, float* dq,
              AttentionDims dims) {
  using Shape = TileShape<D>;
  extern __shared__ float shared[];
  BackwardTiles<D> tiles(shared);
  HeadOffsets head = head_offsets(blockIdx.y, dims);
  const std::int64_t q0 = std::int64_t{blockIdx.x} * Shape::rows;
  const __nv_bfloat16* k_head = k + head.kv_head * dims.kv_len * D;
  const __nv_bfloat16* v_head = v + head.kv_head * dims.kv_len * D;
  load_query_side<D>(tiles, q + head.q_head * dims.q_len * D, d_o + head.q_head * dims.q_len * D,
                     lse + head.q_head * dims.q_len, delta + head.q_head * dims.q_len, q0,
                     dims.q_len);
  float acc[Shape::micro_rows][Shape::micro_cols] = {};
  std::int64_t key_end = dims.kv_len;
  if (dims.causal && q0 + Shape::rows < key_end) key_end = q0 + Shape::rows;
  for (std::int64_t k0 = 0; k0 < key_end; k0 += Shape::rows) {
    __syncthreads();
    load_rows<D>(tiles.k, k_head, k0, dims.kv_len);
    load_rows<D>(tiles.v, v_head, k0, dims.kv_len);
    __syncthreads();
    probabilities_and_score_gradients<D>(tiles.q, tiles.d_o, tiles.k, tiles.v, tiles.lse,
                                         tiles.delta, tiles.p, tiles.ds, q0, k0, dims);
    __syncthreads();
    tile_multiply_add<D>(tiles.ds, tiles.k, acc);
  }
  ThreadPlace p = thread_place();
#pragma unroll
  for (int a = 0; a < Shape::micro_rows; ++a) {
    std::int64_t i = q0 + p.ty + kGridSide * a;
    if (i >= dims.q_len) continue;
#pragma unroll
    for (int c = 0; c < Shape::micro_cols; ++c)
      dq[(head.q_head * dims.q_len + i) * D + p.tx + kGridSide * c] = dims.scale * acc[a][c];
  }
}

// One block per (key tile, batch·kv head): dV = Σ Pᵀ·dO and dK = scale · Σ dSᵀ·Q over the
// query heads that share this kv head and over their query tiles.
template <int D>
__global__ void __launch_bounds__(kReferenceThreads)
    dkdv_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                const __nv_bfloat16* d_o, const float* lse, const float* delta, float* dk,
                float* dv, AttentionDims dims) {
  using Shape = TileShape<D>;
  extern __shared__ float shared[];
  BackwardTiles<D> tiles(shared);
  const std::int64_t kv_head = blockIdx.y;
  const std::int64_t b = kv_head / dims.kv_heads, hk = kv_head % dims.kv_heads;
  const std::int64_t group = dims.q_heads / dims.kv_heads;
  const std::int64_t k0 = std::int64_t{blockIdx.x} * Shape::rows;
  load_rows<D>(tiles.k, k + kv_head * dims.kv_len * D, k0, dims.kv_len);
  load_rows<D>(tiles.v, v + kv_head * dims.kv_len * D, k0, dims.kv_len);
  float acc_dk[Shape::micro_rows][Shape::micro_cols] = {};
  float acc_dv[Shape::micro_rows][Shape::micro_cols] = {};
  // Causal: queries before k0 see none of these keys; tiles are square, so start at k0.
  const std::int64_t query_begin = dims.causal ? k0 : 0;
  for (std::int64_t g = 0; g < group; ++g) {
    const std::int64_t q_head = b * dims.q_heads + hk * group + g;
    for (std::int64_t q0 = query_begin; q0 < dims.q_len; q0 += Shape::rows) {
      __syncthreads();
      load_query_side<D>(tiles, q + q_head * dims.q_len * D, d_o + q_head * dims.q_len * D,
                         lse + q_head * dims.q_len, delta + q_head * dims.q_len, q0, dims.q_len);
      __syncthreads();
      probabilities_and_score_gradients<D>(tiles.q, tiles.d_o, tiles.k, tiles.v, tiles.lse,
                                           tiles.delta, tiles.p, tiles.ds, q0, k0, dims);
      __syncthreads();
      tile_transpose_multiply_add<D>(tiles.p, tiles.d_o, acc_dv);
      tile_transpose_multiply_add<D>(tiles.ds, tiles.q, acc_dk);
    }
  }
  ThreadPlace p = thread_place();
#pragma unroll
  for (int a = 0; a < Shape::micro_rows; ++a) {
    std::int64_t j = k0 + p.ty + kGridSide * a;
    if (j >= dims.kv_len) continue;
#pragma unroll
    for (int c = 0; c < Shape::micro_cols; ++c) {
      std::int64_t index = (kv_head * dims.kv_len + j) * D + p.tx + kGridSide * c;
      dk[index] = dims.scale * acc_dk[a][c];
      dv[index] = acc_dv[a][c];
    }
  }
}

constexpr std::size_t forward_shared_bytes(int rows, int wide_words, int square_words) {
  return sizeof(float) * (3 * static_cast<std::size_t>(wide_words) + square_words + 3 * rows);
}

dim3 tile_grid(std::int64_t length, int rows, std::int64_t heads) {
  PTXBENCH_CHECK(heads <= 65535, "too many heads for the grid's y dimension");
  return dim3(static_cast<unsigned>((length + rows - 1) / rows), static_cast<unsigned>(heads));
}

template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  PTXBENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
}

template <int D>
void launch_forward(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                    float* o, float* lse, const AttentionDims& dims, cudaStream_t stream) {
  using Shape = TileShape<D>;
  std::size_t bytes = forward_shared_bytes(Shape::rows, Shape::wide_words, Shape::square_words);
  allow_shared(forward_kernel<D>, bytes);
  forward_kernel<D><<<tile_grid(dims.q_len, Shape::rows, dims.batch * dims.q_heads),
                      kReferenceThreads, bytes, stream>>>(q, k, v, o, lse, dims);
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
}

template <int D>
void launch_backward(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                     const __nv_bfloat16* d_o, const float* lse, const float* delta, float* dq,
                     float* dk, float* dv, const AttentionDims& dims, cudaStream_t stream) {
  using Shape = TileShape<D>;
  std::size_t bytes = BackwardTiles<D>::bytes();
  allow_shared(dq_kernel<D>, bytes);
  allow_shared(dkdv_kernel<D>, bytes);
  dq_kernel<D><<<tile_grid(dims.q_len, Shape::rows, dims.batch * dims.q_heads), kReferenceThreads,
                 bytes, stream>>>(q, k, v, d_o, lse, delta, dq, dims);
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
  dkdv_kernel<D><<<tile_grid(dims.kv_len, Shape::rows, dims.batch * dims.kv_heads),
                   kReferenceThreads, bytes, stream>>>(q, k, v, d_o, lse, delta, dk, dv, dims);
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
}

void check_dims(const AttentionDims& dims) {
  PTXBENCH_CHECK(attention_reference_supports(dims.head_dim), "unsupported head dimension");
  PTXBENCH_CHECK(dims.kv_heads > 0 && dims.q_heads % dims.kv_heads == 0,
                 "kv heads must divide query heads");
}

}  // namespace

bool attention_reference_supports(int head_dim) {
  return head_dim == 64 || head_dim == 96 || head_dim == 128 || head_dim == 256;
}

void attention_forward_reference(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                 const __nv_bfloat16* v, float* o, float* lse,
                                 const AttentionDims& dims, cudaStream_t stream) {
  check_dims(dims);
  if (dims.batch * dims.q_heads * dims.q_len == 0) return;
  switch (dims.head_dim) {
    case 64:
      return launch_forward<64>(q, k, v, o, lse, dims, stream);
    case 96:
      return launch_forward<96>(q, k, v, o, lse, dims, stream);
    case 128:
      return launch_forward<128>(q, k, v, o, lse, dims, stream);
    default:
      return launch_forward<256>(q, k, v, o, lse, dims, stream);
  }
}

void attention_backward_reference(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, const __nv_bfloat16* o,
                                  const __nv_bfloat16* d_o, const float* lse, float* dq, float* dk,
                                  float* dv, const AttentionDims& dims, cudaStream_t stream) {
  check_dims(dims);
  const std::int64_t rows = dims.batch * dims.q_heads * dims.q_len;
  if (rows == 0 || dims.kv_len == 0) return;
  // Freed at return: cudaFree waits for the kernels below to finish with it.
  eval::gpu::DeviceBuffer delta(static_cast<std::size_t>(rows) * sizeof(float));
  constexpr int kRowsPerBlock = kReferenceThreads / 32;
  delta_kernel<<<static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock),
                 kReferenceThreads, 0, stream>>>(o, d_o, delta.as<float>(), rows, dims.head_dim);
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
  const float* delta_rows = delta.as<float>();
  switch (dims.head_dim) {
    case 64:
      return launch_backward<64>(q, k, v, d_o, lse, delta_rows, dq, dk, dv, dims, stream);
    case 96:
      return launch_backward<96>(q, k, v, d_o, lse, delta_rows, dq, dk, dv, dims, stream);
    case 128:
      return launch_backward<128>(q, k, v, d_o, lse, delta_rows, dq, dk, dv, dims, stream);
    default:
      return launch_backward<256>(q, k, v, d_o, lse, delta_rows, dq, dk, dv, dims, stream);
  }
}

}  // namespace ptxbench::eval::correctness::gpu
