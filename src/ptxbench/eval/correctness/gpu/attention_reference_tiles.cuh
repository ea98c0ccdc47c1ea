// Building blocks of the high-precision attention references: a block of 256 threads works on
// square tiles of kRows query rows and kRows key rows, with every operand in fp32 shared memory
// and every product and sum in fp32. Threads form a 16×16 grid (ty, tx); a thread owns the
// elements (ty + 16·a, tx + 16·b) of a tile, so neighbouring threads read neighbouring words.
// Rows are padded by one word: with an odd stride, the 16 rows a half-warp reads sit in 16
// different banks.
#pragma once
#include <cuda_bf16.h>

#include <cstdint>

namespace ptxbench::eval::correctness::gpu {

inline constexpr int kReferenceThreads = 256;
inline constexpr int kGridSide = 16;

// Square tiles: 64 rows, or 32 for head dimensions above 128 so that four [rows, D] tiles fit
// in shared memory.
template <int D>
inline constexpr int kRows = D > 128 ? 32 : 64;

template <int D>
struct TileShape {
  static constexpr int rows = kRows<D>;
  static constexpr int micro_rows = rows / kGridSide;  // rows of a tile a thread owns
  static constexpr int micro_cols = D / kGridSide;     // columns of a [rows, D] tile it owns
  static constexpr int wide_stride = D + 1;            // [rows, D] tiles
  static constexpr int square_stride = rows + 1;       // [rows, rows] tiles
  static constexpr int wide_words = rows * wide_stride;
  static constexpr int square_words = rows * square_stride;
  static_assert(rows % kGridSide == 0 && D % kGridSide == 0, "tiles split over the 16x16 grid");
};

struct ThreadPlace {
  int ty, tx;
};

__device__ inline ThreadPlace thread_place() {
  return {static_cast<int>(threadIdx.x) / kGridSide, static_cast<int>(threadIdx.x) % kGridSide};
}

// Rows [row0, row0 + rows) of a row-major [length, D] bf16 matrix into a padded fp32 tile;
// rows at or past `length` become zeros.
template <int D>
__device__ void load_rows(float* tile, const __nv_bfloat16* matrix, std::int64_t row0,
                          std::int64_t length) {
  using Shape = TileShape<D>;
  for (int index = threadIdx.x; index < Shape::rows * D; index += kReferenceThreads) {
    int r = index / D, c = index % D;
    std::int64_t row = row0 + r;
    tile[r * Shape::wide_stride + c] = row < length ? __bfloat162float(matrix[row * D + c]) : 0.0f;
  }
}

// The thread's entries of A·Bᵀ for two [rows, D] tiles: out[a][b] = Σ_d A[ty+16a][d]·B[tx+16b][d].
template <int D>
__device__ void tile_dot(const float* a_tile, const float* b_tile,
                         float (&out)[TileShape<D>::micro_rows][TileShape<D>::micro_rows]) {
  using Shape = TileShape<D>;
  constexpr int m = Shape::micro_rows;
  ThreadPlace p = thread_place();
#pragma unroll
  for (int a = 0; a < m; ++a)
#pragma unroll
    for (int b = 0; b < m; ++b) out[a][b] = 0.0f;
#pragma unroll 4
  for (int d = 0; d < D; ++d) {
    float av[m], bv[m];
#pragma unroll
    for (int a = 0; a < m; ++a) av[a] = a_tile[(p.ty + kGridSide * a) * Shape::wide_stride + d];
#pragma unroll
    for (int b = 0; b < m; ++b) bv[b] = b_tile[(p.tx + kGridSide * b) * Shape::wide_stride + d];
#pragma unroll
    for (int a = 0; a < m; ++a)
#pragma unroll
      for (int b = 0; b < m; ++b) out[a][b] = fmaf(av[a], bv[b], out[a][b]);
  }
}

// acc[a][c] += Σ_j M[ty+16a][j] · X[j][tx+16c]   (M a square tile, X a [rows, D] tile)
template <int D>
__device__ void tile_multiply_add(
    const float* m_tile, const float* x_tile,
    float (&acc)[TileShape<D>::micro_rows][TileShape<D>::micro_cols]) {
  using Shape = TileShape<D>;
  ThreadPlace p = thread_place();
  for (int j = 0; j < Shape::rows; ++j) {
    float xv[Shape::micro_cols];
#pragma unroll
    for (int c = 0; c < Shape::micro_cols; ++c)
      xv[c] = x_tile[j * Shape::wide_stride + p.tx + kGridSide * c];
#pragma unroll
    for (int a = 0; a < Shape::micro_rows; ++a) {
      float mv = m_tile[(p.ty + kGridSide * a) * Shape::square_stride + j];
#pragma unroll
      for (int c = 0; c < Shape::micro_cols; ++c) acc[a][c] = fmaf(mv, xv[c], acc[a][c]);
    }
  }
}

// acc[a][c] += Σ_i M[i][ty+16a] · X[i][tx+16c]   (Mᵀ·X)
template <int D>
__device__ void tile_transpose_multiply_add(
    const float* m_tile, const float* x_tile,
    float (&acc)[TileShape<D>::micro_rows][TileShape<D>::micro_cols]) {
  using Shape = TileShape<D>;
  ThreadPlace p = thread_place();
  for (int i = 0; i < Shape::rows; ++i) {
    float xv[Shape::micro_cols];
#pragma unroll
    for (int c = 0; c < Shape::micro_cols; ++c)
      xv[c] = x_tile[i * Shape::wide_stride + p.tx + kGridSide * c];
#pragma unroll
    for (int a = 0; a < Shape::micro_rows; ++a) {
      float mv = m_tile[i * Shape::square_stride + p.ty + kGridSide * a];
#pragma unroll
      for (int c = 0; c < Shape::micro_cols; ++c) acc[a][c] = fmaf(mv, xv[c], acc[a][c]);
    }
  }
}

// Whether score (query i, key j) takes part: inside both lengths and, when causal, j <= i
// (the top-left aligned mask of the tasks and of cuDNN).
__device__ inline bool score_visible(std::int64_t i, std::int64_t j, std::int64_t q_len,
                                     std::int64_t kv_len, bool causal) {
  return i < q_len && j < kv_len && (!causal || j <= i);
}

}  // namespace ptxbench::eval::correctness::gpu
