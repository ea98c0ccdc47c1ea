#include <cmath>

#include "ptxbench/eval/correctness/gpu/decode_reference.hpp"
#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_buffer.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::correctness::gpu {
namespace {

constexpr int kThreads = 256;

// The valid length of sequence b, clamped to [0, S] so that a damaged KV_LEN cannot make the
// reference read outside K and V (the trusted side derives it, so this never bites in a verdict).
__device__ inline std::int64_t valid_length(const std::int32_t* kv_len, std::int64_t b,
                                            std::int64_t capacity) {
  const std::int64_t length = kv_len[b];
  return length < 0 ? 0 : (length > capacity ? capacity : length);
}

__device__ double block_reduce(double value, double* shared, bool take_max) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const double other = __shfl_down_sync(0xffffffffu, value, offset);
    value = take_max ? fmax(value, other) : value + other;
  }
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  __syncthreads();  // `shared` may still be read from the previous reduction
  if (lane == 0) shared[warp] = value;
  __syncthreads();
  double result = shared[0];
  for (int w = 1; w < kThreads / 32; ++w)
    result = take_max ? fmax(result, shared[w]) : result + shared[w];
  return result;
}

// One block per (b, h). Pass 1: every score in fp64 into `scores` and the maximum; pass 2:
// p_j = exp(score_j − max) in place and their sum; pass 3: O[d] = Σ_j p_j · V[j, d] / sum, one
// thread per d for coalesced reads of V rows.
__global__ void __launch_bounds__(kThreads)
    decode_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                  const std::int32_t* kv_len, float* o, float* lse, double* scores,
                  DecodeDims dims) {
  __shared__ double partial[kThreads / 32];
  const std::int64_t row = blockIdx.x;  // b·H + h
  const std::int64_t b = row / dims.q_heads, h = row % dims.q_heads;
  const std::int64_t g = b * dims.kv_heads + h / (dims.q_heads / dims.kv_heads);
  const std::int64_t length = valid_length(kv_len, b, dims.capacity);
  const std::int64_t d_count = dims.head_dim;
  const __nv_bfloat16* q_row = q + row * d_count;
  const __nv_bfloat16* k_head = k + g * dims.capacity * d_count;
  const __nv_bfloat16* v_head = v + g * dims.capacity * d_count;
  double* row_scores = scores + row * dims.capacity;

  double local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < length; j += kThreads) {
    double dot = 0;
    for (std::int64_t d = 0; d < d_count; ++d) {
      dot += static_cast<double>(__bfloat162float(q_row[d])) *
             static_cast<double>(__bfloat162float(k_head[j * d_count + d]));
    }
    const double score = static_cast<double>(dims.scale) * dot;
    row_scores[j] = score;
    local_max = fmax(local_max, score);
  }
  const double max = block_reduce(local_max, partial, true);
  double local_sum = 0;
  for (std::int64_t j = threadIdx.x; j < length; j += kThreads) {
    row_scores[j] = exp(row_scores[j] - max);  // the unnormalised probability from here on
    local_sum += row_scores[j];
  }
  const double sum = block_reduce(local_sum, partial, false);
  __syncthreads();  // every score is written before pass 3 reads them across threads
  for (std::int64_t d = threadIdx.x; d < d_count; d += kThreads) {
    double acc = 0;
    for (std::int64_t j = 0; j < length; ++j) {
      acc += row_scores[j] * static_cast<double>(__bfloat162float(v_head[j * d_count + d]));
    }
    // A sequence of length 0 (never derived, but possible in a hand-made job) has no softmax.
    o[row * d_count + d] = length > 0 ? static_cast<float>(acc / sum) : NAN;
  }
  if (threadIdx.x == 0) lse[row] = length > 0 ? static_cast<float>(max + log(sum)) : -INFINITY;
}

}  // namespace

void decode_reference(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const std::int32_t* kv_len, float* o, float* lse, const DecodeDims& dims,
                      cudaStream_t stream) {
  const std::int64_t rows = dims.batch * dims.q_heads;
  if (rows == 0) return;
  PTXBENCH_CHECK(dims.kv_heads > 0 && dims.q_heads % dims.kv_heads == 0,
                 "decode reference: HKV must divide H");
  PTXBENCH_CHECK(rows <= 0x7fffffff, "decode reference: too many query rows for the grid");
  eval::gpu::DeviceBuffer scores(static_cast<std::size_t>(rows * dims.capacity) * sizeof(double));
  decode_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(q, k, v, kv_len, o, lse,
                                                                      scores.as<double>(), dims);
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
  // The scratch is freed when this returns: cudaFree waits for the kernel that uses it.
}

}  // namespace ptxbench::eval::correctness::gpu
